"""The heatmap builder: one for attention weights (fixed or fitted range, row sums) and signed matrices
(a diverging scale centred on 0), masks, cell values where they fit; its labels are fitted to the width by
``axes`` (whose names are re-exported here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from explorer.views import colour_range, describe
from explorer.views.axes import _axes
from explorer.views.axes import _fit_cols as _fit_cols
from explorer.views.axes import _fit_rows as _fit_rows
from explorer.views.axes import thinned as thinned
from explorer.views.colour_range import _range_note, subtitle, weight_range
from explorer.views.drawn import Drawn
from explorer.views.style import (
    _GAP_MIN_CELLS,
    FULL_PX,
    MASKED_GREY,
    PRESENT_SCALE,
    Style,
    _colorscale,
    _figure,
    _height,
    _layout,
    _min_font,
    _pin_title,
    _title,
    _upper_half,
    esc,
    text_px,
)


@dataclass(frozen=True, eq=False)
class Cells:
    """What a heatmap's cells hold and how they are coloured (see heatmap).

    weights: attention weights (a sequential scale, fitted or 0..1); masked (n_rows, n_cols) True = a grey
    cell; row_sums: each row's sum at the right; digits: the decimals a cell prints; zrange: one range for
    charts side by side; nonneg: values >= 0 on the upper half of the diverging scale; groups: names of
    equal blocks of columns.
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
    """A heatmap's axes (see heatmap): their titles, the chart's size, and the labels always kept when
    labels are thinned (keep_rows, keep_cols)."""

    x_title: str = "key"
    y_title: str = "query"
    width_px: int = FULL_PX
    height_px: int | None = None
    keep_rows: Sequence[int] = ()
    keep_cols: Sequence[int] = ()


