"""No heatmap goes blank on a real model's numbers: every layer of both models, opened in the explorer, draws
charts whose colour range is taken from the bulk of their values (most cells outside the palest, middle
tenth of the range), with the cells beyond the range circled and the largest named with its value; charts
side by side that are compared share one range. The toy's charts keep the range up to their largest value.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer.compute import pipeline
from explorer.export import html_charts, walkthrough
from explorer.model import bridge
from explorer.model.example import Example, conform
from explorer.ui import page_table, widgets
from explorer.views import colour_range, describe
from explorer.views import figures as fg
from tests.app import fixtures
from tests.app.fixtures import CAT, array_of, chart_specs, need, opened_in_explorer

STYLE = fg.Style()


def _plain(fig: Any) -> dict[str, Any]:
    """A figure as plain JSON (as the browser gets it)."""
    return json.loads(fig.to_json()) if hasattr(fig, "to_json") else fig


def _range_of(spec: dict[str, Any], trace: dict[str, Any]) -> tuple[float, float]:
    if "zmin" in trace:
        return float(trace["zmin"]), float(trace["zmax"])
    axis = spec["layout"][trace["coloraxis"]]  # the grid of every head: one colour axis
    return float(axis["cmin"]), float(axis["cmax"])


def readable(spec: dict[str, Any], what: str) -> list[tuple[float, float]]:
    """Check every colour-scaled heatmap of a figure: most of its cells lie outside the middle tenth of its
    colour range (an all-zero matrix, which has nothing to show, excepted); the cells beyond the range are
    counted on the rings trace, which circles the farthest, and the subtitle names the largest's value.
    Returns each heatmap's range."""
    ranges = []
    rings = [t for t in spec["data"] if (t.get("meta") or {}).get("beyond")]
    for trace in spec["data"]:
        if trace.get("type") != "heatmap" or (trace.get("meta") or {}).get("masked_value"):
            continue  # the grey cells over masked positions have no scale
        lo, hi = _range_of(spec, trace)
        ranges.append((lo, hi))
        z = array_of(trace["z"])
        finite = z[np.isfinite(z)]
        if not finite.any():
            continue
        t = (np.clip(finite, lo, hi) - lo) / (hi - lo)
        outside = np.mean(np.abs(t - 0.5) >= 0.05)
        assert outside > 0.5, f"{what}: only {outside:.0%} of the cells are outside the middle tenth"
        past = np.where(np.isfinite(z), np.maximum(z - hi, lo - z), 0.0)
        n_beyond = int(np.count_nonzero(past > 1e-9 * max(abs(lo), abs(hi))))
        if not n_beyond:
            continue
        assert rings, f"{what}: {n_beyond} cells beyond the range and none is circled"
        assert rings[0]["meta"]["beyond"] == n_beyond, what
        i, j = np.unravel_index(np.argmax(past), z.shape)
        at = (array_of(rings[0]["y"])[0], array_of(rings[0]["x"])[0])
        assert at == (i, j), f"{what}: the farthest cell is not circled"
        value = colour_range.amount(float(z[i, j]))
        assert value in spec["layout"]["title"]["subtitle"]["text"].replace("<br>", " "), what
    return ranges


def test_a_few_outliers_do_not_wash_out_the_rest() -> None:
    rng = np.random.default_rng(0)
    z = rng.normal(size=(6, 40))
    z[0, 7] = -19_874.0  # one dimension of the first token, as in a trained decoder's X
    drawn = fg.drawn_heatmap(z, [f"t{i}" for i in range(6)], fg.dims("d", 40), title="X", style=STYLE)
    spec = _plain(drawn.figure)
    (lo, hi), *_ = readable(spec, "X")
    assert lo == -hi and hi < 10  # the bulk's range, not ±19,874
    line = spec["layout"]["title"]["subtitle"]["text"]
    assert line == "circled “t0”, d7 = -19,874: a massive activation"  # one line, the value named
    note = spec["layout"]["meta"]["beyond"]  # the whole note, for the page's help and the chart's text
    assert "1 value beyond the colour range" in note and "“t0”, d7 = -19,874" in note
    assert "massive activation" in note and "first token" in note  # a lesson in itself: said in one sentence
    assert note in describe.describe(drawn)[0]
    ends = spec["data"][0]["colorbar"]["ticktext"]
    assert ends[0].startswith("≤") and not ends[-1].startswith("≥")  # only the low end has values beyond


