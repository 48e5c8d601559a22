"""A link reopens what the explorer pages show: the head shown (h=), the query token (q=) and the key token
of the picked cell (k=) (explorer.sharing.picks), and presenting, the step; a `?sentence=` address gives the
link a typed sentence gives.

The codec over arbitrary strings with hypothesis (clamped or left out, one message, never a crash); then
under AppTest through app.py: the picks made on /scores reach the address bar and the Share link, the link
opens them in a new session, a link without them opens as before, bad ones give messages.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from explorer.model.example import Example, conform, tokens_for
from explorer.sharing import picks
from explorer.sharing import url as links
from explorer.ui import export_ui, page_table, state
from tests.app import fixtures

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TEXT = st.one_of(
    st.text(max_size=50),
    st.integers(-5, 80).map(str),
    st.sampled_from(["", " ", "٣", "①", "¹", "+1", "-0", "1e1", "0x2", " 2 ", "9" * 41, "00003"]),
)
PARAM = {"head": "h", "query": "q", "key": "k"}


def number_in(raw: str) -> int | None:
    """The number a link means by `raw`, read independently of the app: 1 to 12 ASCII digits, spaces around
    ignored, in its first 40 characters."""
    s = raw[:40].strip()
    return int(s) if s.isascii() and s.isdigit() and len(s) <= 12 else None


@FAST
@given(st.sampled_from(sorted(PARAM)), TEXT, st.integers(1, 12), st.integers(0, 64), st.integers(0, 11))
@example("head", "3", 2, 6, 0)
@example("query", "99", 2, 6, 1)
@example("key", "٣", 2, 6, 4)
@example("query", "2", 2, 0, 0)
@example("head", "2", 1, 6, 0)  # a single-head example: "one head", not "heads are 1 to 1"
@example("head", "x", 1, 6, 0)
@example("query", "5", 2, 1, 0)
def test_each_pick_is_read_clamped_or_left_out_with_one_message(
    name: str, raw: str, n_heads: int, n_tokens: int, was: int
) -> None:
    before = (min(was, n_heads - 1), min(was, max(n_tokens - 1, 0)), min(was, max(n_tokens - 1, 0)))
    got = picks.read({PARAM[name]: raw}, n_heads, n_tokens, before)
    others = [v for n, v in (("head", got.head), ("query", got.query), ("key", got.key)) if n != name]
    assert others == [None, None]
    lo, hi = (1, n_heads) if name == "head" else (0, n_tokens - 1)
    base = 1 if name == "head" else 0
    v = number_in(raw)
    if not raw[:40].strip() or hi < lo:  # nothing asked, or no token to pick
        assert getattr(got, name) is None and got.messages == []
        return
    if v is not None and lo <= v <= hi:
        assert getattr(got, name) == v - base and got.messages == []
        return
    assert len(got.messages) == 1 and got.messages[0].endswith("."), got.messages
    assert f"({PARAM[name]}=)" in got.messages[0]
    noun = "head" if name == "head" else "token"
    if v is not None:  # a number past the bounds: the nearest one
        shown = min(max(v, lo), hi)
        assert getattr(got, name) == shown - base
        has = f"This example has one {noun}." if lo == hi else f"This example's {noun}s are {lo} to {hi}."
        assert f"asks for {noun} {v}. {has} Showing {noun} {shown}." in got.messages[0]
    else:  # not a number: what was shown stays
        kept = before[("head", "query", "key").index(name)] + base
        assert getattr(got, name) is None and f"Kept {noun} {kept}." in got.messages[0]
        has = f"This example has one {noun}." if lo == hi else f"between {lo} and {hi}"
        assert has in got.messages[0]
    if lo == hi:  # one head or one token: never "1 to 1"
        assert f"{lo} to {lo}" not in got.messages[0] and f"{lo} and {lo}" not in got.messages[0]


@FAST
@given(st.integers(1, 12), st.integers(1, 64), st.data())
def test_the_picks_written_read_back_and_only_what_is_not_the_first_is_written(
    n_heads: int, n_tokens: int, data: st.DataObject
) -> None:
    head = data.draw(st.integers(0, n_heads - 1))
    query, key = data.draw(st.integers(0, n_tokens - 1)), data.draw(st.integers(0, n_tokens - 1))
    written = picks.params(head, query, key)
    assert set(written) == {p for p, v in (("h", head), ("q", query), ("k", key)) if v}
    got = picks.read(written, n_heads, n_tokens)
    assert got.messages == []
    assert (got.head or 0, got.query or 0, got.key or 0) == (head, query, key)


def test_a_sentence_address_opens_the_example_a_typed_sentence_makes() -> None:
    base = conform(Example())
    typed = conform(base.with_(sentence="I like green tea very much"), old_tokens=tokens_for(base)[0])
    got = links.read({"sentence": "I like green tea very much"}, base)
    assert got.example is not None and got.example.digest() == typed.digest()
    assert links.query(got.example) == links.query(typed)
    assert "s=" not in dict(parse_qsl(links.query(got.example)))  # every matrix seeded: no edits to carry


# ---------------------------------------------------------------- in the app


def scripts() -> dict[str, str]:
    return {p.url_path: p.script for p in page_table.listed()}


def open_at(url_path: str, params: dict[str, str] | None = None) -> AppTest:
    """app.py opened with these query parameters (a link), then page `url_path` as the link names it."""
    at = AppTest.from_file(str(fixtures.ROOT / "app.py"), default_timeout=fixtures.TIMEOUT)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.run()
    if url_path:
        at.switch_page(scripts()[url_path]).run()
    assert not at.exception, at.exception
    return at


def share_link(at: AppTest) -> dict[str, str]:
    fixtures.open_share(at)
    found = [c.value for c in at.sidebar.code if "sentence=" in c.value]
    assert len(found) == 1
    return dict(parse_qsl(urlsplit(found[0]).query, keep_blank_values=True))


def address(at: AppTest) -> dict[str, str]:
    return {k: at.query_params[k] for k in at.query_params}


def shown_picks(at: AppTest) -> tuple[int, int, int]:
    """The head, query and key /scores' pickers show (0-based)."""
    return (
        at.button_group(key=state.K_HEAD).value,
        at.selectbox(key=state.K_QUERY).value,
        at.selectbox(key=state.K_KEY).value,
    )


