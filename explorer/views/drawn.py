"""A chart as its builder hands it over: the figure and what it shows, in words and as tables, made from the
numbers the builder was given (never read back from the figure). Every builder a page or an export shows
hands one over; the chart element (explorer/ui/chart), the pages' text alternatives and the HTML export take
nothing else. A figure-only form of a builder (figure_only) serves callers that never show its words. Pure."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ParamSpec

P = ParamSpec("P")


@dataclass(frozen=True)
class Table:
    """One table of a chart's numbers: `corner` heads the column of row headers."""

    caption: str
    corner: str
    cols: list[str]
    rows: list[tuple[str, list[str]]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"caption": self.caption, "corner": self.corner, "cols": self.cols, "rows": self.rows}


@dataclass(frozen=True, eq=False)
class Drawn:
    """figure: the Plotly figure; title: its title as plain text; beyond: the whole note on the values beyond
    its colour range ("" when none are); summary: one or two sentences on what it shows; tables: its numbers
    as tables, made when first asked for (a heatmap's table formats every cell, and most charts are drawn
    without their tables)."""

    figure: Any
    title: str
    beyond: str
    summary: str
    make_tables: Callable[[], list[Table]] = field(repr=False, default=list)

    @functools.cached_property
    def tables(self) -> list[Table]:
        return self.make_tables()


def figure_only(build: Callable[P, Drawn]) -> Callable[P, Any]:
    """The figure-only form of a drawn_* builder (its Drawn's figure), for callers that change or inspect the
    figure and never show its words: `heatmap = figure_only(drawn_heatmap)`."""

    @functools.wraps(build)
    def figure(*args: P.args, **kwargs: P.kwargs) -> Any:
        return build(*args, **kwargs).figure

    return figure
