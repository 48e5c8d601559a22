"""What a heatmap draws on and between its cells (drawn_heatmap, the grid of heads): the font of the values
that fit in them, lines between them, the masked cells in grey (and a stroke across each where no value
fits), each row's sum, and the names of groups of columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from explorer.i18n import _
from explorer.views.style import MASKED_GREY, Style, _min_font, esc, text_px


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
    what = _("masked: weight 0 (its score is -inf)") if weights else _("masked: score -inf (its weight is 0)")
    grey: dict[str, Any] = {
        "type": "heatmap",
        "z": np.where(masked, 1.0, np.nan),
        "x": np.arange(masked.shape[1]),
        "y": np.arange(masked.shape[0]),
        "colorscale": ((0, MASKED_GREY), (1, MASKED_GREY)),
        "showscale": False,
        "hovertemplate": f"{where}<br>{what}<extra></extra>",
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
