"""The chart element (explorer/chart) in a real Chromium: a chart keeps its node and is redrawn in place, plotly.js
comes once per tab from the app itself, the PNG download is twice the chart's size and named after its key,
the chart follows the column's width and the Streamlit theme, and its height is held while it updates."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

GD = ".st-key-scores-weights .js-plotly-plot"
# Plotly's own drawing of the chart is the one remembered in window.__svg (a rebuilt plot has a new one)
SAME_SVG = "sel => document.querySelector(sel).querySelector('.main-svg') === window.__svg"


def test_a_chart_keeps_its_node_and_its_height_across_reruns(app) -> None:  # noqa: ANN001
    app.open("scores", min_charts=3)
    app.page.evaluate(
        """sel => {
          window.__gd = document.querySelector(sel);
          window.__svg = window.__gd.querySelector('.main-svg');
          window.__newPlots = 0;
          const P = window.Plotly, orig = P.newPlot;
          P.newPlot = function (...a) { window.__newPlots += 1; return orig.apply(this, a); };
          const box = window.__gd.closest('[class*="st-key-"]');
          window.__heights = [];
          const watch = () => { window.__heights.push(box.getBoundingClientRect().height);
                                window.__watching = requestAnimationFrame(watch); };
          watch();
        }""",
        GD,
    )
    app.remember("scores-weights")
    app.type_sentence("Dogs chase the red ball")
    app.wait_labels("scores-weights", ["Dogs", "chase", "the", "red", "ball"])
    same = app.page.evaluate("sel => document.querySelector(sel) === window.__gd", GD)
    assert same, "the chart's node was replaced: it must be redrawn in place"
    assert app.page.evaluate("() => window.__newPlots") == 0  # Plotly.react on the same node, no new plot
    # ... and Plotly kept its own drawing (a config that differs from the last one, even by a new click
    # function, makes Plotly.react throw the plot away and build it anew: twice the work)
    assert app.page.evaluate(SAME_SVG, GD), "Plotly rebuilt the plot instead of redrawing it in place"
    heights = app.page.evaluate("() => { cancelAnimationFrame(window.__watching); return window.__heights; }")
    want = app.page.evaluate(f"() => document.querySelector('{GD}').layout.height")
    # 5 tokens instead of 11: the new height is reserved with the new figure, in one step (no collapse to 0
    # and no growth while it draws): at most two heights were ever seen, the old and the new.
    assert len(heights) > 5 and min(heights) > 100
    assert len(set(round(h) for h in heights)) <= 2, sorted(set(round(h) for h in heights))
    assert round(heights[-1]) == want


def test_plotly_js_is_served_by_the_app_once_per_tab(app) -> None:  # noqa: ANN001
    app.open("scores", min_charts=3)
    app.go("heads", min_charts=3)
    app.go("encoder", min_charts=8)
    loads = app.page.evaluate(
        """() => performance.getEntriesByType('resource').map(e => e.name)
                   .filter(n => n.endsWith('.js') && /plotly/.test(n))"""
    )
    assert len(loads) == 1, loads
    assert loads[0].startswith(app.server.url + "/_stcore/bidi-components/"), loads  # never a CDN


def test_png_download_is_twice_the_chart_and_named_after_its_key(shared_app) -> None:  # noqa: ANN001
    app = shared_app.visit(
        "scores", 3
    )  # (a look at /scores as it opens: one session for the two tests below)
    chart = app.page.locator(GD)
    chart.hover()
    size = app.page.evaluate(
        f"() => {{ const l = document.querySelector('{GD}')._fullLayout; return [l.width, l.height]; }}"
    )
    with app.page.expect_download() as info:
        app.page.locator(f'{GD} .modebar-btn[data-title="Download plot as a PNG"]').click()
    download = info.value
    assert download.suggested_filename == "scores_weights.png"
    head = Path(download.path()).read_bytes()[:32]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", head[16:24])
    assert (width, height) == (2 * size[0], 2 * size[1])


# The row sums a chart shows: text points Plotly did not hide (it hides a point past its axis's range), in the
# page's SVG or in the SVG Plotly exports for a download.
SHOWN_SUMS = r'<g class="textpoint"(?! display="none")[^>]*><text[^>]*>\s*Σ (\d\.\d{3})</text>'


def test_every_row_sum_and_cell_line_is_drawn_on_the_page_and_in_the_download(shared_app) -> None:  # noqa: ANN001
    app = shared_app.visit("scores", 3)
    rows = len(app.labels("scores-weights"))
    page = app.page.evaluate("sel => document.querySelector(sel).innerHTML", GD)
    exported = app.page.evaluate(
        """async sel => {
          const url = await Plotly.toImage(document.querySelector(sel), {format: 'svg', scale: 2});
          return decodeURIComponent(url.split(',')[1]);
        }""",
        GD,
    )
    for svg in (page, exported):
        assert re.findall(SHOWN_SUMS, svg) == ["1.000"] * rows
        # the lines between cells: one path over the heatmap, in the page's colour (white in the light theme)
        lines = re.findall(
            r'<g class="shape-group"[^>]*><path[^>]*d="([^"]+)"[^>]*stroke: rgb\(255, 255, 255\)', svg
        )
        assert len(lines) == 1 and lines[0].count("M") == 2 * (rows - 1), lines


def test_a_chart_follows_the_column_width(app) -> None:  # noqa: ANN001
    app.open("scores", min_charts=3)
    width = "sel => document.querySelector(sel)._fullLayout.width"
    root = "sel => document.querySelector(sel).parentElement.clientWidth"
    wide = app.page.evaluate(width, GD)
    assert wide == app.page.evaluate(root, GD)
    app.page.set_viewport_size({"width": 1280, "height": 800})
    app.poll(
        f"sel => ({width})(sel) < {wide} - 100 && ({width})(sel) === ({root})(sel)", GD, what="narrower chart"
    )


def test_a_chart_follows_the_streamlit_theme(app) -> None:  # noqa: ANN001
    app.page.emulate_media(color_scheme="light")
    app.open("scores", min_charts=3)
    bg = "sel => document.querySelector(sel)._fullLayout.paper_bgcolor"
    light = app.page.evaluate(bg, GD)
    app.page.evaluate("sel => { window.__gd = document.querySelector(sel); }", GD)
    app.page.emulate_media(color_scheme="dark")  # Streamlit follows the system's scheme; so must the charts
    app.poll(f"sel => ({bg})(sel) !== {light!r}", GD, what="the chart to take the dark theme")
    dark = app.page.evaluate(bg, GD)
    page_bg = app.page.evaluate(
        """() => getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor"""
    )
    assert light in ("#ffffff", "rgb(255, 255, 255)") and dark != light
    assert app.page.evaluate(
        """([c, p]) => { const x = document.createElement('canvas').getContext('2d');
                         x.fillStyle = c; const a = x.fillStyle; x.fillStyle = p; return a === x.fillStyle; }""",
        [dark, page_bg],
    ), f"chart {dark} on a page {page_bg}"
    assert app.page.evaluate("sel => document.querySelector(sel) === window.__gd", GD)  # redrawn in place


def test_a_chart_that_did_not_change_is_neither_sent_again_nor_redrawn(app) -> None:  # noqa: ANN001
    """An edit of W_O changes the output chart only: of the three charts on /heads, the grid and the
    concatenation come back as references to the browser's copy (Streamlit's message cache, from 1 KB in
    .streamlit/config.toml), not as their figures, and Plotly draws none of them again."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    from explorer.ui import chart

    frames: list[bytes] = []
    app.listen(
        "websocket",
        lambda ws: ws.on("framereceived", lambda p: frames.append(p) if isinstance(p, bytes) else 0),
    )
    app.open("heads", min_charts=3)

    def sent(since: int) -> tuple[dict[str, int], list[int]]:
        """The charts sent in full (key -> bytes) and the sizes of the references, in frames[since:]."""
        full, refs = {}, []
        for raw in frames[since:]:
            msg = ForwardMsg.FromString(raw)
            if msg.WhichOneof("type") == "ref_hash":
                refs.append(len(raw))
            elif msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
                proto = msg.delta.new_element.bidi_component
                if proto.component_name == chart.NAME:
                    full[chart.key_of(proto)] = len(raw)
        return full, refs

    first, _ = sent(0)
    assert {"heads.grid", "heads.concat", "heads.output"} <= set(first), first
    assert min(first.values()) >= 1000  # each above the cache's threshold: a reference can stand for it
    app.page.evaluate(
        """() => {
          window.__drawn = [];
          const P = window.Plotly, orig = P.react;
          P.react = function (gd, ...a) {
            const box = gd.closest('[class*="st-key-"]');
            window.__drawn.push([...box.classList].find((c) => c.startsWith('st-key-')));
            return orig.call(this, gd, ...a);
          };
        }"""
    )
    mark = len(frames)
    app.edit_until_chart_changes(0, 0, 0, "2.5", "heads-output")
    full, refs = sent(mark)
    assert set(full) == {"heads.output"}, f"charts sent again in full: {full}"
    assert len(refs) >= 2 and max(refs) < 200, refs  # the grid and the concatenation: a reference each
    assert sum(refs) < (first["heads.grid"] + first["heads.concat"]) / 10
    assert app.page.evaluate("() => window.__drawn") == ["st-key-heads-output"]


