"""The heatmap builder: one for attention weights (fixed or fitted range, row sums) and signed matrices
(a diverging scale centred on 0), masks, cell values where they fit; its labels are fitted to the width by
``axes`` (whose names are re-exported here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from explorer.i18n import N_, _
from explorer.views import colour_range, describe
from explorer.views.axes import _axes
from explorer.views.axes import _fit_cols as _fit_cols
from explorer.views.axes import _fit_rows as _fit_rows
from explorer.views.axes import thinned as thinned
from explorer.views.cell_marks import (
    _group_marks,
    _masked_overlay,
    _row_sums,
    cell_lines,
    cell_text_font,
    mask_hatch,
    masked_value,
)
from explorer.views.colour_range import _range_note, subtitle, weight_range
from explorer.views.drawn import Drawn, figure_only
from explorer.views.style import (
    _GAP_MIN_CELLS,
    FULL_PX,
    PRESENT_SCALE,
    Style,
    _colorscale,
    _figure,
    _height,
    _layout,
    _pin_title,
    _title,
    _upper_half,
    esc,
    text_px,
)


@dataclass(frozen=True, eq=False)
class Cells:
    """What a heatmap's cells hold and how they are coloured (drawn_heatmap).

    masked (n_rows, n_cols) True = a grey cell marked "0" on a weights chart (the weight the softmax gives
    it), "-inf" on any other (the score the mask writes). digits: the decimals a cell prints.
    weights=True: a sequential scale on 0..1 (one rule for weights on every page), or, when the student asks
    (style.fit_weights), fitted to the finite values with the range written on the colour bar (or `zrange`,
    one range for charts side by side). Otherwise a diverging scale centred on 0 up to the largest |value|,
    or narrower when a few outliers would wash the other cells out (colour_range: those are circled and
    named in a subtitle), or `zrange` (e.g. one range shared by several charts); nonneg=True (values >= 0,
    e.g. a ReLU's output): the diverging scale's upper half over 0..max (or narrower, likewise), so the
    colour bar holds no negative values.
    row_sums=True: each row's sum printed at the right (weights rows sum to 1, fully masked rows to 0).
    groups: names of equal blocks of columns (n_cols must divide evenly), e.g. the heads of a concatenation:
    each block is named above its columns and blocks are divided by lines.
    """

    weights: bool = False
    masked: NDArray[np.bool_] | None = None
    row_sums: bool = False
    digits: int = 2
    zrange: tuple[float, float] | None = None
    nonneg: bool = False
    groups: Sequence[str] = ()


@dataclass(frozen=True)
class Axes:
    """A heatmap's axes (drawn_heatmap): their titles, the chart's size, and the labels always kept.

    width_px: about how wide the chart is drawn at 1280 px with the sidebar open (FULL_PX, or HALF_PX /
    THIRD_PX in columns); presentation mode scales it by PRESENT_SCALE. Every label is drawn while it fits
    (smaller, then rotated); past that labels are thinned to every k-th, but `keep_rows` / `keep_cols` (e.g.
    the selected query and the key it attends to most) always keep theirs. height_px: the chart's height
    (default: by its rows, at most 1100 px, or PRESENT_CHART_PX while presenting).
    """

    x_title: str = N_("key")  # marked: the builder says the axes' titles in the language on screen
    y_title: str = N_("query")
    width_px: int = FULL_PX
    height_px: int | None = None
    keep_rows: Sequence[int] = ()
    keep_cols: Sequence[int] = ()


def drawn_heatmap(
    z: NDArray[np.float64],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    title: str,
    style: Style,
    cells: Cells = Cells(),  # noqa: B008 - frozen: one shared default is safe
    axes: Axes = Axes(),  # noqa: B008 - frozen
) -> Drawn:
    """One matrix z (n_rows, n_cols) as a heatmap, rows and columns named by the labels, with what it shows in
    words and as tables (views.drawn), from z itself: its cells and colours as `cells` says (Cells), its axes
    and size as `axes` says (Axes). A cell prints its value only when the number fits in it."""
    weights, masked, row_sums, digits = cells.weights, cells.masked, cells.row_sums, cells.digits
    # attention's layout, rows are queries (the titles in English or already in the language on screen)
    queries = (axes.y_title, axes.x_title) in (("query", "key"), (_("query"), _("key")))
    axes = replace(
        axes, x_title=_(axes.x_title) if axes.x_title else "", y_title=_(axes.y_title) if axes.y_title else ""
    )
    x_title, y_title, width_px = axes.x_title, axes.y_title, axes.width_px
    z = np.asarray(z, dtype=np.float64)
    n_rows, n_cols = z.shape
    shown = z.copy()
    if masked is not None and masked.any():
        shown[masked] = np.nan
    finite = shown[np.isfinite(shown)]
    colorbar: dict[str, Any] = {"thickness": 14, "tickfont": {"size": style.font}}
    zmin, zmax, zmid, scale = _colour_scale(finite, cells, style, colorbar)
    out = _beyond(shown, (zmin, zmax), weights, colorbar, style)
    colours = _colorscale(scale) if scale else _upper_half(style.diverging)
    trace, where = _cells_trace(shown, row_labels, col_labels, axes, (zmin, zmax, zmid, colours), colorbar)
    size = _size(shown.shape, row_labels, col_labels, axes, cells, style, finite)
    margin, width = size.margin, size.width
    if size.cell_font:
        trace["texttemplate"] = f"%{{z:.{digits}f}}"
        trace["textfont"] = {"size": size.cell_font}
    data = [trace]
    extra: dict[str, Any] = {"xaxis": size.xaxis, "yaxis": size.yaxis, "margin": margin, "shapes": []}
    if masked is not None and masked.any():
        _grey_cells(data, extra, masked, weights, style, size.cell_font, where)
    if len(out):  # a cell printing its number is framed: a ring over its middle would hide the number
        data += colour_range.rings(
            out, shown, max(14.0, min(36.0, 0.9 * min(size.cell))), framed=bool(size.cell_font)
        )
        if size.cell_font:
            extra["shapes"] += colour_range.frames(out)
    _marks_between_cells(extra, cells.groups, (n_rows, n_cols), style, margin)
    margin["t"] += int(_title(title, style, width)[1])  # the title's other lines (a title too long for one)
    if row_sums:
        _with_row_sums(data, extra, z, style, colorbar, size.right)
    # Every label in full, for the HTML export's tables (built in its page): the ticks may be thinned.
    extra["meta"] = {"table": {"rows": list(map(str, row_labels)), "cols": list(map(str, col_labels)),
                               "row_title": y_title, "col_title": x_title, "digits": digits, "weights": weights,
                               "queries": queries}}  # fmt: skip
    layout = _pin_title(_layout(style, title, size.height, width_px, **extra))
    whole = ""
    if len(out):
        whole = _noted(
            layout, (shown, out, row_labels, col_labels), (zmin, zmax), style, width, size.cell_font
        )
    grey = masked if masked is not None and masked.any() else None
    panel = describe.Panel("", shown, grey, masked_value(weights) if grey is not None else "")
    labels = describe.Labels(
        [str(r) for r in row_labels], [str(c) for c in col_labels], y_title, x_title, queries=queries
    )
    return describe.drawn_matrix(_figure(data, layout), title, [panel], labels, digits, weights, whole)


@dataclass(frozen=True)
class _Size:
    """A heatmap's axes and margins for its labels, its height and drawn width (px), the margin right of the
    plot, a cell's (width, height) and the font of the values in the cells (0: none printed)."""

    xaxis: dict[str, Any]
    yaxis: dict[str, Any]
    margin: dict[str, int]
    cell: tuple[float, float]
    cell_font: int
    height: int
    width: float
    right: float


def _size(
    shape: tuple[int, int],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    axes: Axes,
    cells: Cells,
    style: Style,
    finite: NDArray[np.float64],
) -> _Size:
    """Where a heatmap of `shape` goes: right of the plot the row sums, or the colour bar and its tick labels;
    under it, with the row sums, the colour bar (and its range); every label while it fits (_axes)."""
    n_rows, n_cols = shape
    right = 20 + style.cell_font * 5 if cells.row_sums else 40 + text_px("-0.000", style.font)
    bottom = 40 + int(style.font * 2.6) if cells.row_sums else 10
    height = (axes.height_px or _height(n_rows, style)) + (bottom if cells.row_sums else 0)
    width = axes.width_px * (PRESENT_SCALE if style.present else 1.0)
    xaxis, yaxis, margin = _axes(row_labels, col_labels, style, axes.x_title, axes.y_title, (width, height), right,
                                 bottom, axes.keep_rows, axes.keep_cols)  # fmt: skip
    cell = (
        (width - margin["l"] - right) / max(n_cols, 1),
        (height - margin["t"] - margin["b"]) / max(n_rows, 1),
    )
    grey = masked_value(cells.weights) if cells.masked is not None else ""
    font = cell_text_font(finite, cells.digits, cell, style, grey)
    return _Size(xaxis, yaxis, margin, cell, font, height, width, right)


def _beyond(
    shown: NDArray[np.float64],
    zrange: tuple[float, float],
    weights: bool,
    colorbar: dict[str, Any],
    style: Style,
) -> NDArray[np.intp]:
    """The cells beyond the colour range (a signed matrix's outliers, or past a range shared with other
    charts), (k, 2) rows and columns: drawn in the end colours, and the ends of the colour bar say so (the
    farthest are circled and named). Weights are never beyond their range."""
    if weights:
        return np.empty((0, 2), dtype=np.intp)
    zmin, zmax = zrange
    out = colour_range.beyond(shown, zmin, zmax)
    if len(out):
        past = shown[out[:, 0], out[:, 1]]
        colorbar.update(colour_range.end_ticks(zmin, zmax, bool((past < zmin).any()), bool((past > zmax).any()),
                                               style.font))  # fmt: skip
    return out


def _grey_cells(
    data: list[dict[str, Any]], extra: dict[str, Any], masked: NDArray[np.bool_], weights: bool, style: Style,
    cell_font: int, where: str,
) -> None:  # fmt: skip
    """The masked cells in grey over the heatmap (data[0]), with its hover; a stroke across each where the cells
    are too small for their value (never told apart by colour alone)."""
    grey = _masked_overlay(masked, weights, style, cell_font, where)
    if "customdata" in data[0]:
        grey["customdata"] = data[0]["customdata"]
    data.append(grey)
    if not cell_font:
        extra["shapes"].append(mask_hatch(masked))


def _noted(
    layout: dict[str, Any], beyond: tuple[Any, Any, Any, Any], zrange: tuple[float, float], style: Style,
    width: float, framed: int,
) -> str:  # fmt: skip
    """The whole note on the values beyond the colour range, its first line the title's subtitle; cells that
    print their number are framed, not circled (colour_range.frames)."""
    shown, out, row_labels, col_labels = beyond
    whole = colour_range.note(shown, out, row_labels, col_labels, *zrange)
    if framed:
        whole = whole.replace("circled", "framed")
    subtitle(layout, beyond, whole, style, width)
    if framed:
        layout["title"]["subtitle"]["text"] = layout["title"]["subtitle"]["text"].replace("circled", "framed")
    return whole


def _colour_scale(
    finite: NDArray[np.float64], cells: Cells, style: Style, colorbar: dict[str, Any]
) -> tuple[float, float, float | None, str]:
    """(zmin, zmax, zmid or None, colour scale name; "" for the diverging scale's upper half) of a heatmap of
    these finite values (drawn_heatmap's rules); a weights range fitted to the values is written on the bar."""
    if cells.weights:
        zmin, zmax = cells.zrange if cells.zrange is not None else weight_range(finite, style)
        colorbar.update(_range_note(zmin, zmax, style))
        return zmin, zmax, None, style.sequential
    if cells.zrange is not None:
        return cells.zrange[0], cells.zrange[1], None, style.diverging
    if cells.nonneg:
        top = colour_range.bulk_bound(finite) if finite.size and finite.max() > 0 else 1.0
        return 0.0, top, None, ""
    bound = colour_range.bulk_bound(finite)
    return -bound, bound, 0.0, style.diverging


def _cells_trace(
    shown: NDArray[np.float64],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    axes: Axes,
    scale: tuple[float, float, float | None, Any],
    colorbar: dict[str, Any],
) -> tuple[dict[str, Any], str]:
    """The heatmap trace of `shown` (masked cells NaN) on the colour scale (zmin, zmax, zmid, colours), and its
    hover's opening (which cell). Up to 1024 cells, each carries its (row label, column label)."""
    n_rows, n_cols = shown.shape
    small = n_rows * n_cols <= 1024
    if small:
        where = f"{axes.y_title} %{{customdata[0]}}<br>{axes.x_title} %{{customdata[1]}}"
    else:
        where = f"{axes.y_title} %{{y}}<br>{axes.x_title} %{{x}}"
    zmin, zmax, zmid, colours = scale
    value = _("value")
    # Positions as numpy arrays: sent as compact typed arrays, and copied whole (Plotly deep-copies lists
    # element by element, twice per chart).
    trace: dict[str, Any] = {
        "type": "heatmap", "z": shown, "x": np.arange(n_cols), "y": np.arange(n_rows), "zmin": zmin, "zmax": zmax,
        "colorscale": colours,
        "hovertemplate": f"{where}<br>{value} %{{z:.10g}}<extra></extra>", "colorbar": colorbar,
    }  # fmt: skip
    if zmid is not None:
        trace["zmid"] = zmid
    if small:
        # (row label, column label) of every cell, as a numpy string array: copied whole, not cell by cell.
        rows_esc, cols_esc = [esc(s) for s in row_labels], [esc(s) for s in col_labels]
        width = max(1, *map(len, rows_esc), *map(len, cols_esc))
        pairs = np.empty((len(rows_esc), len(cols_esc), 2), dtype=f"<U{width}")
        pairs[:, :, 0] = np.array(rows_esc)[:, None]
        pairs[:, :, 1] = np.array(cols_esc)[None, :]
        trace["customdata"] = pairs
    return trace, where


def _marks_between_cells(
    extra: dict[str, Any], groups: Sequence[str], shape: tuple[int, int], style: Style, margin: dict[str, int]
) -> None:
    """Lines between the cells (up to _GAP_MIN_CELLS a side) and the groups' names and dividers, into the
    layout's `extra` keys."""
    n_rows, n_cols = shape
    if max(n_rows, n_cols) <= _GAP_MIN_CELLS:
        extra["shapes"].insert(0, cell_lines(n_rows, n_cols, 1))
    if groups:
        marks = _group_marks(groups, n_cols, style, margin)  # measured below the title's first line
        extra.update(marks, shapes=extra.get("shapes", []) + marks["shapes"])


def _with_row_sums(
    data: list[dict[str, Any]], extra: dict[str, Any], z: NDArray[np.float64], style: Style,
    colorbar: dict[str, Any], right: float,
) -> None:  # fmt: skip
    """Each row's sum printed right of the plot (on axes of their own), the colour bar moved under it."""
    n_rows = z.shape[0]
    sums = np.nansum(np.where(np.isfinite(z), z, 0.0), axis=1)
    data.append(_row_sums(sums, min(style.cell_font, extra["yaxis"]["tickfont"]["size"])))
    extra["xaxis2"] = {"overlaying": "x", "range": [0, 1], "visible": False, "fixedrange": True}
    extra["yaxis2"] = {"overlaying": "y", "range": [n_rows - 0.5, -0.5], "visible": False, "fixedrange": True}
    # The sums take the right-hand side, so the colour bar lies under the chart instead.
    colorbar.update(
        {"orientation": "h", "x": 0.5, "xanchor": "center", "y": -0.02, "yanchor": "top", "len": 0.8}
    )
    if "title" in colorbar:
        colorbar["title"]["side"] = "bottom"
    extra["margin"]["r"] = int(right)


def drawn_mask_matrix(
    blocked: NDArray[np.bool_] | None,
    labels: Sequence[str],
    *,
    mask_title: str,
    style: Style,
    width_px: int = FULL_PX,
    keep_rows: Sequence[int] = (),
    keep_cols: Sequence[int] = (),
    height_px: int | None = None,
) -> Drawn:
    """The mask M itself (n, n), added to the scores: 0 (white) where a query may attend, -inf (grey) where it
    may not; blocked (n, n) True = may not, None = no mask (no grey cell, and the title says so). height_px:
    as heatmap's."""
    n = len(labels)
    masked = None if blocked is None or not np.asarray(blocked).any() else np.asarray(blocked, dtype=bool)
    title = (
        _("Mask M ({mask}): grey −∞ = may not attend", mask=mask_title)
        if masked is not None
        else _("Mask M ({mask}): all 0, nothing masked", mask=mask_title)
    )
    drawn = drawn_heatmap(
        np.zeros((n, n)),
        labels,
        labels,
        title=title,
        style=style,
        cells=Cells(masked=masked, zrange=(-1.0, 1.0), digits=0),
        axes=Axes(width_px=width_px, keep_rows=keep_rows, keep_cols=keep_cols, height_px=height_px),
    )
    drawn.figure.update_traces(showscale=False, selector=0)  # one value, 0: no colour bar to read
    return drawn


heatmap = figure_only(drawn_heatmap)  # the figure alone


mask_matrix = figure_only(drawn_mask_matrix)  # the figure alone
