"""Jobs past one machine: the same jobs through RQ on Redis ($ATTENTION_EXPLORER_JOBS=redis).

Why RQ rather than Dramatiq or Celery: docs/ARCHITECTURE.md, "Where jobs run".

The fair order becomes queues in order. A job goes to the level of its visitor's use plus its cost (LEVELS,
each twice the one before), in "s<level>" when it is short (expected at most jobs.LANE_S), else "p<level>";
a worker takes the levels in order (s0, p0, s1, p1, ...), a worker started with --short only the s queues (the
short lane). So, as in the local pool, the visitor who used the workers least goes first (within a factor of
two) however much the class has used them. A visitor's use (the seconds they had a request waiting or
running, counted when it ends) is kept in Redis (USE, decayed as in the local pool), so every replica orders
alike. Waiting places are a sorted set per job scored by when each last looked (PLACE_TTL_S): a job whose
places all left or went quiet (the visitor left, or their replica died) stops at its next progress report, or
is cancelled while queued.

A worker's death: a job runs again once, then the visitor reads jobs.FAILED (rq_worker.py says how).

Redis's memory: a big job takes room before it is queued; a refused write is "too busy": redis_room.py.

Workers (rq_worker.py): `python -m explorer.compute.jobs.rq_queue [--short]` (scripts/serve.sh --workers M,
deploy/compose.yaml's and deploy/k8s/'s worker service), with $ATTENTION_EXPLORER_REDIS_URL.
"""

from __future__ import annotations

import bisect
import contextlib
import importlib
import math
import os
import sys
import threading
import time
import uuid
from collections.abc import Hashable, Iterator
from typing import Any

from explorer import cache, i18n
from explorer.compute import heavy, jobs
from explorer.compute.jobs.redis_room import (
    ADMIT,
    LINE,
    OUTCOME,
    PAYLOADS,
    PLACE_TTL_S,
    PREFIX,
    ROOM,
    ROOM_BYTES,
    ROOM_TTL_S,
    SEEN,
    _full,
    budget_of,
    expire_payloads,
    job_keys,
    outcome_of,
    payload_keys,
    peek,
    room_of,
    stash,
)

REDIS_ENV = "ATTENTION_EXPLORER_REDIS_URL"
DEFAULT_URL = "redis://127.0.0.1:6379/0"
# The levels' upper bounds (seconds of use plus cost), and one level past the last: a quiet student has used
# about 10 s, a visitor who always has a request waiting about 90 s (heavy.HALF_LIFE_S / ln 2).
LEVELS = tuple(0.25 * 2**k for k in range(11))
SHORT_QUEUES = tuple(f"s{k}" for k in range(len(LEVELS) + 1))
QUEUES = tuple(q for k in range(len(LEVELS) + 1) for q in (f"s{k}", f"p{k}"))
RESULT_TTL_S = 1800  # a finished job's result stays this long in Redis (or until maxmemory drops it)
# ... and a job's whose caller keeps its result (Spec.keep False: a run's trace, an uploaded file's example,
# a download; tens of MB each, with their arguments): long enough for the places waiting for it to fetch it.
PASSED_TTL_S = 15
JOB_TIMEOUT_S = 600  # a job running longer is stopped by its worker
# A worker says its running job is alive every second; silent this long, it died with it (a worker runs at a
# low priority: on a busy machine it may wait seconds for the CPU, and a job taken for dead runs twice).
# $ATTENTION_EXPLORER_JOB_ALIVE_S sets it (every replica and worker alike; tests shorten it).
ALIVE_S = float(os.environ.get("ATTENTION_EXPLORER_JOB_ALIVE_S", "") or 15.0)
USE = PREFIX + "use"  # hash: visitor -> "seconds at"
# What RQ runs for each job (named: rq_worker imports this module).
RUN_JOB = "explorer.compute.jobs.rq_worker.run_job"


def _key(name: str) -> str:
    return PREFIX + name


def done_key(job_id: str) -> str:
    """The stream where a job's worker says it ended (rq_worker.say_done; RedisJobs.until_done)."""
    return _key(f"done:{job_id}")


