"""explorer/ui/state.py (through AppTest runs) and explorer/model/example.py's conform: edits survive.

Changing page, the sentence, or rerunning keeps every edited matrix; changing d_model, d_k or the
number of heads keeps the values that still fit and fills only the new cells (with the seeded defaults).
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from streamlit.testing.v1 import AppTest

from explorer.model.example import (
    MATRIX_NAMES,
    Example,
    conform,
    default_matrices,
    expected_shapes,
    tokens_of,
)
from explorer.ui import state
from tests.app.fixtures import StopAtWrite

# ------------------------------------------------------------------------------------------- conform


def _default(**settings: object) -> dict[str, np.ndarray]:
    ex = Example(**settings)
    return default_matrices(ex, tokens_of(ex.sentence)[0])


def test_conform_fills_every_matrix_with_the_seeded_defaults() -> None:
    ex = conform(Example())
    n = len(tokens_of(ex.sentence)[0])
    want = _default()
    for name, shape in expected_shapes(ex, n).items():
        got = getattr(ex, name)
        assert got.shape == shape, name
        assert_array_equal(got, want[name], err_msg=name)
    assert conform(ex) is ex  # nothing to do: the same object back


@pytest.mark.parametrize(
    ("change", "name", "kept"),
    [
        ({"d_k": 6}, "w_q", (slice(None), slice(None), slice(0, 4))),
        ({"d_k": 2}, "w_k", (slice(None), slice(None), slice(0, 2))),
        ({"d_model": 11}, "w_v", (slice(None), slice(0, 8), slice(None))),
        ({"n_heads": 3}, "w_q", (slice(0, 2),)),
        ({"n_heads": 1}, "w_q", (slice(0, 1),)),
        ({"d_ff": 20}, "w1", (slice(None), slice(0, 16))),
    ],
)
def test_conform_keeps_the_overlap_and_seeds_new_cells(change: dict, name: str, kept: tuple) -> None:
    ex = conform(Example())
    edited = getattr(ex, name) + 10.0  # every cell edited, so a reseeded cell cannot pass for a kept one
    out = conform(ex.with_(**{name: edited}, **change))
    got = getattr(out, name)
    assert got.shape == expected_shapes(out, len(tokens_of(out.sentence)[0]))[name]
    assert_array_equal(got[kept], edited[kept])
    fresh = np.ones(got.shape, dtype=bool)
    fresh[kept] = False
    assert_array_equal(got[fresh], _default(**change)[name][fresh])  # only the new cells take the defaults


def test_conform_other_matrices_untouched_by_a_size_change_they_do_not_depend_on() -> None:
    ex = conform(Example())
    w1 = ex.w1 + 1.0
    out = conform(ex.with_(w1=w1, d_k=5))
    assert_array_equal(out.w1, w1)


def test_conform_embedding_rows_follow_their_words() -> None:
    old_sentence, new_sentence = "the cat sat", "a cat sat the"
    ex = conform(Example(sentence=old_sentence, emb_source="table"))
    emb = ex.emb + np.arange(3)[:, None] * 100.0  # rows easy to tell apart: the 0, cat 1, sat 2
    out = conform(ex.with_(emb=emb, sentence=new_sentence), old_tokens=["the", "cat", "sat"])
    assert out.emb.shape == (4, 8)
    assert_array_equal(out.emb[1], emb[1])  # cat stays at position 1
    assert_array_equal(out.emb[2], emb[2])  # sat stays at position 2
    assert_array_equal(out.emb[3], emb[0])  # "the" moved from 0 to 3: its row follows it
    assert_array_equal(out.emb[0], _default(sentence=new_sentence)["emb"][0])  # "a" is new: seeded


def test_conform_per_position_matrices_keep_positions() -> None:
    ex = conform(Example(sentence="a b c", pe_kind="learned", mask_kind="custom"))
    pe = ex.pe_table + 5.0
    mask = np.array([[True, False, False], [True, True, False], [False, True, True]])
    out = conform(ex.with_(pe_table=pe, custom_mask=mask, sentence="a b c d"), old_tokens=["a", "b", "c"])
    assert_array_equal(out.pe_table[:3], pe)
    assert_array_equal(out.custom_mask[:3, :3], mask)
    assert_array_equal(out.custom_mask[3], [True, True, True, True])  # new row: the causal default
    assert out.custom_mask.dtype == bool


# --------------------------------------------------------------------------------- state, via AppTest


def _state_script() -> None:
    """state.init(), then one operation the test queued in `t.op`, then a snapshot for the test to read."""
    import streamlit as st

    from explorer.ui import state

    state.init()
    op = st.session_state.pop("t.op", None)
    if op is not None:
        name, args, kwargs = op
        getattr(state, name)(*args, **kwargs)
    ex = state.current()
    st.session_state["t.ex"] = ex
    st.session_state["t.keys"] = {name: state.editor_key(name) for name in ("w_q", "w_k", "emb")}
    st.session_state["t.head"] = state.head()
    st.session_state["t.query"] = int(st.session_state[state.K_QUERY])
    st.session_state["t.messages"] = state.take_messages()
    st.session_state["t.can_undo"] = state.can_undo()


class Session:
    """One person's session: set widget values, queue state operations, rerun, read the Example."""

    def __init__(self) -> None:
        self.at = AppTest.from_function(_state_script, default_timeout=60)
        self.run()

    def run(self, op: tuple | None = None, op_kw: dict | None = None, **widgets: object) -> Example:
        """Set widget values (cfg__d_k=6 sets "cfg.d_k"), queue op = (function name, *args), rerun."""
        for key, value in widgets.items():
            self.at.session_state[key.replace("__", ".")] = value
        if op is not None:
            self.at.session_state["t.op"] = (op[0], op[1:], op_kw or {})
        self.at.run()
        assert not self.at.exception, self.at.exception
        return self.ex

    @property
    def ex(self) -> Example:
        return self.at.session_state["t.ex"]

    def __getitem__(self, key: str) -> object:
        return self.at.session_state[key]


