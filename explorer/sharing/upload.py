"""An uploaded example file read and checked as a job (explorer.compute.jobs): the web process hands over the
bytes and gets the example back (or the reason it was refused); the parsing of a real layer's file (tens of
MB of JSON numbers, seconds of CPU) runs in a worker. Nothing here draws.
"""

from __future__ import annotations

import hashlib

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
        return read_job(data)
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()  # its bytes are too many to digest by repr
    cost = max(0.01, len(data) / 1e6 / READ_MB_S)
    return jobs.call(jobs.spec(read_job, data, cost=cost, keep=False, key=f"upload:{digest}"))


def read_job(data: bytes) -> tuple[Example | None, list[str], str]:
    """The job of ``read``."""
    notes: list[str] = []
    try:
        return from_json(data, notes), notes, ""
    except ShareError as exc:
        return None, [], refusal(exc)