class _Place:
    def __init__(
        self,
        owner: RedisJobs,
        job_id: str,
        who: Hashable,
        cost: float,
        room: int = 0,
        spec: jobs.Spec | None = None,
    ) -> None:
        self.owner, self.id, self.who, self.cost = owner, job_id, who, cost
        self.token = uuid.uuid4().hex
        self.since = time.time()  # the visitor's waiting counts from here (RedisJobs.used)
        self.room = room  # bytes of Redis this big job holds while in flight (module doc); 0: a small job
        self.pending = spec  # a big job waiting in line for room, queued once it has it
        self._charged = self._left = False
        self._silent: float | None = None  # since when (monotonic) this place saw its running job silent
        self._look()

    def _look(self) -> None:
        if self._left:
            return
        r = self.owner.redis
        # A look Redis refuses (full) is not counted: the place is still here, and looks again in a moment.
        with contextlib.suppress(_full()):
            r.zadd(_key(f"places:{self.id}"), {self.token: time.time()})
            r.expire(_key(f"places:{self.id}"), JOB_TIMEOUT_S)
            if self.room and self.pending is None:  # the job's room lasts while someone looks
                r.zadd(ROOM, {self.id: (time.time() + ROOM_TTL_S) * 1000}, xx=True, gt=True)

    def _kept(self) -> bool:
        return bool(self.room) and bool(self.owner.redis.exists(OUTCOME + self.id))

    def _job(self) -> Any:
        """RQ's job, its arguments not read (see peek)."""
        from rq.job import Job

        return Job(self.id, connection=self.owner.redis)

    def status(self) -> jobs.Status:
        self._look()  # a page that only looks (a long job's progress, every second) still waits for it
        if self.pending is not None:  # in line for room (module doc)
            ahead = self.owner.admit(self)
            if ahead >= 0:
                return jobs.Status("queued", ahead)
            spec, self.pending = self.pending, None
            self.owner.start(spec, self.who, self.id)
        state, origin, meta = peek(self.owner.redis, self.id)
        if state is None:  # gone from Redis; a big job's outcome outlives RQ's keys (redis_room.keep_outcome)
            return jobs.Status("done", done=1.0) if self._kept() else jobs.Status("failed")
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
            said = self._job().serializer.loads(meta) if meta else {}
            done, message = float(said.get("done", 0.0)), str(said.get("message", ""))
            return jobs.Status("running", 0, done, message, said.get("partial"))
        return jobs.Status("queued", self.owner.ahead(origin, self.id))

    def wait(self, timeout: float) -> jobs.Status:
        now = self.status()
        if now.state in ("queued", "running") and timeout > 0:
            t0 = time.monotonic()
            said = self.owner.until_done(self.id, timeout)
            now = self.status()
            if said and now.state in ("queued", "running"):  # said done, yet queued again (revived): no spin
                time.sleep(max(0.0, timeout - (time.monotonic() - t0)))
                now = self.status()
        return now

    def result(self) -> Any:
        r = self.owner.redis
        r.zrem(_key(f"visitor:{self.who}"), self.id)  # no longer one of the visitor's
        if (state := peek(r, self.id)[0]) != "finished" and not self._kept():  # failed, or gone from Redis
            self._free()
            raise jobs.Failed(jobs.FAILED if state else jobs.LOST)
        self._charge()
        outcome = self.owner.outcome(self.id) if self.room else outcome_of(r, self.id)
        if self.room and self.owner.waiting(self.id) <= 1:
            # A big job's last place has its result: its arguments and result (tens of MB) leave Redis now,
            # not PASSED_TTL_S later, so the room it frees is free in fact.
            r.delete(*job_keys(r, self.id))
        self._free()
        if outcome is None:
            raise jobs.Failed(jobs.LOST)
        if outcome[0] == "error":
            jobs.raise_for(outcome[1], outcome[2])
        return outcome[1]

    def _charge(self) -> None:
        """The seconds the visitor had this request waiting or running count as their use (local.py's doc)."""
        if self._charged or self.who is None:
            return
        self._charged = True
        with contextlib.suppress(_full()):  # use Redis had no room to count goes uncounted
            self.owner.charge(self.who, min(JOB_TIMEOUT_S, time.time() - self.since))

    def _free(self) -> None:
        """A big job's room is free once one of its places has its result (the result may be dropped now)."""
        if self.room and self.pending is None:
            r = self.owner.redis
            r.zrem(ROOM, self.id)
            r.hdel(ROOM_BYTES, self.id)
            expire_payloads(r, self.id, PASSED_TTL_S)  # (gone already if it read the result last)

    def cancel(self) -> None:
        self._charge()
        self._left = True
        r = self.owner.redis
        r.zrem(_key(f"places:{self.id}"), self.token)
        r.zrem(_key(f"visitor:{self.who}"), self.id)
        if self.pending is not None:  # still in line: it leaves the line, and nothing was queued
            r.zrem(LINE, self.token)
            r.zrem(SEEN, self.token)
            return
        if self.owner.waiting(self.id):
            return
        self._free()
        state, origin, _ = peek(r, self.id)
        if state == "queued":
            job = self._job()
            job.origin = origin  # (where RQ takes it out from)
            with contextlib.suppress(_full()):
                job.cancel()  # a running one stops at its next progress report (nobody waits)
            if self.room:
                r.delete(*payload_keys(r, self.id))


