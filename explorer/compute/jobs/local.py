"""The local pool: worker processes on this machine, in the fair order of explorer.compute.heavy.

`LocalPool(n)` starts n worker processes (explorer.compute.jobs.worker) and one more for the short lane, and
a dispatcher thread that hands each free worker the next job. The next job is the queued one whose visitor
kept the pool busy least lately plus its own expected cost, the first comer among equals. A visitor's share
is the seconds they had a job queued or running, each halved every heavy.HALF_LIFE_S (a job joined by several
visitors goes with the least busy of them): a visitor who sends request after request has one waiting all the
time, a student who reads each page between requests does not, so the student's next request goes before
theirs however long each took (what a visitor waits counts, not only what the workers did for them). The
short lane's worker takes only short jobs (expected at most jobs.LANE_S), so a student's 8-word sentence and
the tokens its prediction needs start at once beside a classmate's sweep.

A job whose every visitor left is taken out of the queue, or, running, told to stop (at its next progress
report). A worker that dies mid-job is replaced, and its job runs once more on the fresh one; a second death
fails it with a message (jobs.FAILED). The pool holds per visitor only their decayed seconds of waiting and
how many places they hold (forgotten once they hold none and the seconds are below a millisecond), and their
places at jobs.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from explorer import i18n
from explorer.compute import heavy, jobs

ROOT = Path(__file__).resolve().parents[3]
TRIES = 2  # runs of one job before its worker's deaths fail it
ONE_CORE = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


class _Job:
    def __init__(self, spec: jobs.Spec, jid: int) -> None:
        self.spec, self.id = spec, jid
        self.waiters: dict[object, Hashable] = {}  # place -> visitor
        self.state = "queued"  # queued, running, done, failed, cancelled
        self.done, self.message = 0.0, ""
        self.partial: Any = None  # what the job reported having so far
        self.value: Any = None
        self.error: tuple[str, str] | None = None
        self.tries = 0
        self.started = 0.0


class _Worker:
    def __init__(self, short: bool) -> None:
        self.short = short
        mine, theirs = socket.socketpair()
        env = dict(os.environ, **ONE_CORE)
        env[jobs.BACKEND_ENV] = "inline"  # a job's own jobs (a lens's run) run in the worker itself
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "explorer.compute.jobs.worker", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            cwd=ROOT,
            env=env,
        )
        theirs.close()
        self.conn = Connection(mine.detach())
        self.job: _Job | None = None
        # What goes to the worker is written by a thread of its own, never under the pool's lock: a job's
        # arguments can be tens of MB (an uploaded layer file), which a worker at a lower priority reads
        # slowly on a busy machine, and every page asking the pool anything would wait meanwhile.
        self.outbox: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        threading.Thread(target=self._write, name="jobs: to a worker", daemon=True).start()

    def _write(self) -> None:
        while (msg := self.outbox.get()) is not None:
            try:
                self.conn.send(msg)
            except (OSError, ValueError):  # a dead worker: the pool's loop sees its end and replaces it
                return

    def kill(self) -> None:
        self.outbox.put(None)
        self.proc.kill()
        self.proc.wait()
        self.conn.close()


class _Place:
    """One visitor's place at a job (jobs.Handle)."""

    def __init__(self, pool: LocalPool, job: _Job, who: Hashable) -> None:
        self.pool, self.job, self.who = pool, job, who
        self.open = True  # counted in its visitor's places (LocalPool._hold) until the job ends or it leaves

    def status(self) -> jobs.Status:
        return self.pool._status(self.job)

    def wait(self, timeout: float) -> jobs.Status:
        """The job's status once it moved (its state or progress) or after `timeout` seconds: the pool wakes
        every waiting thread at any job's news, and only this job's is worth a look at the queue."""
        job, deadline = self.job, time.monotonic() + timeout
        with self.pool._cond:
            seen = (job.state, job.done)
            while job.state in ("queued", "running") and (job.state, job.done) == seen:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.pool._cond.wait(left)
        return self.status()

    def result(self) -> Any:
        job = self.job
        if job.state == "done":
            return job.value
        if job.state == "failed" and job.error is not None:
            jobs.raise_for(*job.error)
        raise jobs.Failed(jobs.FAILED)

    def cancel(self) -> None:
        self.pool._leave(self)


