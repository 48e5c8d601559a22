"""An uploaded example file read and checked as a job (explorer.compute.jobs): the web process hands over the
bytes and gets the example back (or the reason it was refused); the parsing of a real layer's file (tens of
MB of JSON numbers, seconds of CPU) runs in a worker. Nothing here draws.

A class opens the teacher's file: while some session of the process still holds the example a file opened,
the same file (its bytes' digest, in the same language) opens that example again, read-only, without a job
(OPENED): one read of 43 MB for the class, not one per student.
"""

from __future__ import annotations

import hashlib
import threading
import weakref

from explorer import cache, i18n
from explorer.compute import jobs
from explorer.model.example import Example
from explorer.sharing.json_file import from_json, refusal
from explorer.sharing.values import ShareError

READ_MB_S = 15.0  # about how many MB of JSON a worker reads and checks per second (the fair order's cost)
# A smaller file is read here: an opened layer's file without edits is half a KB read in 2 ms, while the
# example it opens holds the layer's weights (16 MB of SmolLM2's) that a worker would send back.
INLINE_BYTES = 1_000_000


def read(data: bytes) -> tuple[Example | None, list[str], str]:
    """(the example, notes for the visitor, "") from an uploaded file, or (None, [], why it was refused)."""
    if len(data) < INLINE_BYTES:
        return read_job(data, i18n.current())
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()  # its bytes are too many to digest by repr
    cost = max(0.01, len(data) / 1e6 / READ_MB_S)
    language = i18n.current()  # a worker knows no session: the notes and the refusal are worded in this one
    key = f"upload:{digest}:{language}"
    held = OPENED.get(key)
    if held is not None:
        return held
    ex, notes, refused = jobs.call(jobs.spec(read_job, data, language, cost=cost, keep=False, key=key))
    if ex is not None:
        OPENED.put(key, ex, notes)
    return ex, notes, refused


class Opened:
    """The examples uploaded files opened, by their key, for as long as a session holds them (module doc)."""

    def __init__(self) -> None:
        self._items: dict[str, tuple[weakref.ref, tuple[str, ...]]] = {}
        self._lock = threading.RLock()  # (a weakref callback may run inside put, on the same thread)

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str) -> tuple[Example, list[str], str] | None:
        with self._lock:
            ref, notes = self._items.get(key, (None, ()))
        ex = None if ref is None else ref()
        return None if ex is None else (ex, list(notes), "")

    def put(self, key: str, ex: Example, notes: list[str]) -> None:
        cache.freeze(ex)  # one example for many sessions: none may change its arrays in place
        with self._lock:
            self._items[key] = (weakref.ref(ex, lambda ref, key=key: self._drop(key, ref)), tuple(notes))

    def _drop(self, key: str, ref: weakref.ref) -> None:
        with self._lock:
            if self._items.get(key, (None,))[0] is ref:
                del self._items[key]


OPENED = Opened()


def read_job(data: bytes, language: str = i18n.SOURCE) -> tuple[Example | None, list[str], str]:
    """The job of ``read``: its notes and refusal in `language` (the visitor's)."""
    notes: list[str] = []
    with i18n.using(language):
        try:
            return from_json(data, notes), notes, ""
        except ShareError as exc:
            return None, [], refusal(exc)
