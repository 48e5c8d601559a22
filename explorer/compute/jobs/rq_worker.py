"""A worker of the explorer's queues on Redis: `python -m explorer.compute.jobs.rq_queue [--short]` runs
`worker` (explorer.compute.jobs.rq_queue's module doc), and RQ runs `run_job` for each job in the worker's own
process, as the local pool's workers do.

Not a process per job (RQ's default): a job in a process forked for it ran an 8-word SmolLM2 sentence in
143 to 154 ms against 97 ms in a process that lives on, the difference spent by the new process on its first
touches of memory (python -m benchmarks job_wait: the page's wait 173 to 180 ms forked, 115 to 125 ms here).
A worker lets go of what each job left, its caches and the heap, as a forked job's process did by ending:
kept between jobs, the caches raised the mix's memory peak by 260 MB (the results live in Redis and in the
replicas anyway). Past its memory bound a worker ends, to be started again by what runs it
(scripts/serve.sh, Compose, Kubernetes).

A worker's death: the job dies with the worker (killed, out of memory, its machine gone), and nobody is left
to say so: RQ would show the job as started until its timeout. So a small process beside the worker says its
running job is alive every second (ALIVE_S), and a place that finds a started job silent for ALIVE_S puts it
back in its queue for another worker, once; after that the visitor reads jobs.FAILED. The beat comes from a
process of its own, not a thread of the worker's: a job may hold its interpreter for seconds (json.loads of a
43 MB file on a busy machine), which such a thread would wait behind; the beat stops when the worker is gone.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from typing import Any

from explorer.compute import jobs
from explorer.compute.jobs.redis_room import Payload, Pickle4, expire_payloads, keep_outcome
from explorer.compute.jobs.rq_queue import (
    ALIVE_S,
    DEFAULT_URL,
    JOB_TIMEOUT_S,
    PASSED_TTL_S,
    PREFIX,
    QUEUES,
    REDIS_ENV,
    RESULT_TTL_S,
    SHORT_QUEUES,
    RedisJobs,
    _full,
    _key,
    done_key,
)

# The short lane's worker on Redis runs between the web processes (nice 0) and the other workers (10): the
# sentence a page waits for takes the CPU before a sweep (one sitting, `benchmarks flood --before`: /next-token
# p90 1,151 -> 774 ms beside twenty induction runs, 1,594 -> 1,085 ms beside the mix). The local pool's short
# lane stays at 10: always busy in the mix, it took the CPU from its one web process's pages.
SHORT_NICE = 5


def run_job(fn: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """What an RQ worker runs: the job function, its progress in the job's meta, stopped when nobody waits.
    Returns ("ok", value) or ("error", kind, message) (a bad input's message is a result too)."""
    from rq import get_current_job

    job = get_current_job()
    owner = RedisJobs(os.environ.get(REDIS_ENV, DEFAULT_URL))

    def send(share: float, message: str, partial: Any) -> None:
        job.meta.update(done=share, message=message, partial=partial)
        with contextlib.suppress(_full()):  # progress Redis has no room for: the page shows the last one
            job.save_meta()

    def stop() -> bool:
        return owner.waiting(job.id) == 0

    big = any(isinstance(a, Payload) for a in args)  # a big job: its outcome is part of its room (redis_room)
    try:
        values = tuple(_fetched(owner.redis, a) if isinstance(a, Payload) else a for a in args)
        outcome = ("ok", jobs.execute(fn, values, jobs.Progress(send, stop)))
        return keep_outcome(owner.redis, job.id, outcome, None if big else job.result_ttl or RESULT_TTL_S)
    except jobs.Stopped:
        return ("error", "Failed", "stopped: nobody waits for it")
    except jobs.Failed as exc:  # a big job's argument gone from Redis: nothing to run again
        return ("error", "Failed", exc.args[0])
    except ValueError as exc:
        return ("error", "ValueError", jobs.sent(exc))
    finally:
        if big:
            _passed(owner, job.id)


def _passed(owner: RedisJobs, job_id: str) -> None:
    """A big job that ended (a result, a refusal, or stopped) with nobody waiting: its large arguments and
    outcome leave Redis in PASSED_TTL_S. Its places let go of them once they have the outcome (until then
    they have no expiry, which Redis past its maxmemory would drop first), but a job whose visitors all left
    has nobody to do that, and its file (43 MB at most) would stay in Redis long after the class has gone.
    Only a job that ends here lets go of them: a job whose process dies runs again with its arguments (the
    module doc)."""
    with contextlib.suppress(Exception):  # Redis away: its places let go of them (RedisJobs._free)
        if owner.waiting(job_id) == 0:
            expire_payloads(owner.redis, job_id, PASSED_TTL_S)


def _fetched(r: Any, p: Payload) -> bytes | str:
    """A big job's argument read back from its key; Failed when Redis no longer has it (dropped past its
    maxmemory, or expired)."""
    raw = r.get(p.key)
    if raw is None:
        raise jobs.Failed(jobs.LOST)
    return raw.decode() if p.text else raw


def say_done(r: Any, job_id: str) -> None:
    """The job ended (its result, or its failure, is in Redis): its places waiting on the stream wake now
    (rq_queue.RedisJobs.until_done). One tiny entry, kept as long as a result."""
    with contextlib.suppress(Exception):  # Redis away or full: the places see the end at their next poll
        pipe = r.pipeline()
        pipe.xadd(done_key(job_id), {"at": time.time()}, maxlen=1)
        pipe.expire(done_key(job_id), max(RESULT_TTL_S, JOB_TIMEOUT_S))
        pipe.execute()


def worker(short: bool = False) -> None:
    """An RQ worker of the explorer's queues (the short lane's only with `short`), at a lower OS priority,
    one BLAS thread, the real models loaded before its first job, which it runs in its own process."""
    import redis
    from rq import Queue, SimpleWorker

    from explorer.compute.jobs import local
    from explorer.compute.jobs import worker as pool_worker

    class Saying(SimpleWorker):
        """RQ's worker, which also says when a job ended (say_done), once RQ has stored how, and then lets go
        of what the job left (its caches and the heap: the module doc) and ends past its memory bound."""

        def handle_job_success(self, job, queue, started_job_registry):  # noqa: ANN001, ANN202
            super().handle_job_success(job, queue, started_job_registry)
            say_done(self.connection, job.id)
            self._after_job()

        def handle_job_failure(self, job, queue, started_job_registry=None, exc_string=""):  # noqa: ANN001, ANN202
            super().handle_job_failure(job, queue, started_job_registry, exc_string)
            say_done(self.connection, job.id)
            self._after_job()

        def _after_job(self) -> None:
            pool_worker.let_go()
            if pool_worker.rss_mb() > pool_worker.bound_mb():
                self._stop_requested = True  # after this job: what runs the worker starts a fresh one
            if not beat[0].is_alive():  # killed on its own: the next job would be taken for dead
                beat[0] = _beat(self.key, url)

    os.environ.update(local.ONE_CORE)
    os.environ[jobs.BACKEND_ENV] = "inline"  # a job's own jobs run in its process
    os.nice(SHORT_NICE if short else pool_worker.NICE)
    url = os.environ.get(REDIS_ENV, DEFAULT_URL)
    conn = redis.Redis.from_url(url)
    names = SHORT_QUEUES if short else QUEUES
    queues = [Queue(PREFIX + n, connection=conn, serializer=Pickle4) for n in names]
    w = Saying(queues, connection=conn, serializer=Pickle4)
    beat = [_beat(w.key, url)]  # started before the models load: it holds a few MB, not the worker's memory
    pool_worker.warm()
    w.work(with_scheduler=False)


def _beat(worker_key: str, url: str) -> multiprocessing.process.BaseProcess:
    """The process that says the worker's running job is alive (`_say_alive`), started."""
    proc = multiprocessing.get_context("fork").Process(
        target=_say_alive, args=(worker_key, url, os.getpid()), name="jobs: alive", daemon=True
    )
    proc.start()
    return proc


def _say_alive(worker_key: str, url: str, worker_pid: int) -> None:
    """Every second, the job the worker runs is alive (module doc), for as long as the worker lives: said
    by a process of its own, on a connection of its own."""
    import redis

    r = redis.Redis.from_url(url)
    while os.getppid() == worker_pid:
        with contextlib.suppress(redis.exceptions.RedisError):  # Redis away or full: the next beat may pass
            running = r.hget(worker_key, "current_job")
            if running:
                r.set(_key(f"alive:{running.decode()}"), 1, px=int(ALIVE_S * 1000))
        time.sleep(1.0)
