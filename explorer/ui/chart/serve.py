"""The chart's assets served as a browser may keep them: compressed once, with a year-long immutable cache header.

Streamlit serves a component's files with "Cache-Control: public", no validator, and compresses each response
afresh: plotly.js (megabytes) would cost every new tab its download and the server its compression. The
assets' names carry their content's hash (explorer.ui.chart.asset_names), so server.py puts this ASGI middleware
in front of Streamlit: a GET of one of them is answered from memory, gzipped once per process, with
"Cache-Control: public, max-age=31536000, immutable" and an ETag; any other request goes on to Streamlit.
Streamlit's page itself (index.html, served for every page's path) gets links in its <head> that preload
these assets beside Streamlit's own bundle (head_tags). Streamlit sends its own bundle (static/js, static/css:
about 4 MB for a first page) uncompressed, leaving compression to a proxy in front; server.py may run with
none, so the bundle's files are gzipped once, at server start (prepare_static), and sent so: a new tab takes
2.0 MB in all instead of 4.0 (benchmarks/first_open.py).
"""

from __future__ import annotations

import functools
import gzip
import re
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from explorer.ui import chart

Scope = MutableMapping[str, Any]
ASGI = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]

CACHE_CONTROL = b"public, max-age=31536000, immutable"  # a year: the longest HTTP caches are asked to keep
_PATH = re.compile(rf"/_stcore/bidi-components/{re.escape(chart.NAME)}/([A-Za-z0-9_.-]+)$")
_TYPES = {".js": b"text/javascript; charset=utf-8", ".css": b"text/css; charset=utf-8"}
_TYPES[".json"] = b"application/json"
_lock = threading.Lock()


@functools.cache
def _served() -> frozenset[str]:
    return frozenset(chart.asset_names().values())


@functools.lru_cache(maxsize=8)  # the few assets of asset_names(), nothing a visitor names
def entry(name: str) -> tuple[bytes, bytes, bytes, bytes]:
    """(body, its gzip, ETag, content type) of asset `name`, read and compressed once per process."""
    with _lock:
        body = (chart.assets_dir() / name).read_bytes()
        packed = gzip.compress(body, compresslevel=6, mtime=0)  # 9 takes 3x as long for 2% less
    etag = b'"' + name.rsplit("-", 1)[-1].split(".", 1)[0].encode("ascii") + b'"'
    kind = next((t for suffix, t in _TYPES.items() if name.endswith(suffix)), b"application/octet-stream")
    return body, packed, etag, kind


def prepare() -> None:
    """Write and compress every asset now (at server start) rather than for the first visitor."""
    for name in _served():
        entry(name)
    prepare_static()


_STATIC = re.compile(r"/static/(js|css)/([A-Za-z0-9_.-]+\.(?:js|css))$")  # Streamlit's own, hashed names
_static: dict[str, bytes] = {}  # "js/index.DormvYxC.js" -> its gzip; only ever filled, by prepare_static


def prepare_static() -> None:
    """Gzip every file of Streamlit's bundle once (a fraction of a second at server start);
    the page's own files first. A file not done yet goes on to Streamlit as before, so nobody waits for this."""
    from streamlit import file_util

    root = Path(file_util.get_static_dir())
    index = (root / "index.html").read_text(encoding="utf-8")
    files = sorted(
        (
            f
            for folder in ("js", "css")
            for f in (root / "static" / folder).iterdir()
            if f.suffix in (".js", ".css")
        ),
        key=lambda f: (f.name not in index, f.name),
    )
    for f in files:
        key = f"{f.parent.name}/{f.name}"
        if key not in _static:
            _static[key] = gzip.compress(f.read_bytes(), compresslevel=6, mtime=0)


@functools.cache
def head_tags() -> bytes:
    """What every page's <head> gets: the chart's assets fetched beside Streamlit's own bundle.

    Without it a new tab asks for them only once its first chart is mounted, after Streamlit's bundle, the
    WebSocket's first run and the page's elements: on a real network plotly.js (500 KB gzipped) then started
    downloading a second or more after the page did. Preloaded, they are in the browser's cache when the chart
    asks; nothing is run early (plotly.js's evaluation, about 0.3 s of the page's one thread, would only push
    Streamlit's first paint back). Relative URLs, as Streamlit's own, so a base URL path is respected.
    """
    names = chart.asset_names()
    base = f"./_stcore/bidi-components/{chart.NAME}/"
    return (
        f'<link rel="preload" as="script" href="{base}{names["plotly"]}">'
        f'<link rel="modulepreload" href="{base}{names["js"]}">'
        f'<link rel="preload" as="style" href="{base}{names["css"]}">'
        f'<link rel="preload" as="fetch" crossorigin href="{base}{names["templates"]}">'
    ).encode("ascii")


