"""Jobs past one machine: the same jobs through RQ on Redis ($ATTENTION_EXPLORER_JOBS=redis).

Why RQ: it is Redis only (the store the replicas share already), pure Python with two small dependencies
(redis, click), well kept, and has what the pool needs as it is: a job id we choose (the job's key, so a
class's replicas join one job), a job's meta (its progress), results kept in Redis for a time (shared by every
replica, bounded by Redis's maxmemory: scripts/serve.sh and deploy/ start Redis with an LRU bound on keys that
expire), a retry after a worker's death, and a forking worker whose job runs in a child process that is
killed and replaced cleanly. Dramatiq and Celery carry more (their own brokers' abstractions, a result
backend to configure) for nothing the explorer uses.

The fair order becomes queues in order: a worker takes from "short" (a job expected to take at most
jobs.LANE_S), then "p0" (visitors who used the workers least lately: decayed seconds plus the job's cost
under P0_S), "p1", "p2"; a worker started with --short takes only "short" (the short lane). A visitor's use
(the seconds they had a request waiting or running, counted when it ends) is kept in Redis (USE, decayed as
in the local pool), so every replica orders alike. Waiting places are a
sorted set per job scored by when each last looked (PLACE_TTL_S): a job whose places all left or went quiet
(the visitor left, or their replica died) stops at its next progress report, or is cancelled while queued.

A worker's death: RQ runs each job in a child process of the worker, and runs the job once more when that
child dies (a second death fails it). When the worker dies with it (killed as a whole, out of memory, its
machine gone), nobody is left to say so: RQ would show the job as started until its timeout. So a running job
says it is alive every second (ALIVE_S), and a place that finds a started job silent for ALIVE_S puts it back
in its queue for another worker, once; after that the visitor reads jobs.FAILED.

Workers: `python -m explorer.compute.jobs.rq_queue [--short]` (scripts/serve.sh --workers M,
deploy/compose.yaml's and deploy/k8s/'s worker service), with $ATTENTION_EXPLORER_REDIS_URL.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
import time
import uuid
from collections.abc import Hashable
from typing import Any

from explorer import i18n
from explorer.compute import heavy, jobs

REDIS_ENV = "ATTENTION_EXPLORER_REDIS_URL"
DEFAULT_URL = "redis://127.0.0.1:6379/0"
PREFIX = "explorer:"
QUEUES = ("short", "p0", "p1", "p2")
P0_S, P1_S = 2.0, 10.0  # decayed seconds of use plus cost: under P0_S the first queue, under P1_S the second
RESULT_TTL_S = 1800  # a finished job's result stays this long in Redis (or until maxmemory drops it)
# ... and a job's whose caller keeps its result (Spec.keep False: a run's trace, an uploaded file's example,
# a download; tens of MB each, with their arguments): long enough for the places waiting for it to fetch it.
PASSED_TTL_S = 15
PLACE_TTL_S = 20.0  # a place that has not looked for this long has left
JOB_TIMEOUT_S = 600  # a job running longer is stopped by its worker
ALIVE_S = 5.0  # a running job says it is alive every second; silent this long, its worker died with it
USE = PREFIX + "use"  # hash: visitor -> "seconds at"


def _key(name: str) -> str:
    return PREFIX + name


class _Place:
    def __init__(self, owner: RedisJobs, job_id: str, who: Hashable, cost: float) -> None:
        self.owner, self.id, self.who, self.cost = owner, job_id, who, cost
        self.token = uuid.uuid4().hex
        self.since = time.time()  # the visitor's waiting counts from here (RedisJobs.used)
        self._charged = self._left = False
        self._silent: float | None = None  # since when (monotonic) this place saw its running job silent
        self._look()

    def _look(self) -> None:
        if self._left:
            return
        self.owner.redis.zadd(_key(f"places:{self.id}"), {self.token: time.time()})
        self.owner.redis.expire(_key(f"places:{self.id}"), JOB_TIMEOUT_S)

    def _job(self) -> Any:
        from rq.exceptions import NoSuchJobError
        from rq.job import Job

        try:
            return Job.fetch(self.id, connection=self.owner.redis)
        except NoSuchJobError:
            return None

    def status(self) -> jobs.Status:
        self._look()  # a page that only looks (a long job's progress, every second) still waits for it
        job = self._job()
        if job is None:
            return jobs.Status("failed")
        state = job.get_status(refresh=False)
        if state == "finished":
            return jobs.Status("done", done=1.0)
        if state in ("failed", "stopped", "canceled"):
            return jobs.Status("failed")
        if state == "started" and not self.owner.alive(self.id):
            self._silent = self._silent or time.monotonic()
            if time.monotonic() - self._silent > ALIVE_S:  # its worker died with it (module doc)
                self._silent = None
                return self.owner.revive(self.id)
        else:
            self._silent = None
        if state == "started":
            meta = job.get_meta(refresh=False)
            done, message = float(meta.get("done", 0.0)), str(meta.get("message", ""))
            return jobs.Status("running", 0, done, message, meta.get("partial"))
        return jobs.Status("queued", self.owner.ahead(job))

    def wait(self, timeout: float) -> jobs.Status:
        now = self.status()
        if now.state in ("queued", "running"):
            time.sleep(timeout)
            now = self.status()
        return now

    def result(self) -> Any:
        self.owner.redis.zrem(_key(f"visitor:{self.who}"), self.id)  # no longer one of the visitor's
        job = self._job()
        if job is None or job.get_status(refresh=False) != "finished":
            raise jobs.Failed(jobs.FAILED)
        self._charge()
        outcome = job.return_value()
        if outcome is None:
            raise jobs.Failed(jobs.FAILED)
        if outcome[0] == "error":
            jobs.raise_for(outcome[1], outcome[2])
        return outcome[1]

    def _charge(self) -> None:
        """The seconds the visitor had this request waiting or running count as their use (local.py's doc)."""
        if self._charged or self.who is None:
            return
        self._charged = True
        self.owner.charge(self.who, min(JOB_TIMEOUT_S, time.time() - self.since))

    def cancel(self) -> None:
        self._charge()
        self._left = True
        r = self.owner.redis
        r.zrem(_key(f"places:{self.id}"), self.token)
        r.zrem(_key(f"visitor:{self.who}"), self.id)
        if self.owner.waiting(self.id):
            return
        job = self._job()
        if job is not None and job.get_status(refresh=False) == "queued":
            job.cancel()  # a running one stops at its next progress report (nobody waits)


class RedisJobs:
    """jobs.Backend on RQ (module doc)."""

    def __init__(self, url: str) -> None:
        import redis
        from rq import Queue

        self.url = url
        self.redis = redis.Redis.from_url(url)
        self.queues = {name: Queue(PREFIX + name, connection=self.redis) for name in QUEUES}

    @classmethod
    def from_env(cls) -> RedisJobs:
        return cls(os.environ.get(REDIS_ENV, DEFAULT_URL))

    def used(self, who: Hashable) -> float:
        raw = self.redis.hget(USE, str(who))
        if not raw:
            return 0.0
        seconds, at = (float(x) for x in raw.decode().split())
        return seconds * math.exp2(-(time.time() - at) / heavy.HALF_LIFE_S)

    def charge(self, who: Hashable, seconds: float) -> None:
        self.redis.hset(USE, str(who), f"{self.used(who) + seconds} {time.time()}")
        self.redis.expire(USE, int(20 * heavy.HALF_LIFE_S))

    def waiting(self, job_id: str) -> int:
        """Places at the job that looked within PLACE_TTL_S."""
        return int(self.redis.zcount(_key(f"places:{job_id}"), time.time() - PLACE_TTL_S, "+inf"))

    def alive(self, job_id: str) -> bool:
        """Whether the process running the job said it is alive within ALIVE_S."""
        return bool(self.redis.exists(_key(f"alive:{job_id}")))

    def revive(self, job_id: str) -> jobs.Status:
        """A started job whose process is silent (its worker died with it): queued again for another worker
        the first time, failed the second (module doc). Every place that sees it calls this; one acts."""
        from rq import Queue
        from rq.exceptions import NoSuchJobError
        from rq.job import Job

        r = self.redis
        with r.lock(_key(f"enqueue:{job_id}"), timeout=10, blocking_timeout=10):
            try:
                job = Job.fetch(job_id, connection=r)
            except NoSuchJobError:
                return jobs.Status("failed")
            if job.get_status(refresh=False) != "started" or self.alive(job_id):
                return jobs.Status("running")  # another place revived it, or it speaks again
            revived = r.incr(_key(f"revived:{job_id}"))
            r.expire(_key(f"revived:{job_id}"), JOB_TIMEOUT_S)
            origin, args = job.origin, job.args
            job.delete()
            if revived > 1:
                return jobs.Status("failed")
            again = Queue(origin, connection=r).enqueue(
                run_job, args=args, job_id=job_id, result_ttl=RESULT_TTL_S, failure_ttl=60,
                job_timeout=JOB_TIMEOUT_S,
            )  # fmt: skip
            return jobs.Status("queued", self.ahead(again))

    def ahead(self, job: Any) -> int:
        """Jobs before `job`: those in the queues taken first, and its place in its own."""
        mine = job.origin
        before = 0
        for name in QUEUES:
            q = self.queues[name]
            if q.name == mine:
                return before + (job.get_position() or 0)
            before += len(q)
        return before

    def _queue_for(self, spec: jobs.Spec, who: Hashable) -> str:
        if spec.short:
            return "short"
        use = self.used(who) + spec.cost if who is not None else spec.cost
        return "p0" if use < P0_S else "p1" if use < P1_S else "p2"

    def _enqueue(self, spec: jobs.Spec, who: Hashable, job_id: str) -> None:
        """Queue the job; Busy (with the visitor's message) when Redis is at its maxmemory with jobs that may
        not be dropped (queued ones: their arguments, such as a 43 MB file, wait there)."""
        import redis
        from rq import Retry

        try:
            self.queues[self._queue_for(spec, who)].enqueue(
                run_job,
                args=(spec.fn, spec.args),
                job_id=job_id,
                result_ttl=RESULT_TTL_S if spec.keep else PASSED_TTL_S,
                failure_ttl=60,
                job_timeout=JOB_TIMEOUT_S,
                retry=Retry(max=1),
            )
        except redis.exceptions.OutOfMemoryError as exc:
            raise jobs.Busy(i18n._(jobs.FULL)) from exc

    def submit(self, spec: jobs.Spec, who: Hashable = None) -> _Place:
        from redis.exceptions import LockNotOwnedError
        from rq.exceptions import NoSuchJobError
        from rq.job import Job

        r, job_id = self.redis, "explorer-" + spec.key
        if who is not None:
            mine = _key(f"visitor:{who}")
            r.zremrangebyscore(mine, "-inf", time.time() - JOB_TIMEOUT_S)
            n = r.zcard(mine)
            if n >= jobs.PER_VISITOR:
                raise jobs.Busy(i18n._(jobs.BUSY, n=n))
        lock = r.lock(_key(f"enqueue:{job_id}"), timeout=10, blocking_timeout=10)
        lock.acquire()
        try:
            try:
                job = Job.fetch(job_id, connection=r)
                state = job.get_status(refresh=False)
            except NoSuchJobError:
                state = None
            place = _Place(self, job_id, who, spec.cost)  # looking before the job starts: it has a visitor
            if state not in ("queued", "started", "deferred", "scheduled", "finished"):
                self._enqueue(spec, who, job_id)
        finally:
            with contextlib.suppress(LockNotOwnedError):  # dropped by Redis past its maxmemory (it expires)
                lock.release()
        if who is not None:
            r.zadd(_key(f"visitor:{who}"), {job_id: time.time()})
            r.expire(_key(f"visitor:{who}"), JOB_TIMEOUT_S)
        return place

    def info(self) -> dict[str, int]:
        return {"waiting": sum(len(q) for q in self.queues.values())}

    def close(self) -> None:
        self.redis.close()


def run_job(fn: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """What an RQ worker runs: the job function, its progress in the job's meta, stopped when nobody waits.
    Returns ("ok", value) or ("error", kind, message) (a bad input's message is a result too)."""
    from rq import get_current_job

    job = get_current_job()
    owner = RedisJobs(os.environ.get(REDIS_ENV, DEFAULT_URL))
    alive, ended = _key(f"alive:{job.id}"), threading.Event()

    def beat() -> None:  # ALIVE_S: the places know this process still runs the job
        while True:
            owner.redis.set(alive, 1, px=int(ALIVE_S * 1000))
            if ended.wait(1.0):
                owner.redis.delete(alive)
                return

    threading.Thread(target=beat, name="jobs: alive", daemon=True).start()

    def send(share: float, message: str, partial: Any) -> None:
        job.meta.update(done=share, message=message, partial=partial)
        job.save_meta()

    def stop() -> bool:
        return owner.waiting(job.id) == 0

    try:
        return ("ok", jobs.execute(fn, args, jobs.Progress(send, stop)))
    except jobs.Stopped:
        return ("error", "Failed", "stopped: nobody waits for it")
    except ValueError as exc:
        return ("error", "ValueError", jobs.sent(exc))
    finally:
        ended.set()


def worker(short: bool = False) -> None:
    """An RQ worker of the explorer's queues (the short lane's only with `short`), at a lower OS priority,
    one BLAS thread, the real models loaded before its first job (its jobs' processes fork from it)."""
    import redis
    from rq import Queue, Worker

    from explorer.compute.jobs import local
    from explorer.compute.jobs import worker as pool_worker

    os.environ.update(local.ONE_CORE)
    os.environ[jobs.BACKEND_ENV] = "inline"  # a job's own jobs run in its process
    os.nice(pool_worker.NICE)
    pool_worker.warm()
    conn = redis.Redis.from_url(os.environ.get(REDIS_ENV, DEFAULT_URL))
    names = ("short",) if short else QUEUES
    Worker([Queue(PREFIX + n, connection=conn) for n in names], connection=conn).work(with_scheduler=False)


if __name__ == "__main__":
    worker(short="--short" in sys.argv[1:])
