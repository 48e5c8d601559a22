"""A replica that hangs (SIGSTOP) rather than dies: its students are on another replica within 5 s, timed
through scripts/serve.sh --replicas 2 (HAProxy's checks take it out and cut its sessions; the session's
WebSocket reconnects as a browser's does). Marked `load` (a timed check, about 40 s with the start):
`pytest -m load tests/load/test_replica_hang.py`. tests/e2e/test_replicas.py moves a browser's session whole,
untimed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import flood  # noqa: E402 - the benchmark's visitor and serve.sh helper, found through the path above
import load_test  # noqa: E402
import warm_start  # noqa: E402

MOVED_S = 5.0  # issue target: a hung replica's students run on another replica within this


@pytest.mark.load
def test_a_hung_replicas_student_runs_on_the_other_replica_within_5_s(tmp_path: Path) -> None:
    if shutil.which("haproxy") is None or shutil.which("redis-server") is None:
        pytest.skip("haproxy and redis-server are needed (apt-get install haproxy redis-server)")
    port, log = warm_start.free_port(), tmp_path / "serve.log"
    proc = flood.serve("--replicas 2 --no-restart", port, log)
    pids = {name: int(pid) for name, pid in re.findall(r"replica (r\d) pid (\d+)", log.read_text())}
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    hung: list[int] = []

    async def lesson() -> tuple[str, str, float]:
        report = load_test.Report(1, 0)
        async with contextlib.AsyncExitStack() as held:
            v = flood.Visitor(1, url, report, [])
            await flood.reopen(held, url, v, "scores")
            first = flood.sticky_cookie(v.ws)  # "explorer_replica=r1"
            await v.say("the cat sat")
            hung.append(pids[first.split("=")[1]])
            os.kill(hung[0], signal.SIGSTOP)
            stopped = time.monotonic()
            try:
                await v.say("the cat sat on the mat")  # waits on the hung replica until the proxy cuts it
            except ConnectionClosed:
                await flood.reopen(held, url, v, "scores")
                await v.say("the dog ran")
            return first, flood.sticky_cookie(v.ws), time.monotonic() - stopped

    try:
        first, then, took = asyncio.run(lesson())
    finally:
        for pid in hung:
            os.kill(pid, signal.SIGCONT)
        proc.terminate()
        proc.wait(60)
    assert then and then != first, (first, then)
    assert took <= MOVED_S, f"the student ran again on another replica {took:.1f} s after the hang"