@pytest.fixture
def session() -> Session:
    return Session()


def test_init_sets_the_defaults_once(session: Session) -> None:
    ex = session.ex
    assert ex.settings() == Example().settings()
    want = _default()
    for name in MATRIX_NAMES:
        assert_array_equal(getattr(ex, name), want[name], err_msg=name)
    keys = session["t.keys"]
    again = session.run()
    assert again.digest() == ex.digest() and session["t.keys"] == keys  # idempotent: nothing moves


def _edited_w_q(ex: Example) -> np.ndarray:
    w_q = ex.w_q.copy()
    w_q[0, 0, 0], w_q[1, 7, 3] = 4.25, -3.5
    return w_q


def test_an_edit_survives_reruns_and_a_new_sentence(session: Session) -> None:
    w_q = _edited_w_q(session.ex)
    keys = session["t.keys"]
    session.run(op=("set_matrix", "w_q", w_q), op_kw={"from_editor": True})  # as the editor's on_change does
    assert_array_equal(session.run().w_q, w_q)
    assert session["t.keys"]["w_q"] == keys["w_q"], "an edit from the editor must not reset the editor"
    ex = session.run(sentence="A different sentence, longer than the first one was")
    assert_array_equal(ex.w_q, w_q)
    assert ex.emb.shape[0] == len(tokens_of(ex.sentence)[0])


def test_size_changes_keep_what_fits(session: Session) -> None:
    w_q = _edited_w_q(session.ex)
    session.run(op=("set_matrix", "w_q", w_q), op_kw={"from_editor": True})
    ex = session.run(cfg__d_k=6)
    assert ex.w_q.shape == (2, 8, 6)
    assert_array_equal(ex.w_q[..., :4], w_q)
    assert_array_equal(ex.w_q[..., 4:], _default(d_k=6)["w_q"][..., 4:])
    ex = session.run(cfg__n_heads=3)
    assert_array_equal(ex.w_q[:2, :, :4], w_q)
    assert_array_equal(ex.w_q[2], _default(d_k=6, n_heads=3)["w_q"][2])
    ex = session.run(cfg__d_model=4)
    assert_array_equal(ex.w_q[:2, :, :4], w_q[:, :4, :])
    assert ex.w_o.shape == (3 * 6, 4) and ex.w1.shape == (4, 16) and ex.emb.shape[1] == 4