def heatmap(
    z: NDArray[np.float64],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    title: str,
    style: Style,
    cells: Cells = Cells(),  # noqa: B008 - frozen: one shared default is safe
    axes: Axes = Axes(),  # noqa: B008 - frozen
) -> go.Figure:
    """The figure of drawn_heatmap (which see)."""
    return drawn_heatmap(z, row_labels, col_labels, title=title, style=style, cells=cells, axes=axes).figure


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
    """One matrix as a heatmap, with what it shows in words and as tables (views.drawn), from z itself. z (n_rows, n_cols); masked (n_rows, n_cols) True = a grey cell marked "0" on a
    weights chart (the weight the softmax gives it), "-inf" on any other (the score the mask writes).

    weights=True: a sequential scale on 0..1 (one rule for weights on every page), or, when the student asks
    (style.fit_weights), fitted to the finite values with the range written on the colour bar (or `zrange`,
    one range for charts side by side). Otherwise a diverging
    scale centred on 0 up to the largest |value|, or narrower when a few outliers would wash the other cells
    out (colour_range: those are circled and named in a subtitle), or `zrange` (e.g. one range shared by
    several charts); nonneg=True (values >= 0, e.g. a ReLU's output): the diverging scale's upper half over
    0..max (or narrower, likewise), so the colour bar holds no negative values.
    row_sums=True: each row's sum printed at the right (weights rows sum to 1, fully masked rows to 0).
    groups: names of equal blocks of columns (n_cols must divide evenly), e.g. the heads of a concatenation:
    each block is named above its columns and blocks are divided by lines.
    width_px: about how wide the chart is drawn at 1280 px with the sidebar open (FULL_PX, or HALF_PX /
    THIRD_PX in columns); presentation mode scales it by PRESENT_SCALE. Every label is drawn while it fits
    (smaller, then rotated); past that labels are thinned to every k-th, but `keep_rows` / `keep_cols` (e.g.
    the selected query and the key it attends to most) always keep theirs. A cell prints its value only
    when the number fits in it. height_px: the chart's height (default: by its rows, at most 1100 px, or
    PRESENT_CHART_PX while presenting).
    """
    weights, masked, row_sums, digits = cells.weights, cells.masked, cells.row_sums, cells.digits
    zrange, nonneg, groups = cells.zrange, cells.nonneg, cells.groups
    x_title, y_title, width_px, height_px = axes.x_title, axes.y_title, axes.width_px, axes.height_px
    keep_rows, keep_cols = axes.keep_rows, axes.keep_cols
    z = np.asarray(z, dtype=np.float64)
    n_rows, n_cols = z.shape
    shown = z.copy()
    if masked is not None and masked.any():
        shown[masked] = np.nan
    finite = shown[np.isfinite(shown)]
    colorbar: dict[str, Any] = {"thickness": 14, "tickfont": {"size": style.font}}
    if weights:
        zmin, zmax = zrange if zrange is not None else weight_range(finite, style)
        zmid, scale = None, style.sequential
        colorbar.update(_range_note(zmin, zmax, style))
    elif zrange is not None:
        zmin, zmax, zmid, scale = zrange[0], zrange[1], None, style.diverging
    elif nonneg:
        top = colour_range.bulk_bound(finite) if finite.size and finite.max() > 0 else 1.0
        zmin, zmax, zmid, scale = 0.0, top, None, ""
    else:
        bound = colour_range.bulk_bound(finite)
        zmin, zmax, zmid, scale = -bound, bound, 0.0, style.diverging
    # Cells beyond the range (a signed matrix's outliers, or past a range shared with other charts): drawn
    # in the end colours, the ends of the colour bar say so, the farthest are circled and named.
    out = colour_range.beyond(shown, zmin, zmax) if not weights else np.empty((0, 2), dtype=np.intp)
    if len(out):
        past = shown[out[:, 0], out[:, 1]]
        colorbar.update(
            colour_range.end_ticks(
                zmin, zmax, bool((past < zmin).any()), bool((past > zmax).any()), style.font
            )
        )
    small = n_rows * n_cols <= 1024
    gap = 1 if max(n_rows, n_cols) <= _GAP_MIN_CELLS else 0
    # Positions as numpy arrays: sent as compact typed arrays, and copied whole (Plotly deep-copies lists
    # element by element, twice per chart).
    xs, ys = np.arange(n_cols), np.arange(n_rows)
    if small:
        where = f"{y_title} %{{customdata[0]}}<br>{x_title} %{{customdata[1]}}"
    else:
        where = f"{y_title} %{{y}}<br>{x_title} %{{x}}"
    trace: dict[str, Any] = {
        "type": "heatmap",
        "z": shown,
        "x": xs,
        "y": ys,
        "zmin": zmin,
        "zmax": zmax,
        "colorscale": _colorscale(scale) if scale else _upper_half(style.diverging),
        "hovertemplate": f"{where}<br>value %{{z:.10g}}<extra></extra>",
        "colorbar": colorbar,
    }
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
    # Right of the plot: the row sums, or the colour bar and its tick labels; under it, with the row sums,
    # the colour bar (and its range).
    right = 20 + style.cell_font * 5 if row_sums else 40 + text_px("-0.000", style.font)
    bottom = 40 + int(style.font * 2.6) if row_sums else 10
    height = (height_px or _height(n_rows, style)) + (bottom if row_sums else 0)
    width = width_px * (PRESENT_SCALE if style.present else 1.0)
    more = _title(title, style, width)[1]  # a title too long for one line takes more
    xaxis, yaxis, margin = _axes(
        row_labels, col_labels, style, x_title, y_title, (width, height), right, bottom, keep_rows, keep_cols
    )
    cell = (
        (width - margin["l"] - right) / max(n_cols, 1),
        (height - margin["t"] - margin["b"]) / max(n_rows, 1),
    )
    cell_font = cell_text_font(
        finite, digits, cell, style, masked_value(weights) if masked is not None else ""
    )
    if cell_font:
        trace["texttemplate"] = f"%{{z:.{digits}f}}"
        trace["textfont"] = {"size": cell_font}
    data = [trace]
    extra: dict[str, Any] = {"xaxis": xaxis, "yaxis": yaxis, "margin": margin, "shapes": []}
    if masked is not None and masked.any():
        grey = _masked_overlay(masked, weights, style, cell_font, where)
        if small:
            grey["customdata"] = trace["customdata"]
        data.append(grey)
        if not cell_font:
            extra["shapes"].append(mask_hatch(masked))
    if len(out):  # a cell printing its number is framed: a ring over its middle would hide the number
        data += colour_range.rings(out, shown, max(14.0, min(36.0, 0.9 * min(cell))), framed=bool(cell_font))
        if cell_font:
            extra["shapes"] += colour_range.frames(out)
    if gap:
        extra["shapes"].insert(0, cell_lines(n_rows, n_cols, gap))
    if groups:
        marks = _group_marks(groups, n_cols, style, margin)  # measured below the title's first line
        extra.update(marks, shapes=extra.get("shapes", []) + marks["shapes"])
    margin["t"] += int(more)  # the title's other lines
    if row_sums:
        sums = np.nansum(np.where(np.isfinite(z), z, 0.0), axis=1)
        font = min(style.cell_font, yaxis["tickfont"]["size"])
        data.append(_row_sums(sums, font))
        extra["xaxis2"] = {"overlaying": "x", "range": [0, 1], "visible": False, "fixedrange": True}
        extra["yaxis2"] = {
            "overlaying": "y",
            "range": [n_rows - 0.5, -0.5],
            "visible": False,
            "fixedrange": True,
        }
        # The sums take the right-hand side, so the colour bar lies under the chart instead.
        colorbar.update(
            {"orientation": "h", "x": 0.5, "xanchor": "center", "y": -0.02, "yanchor": "top", "len": 0.8}
        )
        if "title" in colorbar:
            colorbar["title"]["side"] = "bottom"
        margin["r"] = int(right)
    # Every label in full, for the chart's text and its table (views.describe): the ticks may be thinned.
    extra["meta"] = {"table": {"rows": list(map(str, row_labels)), "cols": list(map(str, col_labels)),
                               "row_title": y_title, "col_title": x_title, "digits": digits, "weights": weights}}  # fmt: skip
    layout = _pin_title(_layout(style, title, height, width_px, **extra))
    whole = ""
    if len(out):
        whole = colour_range.note(shown, out, row_labels, col_labels, zmin, zmax)
        if cell_font:  # (framed, not circled: colour_range.frames)
            whole = whole.replace("circled", "framed")
        subtitle(layout, (shown, out, row_labels, col_labels), whole, style, width)
        if cell_font:
            layout["title"]["subtitle"]["text"] = layout["title"]["subtitle"]["text"].replace(
                "circled", "framed"
            )
    grey = masked if masked is not None and masked.any() else None
    panel = describe.Panel("", shown, grey, masked_value(weights) if grey is not None else "")
    labels = describe.Labels([str(r) for r in row_labels], [str(c) for c in col_labels], y_title, x_title)
    return describe.drawn_matrix(_figure(data, layout), title, [panel], labels, digits, weights, whole)