class RedisJobs:
    """jobs.Backend on RQ (module doc)."""

    def __init__(self, url: str) -> None:
        import redis
        from rq import Queue

        self.url = url
        self.redis = redis.Redis.from_url(url)
        self.queues = {name: Queue(PREFIX + name, connection=self.redis) for name in QUEUES}
        self._budget: int | None = None
        self._admit = self.redis.register_script(ADMIT)
        # A big job's outcome as read here once for its places (outcome): job id -> (kept until, outcome).
        self._kept: dict[str, tuple[float, Any]] = {}
        self._reading = threading.Lock()

    @classmethod
    def from_env(cls) -> RedisJobs:
        return cls(os.environ.get(REDIS_ENV, DEFAULT_URL))

    def used(self, who: Hashable) -> float:
        raw = self.redis.hget(USE, str(who))
        seconds, at = (float(x) for x in raw.decode().split()) if raw else (0.0, time.time())
        return seconds * math.exp2(-(time.time() - at) / heavy.HALF_LIFE_S)

    def charge(self, who: Hashable, seconds: float) -> None:
        self.redis.hset(USE, str(who), f"{self.used(who) + seconds} {time.time()}")
        self.redis.expire(USE, int(20 * heavy.HALF_LIFE_S))

    def waiting(self, job_id: str) -> int:
        """Places at the job that looked within PLACE_TTL_S."""
        return int(self.redis.zcount(_key(f"places:{job_id}"), time.time() - PLACE_TTL_S, "+inf"))

    def until_done(self, job_id: str, timeout: float) -> bool:
        """Wait up to `timeout` s for the job's worker to say it ended (rq_worker.say_done): a page reads a result
        when it is there, not at its next poll; whether it said so. On a stream, every place of the job wakes at
        once, and XREAD from its start returns at once when the word is there already."""
        said = self.redis.xread({done_key(job_id): "0-0"}, count=1, block=max(1, int(timeout * 1000)))
        return bool(said)

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
        with self._locked(job_id) as mine:
            if not mine:
                return jobs.Status("running")  # another place is reviving it
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
                RUN_JOB, args=args, job_id=job_id, result_ttl=RESULT_TTL_S, failure_ttl=60,
                job_timeout=JOB_TIMEOUT_S,
            )  # fmt: skip
            return jobs.Status("queued", self.ahead(again.origin, again.id))

    @contextlib.contextmanager
    def _locked(self, job_id: str) -> Iterator[bool]:
        """The lock of a job's queueing, held within the block; False when another holds it for 10 s."""
        from redis.exceptions import LockNotOwnedError

        lock = self.redis.lock(_key(f"enqueue:{job_id}"), timeout=10, blocking_timeout=10)
        if not lock.acquire():
            yield False
            return
        try:
            yield True
        finally:
            with contextlib.suppress(LockNotOwnedError):  # dropped by Redis past its maxmemory (it expires)
                lock.release()

    def ahead(self, origin: str, job_id: str) -> int:
        """Jobs before job `job_id`: those in the queues taken first, and its place in its own (one round trip)."""
        pipe = self.redis.pipeline()
        for q in self.queues.values():
            if q.name == origin:
                pipe.lpos(q.key, job_id)
                break
            pipe.llen(q.key)
        return sum(n or 0 for n in pipe.execute())

    def _queue_for(self, spec: jobs.Spec, who: Hashable) -> str:
        use = self.used(who) + spec.cost if who is not None else spec.cost
        return f"{'s' if spec.short else 'p'}{bisect.bisect_right(LEVELS, use)}"

    def _enqueue(self, spec: jobs.Spec, who: Hashable, job_id: str) -> None:
        """Queue the job; Busy (with the visitor's message) when Redis is at its maxmemory with jobs that may
        not be dropped (queued ones: their arguments, such as a 43 MB file, wait there)."""
        import redis
        from rq import Retry

        try:
            args = stash(self.redis, job_id, spec.args)
            self.redis.delete(done_key(job_id))  # a word from a run of the same job before (expired since)
            self.queues[self._queue_for(spec, who)].enqueue(
                RUN_JOB,
                args=(spec.fn, args),
                job_id=job_id,
                result_ttl=RESULT_TTL_S if spec.keep else PASSED_TTL_S,
                failure_ttl=60,
                job_timeout=JOB_TIMEOUT_S,
                retry=Retry(max=1),
            )
        except redis.exceptions.OutOfMemoryError as exc:
            self.redis.delete(*payload_keys(self.redis, job_id))  # written, never queued: nothing else would
            raise jobs.Busy(i18n._(jobs.FULL)) from exc

    def outcome(self, job_id: str) -> Any:
        """A big job's outcome, read from Redis once by this process and handed to each of its places, its
        arrays read-only (explorer.ui.state never changes a session's matrices in place). Twenty places
        reading tens of MB each at once would make Redis hold a copy per reader in its output buffers, past its
        maxmemory (dropping keys, results being read among them); a copy per place, 32 MB more per student."""
        with self._reading:
            self._forget_kept()
            kept = self._kept.get(job_id)
            if kept is None:
                value = outcome_of(self.redis, job_id, big=True)
                if value is None:
                    return None
                cache.freeze(value)
                kept = (time.monotonic() + PASSED_TTL_S, value)
                self._kept[job_id] = kept
        return kept[1]

    def _forget_kept(self, everything: bool = False) -> None:
        """Let go of the outcomes kept past PASSED_TTL_S (all of them with `everything`); under _reading."""
        now = time.monotonic()
        for gone in [k for k, (until, _) in self._kept.items() if everything or until < now]:
            del self._kept[gone]

    def let_go(self) -> None:
        """Let go of the big outcomes kept for their places (a class has gone: explorer.ui.boot)."""
        with self._reading:
            self._forget_kept(everything=True)

    def budget(self) -> int:
        """Bytes the big jobs in flight may hold together (redis_room.budget_of), asked once."""
        if self._budget is None:
            self._budget = budget_of(self.redis)
        return self._budget

    def admit(self, place: _Place) -> int:
        """-1 when `place`'s big job has its room (now, or another place took it), else the big jobs ahead."""
        now = int(time.time() * 1000)
        keys = [ROOM, ROOM_BYTES, LINE, SEEN]
        argv = [
            now,
            place.id,
            place.token,
            place.room,
            self.budget(),
            int(ROOM_TTL_S * 1000),
            int(PLACE_TTL_S * 1000),
            PAYLOADS,
            PASSED_TTL_S,
        ]
        try:
            return int(self._admit(keys=keys, args=argv))
        except _full() as exc:
            raise jobs.Busy(i18n._(jobs.FULL)) from exc

    def start(self, spec: jobs.Spec, who: Hashable, job_id: str) -> None:
        """Queue the job unless the same job is queued, running or done already (then it is joined)."""
        with self._locked(job_id) as mine:
            if not mine:  # Redis too slow to answer for 10 s, or the lock's holder gone: the visitor hears so
                raise jobs.Busy(i18n._(jobs.FULL))
            state = peek(self.redis, job_id)[0]
            if state not in ("queued", "started", "deferred", "scheduled", "finished"):
                self._enqueue(spec, who, job_id)

    def submit(self, spec: jobs.Spec, who: Hashable = None) -> _Place:
        """The visitor's place at the job, queued (or joined) now, or in line for room if it is big; Busy past
        the visitor's bound or when Redis refuses (full)."""
        r, job_id = self.redis, "explorer-" + spec.key
        with self._reading:  # an outcome its places have had for PASSED_TTL_S is let go as the class works on
            self._forget_kept()
        try:
            if who is not None:
                mine = _key(f"visitor:{who}")
                r.zremrangebyscore(mine, "-inf", time.time() - JOB_TIMEOUT_S)
                n = r.zcard(mine)
                if n >= jobs.PER_VISITOR:
                    raise jobs.Busy(i18n._(jobs.BUSY, n=n))
            room = room_of(spec)
            in_flight = peek(r, job_id)[0] in ("queued", "started")
            # looking before the job starts: it has a visitor
            place = _Place(self, job_id, who, spec.cost, room, spec if room and not in_flight else None)
            if place.pending is None:
                self.start(spec, who, job_id)
            if who is not None:
                r.zadd(_key(f"visitor:{who}"), {job_id: time.time()})
                r.expire(_key(f"visitor:{who}"), JOB_TIMEOUT_S)
        except _full() as exc:
            raise jobs.Busy(i18n._(jobs.FULL)) from exc
        return place

    def info(self) -> dict[str, int]:
        return {"waiting": sum(len(q) for q in self.queues.values())}

    def close(self) -> None:
        self.redis.close()


if __name__ == "__main__":  # a worker (rq_worker.py), by the name deploy/ and scripts/serve.sh run
    importlib.import_module("explorer.compute.jobs.rq_worker").worker(short="--short" in sys.argv[1:])
