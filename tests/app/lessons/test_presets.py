"""The preset registry, ?preset=<name> links, the sidebar picker and the preset panel (AppTest).

Each notebook preset, loaded by URL, must show its printed numbers beside the app's, all agreeing, and the
app's own charts must carry the notebook's digits (atol = half a unit of the last printed decimal).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

from explorer import lessons
from explorer.compute import pipeline
from explorer.lessons import PRESETS, seed001, seed003, seed004
from explorer.model.example import Example, conform, expected_shapes, tokens_of
from explorer.sharing import url as links

APP = str(Path(__file__).resolve().parents[3] / "app.py")
NOTEBOOK_PRESETS = ("hello-world", "me-gusta", "three-inputs", "causal-mask", "its-snowing")
# What each notebook sets (the rest of the settings are the app's defaults).
SETTINGS = {
    "hello-world": {"d_model": 4, "n_heads": 2, "d_k": 3, "pe_kind": "sinusoidal", "scale_mode": "sqrt"},
    "me-gusta": {"d_model": 4, "n_heads": 1, "d_k": 3, "d_ff": 5, "pe_kind": "learned", "scale_mode": "none"},
    "three-inputs": {"d_model": 4, "n_heads": 1, "d_k": 3, "pe_kind": "none", "scale_mode": "custom"},
    "causal-mask": {"d_model": 4, "n_heads": 1, "d_k": 8, "pe_kind": "none", "mask_kind": "causal"},
    "its-snowing": {"d_model": 3, "n_heads": 1, "d_k": 2, "pe_kind": "none", "scale_mode": "sqrt"},
}


def half_unit(decimals: int) -> float:
    return 0.5 * 10.0**-decimals + 1e-12


def load(name: str) -> AppTest:
    """app.py opened with ?preset=<name>, as a shared link would open it."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["preset"] = name
    at.run()
    assert not at.exception, at.exception
    return at


def comparison(at: AppTest):  # noqa: ANN201 - a DataFrame
    tables = [d.value for d in at.dataframe if "the notebook printed" in d.value.columns]
    assert len(tables) == 1, "the preset panel's comparison table is missing"
    return tables[0]


def test_registry_has_the_fixed_names() -> None:
    assert set(NOTEBOOK_PRESETS) <= set(PRESETS)
    assert len(PRESETS) >= len(NOTEBOOK_PRESETS) + 1  # at least one of our own
    for name, p in PRESETS.items():
        assert p.name == name and p.title and len(p.note) > 80


@pytest.mark.parametrize("name", list(PRESETS))
def test_build_is_complete_and_deterministic(name: str) -> None:
    ex = PRESETS[name].build()
    n = len(tokens_of(ex.sentence)[0])
    for m, shape in expected_shapes(ex, n).items():
        assert getattr(ex, m).shape == shape, (m, getattr(ex, m).shape, shape)
        assert np.all(np.isfinite(getattr(ex, m))), m
    assert conform(ex) is ex
    assert ex.digest() == PRESETS[name].build().digest()
    assert ex.emb_source == "table" or name == "causal-vs-bidirectional"
    res = pipeline.run(ex)
    assert res.error is None and res.encoder is not None


@pytest.mark.parametrize("name", NOTEBOOK_PRESETS)
def test_notebook_settings(name: str) -> None:
    ex = PRESETS[name].build()
    for key, value in SETTINGS[name].items():
        assert getattr(ex, key) == value, key
    if name == "three-inputs":
        assert ex.scale_custom == 1.0  # "sqrt(3) rounded down to 1"


def test_links_read_builds_the_preset() -> None:
    got = links.read({"preset": "three-inputs"}, Example())
    assert got.preset == "three-inputs" and not got.messages
    assert got.example.digest() == PRESETS["three-inputs"].build().digest()
    bad = links.read({"preset": "no-such-thing"}, Example())
    assert bad.example is None and "three-inputs" in bad.messages[0][1]


@pytest.mark.parametrize("name", NOTEBOOK_PRESETS)
def test_url_preset_shows_every_printed_number_agreeing(kit, name: str) -> None:
    at = load(name)
    ex = PRESETS[name].build()
    assert at.session_state["sentence"] == ex.sentence
    assert at.session_state["ui.preset"] == name
    table = comparison(at)
    expected = lessons.rows(lessons.checks(name, pipeline.run(ex)))
    assert len(table) == len(expected) >= 6
    assert list(table["the notebook printed"]) == [r.notebook for r in expected]
    assert all(v.startswith("✓") for v in table["same"]), table[["printed", "same"]]
    assert any("printed lines come out in the app" in s.value for s in at.success)
    assert not any("You have changed" in i.value for i in at.info)


def test_three_inputs_digits_in_the_charts(kit) -> None:
    at = load("three-inputs")
    at.switch_page("app_pages/token.py").run()
    assert not at.exception, at.exception
    cs = kit.charts(at)
    weights = kit.array(cs["token.weights"]["data"][0]["y"])
    assert_allclose(weights, [0.06337894, 0.46831053, 0.46831053], rtol=0, atol=half_unit(8))
    output = kit.array(cs["token.stack"]["data"][-1]["y"])
    assert_allclose(output, [1.93662106, 6.68310531, 1.59506841], rtol=0, atol=half_unit(8))


