"""What a web process spends receiving the largest uploaded file (43 MB) over HTTP, with each of uvicorn's HTTP
parsers: h11 (pure Python) and httptools (C, llhttp). The server is uvicorn in a process of its own, serving
an app that does what Streamlit's upload endpoint does with the body, behind the app's own middleware
(explorer.ui.upload_turns: the body received whole, then Starlette's multipart parser into the app's
in-memory spool, then the whole read); its CPU time per file is read from /proc before and after --files
uploads sent one after the other. That CPU is the web process's event loop holding the interpreter, which
every page's run waits behind. The longest hold is measured inside the server: a task that wakes every
half millisecond records the longest time the loop left it waiting past its wake-up, per file. That is how
long a page's messages, sent by the same loop, can wait behind an upload.

  .venv/bin/python -m benchmarks upload_receive [--files 10] [--runs 3]

The app runs on h11, which uvicorn takes when httptools is not installed (requirements.txt has no httptools);
to compare, install it in the venv first: `.venv/bin/pip install httptools==0.9.0`. A parser that is not
installed is left out of the table.
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import math
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from flood import largest_layer_file  # noqa: E402 - a sibling script, found through the path above

BOUNDARY = "receive"
PARSERS = ("h11", "httptools")


LATE = [0.0]  # the event loop's longest lateness since it was last read (the server's process)


async def _watch() -> None:
    """Wakes every half millisecond and keeps the longest time it woke late: the loop's longest hold."""
    import asyncio

    while True:
        t = time.perf_counter()
        await asyncio.sleep(0.0005)
        LATE[0] = max(LATE[0], time.perf_counter() - t - 0.0005)


async def endpoint(scope: dict, receive, send) -> None:  # noqa: ANN001 - the ASGI callables
    """Reads a multipart PUT as Streamlit's upload endpoint does and answers the file's size; GET answers the
    loop's longest hold since the last GET, in ms (the watch starts at the first GET)."""
    import asyncio

    from starlette.requests import Request
    from starlette.responses import PlainTextResponse

    if scope["type"] != "http":
        return
    if scope["method"] == "GET":
        if not hasattr(endpoint, "watch"):
            endpoint.watch = asyncio.get_running_loop().create_task(_watch())  # type: ignore[attr-defined]
        late, LATE[0] = LATE[0], 0.0
        await PlainTextResponse(f"{late * 1000:.3f}")(scope, receive, send)
        return
    upload = (await Request(scope, receive).form())["file"]
    size = len(await upload.read())
    await upload.close()
    await PlainTextResponse(str(size))(scope, receive, send)


def app():  # noqa: ANN201 - uvicorn's factory
    """The endpoint behind the app's upload middleware, paced at its fastest (the files here come one by
    one)."""
    from explorer.ui import upload_turns

    upload_turns.in_memory()
    return upload_turns.UploadTurns(endpoint, rate_bytes=1000 * 2**20)


def _serve(parser: str, port: int) -> subprocess.Popen:
    code = (
        "import sys, uvicorn; sys.path.insert(0, 'benchmarks');"
        f"uvicorn.run('upload_receive:app', factory=True, port={port}, http={parser!r}, log_level='warning',"
        " access_log=False)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"uvicorn ({parser}) did not start on port {port}")


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _put(port: int, body: bytes, size: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("PUT", "/_stcore/upload_file/s/f", body=body,
                 headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})  # fmt: skip
    reply = conn.getresponse().read()
    conn.close()
    assert int(reply) == size, reply


def _longest_hold_ms(port: int) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/late")
    late = float(conn.getresponse().read())
    conn.close()
    return late


def per_file(parser: str, port: int, body: bytes, size: int, files: int) -> tuple[float, list[float]]:
    """(the server's CPU ms per file, the loop's longest hold in ms for each file)."""
    proc = _serve(parser, port)
    try:
        _longest_hold_ms(port)  # starts the watch
        _put(port, body, size)  # the imports and first allocations, outside the count
        before = _cpu_s(proc.pid)
        holds = []
        for _ in range(files):
            _longest_hold_ms(port)
            _put(port, body, size)
            holds.append(_longest_hold_ms(port))
        return (_cpu_s(proc.pid) - before) / files * 1000, holds
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--port", type=int, default=8693)
    a = ap.parse_args()
    data = largest_layer_file()
    body = (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="layer.json"\r\n'
            "Content-Type: application/json\r\n\r\n").encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()  # fmt: skip
    parsers = [p for p in PARSERS if importlib.util.find_spec(p) is not None]
    print(
        f"{a.files} files of {len(data) / 2**20:.1f} MB each, one after the other; {a.runs} runs of each parser in turn"
    )
    print("not installed, left out: " + (", ".join(sorted(set(PARSERS) - set(parsers))) or "none"))
    runs: dict[str, list[float]] = {p: [] for p in parsers}
    holds: dict[str, list[float]] = {p: [] for p in parsers}
    for _ in range(a.runs):
        for parser in parsers:
            cpu, held = per_file(parser, a.port, body, len(data), a.files)
            runs[parser].append(cpu)
            holds[parser] += held
    print("| uvicorn's HTTP parser | server CPU ms per file (median) | best | every run "
          "| the loop's longest hold per file, ms: median, 90th percentile, most |")  # fmt: skip
    print("|---|---:|---:|---|---|")
    for parser, ms in runs.items():
        ms.sort()
        h = sorted(holds[parser])
        print(f"| {parser} | {ms[len(ms) // 2]:.1f} | {ms[0]:.1f} | {', '.join(f'{m:.1f}' for m in ms)} "
              f"| {h[len(h) // 2]:.1f}, {h[math.ceil(0.9 * len(h)) - 1]:.1f}, {h[-1]:.1f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
