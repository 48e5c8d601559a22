"""After class: the class's answers, question by question, as CSV (no names: how many chose each choice)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from explorer.classroom.store import Question

COLUMNS = ("question", "asked", "choice", "answers", "right")


def to_csv(asked: Sequence[tuple[Question, tuple[int, ...]]]) -> str:
    """One row per choice of each question, in the order asked: the question's number and text, the choice,
    how many chose it, and whether it is the right one ("yes"/"no"; "" for a question never revealed)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for n, (q, counts) in enumerate(asked, start=1):
        for i, (choice, count) in enumerate(zip(q.options, counts, strict=True)):
            right = "" if q.truth is None else ("yes" if i == q.truth else "no")
            w.writerow((n, _cell(q.prompt), _cell(choice), count, right))
    return out.getvalue()


def _cell(text: str) -> str:
    """A cell a spreadsheet shows as text: one that starts like a formula gets a leading apostrophe."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
