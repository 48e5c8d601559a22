"""The exports in a real Chromium: the HTML page opened from disk with the network off draws every chart and
formula; the app's download buttons hand over the files."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import numpy as np
import pytest

from explorer.compute import pipeline
from explorer.export import html, walkthrough
from explorer.model.example import Example, conform

pytestmark = pytest.mark.e2e

OUT = Path(__file__).resolve().parents[2] / "test-output"

# Every .plot div is a drawn Plotly chart: the plot object, its SVG, and at least one trace laid out.
_DRAWN = """() => [...document.querySelectorAll('div.plot')].map(el => ({
  key: el.dataset.key,
  plotly: el.classList.contains('js-plotly-plot'),
  svg: el.querySelectorAll('svg.main-svg').length,
  traces: (el._fullData || []).length,
  marks: el.querySelectorAll('.heatmaplayer image, .barlayer path, .scatterlayer path.js-line').length,
  width: el.getBoundingClientRect().width,
}))"""


def offline(page) -> list[str]:  # noqa: ANN001 - a Playwright Page
    """Abort every http(s) request of the page; the list fills with the ones it tried."""
    tried: list[str] = []

    def block(route) -> None:  # noqa: ANN001 - a Playwright Route
        tried.append(route.request.url)
        route.abort()

    page.route("http://**/*", block)
    page.route("https://**/*", block)
    return tried


def write(tmp_path: Path, **settings) -> tuple[walkthrough.Walkthrough, Path]:
    ex = conform(Example(**settings))
    w = walkthrough.from_example(ex, pipeline.run(ex), query=7, head=0, link="http://127.0.0.1:9/scores?a=1")
    path = tmp_path / "example.html"
    path.write_bytes(html.to_bytes(w))
    return w, path


@pytest.mark.parametrize(
    "settings",
    [{}, {"n_heads": 3, "mask_kind": "causal", "alibi": True, "norm_first": True, "pe_kind": "learned"}],
    ids=["default", "three-heads-causal"],
)
def test_the_page_opened_from_disk_offline_draws_every_chart(page, tmp_path: Path, settings: dict) -> None:  # noqa: ANN001
    w, path = write(tmp_path, **settings)
    tried = offline(page)
    page.goto(path.as_uri())
    page.wait_for_function("() => document.body.dataset.chartsDrawn", timeout=120_000)
    charts = page.evaluate(_DRAWN)
    expected = json.loads(page.locator("#charts-data").text_content())["charts"]
    assert len(charts) == len(expected) >= 20
    for c in charts:
        assert c["plotly"] and c["svg"] >= 1 and c["traces"] >= 1 and c["marks"] >= 1 and c["width"] > 200, c
    assert tried == []  # nothing was even asked of the network
    # Formulas: MathML laid out by the browser (a width, a height), one per part.
    sizes = page.evaluate(
        "() => [...document.querySelectorAll('math')].map(m => m.getBoundingClientRect().width)"
    )
    assert len(sizes) >= 15 and min(sizes) > 20
    assert page.locator("blockquote").inner_text() == w.sentence
    assert page.locator("a").first.get_attribute("href") == w.link
    page.evaluate("document.getElementById('scores').scrollIntoView()")
    page.screenshot(path=str(OUT / f"export-html-{'default' if not settings else 'three-heads'}.png"))


def test_the_head_buttons_switch_a_chart_to_that_heads_numbers(page, tmp_path: Path) -> None:  # noqa: ANN001
    w, path = write(tmp_path, n_heads=3)
    offline(page)
    page.goto(path.as_uri())
    page.wait_for_function("() => document.body.dataset.chartsDrawn", timeout=120_000)
    plot = page.locator('div.plot[data-key="scores.weights"]')
    index = plot.get_attribute("id").split("-")[1]
    live_z = "i => document.getElementById('chart-' + i)._fullData[0].z.map(r => Array.from(r))"
    for h in (2, 1):
        button = page.locator(f'button[data-chart="{index}"][data-variant="{h}"]')
        if h == 2:
            button.click()
        else:  # the buttons are buttons: the keyboard reaches them
            button.focus()
            page.keyboard.press("Enter")
        assert button.get_attribute("aria-pressed") == "true"
        got = np.array(page.evaluate(live_z, index), dtype=np.float64)
        np.testing.assert_array_equal(got, w.numbers["A"][h])


def test_the_apps_buttons_download_the_notebook_and_the_page(app, tmp_path: Path) -> None:  # noqa: ANN001
    app.open("scores", min_charts=3)
    sidebar = app.page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Share and export").click()
    sidebar.get_by_role("button", name="Download as notebook (.ipynb)").wait_for()
    app.settle()  # each button's file id is its run's: the last run's, once every run has ended
    files = {}
    for label in ("Download as notebook (.ipynb)", "Download as a web page (.html)"):
        button = sidebar.get_by_role("button", name=label)
        button.scroll_into_view_if_needed()
        with app.page.expect_download(timeout=120_000) as info:
            button.click()
        target = tmp_path / info.value.suggested_filename
        info.value.save_as(target)
        files[target.suffix] = target
    nb = nbformat.read(files[".ipynb"], as_version=4)
    nbformat.validate(nb)
    assert "The cat sat on the mat because it was warm." in nb.cells[0].source
    page_text = files[".html"].read_text(encoding="utf-8")
    assert 4_000_000 < len(page_text.encode()) < 6_000_000 and 'id="charts-data"' in page_text
    assert app.exceptions() == []
