"""An uploaded example file read and checked as a job (explorer.compute.jobs): the web process hands over the
bytes and gets the example back (or the reason it was refused); the parsing of a real layer's file (tens of
MB of JSON numbers, seconds of CPU) runs in a worker. Nothing here draws.

A class opens the teacher's file: while some session of the process still holds the matrices of the example
a file opened, the same file (its bytes' digest, in the same language) opens that example again, read-only,
without a job (OPENED): one read of 43 MB for the class, not one per student.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import weakref

import numpy as np

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
    """The examples uploaded files opened, by their key, while a session still holds their matrices (module
    doc). A session keeps an example's matrices, not the example (explorer.ui.state), so an example is kept
    as its other fields and weak references to its arrays, and made again from them."""

    def __init__(self) -> None:
        # key -> (the fields that are not arrays, weak references to the arrays, the notes)
        self._items: dict[str, tuple[dict[str, object], dict[str, weakref.ref], tuple[str, ...]]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[Example, list[str], str] | None:
        with self._lock:
            item = self._items.get(key)
        if item is None:
            return None
        plain, refs, notes = item
        arrays = {name: ref() for name, ref in refs.items()}
        if any(a is None for a in arrays.values()):  # no session holds them any more (or one was edited)
            return None
        return Example(**plain, **arrays), list(notes), ""  # type: ignore[arg-type]

    def put(self, key: str, ex: Example, notes: list[str]) -> None:
        cache.freeze(ex)  # one example for many sessions: none may change its arrays in place
        values = {f.name: getattr(ex, f.name) for f in dataclasses.fields(ex)}
        refs = {name: weakref.ref(v) for name, v in values.items() if isinstance(v, np.ndarray)}
        plain = {name: v for name, v in values.items() if name not in refs}
        with self._lock:
            gone = [k for k, (_, r, _) in self._items.items() if any(x() is None for x in r.values())]
            for k in gone:  # (a few settings each: let go of as files are opened)
                del self._items[k]
            self._items[key] = (plain, refs, tuple(notes))


OPENED = Opened()


def read_job(data: bytes, language: str = i18n.SOURCE) -> tuple[Example | None, list[str], str]:
    """The job of ``read``: its notes and refusal in `language` (the visitor's)."""
    notes: list[str] = []
    with i18n.using(language):
        try:
            return from_json(data, notes), notes, ""
        except ShareError as exc:
            return None, [], refusal(exc)
