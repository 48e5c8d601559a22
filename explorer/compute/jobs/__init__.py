"""Heavy work as jobs, run in worker processes, their results shared by every session. Pure: no Streamlit.

A job is a call of a module-level function of explorer's with plain arguments (model key, text, switched-off
heads, seed, length, a pair of sentences, ...); its key is a digest of the function's name and those
arguments. A page asks for a job with `call(spec(fn, *args, cost=...))` and gets its result:

- from the results cache (RESULTS: shared by every session, bounded in bytes) when the same job ran before;
- by joining the job when the same job is queued or running for someone else (thirty students pressing Run
  on one link cost one run);
- else by queueing it. While it waits, the page's `show(Status)` (set with `for_visitor`) is called every
  POLL_S seconds: how many requests are ahead, then how far the job got (`Status.done`, `Status.message`).

Where jobs run ($ATTENTION_EXPLORER_JOBS):
  local   (default) a pool of worker processes started with the app (local.py): $ATTENTION_EXPLORER_WORKERS
          of them (default: the cores but one, at least 1) and one short lane, each at a lower OS priority
          than the web process; the pool keeps the fair order of explorer.compute.heavy (least recent use
          first, a short lane for short requests).
  redis   the same jobs through RQ on Redis ($ATTENTION_EXPLORER_REDIS_URL): workers are their own service,
          results shared by every replica (rq_queue.py).
  inline  in the asking thread, taking turns in explorer.compute.heavy's pool ($ATTENTION_EXPLORER_WORKERS=0
          too): tests of pages, and hosts that cannot start processes.

A job function may take a keyword `progress` (a Progress): calling `progress(share, message)` reports how far
it got (0..1) and raises Stopped when nobody waits for the job any more (the visitor left or asked for
something else), so a long job (a sweep, a ranking, a training run) stops at its next report. A job that
draws as it goes (a training run's loss so far) passes `partial=`: what it has so far, small and picklable,
which the latest Status carries until the next report replaces it. Its result
goes back by pickle, so it holds what pages draw, not whole traces; a ValueError it raises reaches the page
as a ValueError (its message is for the visitor), any other failure as Failed.

A worker knows no visitor's language: what a job says to the visitor (a progress message, a Refusal) goes
as the catalog's string and its values (`said`) and is worded in the asking session's language (`words`).

A long job of a page of its own (a training run): `submit(spec(...), who)` gives a Handle to look at
(`status()`, `result()`) across reruns and to `cancel()`.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import os
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from explorer import cache, i18n
from explorer.i18n import N_

BACKEND_ENV = "ATTENTION_EXPLORER_JOBS"
WORKERS_ENV = "ATTENTION_EXPLORER_WORKERS"
POLL_S = 0.25  # seconds between two updates of a waiting page
PER_VISITOR = 3  # jobs one visitor may have queued or running at once; past it, Busy
# A job expected to take at most this (seconds) may run in the short lane: a sentence's run, the tokens a
# prediction needs, a patching pair: what a page waits for before it can draw, never a sweep or a ranking.
LANE_S = 0.5
# Finished jobs' results for every session: sweeps and rankings (KBs); larger ones live in their callers' own
# caches (explorer.compute.*).
RESULT_BYTES = 4 * cache.MB
RESULTS = cache.ByteCache("explorer.compute.jobs.results", RESULT_BYTES)
MODULES = ("explorer.",)  # a job's function lives in one of these packages (workers import it by name)


@dataclass(frozen=True)
class Spec:
    """One job: the function (module:name), its plain arguments, its expected seconds, its key."""

    fn: str
    args: tuple[Any, ...]
    cost: float = 0.0  # seconds it is expected to take (the fair order; at most LANE_S: the short lane)
    keep: bool = True  # its result goes into RESULTS (False: the caller keeps it, e.g. the engine's cache)
    key: str = ""

    @property
    def short(self) -> bool:
        return 0.0 < self.cost <= LANE_S


def spec(
    fn: Callable[..., Any], *args: Any, cost: float = 0.0, keep: bool = True, key: str | None = None
) -> Spec:
    """The job of calling `fn(*args)` (a module-level function of explorer's, plain arguments). key: the
    job's key when its arguments are too large to digest by their repr (an upload's bytes: a hash of them)."""
    name = f"{fn.__module__}:{fn.__qualname__}"
    if not name.startswith(MODULES) or "." in fn.__qualname__:
        raise ValueError(f"a job's function is a module-level function of explorer's, not {name}")
    digest = cache.key_of((name, key) if key is not None else (name, tuple(args)))
    return Spec(name, tuple(args), max(0.0, float(cost)), keep, digest)


@dataclass(frozen=True)
class Status:
    """Where a job is: queued (`ahead` requests before it), running (`done` 0..1, `message`, and `partial`:
    what the job reported having so far, or None), done, failed."""

    state: str
    ahead: int = 0
    done: float = 0.0
    message: str = ""
    partial: Any = None


class Stopped(Exception):  # noqa: N818 - what a job's progress raises when nobody waits for it
    """Nobody waits for the job any more: it stops at its next progress report."""


class Busy(Exception):  # noqa: N818 - the visitor's message
    """The visitor has PER_VISITOR jobs queued or running already."""


class Failed(Exception):  # noqa: N818 - the visitor's message
    """The job failed for a reason other than its input (FAILED, LOST), said in the visitor's language wherever
    it is read (made in a worker or a backend, where no session's language is known)."""

    def __str__(self) -> str:
        return i18n._(self.args[0]) if self.args else ""


_SAID = "\x1esaid:"  # a said() message: its catalog string and values as JSON, worded by words()


def said(message: str, /, **values: str | int | float) -> str:
    """A message a job makes for the visitor (its progress, a refusal): the catalog's string (marked with
    N_ where it is written) and its values, sent as text and worded on the page in the visitor's language."""
    return _SAID + json.dumps([message, values])


def words(text: str) -> str:
    """A job's message in the current language: a said() message translated, any other text as it is."""
    if not text.startswith(_SAID):
        return text
    message, values = json.loads(text[len(_SAID) :])
    return i18n._(message, **values)


def unworded(text: str) -> str | None:
    """The catalog's string of a said() message (None for any other text)."""
    return json.loads(text[len(_SAID) :])[0] if text.startswith(_SAID) else None


class Refusal(ValueError):  # noqa: N818 - the visitor's message
    """A job's bad input, said to the visitor in their language wherever it is read: raised in a worker,
    it travels as its said() text (`sent`) and is worded in the asking process."""

    def __init__(self, message: str, /, **values: str | int | float) -> None:
        # (a said() text already: an unpickled Refusal)
        super().__init__(message if message.startswith(_SAID) and not values else said(message, **values))

    def __str__(self) -> str:
        return words(self.args[0])


def sent(exc: ValueError) -> str:
    """What a worker sends of a ValueError: a Refusal's said() text (worded on the page), else its message."""
    return exc.args[0] if isinstance(exc, Refusal) else str(exc)


# The visitor's messages (marked for the catalogs, translated where they are raised: i18n._(BUSY, n=...))
BUSY = N_("You have {n} requests waiting at the server already: this one starts once one of them is done.")
FAILED = N_("The server could not finish this (its worker stopped twice while running it). Please try again.")
LOST = N_("The server had to let go of this request while it waited (it was too full). Please try again.")
FULL = N_("The server is too busy to take this now (its queue is full). Please try again in a minute.")


class Progress:
    """What a job function reports through: `progress(share, message, partial=...)`; raises Stopped when
    asked to stop. Reports come through at most every 0.1 s (and the last one, share 1); a report that carries
    a partial result always does, so the page never misses the newest one for long."""

    def __init__(
        self, send: Callable[[float, str, Any], None] | None = None, stop: Callable[[], bool] | None = None
    ) -> None:
        self._send, self._stop, self._last = send, stop, 0.0

    @property
    def stopped(self) -> bool:
        return self._stop is not None and self._stop()

    def __call__(self, share: float, message: str = "", partial: Any = None) -> None:
        if self.stopped:
            raise Stopped
        now = time.monotonic()
        if self._send is not None and (now - self._last >= 0.1 or share >= 1.0 or partial is not None):
            self._last = now
            self._send(min(1.0, max(0.0, float(share))), str(message), partial)


def execute(fn: str, args: tuple[Any, ...], progress: Progress | None = None) -> Any:
    """Run the job function `fn` ("module:name") on `args` (in a worker, or inline)."""
    module, _, name = fn.partition(":")
    if not module.startswith(MODULES):
        raise ValueError(f"not a job of explorer's: {fn}")
    func = getattr(importlib.import_module(module), name)
    if "progress" in inspect.signature(func).parameters:
        return func(*args, progress=progress or Progress())
    return func(*args)


class Handle(Protocol):
    """A visitor's place at one job (joined or started)."""

    def status(self) -> Status: ...

    def wait(self, timeout: float) -> Status: ...

    def result(self) -> Any: ...

    def cancel(self) -> None: ...


class Backend(Protocol):
    def submit(self, job: Spec, who: Hashable) -> Handle: ...

    def info(self) -> dict[str, int]: ...

    def close(self) -> None: ...


def workers() -> int:
    """$ATTENTION_EXPLORER_WORKERS, default the cores but one (at least 1); 0: jobs run inline."""
    raw = os.environ.get(WORKERS_ENV, "")
    if raw.strip().isdigit():
        return min(64, int(raw))
    return max(1, (os.cpu_count() or 2) - 1)


def kind() -> str:
    """Where jobs run: "local", "redis" or "inline" ($ATTENTION_EXPLORER_JOBS; module doc)."""
    raw = os.environ.get(BACKEND_ENV, "local").strip().lower()
    if raw == "inline" or (raw != "redis" and workers() == 0):
        return "inline"
    return "redis" if raw == "redis" else "local"


_backend: Backend | None = None
_lock = threading.Lock()


def backend() -> Backend | None:
    """The process's backend, started at its first use (server.py starts it with the server); None inline."""
    global _backend
    with _lock:
        if _backend is None and kind() != "inline":
            if kind() == "redis":
                from explorer.compute.jobs import rq_queue

                _backend = rq_queue.RedisJobs.from_env()
            else:
                from explorer.compute.jobs import local

                _backend = local.LocalPool(workers())
        return _backend


def use(b: Backend | None) -> Backend | None:
    """Use `b` from now on (tests; None: start anew at the next use); returns the one before."""
    global _backend
    with _lock:
        before, _backend = _backend, b
    return before


def let_go() -> None:
    """Empty RESULTS, and let go of what the process's backend keeps for the places at its jobs (on Redis,
    the big jobs' outcomes read once for every place: rq_queue.RedisJobs.outcome), when a class has gone."""
    RESULTS.clear()
    with _lock:
        b = _backend
    let_go_of = getattr(b, "let_go", None)
    if callable(let_go_of):
        let_go_of()


def close() -> None:
    """Stop the process's backend (its workers), if it started one."""
    b = use(None)
    if b is not None:
        b.close()


_local = threading.local()


@contextlib.contextmanager
def for_visitor(who: Hashable, show: Callable[[Status], None] | None = None) -> Iterator[None]:
    """Within the block, jobs this thread asks for are `who`'s, and `show(Status)` is called while they wait."""
    before = getattr(_local, "visitor", None)
    _local.visitor = (who, show)
    try:
        yield
    finally:
        _local.visitor = before


def submit(job: Spec, who: Hashable = None) -> Handle:
    """Start (or join) `job` for `who` and return the visitor's place at it, to look at across reruns."""
    b = backend()
    if b is None:
        return _Inline(job)
    return b.submit(job, who)


def call(job: Spec, *, run_on: bool = False) -> Any:
    """The result of `job`: from RESULTS, by joining the same job, or by running it (module doc); meanwhile
    the visitor's `show` says where it is. A visitor who leaves (Streamlit stops the run) leaves the job,
    which stops when nobody else waits for it; run_on: the job runs to its end all the same (work a visitor
    asked for with a button, such as a sweep: the clicker's next key moves on, and the result waits in
    RESULTS for the visitor's return)."""
    if job.keep:
        found, value = RESULTS.get(job.key)
        if found:
            return value
    who, show = getattr(_local, "visitor", None) or (None, None)
    b = backend()
    if b is None:
        return _inline(job, who, show)
    from explorer.compute import heavy

    handle = b.submit(job, who)
    finished = False
    try:
        now = handle.wait(0.0)
        if now.state in ("done", "failed"):
            finished = True
            return handle.result()
        with heavy.stepped_out():  # the process's other pages draw meanwhile
            while True:
                now = handle.wait(POLL_S)
                if now.state in ("done", "failed"):
                    finished = True
                    break
                if show is not None:
                    show(now)  # draws on the page: where Streamlit stops a run whose visitor moved on
        return handle.result()
    finally:
        if not finished and not run_on:
            handle.cancel()


call.cache = RESULTS  # type: ignore[attr-defined]  # (found by explorer.cache.caches, counted in its budgets)


def _inline(job: Spec, who: Hashable, show: Callable[[Status], None] | None) -> Any:
    from explorer.compute import heavy

    told = None if show is None else (lambda ahead: show(Status("queued", ahead)))
    send = (
        None
        if show is None
        else (lambda share, message, part: show(Status("running", 0, share, message, part)))
    )
    asked = heavy.for_visitor(who, told) if (who, show) != (None, None) else contextlib.nullcontext()
    with asked, heavy.slot(job.cost):  # (no visitor here: heavy's own, set by the caller, if any)
        value = execute(job.fn, job.args, Progress(send))
    if job.keep:
        RESULTS.put(job.key, value)
    return value


class _Inline:
    """A submitted job run inline, at once (no worker to hand it to)."""

    def __init__(self, job: Spec) -> None:
        self._error: BaseException | None = None
        try:
            self._value = _inline(job, None, None)
        except Exception as exc:  # noqa: BLE001 - handed back by result()
            self._error = exc

    def status(self) -> Status:
        return Status("failed" if self._error else "done", done=1.0)

    def wait(self, timeout: float) -> Status:
        return self.status()

    def result(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._value

    def cancel(self) -> None:
        pass


def raise_for(kind_: str, message: str) -> None:
    """A job's failure, raised in the asking process: a ValueError stays one (its message is for the
    visitor), Busy stays Busy, anything else is Failed."""
    if kind_ == "ValueError":
        raise ValueError(words(message))
    if kind_ == "Busy":
        raise Busy(message)
    raise Failed(message)