@pytest.mark.parametrize("present", [False, True])
def test_the_note_on_outliers_is_one_line_at_the_narrowest_chart(present: bool) -> None:
    """Four charts a row (the encoder's step while presenting), a long token: the chart's own note stays one
    line that fits its width and names the value; its plot keeps its height (the figure grows by the line)."""
    rng = np.random.default_rng(2)
    z = rng.normal(size=(6, 576))
    z[0, 507] = 22_552.0
    rows = ["␣understanding", *(f"t{i}" for i in range(1, 6))]
    sty = fg.Style(present=present)
    width = int(fg.FULL_PX / 4 - 16)
    spec = _plain(
        fg.heatmap(z, rows, fg.dims("d", 576), title="X (input)", style=sty, axes=fg.Axes(width_px=width))
    )
    sub = spec["layout"]["title"]["subtitle"]
    drawn = width * (fg.PRESENT_SCALE if present else 1.0)
    assert "<br>" not in sub["text"] and "d507 = 22,552" in sub["text"]
    assert fg.text_px(sub["text"], sub["font"]["size"]) <= drawn - 30
    plain = _plain(
        fg.heatmap(
            z.clip(-3, 3), rows, fg.dims("d", 576), title="X (input)", style=sty, axes=fg.Axes(width_px=width)
        )
    )
    grown = spec["layout"]["height"] - plain["layout"]["height"]
    assert (
        0 < grown == spec["layout"]["margin"]["t"] - plain["layout"]["margin"]["t"] <= 2 * sub["font"]["size"]
    )


def test_the_toys_charts_keep_their_full_range() -> None:
    z = np.random.default_rng(1).normal(size=(8, 16))
    spec = _plain(fg.heatmap(z, list("abcdefgh"), fg.dims("d", 16), title="Q", style=STYLE))
    assert spec["data"][0]["zmax"] == pytest.approx(np.abs(z).max())
    assert "subtitle" not in spec["layout"]["title"] and len(spec["data"]) == 1  # no note, no rings


def _layer_charts(key: str, layer: int) -> list[tuple[str, dict[str, Any]]]:
    """Every chart of the explorer's pages (as the HTML export draws them, with the same builders) for a
    model's layer opened in the explorer on CAT."""
    ex = conform(Example(sentence=CAT).with_(**bridge.settings_of(key, layer)))
    w = walkthrough.from_example(ex, pipeline.run(ex))
    return [
        (f"{key} layer {layer + 1} {chart.key} {name}", html_charts.figure_of(fig).to_plotly_json())
        for charts in html_charts.charts_of(w).values()
        for chart in charts
        for name, fig in chart.variants
    ]


# SmolLM2's 30 layers all have cells beyond the range (1,400 to 4,900 each): CI reads the first and the last,
# the one with the fewest and the one with the most; `pytest -m load` reads every one.
SMOLLM2_SAMPLE = (0, 10, 18, 29)


@pytest.mark.parametrize(("key", "layers"), [("minilm", tuple(range(6))), ("smollm2", SMOLLM2_SAMPLE)])
def test_every_heatmap_of_every_real_layer_is_readable(key: str, layers: tuple[int, ...]) -> None:
    _every_heatmap_readable(key, layers)


@pytest.mark.load
def test_every_heatmap_of_every_smollm2_layer_is_readable() -> None:
    _every_heatmap_readable("smollm2", tuple(range(30)))


