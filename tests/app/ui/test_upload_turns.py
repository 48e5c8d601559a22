"""Uploaded files are received in turns, paced, whole (explorer/ui/upload_turns.py): at most AT_ONCE large PUTs
to the upload endpoint run at once, the session that sent the fewest bytes lately first; their starts are spaced
by their size over the rate; the endpoint gets each body once it has all arrived, in slices with the event loop
free between them; small files and other requests pass."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

from explorer.ui import upload_turns
from tests.app.fixtures import run_async

ROOT = Path(__file__).resolve().parents[3]
BIG = 40 * 2**20  # a large file's Content-Length (a real layer's file)


def put(session: str, n: int, size: int | None = BIG) -> dict:
    headers = [] if size is None else [(b"content-length", str(size).encode())]
    return {
        "type": "http",
        "method": "PUT",
        "path": f"/_stcore/upload_file/{session}/{n}",
        "headers": headers,
    }


def body(*chunks: bytes) -> object:
    """An ASGI receive giving `chunks` as the server does (more_body on all but the last)."""
    queue = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)
    ]

    async def receive() -> dict:
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    return receive


class Held:
    """The app behind the middleware: records each request, holds uploads until the test lets them go."""

    def __init__(self) -> None:
        self.running = self.most = 0
        self.order: list[str] = []
        self.bodies: list[list[dict]] = []
        self.release = asyncio.Event()

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001 - an ASGI app
        self.running += 1
        self.most = max(self.most, self.running)
        self.order.append(scope["path"])
        if scope["method"] == "PUT":
            got = [await receive()]
            while got[-1].get("more_body"):
                got.append(await receive())
            self.bodies.append(got)
            if "/small/" not in scope["path"]:
                await self.release.wait()  # an upload being received, until the test lets it finish
        self.running -= 1


async def until(test: object) -> None:
    for _ in range(1000):  # the tasks run until they wait
        if test():  # type: ignore[operator]
            return
        await asyncio.sleep(0)
    raise AssertionError("the tasks never got there")


def test_large_uploads_take_turns_and_small_ones_and_other_requests_pass_at_once() -> None:
    """Six large uploads held in the app: AT_ONCE are let in, the others wait; a small upload and a health
    check pass meanwhile (answered while every large upload is still held); each body reaches the app whole."""
    app = Held()

    async def main() -> bool:
        turns = upload_turns.UploadTurns(app, rate_bytes=1e15)
        puts = [asyncio.create_task(turns(put("s", i), body(b"ab", b"cd", b"e"), None)) for i in range(6)]
        await until(lambda: app.running == upload_turns.AT_ONCE)
        small = put("small", 9, size=upload_turns.SMALL_BYTES)
        await asyncio.wait_for(
            turns(small, body(b"x"), None), 10
        )  # waiting for a turn, it would wait for ever
        health = turns({"type": "http", "method": "GET", "path": "/_stcore/health"}, None, None)
        await asyncio.wait_for(health, 10)
        held = not app.release.is_set() and not any(p.done() for p in puts)
        app.release.set()
        await asyncio.gather(*puts)
        return held

    held = run_async(main())
    assert app.most == upload_turns.AT_ONCE + 1  # the large uploads' turns, and one request beside them
    assert held  # the small upload and the health check were answered while every large upload was held
    large = [p for p in app.order if "/s/" in p]
    assert large == [
        f"/_stcore/upload_file/s/{i}" for i in range(6)
    ]  # one session: first come, first received
    whole = [m for m in app.bodies if m[0]["body"] == b"abcde"]
    assert len(whole) == 6 and all(
        m == [{"type": "http.request", "body": b"abcde", "more_body": False}] for m in whole
    )


def test_large_uploads_start_no_faster_than_the_rate_and_the_lightest_sender_goes_first() -> None:
    """With a clock the test moves: each large file's start waits until the bytes let in before it have had
    their time at the rate; of the waiting, the session that sent the fewest bytes lately is let in first."""
    now = [100.0]
    slept: list[float] = []
    app = Held()
    app.release.set()  # the app takes each body at once

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    async def main() -> None:
        rate = 10 * 2**20  # 10 MB a second: a 40 MB file takes 4 s of the channel
        turns = upload_turns.UploadTurns(app, rate_bytes=rate, clock=lambda: now[0], sleep=sleep)
        # Busy: two of session "flood" hold the turns (the app holds them until released below).
        app.release.clear()
        first = [asyncio.create_task(turns(put("flood", i), body(b"f"), None)) for i in range(2)]
        await until(lambda: app.running == 2)
        later = [asyncio.create_task(turns(put("flood", 2), body(b"f"), None))]
        await until(lambda: len(turns._waiting) == 1)
        later.append(asyncio.create_task(turns(put("quiet", 0), body(b"q"), None)))
        await until(lambda: len(turns._waiting) == 2)
        app.release.set()
        await asyncio.gather(*first, *later)

    run_async(main())
    # The first started at once, the second after the first's 4 s; the quiet session's file came last but
    # went before the flood's third (it had sent nothing), each 4 s after the one before.
    assert slept == [4.0, 4.0, 4.0]
    assert app.order == [*(f"/_stcore/upload_file/flood/{i}" for i in range(2)), "/_stcore/upload_file/quiet/0",
                         "/_stcore/upload_file/flood/2"]  # fmt: skip


def test_a_body_past_the_limit_or_cut_short_is_handed_on_as_it_came() -> None:
    """Past the limit the middleware holds no more: the endpoint gets the chunks as they came (and refuses the
    file, 413); a body cut by a disconnect reaches it with the disconnect."""

    async def read(receive: object, limit: int) -> list[dict]:
        got, replay = [], await upload_turns.whole_body(receive, limit)
        while not got or got[-1].get("more_body"):
            got.append(await replay())
        return got

    over = run_async(read(body(b"aaaa", b"bbbb", b"cc"), limit=6))
    assert [m["body"] for m in over] == [b"aaaa", b"bbbb", b"cc"] and over[-1]["more_body"] is False
    queue = [{"type": "http.request", "body": b"aa", "more_body": True}, {"type": "http.disconnect"}]

    async def cut() -> dict:
        return queue.pop(0)

    async def read_cut() -> list[dict]:
        replay = await upload_turns.whole_body(cut, 100)
        return [await replay(), await replay()]

    assert run_async(read_cut()) == [
        {"type": "http.request", "body": b"aa", "more_body": True},
        {"type": "http.disconnect"},
    ]


def test_a_received_body_is_handed_on_in_slices_in_order_with_the_loop_free_between() -> None:
    """A 3.5 MB body that came in 64 KB chunks reaches the endpoint as SLICE_BYTES slices (the last shorter),
    in order, more_body on all but the last; another task of the loop runs between every two slices, none
    before the whole body has arrived."""
    data = bytes(range(256)) * (14 * 2**10)  # 3.5 MB
    size = upload_turns.SLICE_BYTES
    pieces = [data[i : i + 65536] for i in range(0, len(data), 65536)]
    ticks = [0]

    async def ticking() -> None:
        while True:
            ticks[0] += 1
            await asyncio.sleep(0)

    async def read() -> tuple[list[dict], list[int]]:
        ticker = asyncio.create_task(ticking())
        await asyncio.sleep(0)
        replay = await upload_turns.whole_body(body(*pieces), limit=len(data))
        got, seen = [], []
        while not got or got[-1]["more_body"]:
            got.append(await replay())
            seen.append(ticks[0])
        ticker.cancel()
        return got, seen

    got, seen = run_async(read())
    assert [len(m["body"]) for m in got] == [size, size, size, len(data) - 3 * size]
    assert b"".join(m["body"] for m in got) == data
    assert [m["more_body"] for m in got] == [True, True, True, False]
    assert all(b > a for a, b in zip(seen, seen[1:], strict=False))  # the loop ran the ticker between slices


def test_a_slice_joins_small_chunks_and_cuts_a_long_one_leaving_its_rest_first() -> None:
    from collections import deque

    chunks = deque([b"ab", b"cdefg", b"h", b"", b"ijklmnopq"])
    got = []
    while chunks:
        got.append(upload_turns.next_slice(chunks, 3))
    assert got == [b"abc", b"def", b"ghi", b"jkl", b"mno", b"pq"]
    assert upload_turns.next_slice(deque([b""]), 3) == b""  # an empty body: one empty slice


def test_the_rate_comes_from_the_environment_within_bounds(monkeypatch) -> None:
    for raw, mb_s in (
        ("32", 32.0),
        ("0", 1.0),
        ("1e9", 1000.0),
        ("nan", upload_turns.RATE_MB_S),
        ("x", 16.0),
    ):
        monkeypatch.setenv(upload_turns.RATE_ENV, raw)
        assert upload_turns.rate() == mb_s * 2**20, raw


def test_a_file_up_to_the_upload_limit_is_kept_in_memory() -> None:
    from starlette.formparsers import MultiPartParser

    upload_turns.in_memory()
    limit_mb = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    assert MultiPartParser.spool_max_size >= limit_mb * 2**20


def test_an_uploaded_file_is_read_whole_without_a_copy_and_in_part_as_before() -> None:
    """What Streamlit's endpoint reads is the buffer starlette's parser wrote (no 43 MB copy on the event loop);
    a read of part of it, or from elsewhere, reads as any file does."""
    from starlette.formparsers import MultiPartParser
    from starlette.requests import Request

    upload_turns.in_memory()
    data = bytes(range(256)) * 10000  # 2.4 MB, in the 64 KB pieces a socket gives, parsed in slices
    boundary = "b0undary"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.json"\r\n'
            "Content-Type: application/json\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()  # fmt: skip
    pieces = [body[i : i + 65536] for i in range(0, len(body), 65536)]

    async def receive() -> dict:
        return {"type": "http.request", "body": pieces.pop(0), "more_body": bool(pieces)}

    async def parsed() -> tuple[bytes, bytes, bytes, bytes]:
        scope = {"type": "http", "method": "PUT", "headers": [
            (b"content-type", f"multipart/form-data; boundary={boundary}".encode())]}  # fmt: skip
        upload = (await Request(scope, await upload_turns.whole_body(receive, len(body))).form())["file"]
        assert isinstance(upload.file, upload_turns.WholeRead) and MultiPartParser.spool_max_size > len(data)
        whole = await upload.read()
        again = upload.file._file.getvalue()  # the buffer itself, while nothing else holds a view of it
        after = await upload.read()  # at the end: nothing left
        await upload.seek(100)
        return whole, again, after, await upload.read(5) + await upload.read()

    whole, again, after, rest = run_async(parsed())
    assert whole == data and whole is again
    assert after == b"" and rest == data[100:]