def test_editor_key_changes_only_when_the_matrix_changes_from_outside(session: Session) -> None:
    w_q = _edited_w_q(session.ex)
    k0 = session["t.keys"]
    session.run(op=("set_matrix", "w_q", w_q), op_kw={"from_editor": True})
    assert session["t.keys"] == k0
    session.run(op=("reset_matrix", "w_q"))
    k1 = session["t.keys"]
    assert k1["w_q"] != k0["w_q"] and k1["w_k"] == k0["w_k"]
    assert_array_equal(session.ex.w_q, _default()["w_q"])
    session.run(cfg__d_k=5)
    assert session["t.keys"]["w_q"] != k1["w_q"], "a new shape needs a new editor"


def test_reset_and_rerandomize_can_be_undone(session: Session) -> None:
    w_q = _edited_w_q(session.ex)
    session.run(op=("set_matrix", "w_q", w_q), op_kw={"from_editor": True})
    ex = session.run(op=("rerandomize", "w_q"))
    assert not np.allclose(ex.w_q, w_q) and not np.allclose(ex.w_q, _default()["w_q"])
    assert ex.w_q.shape == w_q.shape and session["t.can_undo"]
    assert_array_equal(ex.w_k, _default()["w_k"])  # only the named matrix is redrawn
    ex = session.run(op=("undo",))
    assert_array_equal(ex.w_q, w_q)
    assert any("Restored" in text for _, text in session["t.messages"])
    session.run()
    assert session["t.messages"] == [], "a message is shown once"
    ex = session.run(op=("reset_matrix", "w_q"))
    assert_array_equal(ex.w_q, _default()["w_q"])
    assert_array_equal(session.run(op=("undo",)).w_q, w_q)


def test_apply_example_replaces_everything_and_undo_restores(session: Session) -> None:
    before = session.ex
    other = conform(Example(sentence="the cat sat on the mat", n_heads=3, mask_kind="causal", seed=3))
    ex = session.run(op=("apply_example", other))
    assert ex.settings() == other.settings()
    for name in MATRIX_NAMES:
        assert_array_equal(getattr(ex, name), getattr(other, name), err_msg=name)
    ex = session.run(op=("undo",))
    assert ex.digest() == before.digest()


def test_embedding_table_rows_follow_words_in_the_session(session: Session) -> None:
    session.run(sentence__emb_source="table", sentence="the cat sat")
    emb = session.ex.emb + np.arange(3)[:, None] * 100.0
    session.run(op=("set_matrix", "emb", emb), op_kw={"from_editor": True})
    ex = session.run(sentence="cat sat the")
    assert_array_equal(ex.emb[0], emb[1])
    assert_array_equal(ex.emb[1], emb[2])
    assert_array_equal(ex.emb[2], emb[0])


def test_selected_head_and_token_stay_in_range(session: Session) -> None:
    session.run(ui__head=1, ui__query=9)
    assert session["t.head"] == 1 and session["t.query"] == 9
    session.run(cfg__n_heads=1, sentence="two words")
    assert session["t.head"] == 0 and session["t.query"] == 1


def test_messages_queue_in_order_and_clear(session: Session) -> None:
    session.run(op=("say", "warning", "first"))
    assert session["t.messages"] == [("warning", "first")]
    session.run()
    assert session["t.messages"] == []


STATE = "explorer/ui/state"  # the one owner of st.session_state


def state_lines(root: Path) -> list[str]:
    """Lines of the app's code outside explorer/ui/state/ whose code (not a comment or a docstring) names
    session_state, as "path:line"."""
    files = [root / name for name in ("app.py", "server.py") if (root / name).exists()]
    files += [
        p for d in ("app_pages", "explorer", "attention_core") for p in sorted((root / d).rglob("*.py"))
    ]
    found = []
    for path in files:
        name = path.relative_to(root).as_posix()
        if name.startswith(STATE + "/"):
            continue
        lines = {
            node.lineno
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if (isinstance(node, ast.Attribute) and node.attr == "session_state")
            or (isinstance(node, ast.Name) and node.id == "session_state")
        }
        found += [f"{name}:{n}" for n in sorted(lines)]
    return found