PAGE_MAX_BYTES = 64 * 1024
_NOT_PAGES = re.compile(r"/(_stcore|media|static|component|app/static)/")  # Streamlit's other routes


class _Preloading:
    """`send` of a response that may be Streamlit's page (index.html, for / and every page's path): head_tags()
    goes before its </head>, into the body as Streamlit sent it (gzipped or not)."""

    def __init__(self, send: Any) -> None:
        self.send = send
        self.start: dict[str, Any] | None = None  # held back while the page's body comes
        self.zipped = False
        self.body: list[bytes] = []
        self.size = 0

    async def __call__(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            headers = dict(message.get("headers") or [])
            html = headers.get(b"content-type", b"").startswith(b"text/html")
            encoding = headers.get(b"content-encoding", b"gzip")
            if (
                message.get("status") == 200
                and html
                and encoding == b"gzip"
                and b"content-disposition" not in headers
            ):
                self.start, self.zipped = message, b"content-encoding" in headers
                return
        elif message["type"] == "http.response.body" and self.start is not None:
            self.body.append(message.get("body", b""))
            self.size += len(self.body[-1])
            if self.size > PAGE_MAX_BYTES:  # not Streamlit's page (about 8 KB): sent on as it is
                await self.send(self.start)
                await self.send({**message, "body": b"".join(self.body)})
                self.start = None
                return
            if message.get("more_body"):
                return
            page = b"".join(self.body)
            page = gzip.decompress(page) if self.zipped else page
            page = page.replace(b"</head>", head_tags() + b"</head>", 1)
            page = gzip.compress(page, compresslevel=6, mtime=0) if self.zipped else page
            drop = (b"content-length", b"etag", b"last-modified")  # index.html's, not this page's
            fields = [(k, v) for k, v in self.start.get("headers", []) if k.lower() not in drop]
            fields.append((b"content-length", str(len(page)).encode("ascii")))
            await self.send({**self.start, "headers": fields})
            await self.send({"type": "http.response.body", "body": page})
            return
        await self.send(message)


class CachedAssets:
    """ASGI middleware: the chart's hashed assets from memory, everything else to the app behind it."""

    def __init__(self, app: ASGI) -> None:
        self.app = app

    @staticmethod
    def streamlits_own(scope: Scope) -> tuple[bytes, bytes] | None:
        """(its gzip, content type) of the file of Streamlit's bundle asked for, when it is ready and the
        browser takes gzip; None: Streamlit answers."""
        match = _STATIC.search(scope.get("path", ""))
        if match is None or scope.get("method") not in ("GET", "HEAD") or not _accepts_gzip(scope):
            return None
        packed = _static.get(f"{match[1]}/{match[2]}")
        return None if packed is None else (packed, _TYPES["." + match[2].rsplit(".", 1)[1]])

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and (bundled := self.streamlits_own(scope)) is not None:
            await _answer(send, scope, *bundled, zipped=True)
            return
        match = _PATH.search(scope.get("path", "")) if scope["type"] == "http" else None
        if match is None or scope.get("method") not in ("GET", "HEAD") or match[1] not in _served():
            if (
                scope["type"] == "http"
                and scope.get("method") == "GET"
                and not _NOT_PAGES.search(scope["path"])
            ):
                send = _Preloading(send)
            await self.app(scope, receive, send)
            return
        body, packed, etag, kind = entry(match[1])
        if etag in dict(scope.get("headers") or []).get(b"if-none-match", b""):
            fields = [(b"cache-control", CACHE_CONTROL), (b"etag", etag), (b"vary", b"Accept-Encoding")]
            await send({"type": "http.response.start", "status": 304, "headers": fields})
            await send({"type": "http.response.body", "body": b""})
            return
        zipped = _accepts_gzip(scope)
        await _answer(send, scope, packed if zipped else body, kind, zipped=zipped, etag=etag)


def _accepts_gzip(scope: Scope) -> bool:
    return b"gzip" in dict(scope.get("headers") or []).get(b"accept-encoding", b"")


async def _answer(
    send: Any, scope: Scope, out: bytes, kind: bytes, *, zipped: bool, etag: bytes = b""
) -> None:
    """A 200 with `out` (gzipped when `zipped`), cacheable for a year (the names carry their content's hash);
    a HEAD gets the headers alone."""
    fields = [(b"cache-control", CACHE_CONTROL), (b"vary", b"Accept-Encoding"), (b"content-type", kind),
              (b"content-length", str(len(out)).encode("ascii"))]  # fmt: skip
    fields += [(b"etag", etag)] if etag else []
    fields += [(b"content-encoding", b"gzip")] if zipped else []
    await send({"type": "http.response.start", "status": 200, "headers": fields})
    await send({"type": "http.response.body", "body": out if scope["method"] == "GET" else b""})
