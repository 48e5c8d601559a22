"""A class: the teacher's screen on every student's laptop, and the class's answers on the projector.

What a class shares lives in a store, never in a session (a student's session and the teacher's may be on
different replicas). Pure: no Streamlit.

store.py          the interface every back end implements (Store), its values, join codes and bounds
answers_csv.py    after class: the answers, question by question, as CSV (no names)
sqlite_store.py   the default: SQLite from the standard library in a data folder (one server process)
redis_store.py    Redis, which replicas share (the job queue's Redis)
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.classroom.redis_store import RedisStore
from explorer.classroom.sqlite_store import SqliteStore
from explorer.classroom.store import BACKEND_ENV, DATA_ENV, DEFAULT_DATA, Store

REDIS_ENV = "ATTENTION_EXPLORER_REDIS_URL"  # the job queue's Redis (explorer.compute.jobs.rq_queue)
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"


def open_store(backend: str | None = None) -> Store:
    """The store this process uses: $ATTENTION_EXPLORER_CLASSES (sqlite, default, in $ATTENTION_EXPLORER_DATA;
    redis with replicas, at $ATTENTION_EXPLORER_REDIS_URL, the job queue's Redis)."""
    which = (backend or os.environ.get(BACKEND_ENV, "sqlite")).strip().lower()
    if which == "redis":
        return RedisStore(os.environ.get(REDIS_ENV, DEFAULT_REDIS))
    if which != "sqlite":
        raise ValueError(f"${BACKEND_ENV} takes sqlite or redis, not {which!r}")
    return SqliteStore(Path(os.environ.get(DATA_ENV) or DEFAULT_DATA) / "classes.sqlite3")
