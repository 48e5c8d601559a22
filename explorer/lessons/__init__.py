"""The lessons: each seed notebook (and two examples of our own) as a preset, with what it teaches.

One module per lesson holds its sentence, the numbers its notebook printed (`Printed`, with the cell they
come from), `build()` (the Example that reproduces it, every matrix set), `checks(res)` (each printed number
beside the app's), `extras(ex, res, run)` (what the notebook could not show), its `TITLE` (what it teaches),
`NOTE`, `SOURCE` (where it comes from: the seed notebook and its cells), and where it has one its hand-written per-token loop (`LOOPS`). The comparison machinery is in `compare`; the
registry below is what the rest of the app reads (PRESETS by URL name: ?preset=<name>). Pure: no Streamlit.

`routes` holds the other kind of lesson: a story told across the pages, step by step (?lesson=<name>&step=k),
drawn by explorer.ui.lesson_ui.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from explorer.compute import pipeline
from explorer.compute.pipeline import Result
from explorer.lessons import causal_vs_bidirectional, pronoun, seed000, seed001, seed002, seed003, seed004
from explorer.lessons.compare import Check, Printed, Row, Run, Table, fmt, rows
from explorer.model.example import Example

__all__ = ["PRESETS", "Check", "Lesson", "Printed", "Row", "Table", "checks", "extras", "fmt", "rows"]


@dataclass(frozen=True)
class Lesson:
    """A preset: its URL name, title (in the picker: what it teaches), note (Markdown), source (Markdown: the
    seed notebook and its cells, or "our own"), and the example it builds; a notebook's lesson also checks its printed numbers (`checks`) and may tie a page to them (`loops`: query -> the
    notebook's own result for that token)."""

    name: str
    title: str
    note: str
    source: str
    build: Callable[[], Example]
    extras: Callable[[Example, Result, Run], list[Table]]
    checks: Callable[[Result], list[Check]] | None = None
    loops: Mapping[int, Printed] = field(default_factory=dict)

    @property
    def notebook(self) -> bool:
        return self.checks is not None


def _lesson(module: ModuleType) -> Lesson:
    return Lesson(
        module.NAME,
        module.TITLE,
        module.NOTE,
        module.SOURCE,
        module.build,
        module.extras,
        getattr(module, "checks", None),
        getattr(module, "LOOPS", {}),
    )


LESSONS = (seed000, seed001, seed002, seed003, seed004, pronoun, causal_vs_bidirectional)
PRESETS: dict[str, Lesson] = {m.NAME: _lesson(m) for m in LESSONS}


def checks(name: str, res: Result) -> list[Check]:
    """The notebook's printed numbers beside the app's (empty for presets of our own)."""
    lesson = PRESETS.get(name)
    if lesson is None or lesson.checks is None or res.error:
        return []
    return lesson.checks(res)


def extras(name: str, ex: Example, res: Result, run: Run = pipeline.run) -> list[Table]:
    """What the preset shows beyond its notebook's prints (empty when the example cannot run).

    run: how a lesson runs another example (the app passes compute.run, so that it is cached).
    """
    lesson = PRESETS.get(name)
    if lesson is None or res.error or res.attention is None:
        return []
    try:
        return lesson.extras(ex, res, run)
    except (ValueError, IndexError):  # the person has reshaped the example past what the table needs
        return []


def token_loop_check(preset: str, query: int, head: int, res: Result) -> Check | None:
    """The notebook's hand-written loop result for this query beside the app's row (A V)_i, if it has one."""
    lesson = PRESETS.get(preset)
    printed = None if lesson is None else lesson.loops.get(query)
    if printed is None or head != 0 or res.attention is None:
        return None
    return Check(printed, np.asarray(res.attention.head_outputs[0, query]), f"(A V)_{query}, head 1")


def variance_check(preset: str, res: Result) -> Check | None:
    """Seed 003's measured variances beside the app's, on the why-sqrt(d_k) page."""
    if preset != seed003.NAME or res.error:
        return None
    return seed003.variance_check(res)
