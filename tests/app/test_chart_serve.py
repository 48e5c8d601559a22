"""server.py's middleware for the chart's assets (explorer/ui/chart/serve.py), called as an ASGI app."""

from __future__ import annotations

import asyncio
import gzip

import pytest

from explorer.ui import chart
from explorer.ui.chart import serve
from tests.app.conftest import chart_specs, open_page, page_scripts

BASE = "/_stcore/bidi-components/attention_explorer.chart/"


def call(
    path: str, headers: dict[bytes, bytes] | None = None, method: str = "GET"
) -> tuple[list[dict], list]:
    """What the middleware sends for one request, and the scopes it passed on to the app behind it."""
    sent: list[dict] = []
    passed: list = []

    async def inner(scope, receive, send) -> None:  # noqa: ANN001 - ASGI
        passed.append(scope["path"])

    async def send(message: dict) -> None:
        sent.append(message)

    async def receive() -> dict:
        return {"type": "http.request"}

    scope = {"type": "http", "method": method, "path": path, "headers": list((headers or {}).items())}
    asyncio.run(serve.CachedAssets(inner)(scope, receive, send))
    return sent, passed


def test_a_hashed_asset_is_served_compressed_once_and_cacheable_for_a_year() -> None:
    name = chart.asset_names()["plotly"]
    sent, passed = call(BASE + name, {b"accept-encoding": b"gzip, deflate, br"})
    assert passed == []
    start, body = sent
    fields = dict(start["headers"])
    assert start["status"] == 200
    assert fields[b"cache-control"] == b"public, max-age=31536000, immutable"
    assert fields[b"content-encoding"] == b"gzip" and fields[b"content-type"].startswith(b"text/javascript")
    assert gzip.decompress(body["body"]) == (chart.assets_dir() / name).read_bytes()
    assert int(fields[b"content-length"]) == len(body["body"]) < len(gzip.decompress(body["body"])) // 2
    assert serve.entry(name)[1] is serve.entry(name)[1]  # compressed once per process


def test_a_browser_that_has_it_gets_a_304_and_one_without_gzip_the_plain_file() -> None:
    name = chart.asset_names()["js"]
    etag = dict(call(BASE + name)[0][0]["headers"])[b"etag"]
    sent, _ = call(BASE + name, {b"if-none-match": etag})
    assert sent[0]["status"] == 304 and sent[1]["body"] == b""
    sent, _ = call(BASE + name)  # no Accept-Encoding
    assert b"content-encoding" not in dict(sent[0]["headers"])
    assert sent[1]["body"] == (chart.assets_dir() / name).read_bytes()
    assert call(BASE + name, method="HEAD")[0][1]["body"] == b""


def test_anything_else_goes_on_to_streamlit() -> None:
    for path in (
        BASE + "chart.js",
        BASE + "..%2Fsecret",
        "/_stcore/health",
        "/scores",
        BASE + "plotly-0.min.js",
    ):
        sent, passed = call(path)
        assert sent == [] and passed == [path], path
    name = chart.asset_names()["css"]
    assert call(BASE + name, method="POST")[1] == [BASE + name]


def test_the_plotly_build_served_is_the_plotly_packages_version() -> None:
    """The cartesian build and the plotly package's own plotly.js are one release (its templates and JSON)."""
    import re
    from pathlib import Path

    import plotly

    full = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text(encoding="utf-8")[:200]
    ours = chart.PLOTLY_JS.read_text(encoding="utf-8")[:200]
    version = re.compile(r"plotly\.js(?: \(cartesian - minified\))? v(\d+\.\d+\.\d+)")
    assert version.search(ours) and version.search(ours)[1] == version.search(full)[1]
    assert "(cartesian - minified)" in ours


@pytest.mark.parametrize("path", sorted(page_scripts()))
def test_every_trace_a_page_sends_is_one_the_served_build_draws(path: str) -> None:
    at = open_page(path, via_app=True)
    types = {t.get("type", "scatter") for _, spec in chart_specs(at) for t in spec["data"]}
    assert types <= chart.TRACE_TYPES, (path, types - chart.TRACE_TYPES)
