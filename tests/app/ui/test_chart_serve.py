"""server.py's middleware for the chart's assets (explorer/ui/chart/serve.py), called as an ASGI app."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
import streamlit

from explorer.ui import chart
from explorer.ui.chart import serve
from tests.app.fixtures import chart_specs, open_page, page_scripts, run_async

BASE = "/_stcore/bidi-components/attention_explorer.chart/"


def call(
    path: str,
    headers: dict[bytes, bytes] | None = None,
    method: str = "GET",
    answer: list[dict] | None = None,
) -> tuple[list[dict], list]:
    """What the middleware sends for one request, and the scopes it passed on to the app behind it (which
    sends the messages `answer`, if given)."""
    sent: list[dict] = []
    passed: list = []

    async def inner(scope, receive, send) -> None:  # noqa: ANN001 - ASGI
        passed.append(scope["path"])
        for message in answer or []:
            await send(message)

    async def send(message: dict) -> None:
        sent.append(message)

    async def receive() -> dict:
        return {"type": "http.request"}

    scope = {"type": "http", "method": method, "path": path, "headers": list((headers or {}).items())}
    run_async(serve.CachedAssets(inner)(scope, receive, send))
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


INDEX = (Path(streamlit.__file__).parent / "static" / "index.html").read_bytes()  # Streamlit's page


def page(
    body: bytes, *, zipped: bool = False, chunks: int = 1, extra: dict[bytes, bytes] | None = None
) -> list[dict]:
    """Streamlit's answer with `body` as an HTML page, as FileResponse sends it (in `chunks` parts)."""
    data = gzip.compress(body) if zipped else body
    fields = {b"content-type": b"text/html; charset=utf-8", b"content-length": str(len(data)).encode(),
              b"etag": b'"index-etag"', b"last-modified": b"Wed, 25 Nov 2026 10:00:00 GMT", **(extra or {})}  # fmt: skip
    if zipped:
        fields[b"content-encoding"] = b"gzip"
    step = -(-len(data) // chunks)
    parts = [data[i : i + step] for i in range(0, len(data), step)]
    return [{"type": "http.response.start", "status": 200, "headers": list(fields.items())}] + [
        {"type": "http.response.body", "body": part, "more_body": i < len(parts) - 1}
        for i, part in enumerate(parts)
    ]


@pytest.mark.parametrize(("zipped", "chunks"), [(False, 1), (False, 3), (True, 1), (True, 2)])
def test_streamlits_page_gets_the_charts_assets_preloaded_in_its_head(zipped: bool, chunks: int) -> None:
    sent, passed = call(
        "/scores", {b"accept-encoding": b"gzip"}, answer=page(INDEX, zipped=zipped, chunks=chunks)
    )
    assert passed == ["/scores"] and len(sent) == 2
    start, body = sent
    fields = dict(start["headers"])
    html = gzip.decompress(body["body"]) if zipped else body["body"]
    assert (b"content-encoding" in fields) == zipped and not body.get("more_body")
    assert int(fields[b"content-length"]) == len(body["body"])
    assert b"etag" not in fields and b"last-modified" not in fields  # index.html's, not this page's
    head, rest = html.split(b"</head>", 1)
    assert head.endswith(serve.head_tags()) and head[: -len(serve.head_tags())] + b"</head>" + rest == INDEX
    names = chart.asset_names()
    for name in (names["plotly"], names["js"], names["css"], names["templates"]):
        assert f'href="./_stcore/bidi-components/{chart.NAME}/{name}"'.encode() in head, name


def test_only_streamlits_page_is_changed() -> None:
    cases = {
        "/media/abc.html": page(INDEX),  # a file a visitor downloads (an export), served by Streamlit
        "/_stcore/host-config": page(INDEX),
        "/export": page(INDEX, extra={b"content-disposition": b"attachment; filename=a.html"}),
        "/big": page(INDEX + b" " * serve.PAGE_MAX_BYTES, chunks=3),  # larger than Streamlit's page
        "/health": [
            {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]},
            {"type": "http.response.body", "body": b"</head>"},
        ],  # fmt: skip
        "/moved": [
            {"type": "http.response.start", "status": 304, "headers": [(b"content-type", b"text/html")]},
            {"type": "http.response.body", "body": b""},
        ],  # fmt: skip
    }
    for path, answer in cases.items():
        sent, _ = call(path, answer=answer)
        assert b"".join(m.get("body", b"") for m in sent) == b"".join(m.get("body", b"") for m in answer), (
            path
        )
        assert sent[0] == answer[0], path


STATIC = Path(streamlit.__file__).parent / "static"


def test_streamlits_own_bundle_is_sent_gzipped_once_ready_and_as_streamlit_sends_it_before() -> None:
    main_js = next(p for p in (STATIC / "static" / "js").glob("index.*.js"))
    css = next((STATIC / "static" / "css").glob("*.css"))
    path = f"/static/js/{main_js.name}"
    serve._static.clear()
    assert call(path, {b"accept-encoding": b"gzip"})[1] == [path]  # not ready yet: Streamlit answers
    serve.prepare_static()
    assert len(serve._static) == len(
        [*(STATIC / "static").glob("js/*.js"), *(STATIC / "static").glob("css/*.css")]
    )
    for file, kind in ((main_js, b"text/javascript"), (css, b"text/css")):
        asked = f"/static/{file.parent.name}/{file.name}"
        sent, passed = call(asked, {b"accept-encoding": b"gzip, deflate, br"})
        assert passed == []
        start, body = sent
        fields = dict(start["headers"])
        assert gzip.decompress(body["body"]) == file.read_bytes()
        assert fields[b"content-type"].startswith(kind) and fields[b"content-encoding"] == b"gzip"
        assert fields[b"cache-control"] == b"public, max-age=31536000, immutable"
        assert int(fields[b"content-length"]) == len(body["body"]) < file.stat().st_size
        assert call(asked, {b"accept-encoding": b"gzip"}, method="HEAD")[0][1]["body"] == b""
    for asked, headers in (
        (path, {}),  # a client without gzip
        (path, {b"accept-encoding": b"identity"}),
        ("/static/js/nothing.js", {b"accept-encoding": b"gzip"}),
        ("/static/js/..%2Findex.html", {b"accept-encoding": b"gzip"}),
        (
            "/static/media/" + next((STATIC / "static" / "media").iterdir()).name,
            {b"accept-encoding": b"gzip"},
        ),
    ):
        assert call(asked, headers) == ([], [asked]), asked
    assert call(path, {b"accept-encoding": b"gzip"}, method="POST")[1] == [path]