def mask_matrix(
    blocked: NDArray[np.bool_] | None,
    labels: Sequence[str],
    *,
    mask_title: str,
    style: Style,
    width_px: int = FULL_PX,
    keep_rows: Sequence[int] = (),
    keep_cols: Sequence[int] = (),
    height_px: int | None = None,
) -> go.Figure:
    """The figure of drawn_mask_matrix (which see)."""
    return drawn_mask_matrix(blocked, labels, mask_title=mask_title, style=style, width_px=width_px,
                             keep_rows=keep_rows, keep_cols=keep_cols, height_px=height_px).figure  # fmt: skip


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
        f"Mask M ({mask_title}): grey −∞ = may not attend"
        if masked is not None
        else f"Mask M ({mask_title}): all 0, nothing masked"
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


def cell_text_font(
    finite: NDArray[np.float64], digits: int, cell: tuple[float, float], style: Style, also: str = ""
) -> int:
    """The largest font (style.cell_font down to a legible minimum) at which every cell's value fits in a
    cell of ``cell`` = (width, height) px; 0 when none does (then no cell prints its value)."""
    texts = [also]
    if finite.size:
        texts += [f"{float(finite.min()):.{digits}f}", f"{float(finite.max()):.{digits}f}"]
    ems = max(text_px(t, 1.0) for t in texts)
    for size in range(style.cell_font, _min_font(style, cell=True) - 1, -1):
        if ems * size + 6 <= cell[0] and size + 4 <= cell[1]:
            return size
    return 0


MASKED_TEXT = "#1a1a1a"  # the value printed on a masked cell: 7.6:1 against MASKED_GREY


def cell_lines(n_rows: int, n_cols: int, width: int = 1, xref: str = "x", yref: str = "y") -> dict[str, Any]:
    """One path along every border between two cells of an (n_rows, n_cols) heatmap, drawn over it in the
    page's colour (the template's shapedefaults): the cells stand apart as with Plotly's xgap/ygap. Those
    make Plotly paint every cell on a canvas the size of the chart and encode it as a PNG on each redraw
    (a third of a full-width weights chart's redraw); without them the heatmap is an n x n image the
    browser scales up, and the lines are one SVG path."""
    cols = "".join(f"M{j - 0.5},-0.5V{n_rows - 0.5}" for j in range(1, n_cols))
    rows = "".join(f"M-0.5,{i - 0.5}H{n_cols - 0.5}" for i in range(1, n_rows))
    return {"type": "path", "path": cols + rows, "xref": xref, "yref": yref, "layer": "above",
            "line": {"width": width}}  # fmt: skip


def mask_hatch(masked: NDArray[np.bool_], xref: str = "x", yref: str = "y") -> dict[str, Any]:
    """A stroke across every masked cell (n_rows, n_cols), True = masked, from its lower left to its upper
    right corner, in one SVG path: where cells are too small for their value ("0", "-inf"), masked cells
    still differ from the others by more than their grey. The strokes of neighbouring cells along an
    anti-diagonal (row - 1, column + 1) meet, so each run of them is one line: a causal mask is 2n lines,
    not n²/2 (Plotly's shape paths take absolute coordinates only). Name "masked": tests find it."""
    m = np.asarray(masked, dtype=bool)
    n_rows, n_cols = m.shape
    parts = []
    for d in range(n_rows + n_cols - 1):  # the cells with row + column = d, column rising
        cols = np.arange(max(0, d - n_rows + 1), min(d, n_cols - 1) + 1)
        edges = np.flatnonzero(np.diff(np.concatenate([[0], m[d - cols, cols].astype(np.int8), [0]])))
        for a, b in zip(cols[edges[::2]], cols[edges[1::2] - 1], strict=True):  # masked columns a .. b
            parts.append(f"M{a - 0.5},{d - a + 0.5}L{b + 0.5},{d - b - 0.5}")
    return {"type": "path", "path": "".join(parts), "xref": xref, "yref": yref, "layer": "above",
            "line": {"width": 1, "color": MASKED_TEXT}, "name": "masked"}  # fmt: skip


