"""Every head of a model at once: one figure of small heatmaps, one per layer and head."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray
from plotly.subplots import make_subplots

from explorer.views import describe
from explorer.views.axes import _fit_cols, _fit_rows, thinned
from explorer.views.colour_range import _range_note, weight_range
from explorer.views.drawn import Drawn
from explorer.views.heatmap import (
    _masked_overlay,
    cell_lines,
    cell_text_font,
    mask_hatch,
)
from explorer.views.style import (
    _TICKS,
    FULL_PX,
    PRESENT_CHART_PX,
    Style,
    _colorscale,
    _drawn_px,
    _figure,
    _layout,
    _pin_title,
    esc,
    text_px,
)


def head_grid(
    weights: NDArray[np.float64],
    labels: Sequence[str],
    *,
    style: Style,
    title: str,
    masked: NDArray[np.bool_] | None = None,
    width_px: int = FULL_PX,
    max_side_px: int | None = None,
) -> go.Figure:
    """The figure of drawn_head_grid (which see)."""
    return drawn_head_grid(
        weights, labels, style=style, title=title, masked=masked, width_px=width_px, max_side_px=max_side_px
    ).figure


def drawn_head_grid(
    weights: NDArray[np.float64],
    labels: Sequence[str],
    *,
    style: Style,
    title: str,
    masked: NDArray[np.bool_] | None = None,
    width_px: int = FULL_PX,
    max_side_px: int | None = None,
) -> Drawn:
    """Small multiples of every head's weights (n_heads, n, n) on one colour scale (fitted to every head's
    weights together, or 0..1: style.fit_weights), up to 4 panels a row (fewer where that labels every
    token).

    width_px: as heatmap's. Between two panels there is room for the right panel's query labels; panels are
    square up to ``max_side_px`` high. Labels and cell values are shown as heatmap shows them (all while they
    fit; values only where they fit).
    """
    h, n, _ = weights.shape
    lab = [esc(s) for s in labels]
    ems = [text_px(s, 1.0) for s in labels]
    width = _drawn_px(width_px, style)
    colorbar_px = 40 + text_px("0.000", style.font)
    cap = max_side_px or (PRESENT_CHART_PX - 160 if style.present else 420)

    def fit(cols: int) -> tuple[Any, ...]:
        # Panel width with labels at the largest font, then the query labels fitted to the panel's height.
        first_w = max(ems, default=0.0) * style.font + 16
        side = min(cap, max(120.0, (width - first_w - colorbar_px - (cols - 1) * first_w) / cols))
        y_font, y_step = _fit_rows(ems, side, style)
        y_w = max((ems[i] * y_font for i in thinned(n, y_step)), default=0.0)
        area = max(200.0, width - y_w - 12 - colorbar_px)
        spacing_px = y_w + 16  # the next panel's query labels
        panel = (area - (cols - 1) * spacing_px) / cols
        return (
            cols,
            y_font,
            y_step,
            y_w,
            area,
            spacing_px,
            panel,
            min(cap, max(120.0, panel)),
            *_fit_cols(ems, panel, style),
        )

    # Up to 4 panels a row, fewer when that is what labels every token (a real layer's 12 heads on a
    # sentence: every other token's label at 4 a row, each at 3).
    tries = [fit(c) for c in range(min(h, 4), 0, -1)]
    got = next((t for t in tries if t[2] == 1 and t[10] == 1), tries[0])
    cols, y_font, y_step, y_w, area, spacing_px, panel, side, x_font, angle, x_step = got
    rows = (h + cols - 1) // cols
    y_ticks = thinned(n, y_step)
    left = y_w + 12
    x_ticks = thinned(n, x_step)
    x_w = max((ems[j] * x_font for j in x_ticks), default=0.0)
    x_depth = {0: x_font * 1.3, -45: (x_w + x_font) * 0.71, -90: x_w + 6}[angle]
    above = style.font * 1.6 + x_depth + 16  # a row's subplot titles and key labels
    top = int(style.title_font * 1.6 + 16 + above)
    height = int(top + rows * side + (rows - 1) * above + 10)
    cell_font = cell_text_font(weights[np.isfinite(weights)], 2, (panel / n, side / n), style, "0")
    gap = 1 if n <= 16 else 0  # small multiples: cells are a quarter as wide as in a full heatmap
    data, shown = [], []
    for i in range(h):
        z = weights[i].copy()
        if masked is not None:
            z[masked] = np.nan
        shown.append(z)
        trace: dict[str, Any] = {
            "type": "heatmap",
            "z": z,
            "x": np.arange(n),
            "y": np.arange(n),
            "coloraxis": "coloraxis",
            "hovertemplate": f"head {i + 1}<br>query %{{y}}<br>key %{{x}}<br>weight %{{z:.10g}}<extra></extra>",
            "xaxis": "x" if i == 0 else f"x{i + 1}",  # subplot i + 1, row-major from the top left
            "yaxis": "y" if i == 0 else f"y{i + 1}",
        }
        if cell_font:
            trace["texttemplate"] = "%{z:.2f}"
            trace["textfont"] = {"size": cell_font}
        data.append(trace)
    if masked is not None and masked.any():  # after the heads: data[i] stays head i + 1
        for i in range(h):
            where = f"head {i + 1}<br>query %{{y}}<br>key %{{x}}"
            grey = _masked_overlay(masked, True, style, cell_font, where)
            grey.update(xaxis=data[i]["xaxis"], yaxis=data[i]["yaxis"])
            data.append(grey)
    plot_h = max(1, height - top - 10)
    layout = json.loads(
        _grid_json(
            rows,
            cols,
            h,
            round(min(spacing_px / area, 0.9 / max(cols - 1, 1)), 3),
            round(min(above / plot_h, 0.9 / max(rows - 1, 1)), 3) if rows > 1 else 0.05,
        )
    )
    base = {"tickmode": "array", "showgrid": False, "automargin": False, **_TICKS}
    x_axis = {**base, "tickfont": {"size": x_font}, "tickvals": np.array(x_ticks), "side": "top"}
    x_axis.update(ticktext=[lab[j] for j in x_ticks], tickangle=angle)
    y_axis = {**base, "tickfont": {"size": y_font}, "tickvals": np.array(y_ticks), "autorange": "reversed"}
    y_axis["ticktext"] = [lab[i] for i in y_ticks]
    for name, axis in layout.items():
        if name.startswith("xaxis"):
            axis.update(x_axis)
        elif name.startswith("yaxis"):
            axis.update(y_axis)
    # Subplot titles sit above the key labels (which are on top, like every heatmap).
    for note in layout.get("annotations", []):
        note["font"] = {**note.get("font", {}), "size": style.font}
        note["yshift"] = int(x_depth + 10)
    common = _layout(style, title, height, width_px)
    # Room above the plots for the title, then the subplot titles, then the key labels (no overlap, and
    # the same at presentation sizes): the title is pinned to the top of the figure. The margins are
    # computed (no automargin: Plotly's measuring pass drew the grid twice).
    common["margin"].update(t=top + int(common["height"] - height), l=int(left), b=10)
    _pin_title(common)
    finite = weights[np.isfinite(weights)] if masked is None else weights[:, ~masked]
    lo, hi = weight_range(finite, style)
    colorbar = {"thickness": 14, "tickfont": {"size": style.font}, **_range_note(lo, hi, style)}
    layout.update(
        common,
        coloraxis={"colorscale": _colorscale(style.sequential), "cmin": lo, "cmax": hi, "colorbar": colorbar},
    )
    layout["meta"] = {
        "table": {
            "rows": list(map(str, labels)),
            "cols": list(map(str, labels)),
            "row_title": "query",
            "col_title": "key",
            "digits": 2,
            "weights": True,
            "panels": [f"head {i + 1}" for i in range(h)],
        }
    }  # fmt: skip (views.describe)
    layout["shapes"] = []
    if gap:
        layout["shapes"] += [cell_lines(n, n, gap, data[i]["xaxis"], data[i]["yaxis"]) for i in range(h)]
    if masked is not None and masked.any() and not cell_font:  # masked by more than colour: heatmap's hatch
        layout["shapes"] += [mask_hatch(masked, data[i]["xaxis"], data[i]["yaxis"]) for i in range(h)]
    grey = masked if masked is not None and masked.any() else None
    panels = [
        describe.Panel(f"head {i + 1}", shown[i], grey, "0" if grey is not None else "") for i in range(h)
    ]
    labels_in_full = describe.Labels(list(map(str, labels)), list(map(str, labels)), "query", "key")
    return describe.drawn_matrix(_figure(data, layout), title, panels, labels_in_full, 2, True, "")


@functools.lru_cache(maxsize=16)
def _grid_json(
    rows: int, cols: int, n_titles: int, horizontal_spacing: float, vertical_spacing: float
) -> str:
    """The layout of a rows x cols grid of subplots (axes, domains, titles "head 1".."head n"), made once."""
    grid = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[f"head {i + 1}" for i in range(n_titles)],
        horizontal_spacing=horizontal_spacing,
        vertical_spacing=vertical_spacing,
    )
    layout = grid.to_plotly_json()["layout"]
    layout.pop("template", None)
    return json.dumps(layout)
