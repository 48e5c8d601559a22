"""Presentation mode and the step-through: larger page and chart text, the slides' order, and
colour scales that keep their order on a washed-out projector and for any colour vision."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import plotly.colors as pc
import pytest
from streamlit.testing.v1 import AppTest

from explorer.ui import chart, frame, lesson_ui, page_table, present
from explorer.views import figures

N_PAGES = len(page_table.listed())  # the step count: one number per page

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 60


def run_app(url_path: str = "", params: dict[str, str] | None = None, scripts: dict[str, str] | None = None):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    if url_path:
        at.switch_page(scripts[url_path])
        at.run()
    assert not at.exception, at.exception
    return at


TABLE_ROOM = frame.TABLE_ROOM_CSS
ALWAYS = (TABLE_ROOM, lesson_ui.MENU_CSS)  # style blocks of the frame whether presenting or not


def css_blocks(at: AppTest) -> list[str]:
    """The presenting style blocks (not presenting, the page has only the room above its tables)."""
    return [
        el.proto.body for el in at.get("html") if "<style>" in el.proto.body and el.proto.body not in ALWAYS
    ]


def table_room(at: AppTest) -> bool:
    return any(el.proto.body == TABLE_ROOM for el in at.get("html"))


def figure_fonts(at: AppTest) -> list[tuple[int, int, int | None]]:
    """(layout font, title font, cell text font) of every chart on the page."""
    out = []
    for el in at.get("bidi_component"):
        spec = chart.spec_of(el.proto)
        if spec is None:
            continue
        layout = spec["layout"]
        cells = [t.get("textfont", {}).get("size") for t in spec["data"] if t.get("texttemplate")]
        out.append((layout["font"]["size"], layout["title"]["font"]["size"], cells[0] if cells else None))
    return out


# ---------------------------------------------------------------- presentation mode


def test_present_param_enlarges_page_and_chart_text(kit) -> None:
    normal = run_app("scores", scripts=kit.scripts())
    big = run_app("scores", {"present": "1"}, scripts=kit.scripts())
    assert big.session_state["ui.present"] is True and normal.session_state["ui.present"] is False
    # page text: the static projector CSS (a 22 px root font; Streamlit's type is in rem)
    assert not css_blocks(normal) and table_room(normal) and not table_room(big)
    (css,) = css_blocks(big)
    assert f"html {{ font-size: {present.BASE_FONT_PX}px; }}" in css and present.BASE_FONT_PX >= 20
    # charts: Plotly text does not follow the page, so every figure carries the presentation sizes
    small_fonts, big_fonts = figure_fonts(normal), figure_fonts(big)
    assert len(small_fonts) >= 3 and len(big_fonts) >= 1  # presenting, a step shows its own chart
    style, style_big = figures.Style(), figures.Style(present=True)
    assert {f[:2] for f in small_fonts} == {(style.font, style.title_font)}
    assert {f[:2] for f in big_fonts} == {(style_big.font, style_big.title_font)}
    cell_sizes = {f[2] for f in big_fonts if f[2] is not None}
    assert cell_sizes == {style_big.cell_font} and style_big.cell_font >= 20  # values readable in the cells
    # the step-through sits above the page too, with what to look at
    top = [m.value for m in big.markdown if m.value.startswith("**Step ")]
    assert top == [f"**Step 4 of {N_PAGES}: Scores, mask, softmax (part 1 of 3: Scores)**"]
    assert present.STEPS[3].look in [m.value for m in big.markdown]
    assert not [m for m in normal.markdown if m.value.startswith("**Step ")]


def test_the_sidebar_toggle_switches_presentation_mode_on_every_page(kit) -> None:
    at = run_app()
    assert not css_blocks(at)
    at.toggle(key="ui.present").set_value(True).run()
    assert css_blocks(at) and figure_fonts(at)[0][0] == figures.Style(present=True).font
    at.switch_page(kit.scripts()["heads"]).run()  # kept across pages
    assert css_blocks(at) and {f[0] for f in figure_fonts(at)} == {figures.Style(present=True).font}
    at.toggle(key="ui.present").set_value(False).run()
    assert not css_blocks(at) and {f[0] for f in figure_fonts(at)} == {figures.Style().font}


def test_presenting_collapses_the_sidebar_and_the_css_is_static() -> None:
    assert present.sidebar_state(True) == "collapsed" and present.sidebar_state(False) == "auto"
    app = (ROOT / "app.py").read_text(encoding="utf-8")
    assert "initial_sidebar_state=present.sidebar_state(state.present())" in app
    assert re.fullmatch(r"<style>[^<>]*</style>", present.CSS)  # one static style block, nothing else


# ---------------------------------------------------------------- the step-through


def whole_page(i: int) -> str:
    """The caption under a page off the projector: its step, without a part (the page shows all its parts)."""
    return present.caption(i).split(" (part ", 1)[0]


def steps_walked(at: AppTest, scripts: dict[str, str], arrow: str) -> list[tuple[str, str]]:
    """Follow the bottom "next" (arrow "→") or "previous" ("←") links from the page `at` shows."""
    seen = []
    for _ in range(3 * len(present.STEPS)):
        caption = [c.value for c in at.caption if c.value.startswith("Step ")]
        assert len(caption) == 1, caption
        path = present.STEPS[[whole_page(i) for i in range(len(present.STEPS))].index(caption[0])].url_path
        seen.append((path, caption[0]))
        link = [
            p.proto
            for p in at.get("page_link")
            if (p.proto.label.endswith(" →") if arrow == "→" else p.proto.label.startswith("← "))
        ]
        if not link:
            return seen
        (target,) = link
        at.query_params.pop("step", None)
        for key, value in re.findall(r"(\w+)=([\w-]+)", target.query_string):
            at.query_params[key] = value
        at.switch_page(scripts[target.page])
        at.run()
        assert not at.exception, at.exception
    raise AssertionError("the step-through does not end")


def test_the_step_through_visits_every_page_in_order(kit) -> None:
    scripts = kit.scripts()
    forward = steps_walked(run_app(), scripts, "→")
    # Off the projector a page shows all its parts: its links lead to the next and previous pages, never
    # to a part of the same page (that link reloaded the page the student was reading).
    firsts = [i for i, s in enumerate(present.STEPS) if present.step_index(s.url_path) == i]
    assert [c for _, c in forward] == [whole_page(i) for i in firsts]
    # The count is the sidebar's: one number per page of the menu, the parts of a page (/scores, /minimal-pairs)
    # under one number.
    pages = len(scripts)
    numbers = [c.split(":")[0] for _, c in forward]
    parts = [len(p.steps) for p in page_table.listed()]
    assert parts[3] == 3 and parts[-1] == 2  # /scores in three, /minimal-pairs in two
    assert numbers == [f"Step {k} of {pages}" for k in range(1, pages + 1)]
    assert forward[3][1] == f"Step 4 of {N_PAGES}: Scores, mask, softmax" and forward[4][0] == "heads"
    assert [s.title for s in present.STEPS[3:6]] == ["Scores", "Masking", "Softmax"]  # sections of /scores
    pages_in_order = list(dict.fromkeys(path for path, _ in forward))
    assert pages_in_order == list(scripts)  # every page of app.py, in the menu's order
    last, at = present.STEPS[-1], run_app()
    at.query_params["step"] = last.name  # the last page's last step
    at.switch_page(scripts[last.url_path]).run()
    backward = steps_walked(at, scripts, "←")
    assert [c for _, c in backward] == [c for _, c in reversed(forward)]


def test_a_step_name_belongs_to_its_page_only() -> None:
    assert present.step_index("scores", "softmax") == 5
    assert present.step_index("scores", None) == 3
    assert present.step_index("heads", "softmax") == 6  # another page's step: the page's own first step
    assert present.step_index("no-such-page") is None
    assert (
        present.query_of(present.STEPS[4]) == {"step": "masking"} and present.query_of(present.STEPS[6]) == {}
    )


# ---------------------------------------------------------------- colour scales


def luminance(colour: str) -> float:
    rgb = pc.hex_to_rgb(colour) if colour.startswith("#") else pc.unlabel_rgb(colour)
    c = np.array(rgb, dtype=float) / 255
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(c @ [0.2126, 0.7152, 0.0722])


def washed_out(lum: float) -> float:
    """A projector in a lit room: black raised to 12 % and white dimmed to 85 %."""
    return 0.12 + (0.85 - 0.12) * lum


def contrast(a: float, b: float) -> float:
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


@pytest.mark.parametrize("palette", list(figures.PALETTES))
def test_colour_scales_keep_their_order_in_lightness(palette: str) -> None:
    """Order carried by lightness survives a washed-out projector, greyscale and every colour vision."""
    style = figures.Style(palette=palette)
    seq = [luminance(c) for c in pc.sample_colorscale(style.sequential, list(np.linspace(0, 1, 21)))]
    steps = np.diff(seq)
    assert np.all(steps > 0) or np.all(steps < 0), f"{style.sequential} is not monotonic in lightness"
    assert contrast(washed_out(seq[0]), washed_out(seq[-1])) >= 3.5
    div = [luminance(c) for c in pc.sample_colorscale(style.diverging, list(np.linspace(0, 1, 21)))]
    centre = int(np.argmax(div))
    assert centre == 10, f"{style.diverging}: zero must be the lightest colour"
    assert np.all(np.diff(div[: centre + 1]) > 0) and np.all(np.diff(div[centre:]) < 0)
    for end in (div[0], div[-1]):
        assert contrast(washed_out(div[centre]), washed_out(end)) >= 3.0


# ------------------------------------------- /scores' three steps show three things


def scores_step(kit, step: str, mask: str = "none") -> AppTest:  # noqa: ANN001
    return run_app("scores", {"present": "1", "step": step, "mask": mask}, kit.scripts())


def test_the_three_scores_steps_each_show_their_own_charts(kit) -> None:
    drawn = {step: set(kit.charts(scores_step(kit, step))) for step in ("scores", "masking", "softmax")}
    assert drawn == {
        "scores": {"scores.raw"},
        "masking": {"scores.mask", "scores.scaled"},
        "softmax": {"scores.weights"},
    }


def test_the_masking_step_greys_cells_only_when_a_mask_is_set(kit) -> None:
    at = scores_step(kit, "masking")  # no mask: M is 0 everywhere, nothing grey, and the page says so
    mask = kit.charts(at)["scores.mask"]
    n = len(kit.reference().labels)
    assert len(mask["data"]) == 1 and np.array_equal(kit.z(mask), np.zeros((n, n)))
    assert "nothing masked" in mask["layout"]["title"]["text"].replace("<br>", " ")
    assert len(kit.charts(at)["scores.scaled"]["data"]) == 1  # no grey layer on the softmax input either
    assert "grey cells are" not in present.STEPS[4].look  # the step's line claims no grey cell
    at = scores_step(kit, "masking", "causal")  # causal: grey above the diagonal in both charts
    mask = kit.charts(at)["scores.mask"]
    grey = kit.z(mask, 1)  # the masked layer: 1 where masked, NaN elsewhere
    assert np.array_equal(np.isfinite(grey), np.triu(np.ones((n, n), dtype=bool), 1))
    assert len(kit.charts(at)["scores.scaled"]["data"]) == 2
    assert "grey −∞" in mask["layout"]["title"]["text"].replace("<br>", " ")


@pytest.mark.parametrize("url_path", ["token", "why-scale"])
def test_presenting_every_axis_is_readable_from_the_back_row(kit, url_path: str) -> None:  # noqa: ANN001
    """Bars and curves size no axis text themselves, and the chart element's theme gives them 12 px (a laptop's
    size): presenting, every axis of every chart carries at least figures.PRESENT_TICK_PX."""
    big = run_app(url_path, {"present": "1"}, scripts=kit.scripts())
    axes = []
    for el in big.get("bidi_component"):
        spec = chart.spec_of(el.proto)
        if spec is None or any(t.get("type") == "heatmap" for t in spec["data"]):
            continue  # heatmaps fit their labels to their cells (tests/app/views/test_reading_charts.py)
        axes += [v for k, v in spec["layout"].items() if k.startswith(("xaxis", "yaxis"))]
        assert {"xaxis", "yaxis"} <= set(spec["layout"]), list(spec["layout"])  # both axes sized
    assert axes, f"/{url_path} drew no bar or curve chart while presenting"
    for axis in axes:
        assert axis["tickfont"]["size"] >= figures.PRESENT_TICK_PX, axis
        title = axis.get("title")
        if isinstance(title, dict) and title.get("text"):
            assert title["font"]["size"] >= figures.PRESENT_TICK_PX, axis
    normal = run_app(url_path, scripts=kit.scripts())  # a laptop's charts keep the theme's sizes
    for el in normal.get("bidi_component"):
        spec = chart.spec_of(el.proto)
        if spec is not None and not any(t.get("type") == "heatmap" for t in spec["data"]):
            assert all("tickfont" not in v for k, v in spec["layout"].items() if k.startswith("yaxis")), spec


def test_presenting_the_encoder_block_keeps_its_four_plots_level(kit) -> None:  # noqa: ANN001
    """Presenting, /encoder draws four stages in one row; the last one's title takes two lines at that
    width, and the other three leave the same room so the four heatmaps start at one height."""
    at = run_app("encoder", {"present": "1"}, kit.scripts())
    charts = kit.charts(at)
    assert len(charts) == 4, list(charts)
    lines = [c["layout"]["title"]["text"].count("<br>") + 1 for c in charts.values()]
    assert max(lines) > min(lines), lines  # the titles do wrap differently: the case this checks
    assert len({c["layout"]["margin"]["t"] for c in charts.values()}) == 1
    assert len({c["layout"]["height"] for c in charts.values()}) == 1