def test_fullscreen_fills_the_window_and_escape_brings_the_chart_back(app) -> None:  # noqa: ANN001
    """The modebar's Fullscreen button (chart.js) draws the chart over the whole window; Escape puts it back
    at its column's width, and a later change of the sentence still redraws it in place."""
    app.open("scores", min_charts=3)
    width = "sel => document.querySelector(sel)._fullLayout.width"
    column = app.page.evaluate(width, GD)
    viewport = app.page.viewport_size["width"]
    app.page.locator(GD).hover()
    app.page.locator(f'{GD} .modebar-btn[data-title="Fullscreen"]').click()
    app.poll(f"sel => ({width})(sel) > {column} + 100", GD, what="the chart to fill the window")
    full = app.page.evaluate(width, GD)
    assert viewport - 100 <= full <= viewport, (full, viewport)
    assert app.page.locator(f'{GD} .modebar-btn[data-title="Close fullscreen"]').count() == 1
    app.page.keyboard.press("Escape")
    app.poll(f"sel => ({width})(sel) === {column}", GD, what="the chart back at its column's width")
    assert app.page.locator(f'{GD} .modebar-btn[data-title="Fullscreen"]').count() == 1
    app.page.evaluate("sel => { window.__svg = document.querySelector(sel).querySelector('.main-svg'); }", GD)
    app.type_sentence("Dogs chase the red ball")
    app.wait_labels("scores-weights", ["Dogs", "chase", "the", "red", "ball"])
    assert app.page.evaluate(SAME_SVG, GD), "Plotly rebuilt the plot instead of redrawing it in place"
