"""A run stopped at any write of the session's state ends, after the visitor's next run, as a run not stopped.

Streamlit stops a running script at its next touch of the session's state when a newer request of the same
visitor has come (explorer.ui.state), and the write it stops at is not made. Each flow here is run once
whole, then again stopped at its 1st, 2nd, ... write (tests.app.fixtures.StopAtWrite), followed by the run the
newer request brings: no error, and every key a view or a link sets holds what the whole run left.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from streamlit.runtime.state.safe_session_state import SafeSessionState
from streamlit.testing.v1 import AppTest

from explorer.ui.layer_choice import WIDGET
from tests.app.fixtures import ROOT, TIMEOUT, StopAtWrite, view_of

LINK = {"sentence": "A dog ran.", "d_model": "16", "heads": "4", "d_k": "2", "mask": "causal", "h": "2",
        "q": "1", "k": "2", "present": "1", "step": "softmax", "ask": "1"}  # fmt: skip


def opened(**query: str) -> Callable[[], AppTest]:
    def make() -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
        for k, v in query.items():
            at.query_params[k] = v
        return at

    return make


def ready(**query: str) -> Callable[[], AppTest]:
    """A tab that has run once already (the flow is its next run)."""

    def make() -> AppTest:
        at = opened(**query)()
        at.run()
        assert not at.exception, at.exception
        return at

    return make


def writes(monkeypatch: pytest.MonkeyPatch, at: AppTest, act: Callable[[AppTest], object]) -> int:
    """How many writes of the session's state the flow's run makes."""
    n = [0]
    real = SafeSessionState.__setitem__

    def counting(state: SafeSessionState, key: str, value: object) -> None:
        n[0] += not key.startswith("$$")
        real(state, key, value)

    with monkeypatch.context() as m:
        m.setattr(SafeSessionState, "__setitem__", counting)
        act(at)
    return n[0]


def sweep(
    monkeypatch: pytest.MonkeyPatch,
    make: Callable[[], AppTest],
    act: Callable[[AppTest], object],
    or_none: bool | Callable[[AppTest], bool] = False,
) -> None:
    """`or_none`: the flow is a click's callback, which Streamlit does not call again once a run stopped in it
    (the click is gone): then the state is either the whole change or none of it, as before the click (and,
    given a check, one that still holds then: the click can be made again)."""
    whole = make()
    before = view_of(whole)
    n = writes(monkeypatch, whole, act)
    whole.run()
    want = view_of(whole)
    assert n > 5
    wrong = []
    for k in range(1, n + 1):
        at = make()
        with monkeypatch.context() as m:
            stop = StopAtWrite(m)
            stop.arm(k)
            act(at)
        at.run()  # the newer request's run
        got = view_of(at)
        none = bool(or_none) and got == before and (or_none is True or or_none(at))  # type: ignore[operator]
        if at.exception or (got != want and not none):
            wrong.append((k, [e.value for e in at.exception][:1], {x: (got.get(x), want.get(x)) for x in want
                                                                   if got.get(x) != want.get(x)}))  # fmt: skip
    assert not wrong, "; ".join(f"{k}: {e} {sorted(d)[:3]}" for k, e, d in wrong)


def test_a_link_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    sweep(monkeypatch, opened(**LINK), lambda at: at.run())


@pytest.mark.parametrize("sentence", ["The dog ran home.", "Dogs."])  # longer, then shorter
def test_a_new_sentence(monkeypatch: pytest.MonkeyPatch, sentence: str) -> None:
    sweep(monkeypatch, ready(**LINK), lambda at: at.text_input(key="sentence").set_value(sentence).run())


def test_the_trained_model_opened_from_the_first_page(monkeypatch: pytest.MonkeyPatch) -> None:
    sweep(monkeypatch, ready(), lambda at: at.button(key="weights-note.l2").click().run(), or_none=True)


def test_the_toy_back_from_a_trained_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    def opened_layer() -> AppTest:
        at = ready()()
        at.button(key="weights-note.l2").click().run()
        assert at.session_state["explorer.real"] != "toy"
        return at

    sweep(
        monkeypatch,
        opened_layer,
        lambda at: at.sidebar.selectbox(key=WIDGET).set_value("toy:0").run(),
        or_none=True,
    )


def test_a_preset_loaded_and_undone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The picker names the preset on screen: a pick stopped before its example was recorded leaves the picker
    on what is loaded (the pick is undone on screen), not on a preset whose note would describe another
    example; and undo, stopped anywhere, brings the example back whole or not at all."""

    def pick(at: AppTest) -> None:
        at.sidebar.selectbox(key="ui.preset").set_value("its-snowing").run()

    sweep(monkeypatch, ready(), pick, or_none=True)

    def picked() -> AppTest:
        at = ready()()
        pick(at)
        assert at.session_state["sentence"] != ready()().session_state["sentence"]
        return at

    def can_undo(at: AppTest) -> bool:
        return at.session_state["m.undo"] is not None  # not undone: undo is still there to press

    sweep(monkeypatch, picked, lambda at: at.button(key="frame.undo").click().run(), or_none=can_undo)