def _every_heatmap_readable(key: str, layers: tuple[int, ...]) -> None:
    need(key)
    seen = 0
    for layer in layers:
        charts = _layer_charts(key, layer)
        encoder = []
        for what, spec in charts:
            if any(t.get("type") == "heatmap" for t in spec["data"]):
                ranges = readable(spec, what)
                seen += 1
                if " encoder." in what:
                    encoder.append((spec, ranges[0]))
        # The block's stages, two a row: a row of one space (d_model both) shares one range, unless on the
        # wider of the two ranges the other chart would be mostly blank.
        for (a, ra), (b, rb) in zip(encoder[::2], encoder[1::2], strict=True):
            za, zb = (array_of(s["data"][0]["z"]) for s in (a, b))
            if za.shape == zb.shape and ra != rb:
                wide = max(ra[1], rb[1])
                assert min(np.mean(np.abs(z) >= 0.1 * wide) for z in (za, zb)) <= 0.5, (key, layer)
    assert seen >= 20 * len(layers)


def _page_specs(at: AppTest, page: str) -> list[tuple[str, dict[str, Any]]]:
    fixtures.go(at, page)
    assert not at.exception, at.exception
    return chart_specs(at)


@pytest.mark.parametrize(("key", "layer"), [("minilm", 0), ("smollm2", 12)])
def test_the_pages_draw_a_real_layer_readably_and_compared_charts_share_a_range(key: str, layer: int) -> None:
    """Every chart of every explorer page and of the real-model pages, as AppTest draws them."""
    need(key)
    at = opened_in_explorer(key, CAT, layer, 0)
    pages = [
        "app_pages/sentence.py", "app_pages/positional-encoding.py", "app_pages/projections.py",
        "app_pages/scores.py", "app_pages/heads.py", "app_pages/token.py", "app_pages/encoder.py",
        "app_pages/head.py", "app_pages/rollout.py", "app_pages/model.py", "app_pages/patching.py",
        "app_pages/induction.py", "app_pages/logit-lens.py",
    ]  # fmt: skip
    if key == "smollm2":
        pages.append("app_pages/next-token.py")
    circled = 0
    for page in pages:
        specs = _page_specs(at, page)
        ranges = {k: readable(spec, f"{page} {k}") for k, spec in specs}
        circled += sum(bool((t.get("meta") or {}).get("beyond")) for _, s in specs for t in s["data"])
        if page.endswith("head.py"):  # side by side, with or without a note on values beyond: plots level
            assert len({dict(specs)[k]["layout"]["margin"]["t"] for k in ("head.q", "head.k", "head.v")}) == 1
        if page.endswith("rollout.py"):
            assert ranges["rollout.single"][0] == ranges["rollout.rollout"][0]  # one colour, one weight
        if page.endswith("positional-encoding.py"):  # a trained layer adds no P: its X alone, not E + 0 = X
            assert list(ranges) == ["pe.x"]
        notes = [
            spec["layout"]["meta"]["beyond"]
            for _, spec in specs
            if "beyond" in spec["layout"].get("meta", {})
        ]
        if notes:  # each chart's line is short; its whole note waits behind the one caption's (?)
            helps = [c.proto.help.replace("\\", "") for c in at.caption if c.value == widgets.BEYOND]
            assert helps and all(any(n.replace("\\", "") in h for h in helps) for n in notes), page
        if page.endswith("encoder.py"):
            keys = [k for k, _ in specs if k.startswith("encoder.")]
            # as shown (Markdown escapes), with their help
            captions = " ".join(f"{c.value} {c.proto.help}" for c in at.caption).replace("\\", "")
            for a, b in zip(keys[::2], keys[1::2], strict=True):
                xa, xb = (specs[keys.index(k)][1]["layout"]["xaxis"]["ticktext"] for k in (a, b))
                if xa == xb and ranges[a][0] != ranges[b][0]:  # one space, two ranges: the page says why
                    assert a.removeprefix("encoder.") in captions and b.removeprefix("encoder.") in captions
    if key == "smollm2":  # layer 13's X holds the first token's massive activation: circled and named
        assert circled


