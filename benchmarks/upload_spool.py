"""What the web process's event loop spends on an uploaded file in Starlette's multipart parser: the parse of
its body (arriving in 64 KB pieces, as a socket gives it) and the whole read Streamlit's endpoint makes, with
Starlette's own spool and with explorer.ui.upload_turns.WholeRead (the read hands over the parsed buffer).

The largest file the app opens (43 MB: benchmarks/flood.py's layer file); the best of --runs. Each figure is
time the event loop holds the interpreter, which every page's run waits behind.

  .venv/bin/python -m benchmarks upload_spool [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from flood import largest_layer_file  # noqa: E402 - a sibling script, found through the path above
from starlette import formparsers  # noqa: E402
from starlette.requests import Request  # noqa: E402

from explorer.ui import upload_turns  # noqa: E402

BOUNDARY = "spool"


async def parse_and_read(body: bytes) -> tuple[float, float, int]:
    """(seconds of the parse, seconds of the whole read, bytes read) of one multipart `body`."""
    pieces = [body[i : i + 65536] for i in range(0, len(body), 65536)]

    async def receive() -> dict:
        return {"type": "http.request", "body": pieces.pop(0), "more_body": bool(pieces)}

    scope = {"type": "http", "method": "PUT",
             "headers": [(b"content-type", f"multipart/form-data; boundary={BOUNDARY}".encode())]}  # fmt: skip
    t0 = time.perf_counter()
    upload = (await Request(scope, receive).form())["file"]
    t1 = time.perf_counter()
    data = await upload.read()
    t2 = time.perf_counter()
    upload.file.close()
    return t1 - t0, t2 - t1, len(data)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    data = largest_layer_file()
    body = (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="layer.json"\r\n'
            "Content-Type: application/json\r\n\r\n").encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()  # fmt: skip
    formparsers.MultiPartParser.spool_max_size = upload_turns.IN_MEMORY_BYTES
    print(f"one file of {len(data) / 2**20:.1f} MB in 64 KB pieces, in memory; the best of {a.runs} runs")
    print("| spool | parse ms | whole read ms |")
    print("|---|---:|---:|")
    for name, spool in (("starlette's (SpooledTemporaryFile)", tempfile.SpooledTemporaryFile),
                        ("upload_turns.WholeRead", upload_turns.WholeRead)):  # fmt: skip
        formparsers.SpooledTemporaryFile = spool  # type: ignore[misc]
        runs = [asyncio.run(parse_and_read(body)) for _ in range(a.runs)]
        assert all(n == len(data) for _, _, n in runs)
        print(
            f"| {name} | {min(p for p, _, _ in runs) * 1000:.1f} | {min(r for _, r, _ in runs) * 1000:.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
