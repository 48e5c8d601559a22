"""A browser fetches plotly.js and the chart's other assets once, then keeps them (server.py: hashed names, a
year-long immutable cache header; explorer/ui/chart/serve.py): a second tab draws its charts from the cache."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from explorer.ui import chart, warm
from tests.e2e.conftest import TIMEOUT, VIEWPORT, App, Server, start_server

pytestmark = pytest.mark.e2e

ASSETS = """() => performance.getEntriesByType('resource')
  .filter(e => e.name.includes('/_stcore/bidi-components/attention_explorer.chart/'))
  .map(e => ({name: e.name.split('/').pop(), transfer: e.transferSize, size: e.decodedBodySize}))"""


@pytest.fixture(scope="module")
def served() -> Iterator[Server]:
    srv = start_server("assets", entry="server.py", env={warm.WARM_ENV: "0"})  # the assets need no model
    yield srv
    srv.stop()


def test_a_second_tab_takes_plotly_js_and_the_charts_assets_from_the_browsers_cache(
    browser: Any, served: Server
) -> None:
    ctx = browser.new_context(viewport=VIEWPORT)
    try:
        first, second = (App(ctx.new_page(), served) for _ in range(2))
        for app in (first, second):
            app.page.set_default_timeout(TIMEOUT * 1000)
        first.open("scores", min_charts=3)
        fetched = {a["name"]: a for a in first.page.evaluate(ASSETS)}
        plotly = next(n for n in fetched if n.startswith("plotly-") and n.endswith(".min.js"))
        size = chart.PLOTLY_JS.stat().st_size  # the cartesian build, 1.5 MB unpacked
        assert fetched[plotly]["size"] == size
        assert 100_000 < fetched[plotly]["transfer"] < size / 2  # over the network, gzipped
        assert any(n.startswith("templates-") for n in fetched) and any(
            n.startswith("chart-") for n in fetched
        )
        second.open("scores", min_charts=3)
        again = {a["name"]: a for a in second.page.evaluate(ASSETS)}
        assert set(again) == set(fetched), (again, fetched)
        assert {n: a["transfer"] for n, a in again.items()} == dict.fromkeys(again, 0)  # all from the cache
        assert second.exceptions() == []
    finally:
        ctx.close()


FETCHES = """() => performance.getEntriesByType('resource')
  .filter(e => e.name.includes('/_stcore/bidi-components/attention_explorer.chart/'))
  .map(e => ({name: e.name.split('/').pop(), by: e.initiatorType}))"""


def test_a_new_tab_fetches_the_charts_assets_with_streamlits_bundle_once_each(
    browser: Any, served: Server
) -> None:
    """The page's head preloads them (explorer/ui/chart/serve.head_tags): each is asked for by its <link> in the
    head, as the page is parsed and before any chart exists (not by the chart once Streamlit has drawn it:
    when each starts against Streamlit's own bundle depends on the machine's load), and the chart then takes
    the preloaded copy (one fetch each, and no console warning of a preload unused or fetched a second time
    for a mismatched request)."""
    ctx = browser.new_context(viewport=VIEWPORT)  # a cold browser cache
    try:
        app = App(ctx.new_page(), served)
        app.page.set_default_timeout(TIMEOUT * 1000)
        console: list[str] = []
        app.page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
        app.open("scores", min_charts=3)
        fetched = app.page.evaluate(FETCHES)
        names = chart.asset_names()
        want = {names["plotly"], names["js"], names["css"], names["templates"]}
        assert sorted(f["name"] for f in fetched) == sorted(want), fetched  # each once
        # <link rel=preload> is a "link" initiator; Chromium names a <link rel=modulepreload> (the chart's
        # module) "other", where the component importing it would be a "script".
        by = {f["name"]: f["by"] for f in fetched}
        assert by == {n: "other" if n == names["js"] else "link" for n in want}, fetched
        assert not [m for m in console if "preload" in m.lower()], console
        assert app.exceptions() == []
    finally:
        ctx.close()
