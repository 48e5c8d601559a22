"""The chart's assets served as a browser may keep them: compressed once, with a year-long immutable cache header.

Streamlit serves a component's files with "Cache-Control: public", no validator, and compresses each response
afresh: plotly.js (4.8 MB, 1.5 MB gzipped) cost every new tab its download and the server its compression. The
assets' names carry their content's hash (explorer.ui.chart.asset_names), so server.py puts this ASGI middleware
in front of Streamlit: a GET of one of them is answered from memory, gzipped once per process, with
"Cache-Control: public, max-age=31536000, immutable" and an ETag; any other request goes on to Streamlit.
"""

from __future__ import annotations

import functools
import gzip
import re
import threading
from collections.abc import Awaitable, Callable, MutableMapping
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


class CachedAssets:
    """ASGI middleware: the chart's hashed assets from memory, everything else to the app behind it."""

    def __init__(self, app: ASGI) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        match = _PATH.search(scope.get("path", "")) if scope["type"] == "http" else None
        if match is None or scope.get("method") not in ("GET", "HEAD") or match[1] not in _served():
            await self.app(scope, receive, send)
            return
        body, packed, etag, kind = entry(match[1])
        headers = dict(scope.get("headers") or [])
        common = [(b"cache-control", CACHE_CONTROL), (b"etag", etag), (b"vary", b"Accept-Encoding")]
        if etag in headers.get(b"if-none-match", b""):
            await send({"type": "http.response.start", "status": 304, "headers": common})
            await send({"type": "http.response.body", "body": b""})
            return
        zipped = b"gzip" in headers.get(b"accept-encoding", b"")
        out = packed if zipped else body
        fields = [*common, (b"content-type", kind), (b"content-length", str(len(out)).encode("ascii"))]
        if zipped:
            fields.append((b"content-encoding", b"gzip"))
        await send({"type": "http.response.start", "status": 200, "headers": fields})
        await send({"type": "http.response.body", "body": out if scope["method"] == "GET" else b""})
