"""Matrices with one row per token drawn in rows of charts (the embeddings, positions, their sum, a layer's
input and output): one colour range a row where their sizes allow it, the token labels once a row, and a row
drawn before by any session sent again without being built (a class's followers draw the teacher's rows)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from explorer import cache, i18n
from explorer.ui import chart as explorer_chart
from explorer.ui import state
from explorer.ui.widgets import DRAWN_BYTES, HALF, THIRD, beyond_line, charts_in_row, style
from explorer.views import colour_range, describe, figures
from explorer.views.drawn import Drawn
from explorer.views.text import literal


def token_matrices(
    items: list[tuple[str, np.ndarray, list[str], str]],
    rows: list[str],
    zrange: tuple[float, float] | None = None,
    per_row: int = 3,
    height_px: int | None = None,
    compare: bool = False,
) -> None:
    """Matrices with one row per token, `per_row` side by side: (title, values (n, d), column labels, chart
    key); zrange: one colour range for all of them (None: each its own), its colour bar drawn once a row, on
    the last chart; height_px: each chart's height.
    compare: a row of charts of one space (the same column labels) shares one colour range when their sizes
    allow it (colour_range.row_range), else a caption says each has its own."""
    sty = style()
    width = {2: HALF, 3: THIRD}.get(per_row, int(figures.FULL_PX / per_row - 16))
    for start in range(0, len(items), per_row):
        row = items[start : start + per_row]
        shared = zrange
        if compare and zrange is None and len(row) > 1 and all(cols == row[0][2] for _, _, cols, _ in row):
            shared = colour_range.row_range([z for _, z, _, _ in row])
            if shared is None:
                sizes = ", ".join(
                    f"{t}: ±{colour_range.amount(colour_range.bulk_bound(z))}" for t, z, _, _ in row
                )
                st.caption(  # one line: the ranges, as the colour bars say them, behind the (?)
                    i18n._(
                        "The {n} charts below each have their own colour range: their numbers differ too much "
                        "in size to share one.",
                        n=len(row),
                    ),
                    help=i18n._("Their ranges: {ranges}.", ranges=literal(sizes)),
                )
        args = (row, rows, shared, width, height_px, per_row, sty)
        try:  # the same row drawn before, by any session (a class's followers): its charts, not built again
            made = None if state.tables() else cache.digest_of((args, i18n.current()))
        except TypeError:
            made = None
        if made is None:
            figs, widths = _matrix_row(*args)
            charts_in_row(
                [(fig, key) for fig, (_, _, _, key) in zip(figs, row, strict=True)], per_row, widths
            )
            continue
        widths, drawn = _encoded_row(made, _args=args)
        beyond_line([(title, beyond) for _, _, title, beyond in drawn])
        for col, (payload, height, _, _), (_, _, _, key) in zip(
            st.columns(list(widths) if widths else per_row), drawn, row, strict=False
        ):
            with col:
                explorer_chart.draw_encoded(payload, height, key)


def _matrix_row(
    row: list[tuple[str, np.ndarray, list[str], str]],
    rows: list[str],
    shared: tuple[float, float] | None,
    width: int,
    height_px: int | None,
    per_row: int,
    sty: figures.Style,
) -> tuple[list[Drawn], list[float] | None]:
    """A row of token_matrices: its charts (one colour bar when they share a range, the token labels once)
    and their columns' widths."""
    figs = [
        figures.drawn_heatmap(
            z,
            rows,
            cols,
            title=title,
            style=sty,
            cells=figures.Cells(
                zrange=shared,
                nonneg=shared is None and bool(z.size) and bool(np.all(z[np.isfinite(z)] >= 0)),
            ),
            axes=figures.Axes(
                x_title=i18n.N_("dimension"), y_title=i18n.N_("token"), width_px=width, height_px=height_px
            ),
        )
        for title, z, cols, _ in row
    ]
    if shared is not None:  # one range, one colour bar (the last): the others get its width for cells
        for fig in figs[:-1]:
            fig.figure.update_traces(showscale=False, selector=0)
    widths = _one_label_column([fig.figure for fig in figs], per_row, shared is not None, sty)
    return figs, widths


@cache.shared(max_bytes=DRAWN_BYTES)
def _encoded_row(digest: str, _args: tuple) -> tuple[list[float] | None, list[tuple[bytes, int, str, str]]]:
    figs, widths = _matrix_row(*_args)
    figures.level([fig.figure for fig in figs])  # as charts_in_row draws them
    keys = [key for _, _, _, key in _args[0]]
    encoded = [explorer_chart.encode(fig, key) for fig, key in zip(figs, keys, strict=True)]
    return widths, [
        (p, h, describe.title_of(f), describe.beyond_of(f)) for (p, h), f in zip(encoded, figs, strict=True)
    ]


def _one_label_column(
    figs: list[go.Figure], per_row: int, one_bar: bool, sty: figures.Style
) -> list[float] | None:
    """A full row of charts of the same tokens: the token labels once, left of the first chart (its plot level
    with the others'), and the columns' widths that give every plot the same width; the labels repeated
    would make each plot a sliver at 1280 px (three charts a row, each half labels). Changes `figs`."""
    if len(figs) < 2 or len(figs) != per_row:
        return None
    label = figs[0].layout.margin.l or 0
    for fig in figs[1:]:
        fig.update_yaxes(showticklabels=False, title=None)
        fig.update_layout(margin_l=10)
    bar = 52 * (figures.PRESENT_SCALE if sty.present else 1.0)  # a colour bar and its numbers
    plot = (
        figures.FULL_PX * (figures.PRESENT_SCALE if sty.present else 1.0)
        - label
        - bar * (1 if one_bar else per_row)
    ) / per_row
    widths = [10 + plot + (0 if one_bar else bar) for _ in figs]
    widths[0] += label - 10
    widths[-1] += bar if one_bar else 0
    return widths
