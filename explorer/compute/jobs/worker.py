"""A worker process of the local pool: `python -m explorer.compute.jobs.worker FD`.

It reads jobs from the socket FD (multiprocessing's framing: pickled tuples), runs one at a time at a lower
OS priority than the web process (NICE), and sends back its progress and its result:

  web -> worker   ("run", job id, "module:name", args)   ("stop", job id)
  worker -> web   ("progress", job id, share, message, partial)    ("done", job id, result)
                  ("error", job id, kind, message)        ("stopped", job id)

A stop is read at the job's next progress report. The worker ends when the web process closes the socket
(it left or stopped), or after a job when it holds more than $ATTENTION_EXPLORER_WORKER_MB of memory (the web
process starts a fresh one): a worker's memory stays bounded whatever its jobs left in its caches.
"""

from __future__ import annotations

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


def rss_mb() -> float:
    """This process's resident memory (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _bound_mb() -> float:
    raw = os.environ.get(MEMORY_ENV, "")
    return float(raw) if raw.isdigit() else MEMORY_MB


def serve(conn: Connection) -> None:
    from explorer.compute import jobs

    pending_stop: set[int] = set()

    while True:
        try:
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
        if rss_mb() > _bound_mb():
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