def test_charts_sharing_one_range_draw_one_colour_bar(kit) -> None:  # noqa: ANN001
    """E + P = X on one range: one colour bar, on X; E and P give its width to their cells (they were
    slivers at 1280 px, each beside a colour bar of its own)."""
    at = kit.open("positional-encoding", via_app=False)
    cs = kit.charts(at)
    shows = {k: cs[k]["data"][0].get("showscale", True) for k in ("pe.e", "pe.p", "pe.x")}
    assert shows == {"pe.e": False, "pe.p": False, "pe.x": True}
    assert len({(cs[k]["data"][0]["zmin"], cs[k]["data"][0]["zmax"]) for k in shows}) == 1


@pytest.mark.parametrize(("key", "rope"), [("minilm", False), ("smollm2", True)])
def test_a_trained_layer_on_positional_encoding_says_where_its_positions_are(key: str, rope: bool) -> None:
    """No all-zero P chart and no sinusoid formula for a layer that computes neither."""
    need(key)
    at = opened_in_explorer(key, CAT, 2, 0)
    page = at.switch_page("app_pages/positional-encoding.py").run()
    assert not page.exception
    tex = " ".join(e.proto.body for e in page.get("markdown") if "$$" in e.proto.body) + " ".join(
        m.value for m in page.latex
    )
    assert ("RoPE" in tex) is rope and "PE_{(pos" not in tex
    assert ("P_{\\text{learned}}" in tex) is (not rope)
    said = " ".join(i.value for i in page.info)
    assert "adds no position vector P" in said and ("rotate each query and key" in said) is rope
    # presenting, the line for the room says so too, not the toy's "a pattern of waves ... is added"
    step = page_table.by_path("positional-encoding").steps[0]
    assert step.look not in [m.value for m in page.markdown]  # not presenting: no line for the room
    page.session_state["ui.present"] = True
    lines = [m.value for m in page.run().markdown]
    assert step.look_if_fixed[1] in lines and step.look not in lines


def test_an_outlier_whose_number_is_printed_is_framed_not_circled_over_it() -> None:
    """Presenting /scores (numbers in every cell): a ring over a cell's middle hid its number. A cell that
    prints its number is framed along its edges; the rings stay for their hover, unseen."""
    rng = np.random.default_rng(1)
    z = rng.normal(size=(5, 5))
    z[2, 3] = 40.0
    fig = fg.heatmap(z, list("abcde"), list("abcde"), title="scores", style=fg.Style(present=True))
    spec = _plain(fig)
    assert spec["data"][0].get("texttemplate")  # the numbers are printed
    rings = [t for t in spec["data"] if (t.get("meta") or {}).get("beyond")]
    assert rings and all(t["marker"]["opacity"] == 0 for t in spec["data"][1:3])
    frames = [
        s for s in spec["layout"]["shapes"] if s.get("type") == "rect" and s["line"]["color"] == "black"
    ]
    assert [(s["x0"] + s["x1"]) / 2 for s in frames] == [3] and [(s["y0"] + s["y1"]) / 2 for s in frames] == [
        2
    ]
    assert frames[0]["x1"] - frames[0]["x0"] > 0.85  # along the cell's edges, clear of its number
    assert spec["layout"]["title"]["subtitle"]["text"].startswith("framed")
    laptop = _plain(fg.heatmap(rng.normal(size=(6, 40)) * [1] * 39 + [400], list("abcdef"), fg.dims("d", 40),
                               title="X", style=STYLE))  # fmt: skip
    assert not any(s.get("type") == "rect" for s in laptop["layout"].get("shapes", []))  # no numbers: rings
