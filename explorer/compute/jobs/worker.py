"""A worker process of the local pool: `python -m explorer.compute.jobs.worker FD`.

It reads jobs from the socket FD (multiprocessing's framing: pickled tuples), runs one at a time at a lower
OS priority than the web process (NICE), and sends back its progress and its result:

  web -> worker   ("run", job id, "module:name", args)   ("stop", job id)
  worker -> web   ("progress", job id, share, message, partial)    ("done", job id, result)
                  ("error", job id, kind, message)        ("stopped", job id)

A stop is read at the job's next progress report. The worker ends when the web process closes the socket
(it left or stopped), or after a job when it holds more than $ATTENTION_EXPLORER_WORKER_MB of memory (the web
process starts a fresh one): a worker's memory stays bounded whatever its jobs left in its caches. After each
job it gives the memory its job freed back to the system, and once no job came for IDLE_S seconds it lets go
of its caches as well (they serve a class at work, where one job's run feeds the next; RESULTS in the web
process keeps the results), and ends if it still holds SLACK_MB more than once warm (the web process starts a
fresh one): a class that left leaves the workers as they started, not 200 MB over each.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import os
import sys
import traceback
from multiprocessing.connection import Connection

NICE = 10  # a worker's priority below the web process's: the pages' reruns and messages come first
MEMORY_ENV = "ATTENTION_EXPLORER_WORKER_MB"
MEMORY_MB = 1500
WARM_ENV = (
    "ATTENTION_EXPLORER_WORKER_WARM"  # default bound of a worker's resident memory, checked after each job
)


IDLE_S = 10.0  # seconds without a job after which a worker lets go of its caches
# MB of its own memory (RssAnon) over what it held once warm, which an idle worker that let go of its caches
# may keep; past it, the heap is fragmented by the jobs' arrays and the worker ends (a fresh one replaces it).
SLACK_MB = 64.0


def give_back() -> None:
    """Free what the last job left unreachable, and hand the free pages of the heap back to the system
    (glibc's malloc_trim; elsewhere the collection alone): a 43 MB layer file's parse leaves hundreds of MB
    free in the heap, which glibc keeps for the process otherwise."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)


def let_go() -> None:
    """Empty the process's caches (the explorer's and the engine's; the models' weights stay), then give_back."""
    from attention_core import pretrained
    from explorer import cache

    for store in cache.caches():
        store.clear()
    pretrained.clear_cache()
    give_back()


def rss_mb(field: str = "VmRSS") -> float:
    """This process's resident memory (Linux /proc; 0 elsewhere); field "RssAnon": its own, not the pages of
    files it maps (the models' weights, shared with every process of the machine)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def bound_mb() -> float:
    """The resident memory (MB) past which a worker ends after its job: $ATTENTION_EXPLORER_WORKER_MB."""
    raw = os.environ.get(MEMORY_ENV, "")
    return float(raw) if raw.isdigit() else MEMORY_MB


def serve(conn: Connection) -> None:
    from explorer.compute import jobs

    pending_stop: set[int] = set()

    idle = False  # caches let go of since the last job
    warm_mb = rss_mb("RssAnon")
    while True:
        try:
            if not idle and not conn.poll(IDLE_S):
                let_go()
                if rss_mb("RssAnon") > warm_mb + SLACK_MB:
                    return
                idle = True
                continue
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg[0] == "stop":
            continue  # a stop for a job that ended already
        _, jid, fn, args = msg

        def stop(jid: int = jid) -> bool:
            while conn.poll():
                other = conn.recv()
                if other[0] == "stop":
                    pending_stop.add(other[1])
            return jid in pending_stop

        def send(share: float, message: str, partial: object, jid: int = jid) -> None:
            conn.send(("progress", jid, share, message, partial))

        try:
            value = jobs.execute(fn, args, jobs.Progress(send, stop))
            conn.send(("done", jid, value))
        except jobs.Stopped:
            conn.send(("stopped", jid))
        except ValueError as exc:
            conn.send(("error", jid, "ValueError", jobs.sent(exc)))
        except Exception as exc:  # noqa: BLE001 - the web process says it; the log has the traceback
            traceback.print_exc(file=sys.stderr)
            conn.send(("error", jid, type(exc).__name__, str(exc)[:500]))
        pending_stop.discard(jid)
        idle = False
        give_back()
        if rss_mb() > bound_mb():
            return


def warm() -> None:
    """Load every real model installed here before the first job ($ATTENTION_EXPLORER_WORKER_WARM=0: not)."""
    if os.environ.get(WARM_ENV, "1") == "0":
        return
    from explorer.model import models

    for key in models.MODELS:
        if models.MODELS[key].engine and models.installed(key):
            try:
                models.model(key)
            except Exception:  # noqa: BLE001 - a failed load says why in the job that needs the model
                traceback.print_exc(file=sys.stderr)


def main(argv: list[str]) -> None:
    os.nice(NICE)
    conn = Connection(int(argv[1]))
    warm()
    serve(conn)


if __name__ == "__main__":
    main(sys.argv)
