"""Uploaded files received in turns by the web process (server.py's middleware): at most AT_ONCE at a time,
the others waiting for their turn before their first byte is read, the visitor who sent the fewest bytes lately
first; each large file paced to RATE_MB_S on average; each kept in memory and, once whole, handed on in slices.

Streamlit's upload endpoint reads a file's multipart body on the event loop, and past 1 MB Starlette spools it
to disk one chunk at a time through a worker thread: each chunk a hand-off from the event loop to a thread
and back. Twenty 43 MB layer files received at once made tens of thousands of such hand-offs, every one
waiting for the interpreter beside the pages' runs; the event loop, which also sends every page's messages
and answers the proxy's health checks, stalled for 2 to 5 s, and HAProxy took the replica out, cutting its
sessions. Received in turns and in memory (the endpoint reads the whole file into memory right after anyway:
at most AT_ONCE files more), the loop stays free. A file waiting for its turn costs nothing here: its bytes
wait in the proxy and the sender.

Even so, each large file costs the web process tens of milliseconds of copies inside the interpreter lock
(received, parsed, read, sent to the worker that reads it, its example back). The endpoint's parser takes a
received body SLICE_BYTES at a time, the event loop free between slices: handed on in one piece, a 43 MB
file would hold the loop for its whole parse (about 50 ms of CPU, 100 to 160 ms on a busy machine), and
every page's messages, sent by that loop, would wait behind it. Visitors sending 43 MB files one after the
other would keep the lock that busy for as long as they send (benchmarks/flood.py --kinds upload); paced,
large files take at most a bounded share of it, and a file of SMALL_BYTES or less (a toy example's: a few
KB) is received at once, beside the turns.
"""

from __future__ import annotations

import asyncio
import collections
import io
import itertools
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

from explorer.compute.heavy import UseLedger

AT_ONCE = 2  # large files received at once by one web process
SMALL_BYTES = 2**20  # a body this small is received at once, without a turn
SLICE_BYTES = 2**20  # a received body is parsed this much at a time (about a millisecond of the loop each)
RATE_ENV = "ATTENTION_EXPLORER_UPLOAD_MB_S"
RATE_MB_S = 16.0  # large files' bytes received per second by one web process, on average
UPLOAD_PATH = "/_stcore/upload_file/"  # Streamlit's endpoint: PUT <base>/_stcore/upload_file/<session>/<file>
IN_MEMORY_BYTES = 64 * 2**20  # a file up to this is spooled in memory (above server.maxUploadSize, 44 MB)


def rate() -> float:
    """Bytes a second of large files: $ATTENTION_EXPLORER_UPLOAD_MB_S (1 to 1000 MB/s), default RATE_MB_S."""
    try:
        mb_s = float(os.environ.get(RATE_ENV, RATE_MB_S))
    except ValueError:
        mb_s = RATE_MB_S
    return min(1000.0, max(1.0, mb_s if mb_s == mb_s else RATE_MB_S)) * 2**20


def in_memory() -> None:
    """Starlette keeps an uploaded file in memory up to IN_MEMORY_BYTES (its default, 1 MB, sends each chunk
    past it to disk through a worker thread: the module doc), in a WholeRead."""
    from starlette import formparsers

    formparsers.MultiPartParser.spool_max_size = IN_MEMORY_BYTES
    formparsers.SpooledTemporaryFile = WholeRead  # type: ignore[misc]


class WholeRead(tempfile.SpooledTemporaryFile):  # type: ignore[type-arg]
    """An uploaded file's spool whose whole read, while it is in memory, hands over the buffer it was written
    into (io.BytesIO.getvalue shares it) instead of a copy: Streamlit's endpoint reads each file whole on the
    event loop, where a copy of a 43 MB file holds the interpreter for 22 ms at once (python -m benchmarks
    upload_spool)."""

    def read(self, *args: Any) -> bytes:
        memory = self._file
        if args in ((), (-1,), (None,)) and isinstance(memory, io.BytesIO) and memory.tell() == 0:
            memory.seek(0, io.SEEK_END)
            return memory.getvalue()
        return super().read(*args)