def warnings(at: AppTest) -> list[str]:
    return [m.value.replace("\\", "").replace("\u2060", "") for m in at.warning]


def test_the_picks_on_scores_travel_in_the_address_bar_and_the_link_and_reopen() -> None:
    at = open_at("scores")
    assert not {"h", "q", "k"} & set(address(at))  # the first head and token: nothing written
    at.button_group(key=state.K_HEAD).set_value(1).run()
    at.selectbox(key=state.K_QUERY).set_value(3).run()
    at.selectbox(key=state.K_KEY).set_value(1).run()
    assert not at.exception, at.exception
    bar = address(at)  # the address bar follows each change
    assert (bar["h"], bar["q"], bar["k"]) == ("2", "3", "1")
    link = share_link(at)
    assert (link["h"], link["q"], link["k"]) == ("2", "3", "1")
    assert {k: v for k, v in bar.items()} == link  # the address bar is the Share link
    titles = [c.value for c in at.latex]
    for params in (link, bar):
        again = open_at("", params)
        assert warnings(again) == []
        again.switch_page(scripts()["scores"]).run()
        assert shown_picks(again) == (1, 3, 1)
        assert [c.value for c in again.latex] == titles  # the cell's formula: query 3, key 1 of head 2
    at.selectbox(key=state.K_KEY).set_value(0).run()  # back to the first key: k= leaves the address
    assert "k" not in address(at) and address(at)["q"] == "3"


def test_a_link_without_picks_opens_on_the_first_head_and_token() -> None:
    at = open_at("", {"sentence": "A cat sat", "d_model": "8", "heads": "2"})
    assert warnings(at) == []
    at.switch_page(scripts()["scores"]).run()
    assert not at.exception and shown_picks(at) == (0, 0, 0)


def test_picks_past_the_example_are_clamped_and_bad_ones_kept_with_a_message() -> None:
    at = open_at("", {"sentence": "A cat sat", "heads": "2", "h": "7", "q": "12", "k": "x"})
    said = " ".join(warnings(at))  # on the page the link opens
    assert "head (h=) asks for head 7" in said and "Showing head 2." in said
    assert "query token (q=) asks for token 12" in said and "Showing token 2." in said
    assert "key token (k=)" in said and "Kept token 0." in said
    at.switch_page(scripts()["scores"]).run()
    assert not at.exception and shown_picks(at) == (1, 2, 0)


@pytest.mark.parametrize("step", ["masking", "softmax"])
def test_presenting_the_link_carries_the_step_and_the_head(step: str) -> None:
    at = open_at("scores", {"present": "1", "step": step, "h": "2"})
    assert at.button_group(key=state.K_HEAD).value == 1
    link = share_link(at)
    assert (link["present"], link["step"], link["h"]) == ("1", step, "2")
    assert address(at)["step"] == step


def test_a_link_made_from_a_sentence_address_is_as_short_as_a_typed_ones() -> None:
    sentence = "I like green tea very much"
    from_address = share_link(open_at("", {"sentence": sentence}))
    typed = open_at("")
    typed.text_input(key=state.K_SENTENCE).set_value(sentence).run()
    assert share_link(typed) == from_address and "s" not in from_address


def test_the_qr_code_and_the_exports_link_back_with_the_picks(monkeypatch) -> None:  # noqa: ANN001
    made: dict[str, str] = {}
    downloads, dialog = export_ui.downloads, export_ui.qr_dialog

    def files(ex: Example, link: str, *rest: object) -> None:
        made["files"] = link
        downloads(ex, link, *rest)

    def qr_code(link: str) -> None:
        made["qr"] = link
        dialog(link)

    monkeypatch.setattr(export_ui, "downloads", files)
    monkeypatch.setattr(export_ui, "qr_dialog", qr_code)
    at = open_at("scores", {"sentence": "A cat sat on it", "heads": "2", "present": "1", "h": "2", "q": "3"})
    fixtures.open_share(at).button(key="share.qr").click().run()
    assert not at.exception, at.exception
    for what in ("files", "qr"):  # students open it on their laptops: not presenting
        got = dict(parse_qsl(urlsplit(made[what]).query))
        assert (got["h"], got["q"], "k" in got, "present" in got) == ("2", "3", False, False), what
    ex = state_example(at)
    text = export_ui.notebook_bytes(ex, 3, 1, made["files"]).decode("utf-8")
    assert made["files"] in text  # its link back
    assert "i, h = 3, 1" in text  # the notebook computes the picked query and head


def state_example(at: AppTest) -> Example:
    settings = {name: at.session_state[key] for name, key in state.SETTING_KEYS.items()}
    return Example(**settings, **at.session_state["m.matrices"])
