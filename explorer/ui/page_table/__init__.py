"""The page table: one row per page, read by the navigation (app.py), the pipeline map, the step-through
(explorer.ui.present) and the tests. Adding a page is one row in its group's module plus its script.
Pure: no Streamlit.

row.py         a row (Page, its Steps) and the navigation sections
explainer.py   the toy layer's pages, step by step
learning.py    the model trained in the engine
real_model.py  a whole real model's pages
"""

from __future__ import annotations

from explorer.ui.page_table import explainer, learning, real_model
from explorer.ui.page_table.row import LEARNING, REAL_MODEL, Page, Step, page

__all__ = [
    "LEARNING",
    "PAGES",
    "REAL_MODEL",
    "Page",
    "Step",
    "by_path",
    "listed",
    "page",
    "sections",
    "steps",
]

# Read through this module's name (a test adds a row by assigning it), in the menu's order.
PAGES: tuple[Page, ...] = (*explainer.PAGES, *learning.PAGES, *real_model.PAGES)


def sections() -> dict[str, list[Page]]:
    """The listed pages by navigation section, sections in the order of their first page."""
    out: dict[str, list[Page]] = {}
    for p in PAGES:
        if p.listed:
            out.setdefault(p.section, []).append(p)
    return out


def listed() -> tuple[Page, ...]:
    """The pages a visitor can reach, in the menu's order (section by section)."""
    return tuple(p for group in sections().values() for p in group)


def steps() -> tuple[Step, ...]:
    """Every step of the step-through, in order (the listed pages' steps, page by page)."""
    return tuple(s for p in listed() for s in p.steps)


def by_path(url_path: str) -> Page | None:
    """The listed page at this url_path, or None."""
    return next((p for p in listed() if p.url_path == url_path), None)