class UploadTurns:
    """ASGI middleware: PUTs of large files to the upload endpoint run AT_ONCE at a time, the visitor (the
    session in the path) who sent the fewest bytes lately first, and start no faster than `rate` bytes a
    second on average; small ones, and every other request, pass at once."""

    def __init__(
        self,
        app: Any,
        rate_bytes: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.app = app
        self._rate = float(rate_bytes or rate())
        self._clock, self._sleep = clock, sleep
        self._sent = UseLedger(clock)  # each session's seconds of the channel lately
        self._busy = 0
        self._waiting: list[tuple[str, int, asyncio.Future]] = []
        self._seq = itertools.count()
        self._free_at = 0.0  # when the bytes of the files already let in have had their time

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "PUT"
            or UPLOAD_PATH not in scope.get("path", "")
        ):
            await self.app(scope, receive, send)
            return
        limit = body_limit()
        size = min(declared_size(scope) or limit, limit)
        if size <= SMALL_BYTES:
            await self.app(scope, await whole_body(receive, limit), send)
            return
        who = scope["path"].split(UPLOAD_PATH, 1)[1].split("/", 1)[0]
        await self._take(who)
        try:
            now, seconds = self._clock(), size / self._rate
            start = max(now, self._free_at)
            self._free_at = start + seconds
            self._sent.add(who, seconds)
            if start > now:
                await self._sleep(start - now)
            await self.app(scope, await whole_body(receive, limit), send)
        finally:
            self._give()

    async def _take(self, who: str) -> None:
        if self._busy < AT_ONCE and not self._waiting:
            self._busy += 1
            return
        entry = (who, next(self._seq), asyncio.get_running_loop().create_future())
        self._waiting.append(entry)
        try:
            await entry[2]
        except asyncio.CancelledError:
            if entry in self._waiting:
                self._waiting.remove(entry)
            elif entry[2].done() and not entry[2].cancelled():
                self._give()  # its turn came as it was cancelled: the next takes it
            raise

    def _give(self) -> None:
        self._busy -= 1
        while self._waiting and self._busy < AT_ONCE:
            entry = min(self._waiting, key=lambda e: (self._sent(e[0]), e[1]))
            self._waiting.remove(entry)
            if not entry[2].done():
                self._busy += 1
                entry[2].set_result(None)


def declared_size(scope: Any) -> int | None:
    """The request's Content-Length, or None (absent or not a number: the body is then counted as it comes)."""
    for name, value in scope.get("headers") or ():
        if name.lower() == b"content-length":
            try:
                return max(0, int(value))
            except ValueError:
                return None
    return None


def body_limit() -> int:
    """The most bytes of a request's body Streamlit's endpoint takes (server.maxUploadSize and its 1 MB for the
    multipart framing): past it, the endpoint answers 413 and the rest is not held here either."""
    from streamlit import config

    return int(config.get_option("server.maxUploadSize")) * 2**20 + 2**20


async def whole_body(receive: Any, limit: int) -> Any:
    """A `receive` that gives the request's body once it has all arrived (at most `limit` bytes held), in
    slices of SLICE_BYTES, the event loop free between them: the endpoint's multipart parser
    then copies the file into memory in a few dozen steps, neither one network chunk at a time (hundreds of
    chunks of a 43 MB file, each a copy inside the interpreter lock) nor in one go (the loop held for the
    whole parse). A body past `limit`, or a disconnect, is handed on as it came, so the endpoint refuses it as
    before."""
    chunks: collections.deque[bytes | memoryview] = collections.deque()
    held, more = 0, True
    last: dict[str, Any] | None = None
    while more and held <= limit:
        message = await receive()
        if message["type"] != "http.request":
            last = message
            break
        chunks.append(message.get("body", b""))
        held += len(chunks[-1])
        more = bool(message.get("more_body", False))
    if more or last is not None:
        queue = collections.deque({"type": "http.request", "body": c, "more_body": True} for c in chunks)
        queue += [] if last is None else [last]
        chunks.clear()

        async def as_it_came() -> Any:
            return queue.popleft() if queue else await receive()

        return as_it_came
    started = False

    async def replay() -> Any:
        nonlocal started
        if started and not chunks:
            return await receive()
        if started:
            await asyncio.sleep(0)  # the loop's other work (pages' messages, health checks) between slices
        started = True
        piece = next_slice(chunks, SLICE_BYTES)
        return {"type": "http.request", "body": piece, "more_body": bool(chunks)}

    return replay


def next_slice(chunks: collections.deque[bytes | memoryview], size: int) -> bytes:
    """The next `size` bytes of `chunks` (fewer at the end), taken off its front; a chunk cut at the slice's
    end leaves its rest first, a view, not a copy. Each byte is copied once, as its slice is asked for, and
    leaves `chunks` with it, so the body is held about once, not twice."""
    group: list[bytes | memoryview] = []
    n = 0
    while chunks and n < size:
        chunk = chunks.popleft()
        room = size - n
        if len(chunk) > room:
            view = memoryview(chunk)
            chunks.appendleft(view[room:])
            chunk = view[:room]
        group.append(chunk)
        n += len(chunk)
    return b"".join(group)