def test_only_the_state_package_touches_session_state(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[3]
    assert state_lines(root) == []
    (tmp_path / "app_pages").mkdir()  # the check can fail: a page reaching into the session itself
    (tmp_path / "app_pages" / "p.py").write_text(
        '"""st.session_state in a docstring is no use of it."""\nimport streamlit as st\n\nx = st.session_state["a"]\n',
        encoding="utf-8",
    )
    assert state_lines(tmp_path) == ["app_pages/p.py:4"]


def test_a_layers_fixed_settings_outlast_the_toys_controls_sent_again(session: Session) -> None:
    """The browser sends the toy's last control values again when it draws the page anew (presenting hides
    the sidebar): over an open layer they change nothing it fixes, and the layer still computes."""
    from explorer.model import layer as layers
    from explorer.model.settings_table import FIXED_BY_LAYER

    opened = session.run(op=("open_layer", "minilm", 2))
    assert opened.d_model == 384 and opened.emb_source == "table"
    toy = Example()  # the values the toy's controls last held
    stale = {f"cfg__{n}": getattr(toy, n) for n in ("d_model", "n_heads", "d_k")}
    ex = session.run(**stale, sentence__emb_source=toy.emb_source)
    fixed = layers.of_key("minilm").settings_of("minilm", 2)
    assert {n: getattr(ex, n) for n in fixed if n in FIXED_BY_LAYER} == {
        n: v for n, v in fixed.items() if n in FIXED_BY_LAYER
    }
    assert ex.real == "minilm" and ex.real_layer == 2 and ex.emb.shape == (ex.emb.shape[0], 384)
    assert ex.digest() == opened.digest()  # the same example: nothing of it moved


def test_a_click_kept_for_the_next_run_and_a_picked_head_outlast_a_run_stopped_as_they_are_taken(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A choice kept for the next run (a click on a chart's token; the head a trained layer opened with) is
    copied into its widget's key, then dropped: a run stopped at that write (a newer request of the
    visitor's: explorer.ui.state) leaves it for the next run to take. Popped first, it was lost."""
    stop = StopAtWrite(monkeypatch)
    for name in ("take_pending", "take_picked_head"):
        real, calls = getattr(state, name), []

        def arming(*args: object, _real=real, _calls=calls) -> None:  # noqa: ANN001
            _calls.append(1)
            if len(_calls) == 1:
                stop.arm(1)  # the first write it makes stops the run
            _real(*args)

        monkeypatch.setattr(state, name, arming)
    session.at.session_state["x.focus_pick"] = "q3"
    session.at.session_state["t.op"] = ("take_pending", ("x.focus", "x.focus_pick"), {})
    session.at.run()
    assert stop.stopped == 1
    session.run(op=("take_pending", "x.focus", "x.focus_pick"))
    assert session["x.focus"] == "q3" and "x.focus_pick" not in session.at.session_state
    session.at.session_state["m.head_next"] = 1
    session.at.session_state["t.op"] = ("take_picked_head", (), {})
    session.at.run()
    assert stop.stopped == 2
    session.run(op=("take_picked_head",))
    assert session["t.head"] == 1 and "m.head_next" not in session.at.session_state


def test_closing_a_layer_stopped_half_way_still_goes_back_to_the_toy_as_it_was(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Close the layer: the toy as it was before the layer opened (its edits kept) comes back, also when the
    run is stopped at the first write of putting it back and the next run closes it again."""
    w_q = _edited_w_q(session.ex)
    session.run(op=("set_matrix", "w_q", w_q), op_kw={"from_editor": True})
    session.run(op=("open_layer", "minilm", 2))
    stop = StopAtWrite(monkeypatch)
    from explorer.ui.state import actions

    real, calls = actions.apply_example, []

    def arming(*args: object, **kw: object) -> None:
        calls.append(1)
        if len(calls) == 1:
            stop.arm(1)
        real(*args, **kw)

    monkeypatch.setattr(actions, "apply_example", arming)
    session.at.session_state["t.op"] = ("close_layer", (), {})
    session.at.run()
    assert (
        stop.stopped == 1 and session.at.session_state["explorer.real"] == "minilm"
    )  # nothing of it written yet
    back = session.run(op=("close_layer",))
    assert back.real == "toy" and back.d_model == Example().d_model
    assert_array_equal(back.w_q, w_q)