class LocalPool:
    """Worker processes and their queue (module doc): `submit(spec, who)` -> a place at the job."""

    def __init__(self, workers: int, *, short_lane: bool = True, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._cond = threading.Condition()
        self._jobs: dict[str, _Job] = {}  # key -> the job queued or running for it
        self._queue: list[_Job] = []
        # visitor -> (decayed seconds with a job queued or running, when counted, places held then)
        self._used: dict[Hashable, tuple[float, float, int]] = {}
        self._ids = itertools.count(1)
        self._workers = [_Worker(False) for _ in range(max(1, workers))] + (
            [_Worker(True)] if short_lane else []
        )
        self._wake_r, self._wake_w = socket.socketpair()
        self._closed = False
        self.deaths = 0
        self.started: Counter[str] = Counter()  # job function -> runs started (joined ones are not)
        self._thread = threading.Thread(target=self._loop, name="jobs: local pool", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------------------------------ asking
    def submit(self, spec: jobs.Spec, who: Hashable = None) -> _Place:
        with self._cond:
            if who is not None:
                mine = sum(1 for j in self._jobs.values() if who in j.waiters.values())
                if mine >= jobs.PER_VISITOR:
                    raise jobs.Busy(i18n._(jobs.BUSY, n=mine))
            job = self._jobs.get(spec.key)
            if job is None:  # not queued nor running: a new job (a finished one is in jobs.RESULTS)
                job = _Job(spec, next(self._ids))
                self._jobs[spec.key] = job
                self._queue.append(job)
            place = _Place(self, job, who)
            job.waiters[place] = who
            self._hold(who, +1)
            self._dispatch()
            return place

    def _leave(self, place: _Place) -> None:
        with self._cond:
            job = place.job
            job.waiters.pop(place, None)
            self._release(place)
            if job.waiters or job.state not in ("queued", "running"):
                return
            if self._jobs.get(job.spec.key) is job:
                del self._jobs[job.spec.key]
            if job.state == "queued":
                self._queue.remove(job)
                job.state = "cancelled"
            else:  # running: stopped at its next progress report (its worker says "stopped")
                worker = next((w for w in self._workers if w.job is job), None)
                if worker is not None:
                    self._send(worker, ("stop", job.id))
            self._cond.notify_all()

    def info(self) -> dict[str, int]:
        with self._cond:
            running = sum(1 for w in self._workers if w.job is not None)
            return {"workers": len(self._workers), "running": running, "waiting": len(self._queue)}

    def pids(self) -> list[int]:
        with self._cond:
            return [w.proc.pid for w in self._workers]

    def running_pid(self, key: str) -> int | None:
        """The worker process running the job of `key` (tests kill it)."""
        with self._cond:
            return next((w.proc.pid for w in self._workers if w.job and w.job.spec.key == key), None)

    def used(self, who: Hashable) -> float:
        with self._cond:
            return self._decayed(who)

    # ------------------------------------------------------------------------------------------ order
    def _decayed(self, who: Hashable) -> float:
        """`who`'s seconds with a job queued or running, each halved every HALF_LIFE_S since."""
        seconds, at, held = self._used.get(who, (0.0, 0.0, 0))
        if not seconds and not held:
            return 0.0
        kept = math.exp2(-(self._clock() - at) / heavy.HALF_LIFE_S)
        # Since `at`, every second with a place held adds itself, halved every HALF_LIFE_S since.
        added = heavy.HALF_LIFE_S / math.log(2) * (1.0 - kept) if held else 0.0
        return seconds * kept + added

    def _hold(self, who: Hashable, change: int) -> None:
        """Under the lock: `who` holds `change` more places from now (their waiting counted until then)."""
        if who is None:
            return
        held = self._used.get(who, (0.0, 0.0, 0))[2] + change
        self._used[who] = (self._decayed(who), self._clock(), max(0, held))
        for w in [w for w, (_, _, n) in self._used.items() if not n and self._decayed(w) < 1e-3]:
            del self._used[w]

    def _release(self, place: _Place) -> None:
        """Under the lock: the place's waiting ends (its job ended, or its visitor left it)."""
        if place.open:
            place.open = False
            self._hold(place.who, -1)

    def _end(self, job: _Job) -> None:
        """Under the lock: the job ended; its visitors' places stop counting as waiting."""
        for place in list(job.waiters):
            self._release(place)

    def _rank(self, job: _Job) -> tuple[float, int]:
        use = min((self._decayed(w) for w in job.waiters.values()), default=0.0)
        return use + job.spec.cost, job.id

    def _order(self) -> list[_Job]:
        return sorted(self._queue, key=self._rank)

    def _status(self, job: _Job) -> jobs.Status:
        with self._cond:
            if job.state != "queued":
                return jobs.Status(job.state, 0, job.done, job.message, job.partial)
            order = self._order()
            ahead = order.index(job) if job in order else 0
            general = [w for w in self._workers if not w.short]
            if all(w.job is not None for w in general):
                ahead += len(general)
            if job.spec.short:
                lane = [w for w in self._workers if w.short]
                shorts = [j for j in order if j.spec.short]
                in_lane = (shorts.index(job) if job in shorts else 0) + sum(1 for w in lane if w.job)
                ahead = min(ahead, in_lane) if lane else ahead
            return jobs.Status("queued", ahead)

    def _dispatch(self) -> None:
        """Under the lock: each free worker takes the first job in the order it may run."""
        for worker in self._workers:
            if worker.job is not None or not self._queue:
                continue
            order = self._order()
            job = next((j for j in order if j.spec.short), None) if worker.short else order[0]
            if job is None:
                continue
            self._queue.remove(job)
            job.state, job.tries, job.started = "running", job.tries + 1, self._clock()
            worker.job = job
            self.started[job.spec.fn] += 1
            self._send(worker, ("run", job.id, job.spec.fn, job.spec.args))

    def _send(self, worker: _Worker, msg: tuple[Any, ...]) -> None:
        worker.outbox.put(msg)  # written by the worker's own thread (_Worker._write)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    # ------------------------------------------------------------------------------------------ the loop
    def _loop(self) -> None:
        while not self._closed:
            with self._cond:
                conns = {w.conn: w for w in self._workers}
            try:
                ready = wait([*conns, self._wake_r], timeout=1.0)
            except OSError:  # a worker's socket closed under the wait (replaced, or the pool closing)
                continue
            for r in ready:
                if r is self._wake_r:
                    try:
                        self._wake_r.recv(4096)
                    except OSError:
                        return
                    continue
                worker = conns[r]
                try:
                    msg = worker.conn.recv()
                except (EOFError, OSError):
                    self._replace(worker)
                    continue
                self._handle(worker, msg)
            with self._cond:  # a worker whose process ended without closing (killed while writing)
                for worker in list(self._workers):
                    if worker.proc.poll() is not None and worker in conns.values():
                        self._replace(worker)

    def _handle(self, worker: _Worker, msg: tuple[Any, ...]) -> None:
        with self._cond:
            job = worker.job
            if job is None or job.id != msg[1]:
                return
            if msg[0] == "progress":
                job.done, job.message, job.partial = msg[2], msg[3], msg[4]
                self._cond.notify_all()
                return
            worker.job = None
            self._end(job)
            if self._jobs.get(job.spec.key) is job:
                del self._jobs[job.spec.key]
            if msg[0] == "done":
                job.state, job.value, job.done = "done", msg[2], 1.0
                if job.spec.keep:
                    jobs.RESULTS.put(job.spec.key, msg[2])
            elif msg[0] == "error":
                job.state, job.error = "failed", (msg[2], msg[3])
            else:
                job.state = "cancelled"
            self._dispatch()
            self._cond.notify_all()

    def _replace(self, worker: _Worker) -> None:
        with self._cond:
            if worker not in self._workers:
                return
            self.deaths += 1
            worker.kill()
            job, worker.job = worker.job, None
            if not self._closed:
                self._workers[self._workers.index(worker)] = _Worker(worker.short)
            if job is not None and job.state == "running":
                if job.tries < TRIES and job.waiters:
                    job.state = "queued"
                    self._queue.append(job)  # its id keeps its place in the order
                else:
                    job.state, job.error = "failed", ("Failed", jobs.FAILED)
                    self._end(job)
                    if self._jobs.get(job.spec.key) is job:
                        del self._jobs[job.spec.key]
            self._dispatch()
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
        self._wake()
        self._thread.join(5)
        with self._cond:
            for worker in self._workers:
                worker.kill()
            for job in self._jobs.values():
                job.state, job.error = "failed", ("Failed", jobs.FAILED)
            self._jobs.clear()
            self._queue.clear()
            self._cond.notify_all()
        self._wake_r.close()
        self._wake_w.close()