@pytest.mark.parametrize(
    ("name", "chart", "printed"),
    [
        ("me-gusta", "scores.weights", seed001.ALPHAS),
        ("causal-mask", "scores.weights", seed003.ATTENTION),
        ("its-snowing", "scores.raw", seed004.SCORES),
    ],
)
def test_scores_page_carries_the_printed_digits(kit, name: str, chart: str, printed: lessons.Printed) -> None:
    at = load(name)
    at.switch_page("app_pages/scores.py").run()
    assert not at.exception, at.exception
    z = kit.z(kit.charts(at)[chart])
    drawn = np.isfinite(z)  # masked cells are not drawn (NaN): the notebook's 0 there
    assert_allclose(z[drawn], printed.values[drawn], rtol=0, atol=half_unit(printed.decimals))
    assert_allclose(printed.values[~drawn], 0.0)


def test_picker_loads_and_the_panel_follows_edits(kit) -> None:
    at = kit.app()
    assert not comparison_tables(at)
    at.sidebar.selectbox(key="ui.preset").set_value("its-snowing").run()
    assert not at.exception, at.exception
    assert at.session_state["sentence"] == "It's snowing outside"
    assert all(v == "✓" for v in comparison(at)["same"])
    assert any("Loaded the example" in s.value for s in at.success)
    at.sidebar.number_input(key="cfg.d_k").set_value(3).run()  # no longer the notebook's 3x2 matrices
    assert not at.exception, at.exception
    assert any("You have changed the example" in i.value for i in at.info)
    same = list(comparison(at)["same"])
    assert same[:3] == ["✓"] * 3 and "✗" in same  # X still agrees, the queries no longer do
    at.button(key="preset.reload").click().run()
    assert all(v == "✓" for v in comparison(at)["same"])
    at.button(key="preset.close").click().run()
    assert not comparison_tables(at) and at.session_state["ui.preset"] == ""


def comparison_tables(at: AppTest) -> list:
    return [d for d in at.dataframe if "the notebook printed" in d.value.columns]


def test_unknown_preset_in_the_url_warns(kit) -> None:
    at = load("no-such-preset")
    assert any("no preset called" in w.value for w in at.warning)
    assert not comparison_tables(at)


# Students do not have the seed notebooks. A preset is named by what it teaches; the notebook
# and its cell numbers are a detail ("Where this comes from"), with the printed numbers beside the app's.
NOTEBOOK_WORDS = re.compile(r"[Nn]otebook \d|notebooks \d|In \[\d|[Ss]eed \d|\bOurs\b")


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_preset_is_named_by_what_it_teaches_and_says_where_it_comes_from(name: str) -> None:
    p = PRESETS[name]
    assert not NOTEBOOK_WORDS.search(p.title), p.title
    assert not NOTEBOOK_WORDS.search(p.note), p.note
    if name in NOTEBOOK_PRESETS:
        number = NOTEBOOK_PRESETS.index(name)
        assert f"Seed notebook 00{number}" in p.source and "In [" in p.source, p.source
    else:
        assert "not from a seed notebook" in p.source
    assert len({q.title for q in PRESETS.values()}) == len(PRESETS)


def outside_the_detail(at: AppTest) -> list[str]:
    """Every text of the page's main area except what is inside the "Where this comes from" expander."""
    inside = {id(n) for e in at.main.expander if e.label == "Where this comes from" for n in _walk(e)}
    return [
        str(n.value)
        for n in _walk(at.main)
        if id(n) not in inside and isinstance(getattr(n, "value", None), str)
    ]


def _walk(node):  # noqa: ANN001, ANN202 - an AppTest node
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


@pytest.mark.parametrize("name", NOTEBOOK_PRESETS)
def test_the_panel_keeps_the_notebook_in_where_this_comes_from(kit, name: str) -> None:
    at = load(name)
    detail = [e for e in at.main.expander if e.label == "Where this comes from"]
    assert len(detail) == 1
    assert any(PRESETS[name].source in m.value for m in detail[0].markdown)
    assert [d for d in detail[0].dataframe if "the notebook printed" in d.value.columns]  # the comparison
    assert any("printed lines come out in the app" in s.value for s in detail[0].success)
    texts = outside_the_detail(at)
    assert any(PRESETS[name].title in t for t in texts)
    assert not [t for t in texts if NOTEBOOK_WORDS.search(t)]
    if name not in ("me-gusta", "three-inputs", "causal-mask"):  # the pages that tie in these three
        return
    for page in ("app_pages/token.py", "app_pages/why-scale.py"):  # nor on the pages that mention a preset
        at.switch_page(page).run()
        assert not at.exception, at.exception
        assert not [t for t in outside_the_detail(at) if NOTEBOOK_WORDS.search(t)], page


def test_the_changed_example_message_names_a_cross_only_where_there_are_checks(kit) -> None:
    at = load("pronoun")  # our own: no printed numbers, no table of ✓ and ✗
    at.sidebar.number_input(key="cfg.d_k").set_value(PRESETS["pronoun"].build().d_k + 1).run()
    assert not at.exception, at.exception
    changed = [i.value for i in at.info if "You have changed the example" in i.value]
    assert changed and "✗" not in changed[0]
    at = load("its-snowing")
    at.sidebar.number_input(key="cfg.d_k").set_value(3).run()
    changed = [i.value for i in at.info if "You have changed the example" in i.value]
    assert changed and "✗" in changed[0]
