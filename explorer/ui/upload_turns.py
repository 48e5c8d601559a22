"""Uploaded files received in turns by the web process (server.py's middleware): at most AT_ONCE at a time,
the others waiting for their turn before their first byte is read; each kept in memory as it arrives.

Streamlit's upload endpoint reads a file's multipart body on the event loop, and past 1 MB Starlette spools it
to disk one chunk at a time through a worker thread: each chunk a hand-off from the event loop to a thread
and back. Twenty 43 MB layer files received at once made tens of thousands of such hand-offs, every one
waiting for the interpreter beside the pages' runs; the event loop, which also sends every page's messages
and answers the proxy's health checks, stalled for 2 to 5 s (benchmarks/flood.py --kinds upload through
scripts/serve.sh), and HAProxy took the replica out, cutting its sessions. Received in turns and in memory
(the endpoint reads the whole file into memory right after anyway: at most AT_ONCE files more), the loop
stays free. A file waiting for its turn costs nothing here: its bytes wait in the proxy and the sender.
"""

from __future__ import annotations

import asyncio
from typing import Any

AT_ONCE = 2  # files received at once by one web process
UPLOAD_PATH = "/_stcore/upload_file/"  # Streamlit's endpoint: PUT <base>/_stcore/upload_file/<session>/<file>
IN_MEMORY_BYTES = 64 * 2**20  # a file up to this is spooled in memory (above server.maxUploadSize, 44 MB)


def in_memory() -> None:
    """Starlette keeps an uploaded file in memory up to IN_MEMORY_BYTES (its default, 1 MB, sends each chunk
    past it to disk through a worker thread: the module doc)."""
    from starlette.formparsers import MultiPartParser

    MultiPartParser.spool_max_size = IN_MEMORY_BYTES


class UploadTurns:
    """ASGI middleware: PUTs to the upload endpoint run AT_ONCE at a time, in the order they came."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._turns: asyncio.Semaphore | None = None  # made in the server's event loop, at the first upload

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "PUT"
            or UPLOAD_PATH not in scope.get("path", "")
        ):
            await self.app(scope, receive, send)
            return
        if self._turns is None:
            self._turns = asyncio.Semaphore(AT_ONCE)
        async with self._turns:
            await self.app(scope, receive, send)
