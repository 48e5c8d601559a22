"""A link keeps what is on screen: every control that changes what a page shows is declared once
(explorer.sharing.view_params) and travels in the address bar and the Share link, page by page: /head's
heatmap or lines, its toy head and its worked cell, /induction's head drawn, /minimal-pairs' layer, the
logit lens's scale, /model's lines, /why-scale's sample sizes, /next-token's temperature, the weights'
colour range.

The codec on its own (each value back as written, a bad one kept out with one message), a scan of the pages
for a picker that no link carries, then under AppTest through app.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.sharing import model_link, picks, view_params
from explorer.sharing.values import PARAM_OF
from explorer.ui import page_table, state
from tests.app import fixtures
from tests.app.fixtures import need

ROOT = Path(__file__).resolve().parents[3]


def other_value(view: view_params.View):  # noqa: ANN201 - a value of the row's own kind
    """A value of the row that is not its default."""
    if not view.values:
        return 3
    return next(v for v in view.values if v != view.default)


@pytest.mark.parametrize("view", view_params.VIEWS, ids=lambda v: v.param)
def test_each_control_is_written_only_off_its_default_and_read_back(view: view_params.View) -> None:
    assert view_params.params({view.key: view.default}) == {}
    value = other_value(view)
    written = view_params.params({view.key: value})
    assert list(written) == [view.param]
    got = view_params.read(written)
    assert got.values == {view.key: value} and got.messages == []
    assert view_params.read({view.param: " " + written[view.param].upper() + " "}).values == {view.key: value}


@pytest.mark.parametrize("raw", ["sideways", "-1", "2.5e9", "١", "x" * 100])
def test_a_value_that_cannot_be_read_keeps_the_default_with_one_message(raw: str) -> None:
    for view in view_params.VIEWS:
        got = view_params.read({view.param: raw})
        if got.values:  # "-1" is no choice; only a position reads digits, and "1"-like text is not here
            pytest.fail(f"{view.param}={raw!r} read as {got.values}")
        assert len(got.messages) == 1 and f"({view.param}=)" in got.messages[0], got.messages
        assert got.messages[0].endswith(".") and "x" * 50 not in got.messages[0]


def test_no_parameter_is_taken_twice() -> None:
    others = {*PARAM_OF.values(), *picks.PARAMS, *model_link.PARAMS, "s", "preset", "present", "step", "ask"}
    others |= {"corrupt", "answer", "wrong", "pair", "word", "other"}
    assert not set(view_params.PARAMS) & others


# A picker on a page whose key is a literal ("head.view") must be a declared display control; pickers bound
# to the state's own keys (state.K_*) travel as settings, picks or the real model's choices.
PICKER = re.compile(r"\b(?:toggle|selectbox|segmented_control|select_slider|slider|radio|pills|checkbox)\(")
KEY = re.compile(r"\bkey=\"([\w.]+)\"")
# word=, layer=; which CSV file the sidebar downloads; a class's buttons act on the class, they show no view
NOT_A_VIEW = {"pairs.word", "pairs.layer", "share.csv", "class.start", "class.send"}


def test_every_literal_picker_of_a_page_is_a_declared_control() -> None:
    sources = [*(ROOT / "app_pages").glob("*.py"), *(ROOT / "explorer" / "ui").glob("*.py")]
    found = set()
    for path in sources:
        text = path.read_text(encoding="utf-8")
        for call in PICKER.finditer(text):  # the first key= in the call's next few lines
            key = KEY.search(text, call.end(), call.end() + 400)
            if key and not PICKER.search(text, call.end(), key.start()):
                found.add(key.group(1))
    assert {"head.view", "induction.head", "lens.log"} <= found  # the scan sees them
    assert found - NOT_A_VIEW - set(view_params.BY_KEY) == set()
    helpers = {p.stem: p.read_text(encoding="utf-8") for p in (ROOT / "explorer" / "ui").glob("*.py")}
    for view in view_params.VIEWS:
        if view.page:
            script = page_table.by_path(view.page).script
            source = (ROOT / script).read_text(encoding="utf-8")
            # the page's own widgets, or those of an explorer.ui module it draws through (/learn's learn_ui)
            source += "".join(text for stem, text in helpers.items() if f"import {stem}" in source)
            # a line view's picker: its chart's key + .focus
            assert view.key.removesuffix(".focus") in source or view.key.startswith("rm."), view


# ------------------------------------------------------------------------------------ in the app


def open_at(url_path: str, params: dict[str, str]) -> AppTest:
    """app.py opened with these query parameters (a link) on page `url_path`."""
    at = AppTest.from_file(str(fixtures.ROOT / "app.py"), default_timeout=fixtures.TIMEOUT)
    at.switch_page(page_table.by_path(url_path).script)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def address(at: AppTest) -> dict[str, str]:
    return {k: at.query_params[k] for k in at.query_params}


def warnings(at: AppTest) -> list[str]:
    return [m.value.replace("\\", "") for m in at.warning]


def test_head_keeps_lines_the_toy_head_and_the_cell() -> None:
    need("smollm2")
    link = {
        "model": "smollm2",
        "layer": "3",
        "head": "2",
        "view": "lines",
        "toy": "on",
        "cell_q": "2",
        "cell_k": "1",
        "lines_of": "k2",
    }
    at = open_at("head", link)
    assert warnings(at) == []
    assert at.session_state["head.view"] == "lines" and at.session_state["head.toy"] is True
    assert at.selectbox(key="head.query").value == 2 and at.selectbox(key="head.key").value == 1
    assert at.selectbox(key="head.lines.focus").value == "k2"  # the lines of key 2 only
    assert {k: address(at).get(k) for k in link} == link  # the address bar keeps every one
    at.selectbox(key="head.key").set_value(0).run()  # back to the first key: cell_k leaves the address
    assert "cell_k" not in address(at) and address(at)["cell_q"] == "2"
    again = open_at("head", {**link, "cell_q": "999"})  # past the sentence's tokens: the first, one message
    assert again.selectbox(key="head.query").value == 0
    assert [w for w in warnings(again) if "cell_q=999" in w], warnings(again)


def test_induction_keeps_the_head_drawn() -> None:
    need("smollm2")
    at = open_at("induction", {})
    heads = at.selectbox(key="induction.head").options
    second = at.selectbox(key="induction.head")
    second.select_index(1).run()
    drawn = at.session_state["induction.head"]
    assert address(at)["ind_head"] == str(drawn)
    again = open_at("induction", {"ind_head": str(drawn)})
    assert again.session_state["induction.head"] == drawn and len(heads) > 1
    assert [c.value for c in again.get("bidi_component")] == [c.value for c in at.get("bidi_component")]


def test_minimal_pairs_keeps_the_layer_while_the_toy_is_picked() -> None:
    need("minilm")
    first = "The animal didn't cross the street because it was too tired"
    at = open_at("minimal-pairs", {"sentence": first, "pair": first.replace("tired", "wide")})
    at.selectbox(key="pairs.layer").set_value(4).run()
    assert not at.exception, at.exception
    assert address(at).get("layer") == "5" and "model" not in address(at)
    again = open_at("minimal-pairs", address(at))
    assert again.selectbox(key="pairs.layer").value == 4


@pytest.mark.parametrize(
    ("url_path", "params", "key", "value"),
    [
        ("logit-lens", {"log": "on"}, "lens.log", True),
        ("model", {"model": "minilm", "lines": "on"}, "model.lines", True),
        ("why-scale", {"samples": "500", "keys": "64"}, "why.keys", 64),
        ("next-token", {"temp": "0.5"}, state.K_TEMPERATURE, 0.5),
        ("scores", {"fit": "on"}, state.K_FIT, True),
    ],
)
def test_each_pages_control_opens_from_its_link_and_stays_in_the_address(
    url_path: str, params: dict[str, str], key: str, value: object
) -> None:
    if page_table.by_path(url_path).real_model:
        need(params.get("model", "smollm2"))
    at = open_at(url_path, params)
    assert warnings(at) == [] and at.session_state[key] == value
    assert {k: address(at).get(k) for k in params} == params


def test_learn_keeps_the_training_step_and_opens_on_the_last_without_one() -> None:
    at = open_at("learn", {})
    slider = at.select_slider(key="learn.step")
    steps = list(slider.options)
    assert len(steps) > 2 and str(slider.value) == steps[-1]  # the trained model, unless a link asks
    again = open_at("learn", {"learn_step": steps[1]})
    assert str(again.select_slider(key="learn.step").value) == steps[1] and warnings(again) == []
    assert address(again)["learn_step"] == steps[1]
    past = open_at("learn", {"learn_step": "99999"})  # no such checkpoint: the last, one message
    assert str(past.select_slider(key="learn.step").value) == steps[-1]
    assert [w for w in warnings(past) if "learn_step=99999" in w], warnings(past)
