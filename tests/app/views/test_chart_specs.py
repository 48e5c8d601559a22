"""The offline HTML page draws each chart a page draws under the page's own title: both read
explorer.views.chart_specs, and this test reads the titles each one sends (the page's chart elements through
AppTest, the HTML's figures from explorer.export.html_charts) for the same example."""

from __future__ import annotations

import html

import pytest
from streamlit.testing.v1 import AppTest

from explorer.compute import pipeline
from explorer.export import html_charts, walkthrough
from explorer.model.example import Example, conform
from explorer.ui import state
from tests.app.fixtures import ROOT, TIMEOUT, chart_specs, page_scripts

# The HTML's chart -> the page and the chart key that draw it in the app.
SAME_CHART = {
    "tokens.E": ("", "sentence.embeddings"),
    "pe.P": ("positional-encoding", "pe.matrix"),
    "pe.PPt": ("positional-encoding", "pe.similarity"),
    "proj.Q": ("projections", "projections.w_q"),
    "proj.K": ("projections", "projections.w_k"),
    "proj.V": ("projections", "projections.w_v"),
    "scores.raw": ("scores", "scores.raw"),
    "scores.masked": ("scores", "scores.scaled"),
    "scores.weights": ("scores", "scores.weights"),
    "heads.grid": ("heads", "heads.grid"),
    "heads.concat": ("heads", "heads.concat"),
    "heads.out": ("heads", "heads.output"),
    "token.weights": ("token", "token.weights"),
    "token.stack": ("token", "token.stack"),
}
LINK = {"mask": "causal", "alibi": "1", "heads": "3"}  # a masked, biased example with several heads


def title_text(title: object) -> str:
    """A chart's title as a person reads it: the lines it was wrapped into joined again, unescaped."""
    text = title.get("text", "") if isinstance(title, dict) else getattr(title, "text", "")
    return html.unescape(str(text or "").replace("<br>", " "))


def page_titles(url_path: str) -> tuple[dict[str, str], int]:
    """Every chart's title on a page opened from LINK (its key -> title), and the query the page picked."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in LINK.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page_scripts()[url_path]).run()
    assert not at.exception, at.exception
    titles = {key: title_text(spec["layout"].get("title")) for key, spec in chart_specs(at)}
    return titles, int(at.session_state[state.K_QUERY])


@pytest.fixture(scope="module")
def pages() -> dict[str, tuple[dict[str, str], int]]:
    return {path: page_titles(path) for path in {p for p, _ in SAME_CHART.values()} | {"encoder"}}


def exported(query: int) -> dict[str, list[str]]:
    """The HTML page's charts (its key -> the title of each variant) for the example of LINK."""
    ex = conform(Example(mask_kind="causal", alibi=True, n_heads=3))
    w = walkthrough.from_example(ex, pipeline.run(ex), query=query, head=0)
    charts = [c for step in html_charts.charts_of(w).values() for c in step]
    return {
        c.key: [title_text(html_charts.figure_of(fig).layout.title.to_plotly_json()) for _, fig in c.variants]
        for c in charts
    }


def test_the_html_charts_carry_the_pages_titles(pages: dict[str, tuple[dict[str, str], int]]) -> None:
    got = exported(pages["token"][1])
    for key, (path, page_key) in SAME_CHART.items():
        page, _ = pages[path]
        assert page_key in page, (path, sorted(page))
        assert got[key][0] == page[page_key], key  # the first variant is head 1, the page's default head
    assert (
        len(got["scores.weights"]) == 3
        and got["scores.weights"][2] == "Softmax weights A (head 3; rows sum to 1)"
    )


def test_the_html_encoder_charts_are_the_pages(pages: dict[str, tuple[dict[str, str], int]]) -> None:
    page, _ = pages["encoder"]
    on_page = [title for key, title in page.items() if key.startswith("encoder.")]
    got = exported(0)
    in_html = [titles[0] for key, titles in got.items() if key.startswith("encoder.")]
    assert in_html == on_page and len(on_page) == 8
