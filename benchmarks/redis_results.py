"""What a web process spends reading a job's large outcome from Redis: RQ's result (pickled, in base64, in a
stream) against the raw key a worker keeps it in (explorer.compute.jobs.redis_room.keep_outcome).

For arrays of an induction run's size and others: the CPU seconds and the wall time of one read in this
process (the best of --runs), and the bytes Redis holds for it. The read is what a page's interpreter lock
waits behind while a class's results come in, so its CPU is the figure.

  .venv/bin/python -m benchmarks redis_results [--runs 7]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from job_wait import free_port, ready  # noqa: E402 - a sibling script, found through the path above

from explorer.compute.jobs import redis_room  # noqa: E402
from explorer.compute.jobs.redis_room import Pickle4  # noqa: E402

# (what, shape): an induction run's attentions at its longest (SmolLM2, 2 x 50 tokens), a lens, a layer file's
# example
SIZES = (
    ("induction run, 2 x 50 tokens", (30, 9, 100, 100)),
    ("induction run, 2 x 25 tokens", (30, 9, 50, 50)),
    ("32 MB of float32", (8, 1024, 1024)),
)


def best(runs: int, read: object) -> tuple[float, float]:
    """(CPU s, wall s) of the fastest of `runs` calls of read()."""
    cpu, wall = [], []
    for _ in range(runs):
        c, w = time.process_time(), time.perf_counter()
        read()  # type: ignore[operator]
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return min(cpu), min(wall)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    import redis
    from rq import Queue
    from rq.job import Job
    from rq.results import Result

    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        ready(url, 0)
        r = redis.Redis.from_url(url)
        q = Queue("bench", connection=r, serializer=Pickle4)
        print(
            "| outcome | MB | RQ's result: CPU, wall ms, MB in Redis | kept raw: CPU, wall ms, MB in Redis |"
        )
        print("|---|---:|---:|---:|")
        for i, (what, shape) in enumerate(SIZES):
            value = ("ok", np.random.default_rng(i).random(shape, dtype=np.float32))
            rows = []
            for way in ("rq", "raw"):
                job = q.enqueue("builtins.len", args=((),), job_id=f"bench-{way}-{i}")
                returned = redis_room.keep_outcome(r, job.id, value, 600) if way == "raw" else value
                Result.create(job, Result.Type.SUCCESSFUL, ttl=600, return_value=returned)
                got = redis_room.outcome_of(r, job.id)
                np.testing.assert_array_equal(got[1], value[1])
                cpu, wall = best(a.runs, lambda job=job: redis_room.outcome_of(r, job.id))
                held = sum(r.memory_usage(k) or 0 for k in redis_room.job_keys(r, job.id)) / 1e6
                rows.append(f"{cpu * 1e3:.1f}, {wall * 1e3:.1f} ms, {held:.1f} MB")
                Job(job.id, connection=r).delete()
            print(f"| {what} | {value[1].nbytes / 1e6:.1f} | {rows[0]} | {rows[1]} |")
    finally:
        server.terminate()
        server.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
