"""How long a page waits for a job on an idle machine, end to end: the local pool, and RQ on a redis-server of
its own with a worker and a short-lane worker (explorer.compute.jobs.rq_queue). The job: an 8-word SmolLM2
sentence's run (`--job run`, the short lane), or the logit lens of a new 30-word sentence, its run included
(`--job lens`, a worker of one thread: what a student alone waits for on /logit-lens).

Each of --runs new sentences is asked for as a page asks (jobs.call); printed: each wait in ms, the median,
and on Redis how long the job waited in its queue and ran in its worker (RQ's own timestamps), against the
same run in this process.

Usage:
  OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks job_wait [--runs 12] [--backends local,redis]
      [--job run|lens]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import load_test  # noqa: E402 - a sibling script, found through the path above

WORDS = load_test.WORDS  # the flood's words (benchmarks/load_test.py)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis() -> tuple[list[subprocess.Popen], str]:
    """A redis-server of its own (nothing saved), a worker of every queue and one of the short lane."""
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    procs = [subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no"], stdout=subprocess.DEVNULL)]  # fmt: skip
    env = dict(os.environ, ATTENTION_EXPLORER_REDIS_URL=url, PYTHONPATH=str(ROOT))
    for extra in ([], ["--short"]):
        cmd = [sys.executable, "-m", "explorer.compute.jobs.rq_queue", *extra]
        procs.append(
            subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        )
    return procs, url


def ready(url: str, workers: int) -> None:
    """Until both workers have loaded the models and wait for jobs (RQ lists a worker once it listens)."""
    import redis
    from rq import Worker

    r = redis.Redis.from_url(url)
    for _ in range(600):
        try:
            if len(Worker.all(connection=r)) >= workers:
                return
        except redis.exceptions.ConnectionError:
            pass
        time.sleep(0.1)
    raise SystemExit("the queue workers did not start in a minute")


def job_of(kind: str) -> object:
    """A new job of `kind` (the module doc), as its page asks for it."""
    from explorer.compute import interp, jobs, model_compute

    if kind == "lens":
        text = " ".join(random.choices(WORDS, k=30))
        return jobs.spec(interp.lens_job, "smollm2", text, cost=2 * model_compute.run_cost("smollm2", text))
    text = " ".join(random.choices(WORDS, k=8))
    return jobs.spec(model_compute.run_job, "smollm2", text, (), cost=model_compute.run_cost("smollm2", text),
                     keep=False)  # fmt: skip


def measure(backend: str, runs: int, kind: str = "run") -> list[float]:
    from explorer.compute import jobs

    waits = []
    for _ in range(runs):
        job = job_of(kind)
        t0 = time.perf_counter()
        jobs.call(job)
        waits.append(time.perf_counter() - t0)
        if backend == "redis":
            from rq.job import Job

            j = Job.fetch("explorer-" + job.key, connection=jobs.backend().redis)  # type: ignore[union-attr]
            queued = (j.started_at - j.enqueued_at).total_seconds() * 1000
            ran = (j.ended_at - j.started_at).total_seconds() * 1000
            print(f"  {waits[-1] * 1000:.0f} ms: queued {queued:.0f}, ran {ran:.0f} ({j.origin})")
    return waits


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--backends", default="local,redis")
    ap.add_argument("--job", choices=("run", "lens"), default="run")
    a = ap.parse_args()
    from explorer.compute import jobs
    from explorer.model import models

    t0 = time.perf_counter()
    m = models.model("smollm2")
    m.run("a warm up sentence of eight words for it", models.head_mask(models.shape("smollm2"), ()))
    here = []
    for _ in range(5):
        text = " ".join(random.choices(WORDS, k=8))
        t = time.perf_counter()
        m.run(text, models.head_mask(models.shape("smollm2"), ()))
        here.append(time.perf_counter() - t)
    print(f"the same run in this process: median {statistics.median(here) * 1000:.0f} ms "
          f"(models loaded in {time.perf_counter() - t0:.1f} s)")  # fmt: skip
    for backend in a.backends.split(","):
        procs: list[subprocess.Popen] = []
        try:
            if backend == "redis":
                procs, url = start_redis()
                os.environ[jobs.BACKEND_ENV], os.environ["ATTENTION_EXPLORER_REDIS_URL"] = "redis", url
                ready(url, 2)
            else:
                os.environ[jobs.BACKEND_ENV] = "local"
            jobs.close()
            jobs.backend()
            measure(backend, 2, a.job)  # the workers' first jobs (their caches) are not counted
            waits = measure(backend, a.runs, a.job)
            shown = ", ".join(f"{w * 1000:.0f}" for w in waits)
            print(
                f"{backend}: a {a.job} job's wait, ms: {shown}; median {statistics.median(waits) * 1000:.0f} ms"
            )
        finally:
            jobs.close()
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