def _row_sums(sums: NDArray[np.float64], font: float) -> dict[str, Any]:
    """Each row's sum, just right of the plot (x2 is 0..1 across it, y2 the rows): a text trace, drawn in one
    pass (Plotly lays out each annotation on its own, slowly for 64 rows). At x = 1, the range's end: Plotly
    hides a point past its axis's range when the trace is not clipped (an exported PNG would lose the sums);
    an en space sets the text off the plot. ``row_sums_of`` reads it back."""
    return {
        "type": "scatter", "mode": "text", "x": np.ones(len(sums)), "y": np.arange(len(sums)),
        "text": [f"Σ {s:.3f}" for s in sums], "texttemplate": "\u2002%{text}", "textposition": "middle right",
        "textfont": {"size": font},
        "xaxis": "x2", "yaxis": "y2", "cliponaxis": False, "hoverinfo": "skip", "showlegend": False,
        "meta": {"row_sums": True},
    }  # fmt: skip


def row_sums_of(fig: dict[str, Any]) -> list[str]:
    """The row sums a heatmap prints (its figure as plain JSON), e.g. ["Σ 1.000", ...]; [] when none."""
    for trace in fig.get("data") or []:
        if (trace.get("meta") or {}).get("row_sums"):
            return list(trace.get("text") or [])
    return []


def masked_value(weights: bool) -> str:
    """What a masked cell holds: its weight after the softmax is 0, its score before it is -inf."""
    return "0" if weights else "-inf"


def _masked_overlay(
    masked: NDArray[np.bool_], weights: bool, style: Style, cell_font: int, where: str
) -> dict[str, Any]:
    """Grey cells over the masked positions (n_rows, n_cols), True = masked: a weights chart marks them 0
    (the weight the softmax gives them), a scores chart -inf (the score the mask writes); the hover names the
    cell (``where``, a hover-template fragment) and says "masked" and its value either way. The value is
    printed at ``cell_font`` (0: not printed, like the other cells)."""
    value = masked_value(weights)
    what = "weight 0 (its score is -inf)" if weights else "score -inf (its weight is 0)"
    grey: dict[str, Any] = {
        "type": "heatmap",
        "z": np.where(masked, 1.0, np.nan),
        "x": np.arange(masked.shape[1]),
        "y": np.arange(masked.shape[0]),
        "colorscale": ((0, MASKED_GREY), (1, MASKED_GREY)),
        "showscale": False,
        "hovertemplate": f"{where}<br>masked: {what}<extra></extra>",
        "meta": {"masked_value": value},
    }
    if cell_font:
        grey["text"] = np.where(masked, value, "").tolist()
        grey["texttemplate"] = "%{text}"
        grey["textfont"] = {"size": cell_font, "color": MASKED_TEXT}
    return grey


def _group_marks(groups: Sequence[str], n_cols: int, style: Style, margin: dict[str, int]) -> dict[str, Any]:
    """Lines between equal blocks of columns and each block's name above it (margin["t"] grows to hold it).

    Block g covers columns g * width .. (g + 1) * width - 1, width = n_cols / len(groups).
    """
    width, rest = divmod(n_cols, len(groups))
    if rest or not width:
        raise ValueError(f"{n_cols} columns do not split into {len(groups)} equal groups")
    x_top = margin["t"] - 8 - style.title_font * 1.5  # from the plot's top edge up to below the title
    margin["t"] += int(style.font * 1.6)
    shapes = [
        {
            "type": "line", "xref": "x", "yref": "paper", "x0": g * width - 0.5, "x1": g * width - 0.5,
            "y0": 0, "y1": 1, "line": {"width": 3, "color": "black" if not style.dark else "white"},
        }
        for g in range(1, len(groups))
    ]  # fmt: skip
    notes = [
        {
            "x": g * width + (width - 1) / 2, "y": 1, "xref": "x", "yref": "paper", "yanchor": "bottom",
            "yshift": int(x_top), "showarrow": False, "text": esc(name), "font": {"size": style.font},
        }
        for g, name in enumerate(groups)
    ]  # fmt: skip
    return {"shapes": shapes, "annotations": notes}
