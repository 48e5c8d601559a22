"""Every head of a model at once: one figure of small heatmaps, one per layer and head."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from plotly.subplots import make_subplots

from explorer import i18n
from explorer.i18n import _
from explorer.views import describe
from explorer.views.axes import _fit_cols, _fit_rows, thinned
from explorer.views.cell_marks import _masked_overlay, cell_lines, cell_text_font, mask_hatch
from explorer.views.colour_range import _range_note, weight_range
from explorer.views.drawn import Drawn, figure_only
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
    h, n, _n = weights.shape
    g = _panels(h, labels, style, width_px, max_side_px)
    cell_font = cell_text_font(weights[np.isfinite(weights)], 2, (g.panel / n, g.side / n), style, "0")
    data, shown = _head_traces(weights, masked, style, cell_font)
    plot_h = max(1, g.height - g.top - 10)
    layout = json.loads(
        _grid_json(
            g.rows,
            g.cols,
            h,
            round(min(g.spacing_px / g.area, 0.9 / max(g.cols - 1, 1)), 3),
            round(min(g.above / plot_h, 0.9 / max(g.rows - 1, 1)), 3) if g.rows > 1 else 0.05,
            i18n.current(),  # the subplot titles' language: part of the cached layout's key
        )
    )
    _label_panels(layout, g, labels, style)
    common = _layout(style, title, g.height, width_px)
    # Room above the plots for the title, then the subplot titles, then the key labels (no overlap, and
    # the same at presentation sizes): the title is pinned to the top of the figure. The margins are
    # computed (no automargin: Plotly's measuring pass drew the grid twice).
    common["margin"].update(t=g.top + int(common["height"] - g.height), l=int(g.left), b=10)
    _pin_title(common)
    layout.update(common, coloraxis=_colour_axis(weights, masked, style))
    layout["meta"] = {
        "table": {
            "rows": list(map(str, labels)),
            "cols": list(map(str, labels)),
            "row_title": _("query"),
            "col_title": _("key"),
            "digits": 2,
            "weights": True,
            "queries": True,
            "panels": [_("head {n}", n=i + 1) for i in range(h)],
        }
    }  # fmt: skip (the HTML export's tables)
    layout["shapes"] = _panel_shapes(data[:h], n, masked if masked is not None and not cell_font else None)
    grey = masked if masked is not None and masked.any() else None
    panels = [
        describe.Panel(_("head {n}", n=i + 1), shown[i], grey, "0" if grey is not None else "")
        for i in range(h)
    ]
    labels_in_full = describe.Labels(
        list(map(str, labels)), list(map(str, labels)), _("query"), _("key"), queries=True
    )
    return describe.drawn_matrix(_figure(data, layout), title, panels, labels_in_full, 2, True, "")


def _colour_axis(
    weights: NDArray[np.float64], masked: NDArray[np.bool_] | None, style: Style
) -> dict[str, Any]:
    """The one colour scale of every panel: fitted to every head's weights together, or 0..1."""
    finite = weights[np.isfinite(weights)] if masked is None else weights[:, ~masked]
    lo, hi = weight_range(finite, style)
    colorbar = {"thickness": 14, "tickfont": {"size": style.font}, **_range_note(lo, hi, style)}
    return {"colorscale": _colorscale(style.sequential), "cmin": lo, "cmax": hi, "colorbar": colorbar}


def _panel_shapes(
    heads: list[dict[str, Any]], n: int, hatched: NDArray[np.bool_] | None
) -> list[dict[str, Any]]:
    """Lines between the cells of each panel (up to 16 tokens: small multiples' cells are a quarter as wide as
    in a full heatmap), and a stroke across each masked cell where the cells are too small for their value
    (`hatched`: masked by more than colour, as heatmap's)."""
    n_heads = len(heads)
    shapes = (
        [cell_lines(n, n, 1, heads[i]["xaxis"], heads[i]["yaxis"]) for i in range(n_heads)] if n <= 16 else []
    )
    if hatched is not None and hatched.any():
        shapes += [mask_hatch(hatched, heads[i]["xaxis"], heads[i]["yaxis"]) for i in range(n_heads)]
    return shapes


@dataclass(frozen=True)
class _Grid:
    """Where the panels of a grid of heads go (px): rows x cols panels `side` high and `panel` wide in a plot
    area `area` wide, `left` of it the first panel's query labels, `spacing_px` between two panels (the next
    one's query labels), `above` each row its titles and key labels; `top` above the first row, `height` in
    all; the key labels' font, angle, ticks and depth, the query labels' font and ticks."""

    rows: int
    cols: int
    side: float
    panel: float
    area: float
    left: float
    spacing_px: float
    above: float
    top: int
    height: int
    x_font: float
    angle: int
    x_ticks: list[int]
    x_depth: float
    y_font: float
    y_ticks: list[int]


def _panels(h: int, labels: Sequence[str], style: Style, width_px: int, max_side_px: int | None) -> _Grid:
    """The grid's geometry for h heads over these labels (see drawn_head_grid): up to 4 panels a row, fewer
    when that is what labels every token (a real layer's 12 heads on a sentence: every other token's label
    at 4 a row, each at 3)."""
    n = len(labels)
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
        return (cols, y_font, y_step, y_w, area, spacing_px, panel, min(cap, max(120.0, panel)),
                *_fit_cols(ems, panel, style))  # fmt: skip

    tries = [fit(c) for c in range(min(h, 4), 0, -1)]
    got = next((t for t in tries if t[2] == 1 and t[10] == 1), tries[0])
    cols, y_font, y_step, y_w, area, spacing_px, panel, side, x_font, angle, x_step = got
    rows = (h + cols - 1) // cols
    y_ticks = thinned(n, y_step)
    x_ticks = thinned(n, x_step)
    x_w = max((ems[j] * x_font for j in x_ticks), default=0.0)
    x_depth = {0: x_font * 1.3, -45: (x_w + x_font) * 0.71, -90: x_w + 6}[angle]
    above = style.font * 1.6 + x_depth + 16  # a row's subplot titles and key labels
    top = int(style.title_font * 1.6 + 16 + above)
    height = int(top + rows * side + (rows - 1) * above + 10)
    return _Grid(rows, cols, side, panel, area, y_w + 12, spacing_px, above, top, height, x_font, angle, x_ticks,
                 x_depth, y_font, y_ticks)  # fmt: skip


def _head_traces(
    weights: NDArray[np.float64], masked: NDArray[np.bool_] | None, style: Style, cell_font: int
) -> tuple[list[dict[str, Any]], list[NDArray[np.float64]]]:
    """One heatmap trace per head (masked cells NaN), subplot i + 1 row-major from the top left, then the grey
    masked cells of each; and each head's matrix as drawn."""
    h, n, _n = weights.shape
    data, shown = [], []
    weight = _("weight")
    where = [  # the hover's opening (Plotly's own %{…} as values: not the translator's)
        _("head {n}<br>query {query}<br>key {key}", n=i + 1, query="%{y}", key="%{x}") for i in range(h)
    ]
    for i in range(h):
        z = weights[i].copy()
        if masked is not None:
            z[masked] = np.nan
        shown.append(z)
        trace: dict[str, Any] = {
            "type": "heatmap", "z": z, "x": np.arange(n), "y": np.arange(n), "coloraxis": "coloraxis",
            "hovertemplate": f"{where[i]}<br>{weight} %{{z:.10g}}<extra></extra>",
            "xaxis": "x" if i == 0 else f"x{i + 1}", "yaxis": "y" if i == 0 else f"y{i + 1}",
        }  # fmt: skip
        if cell_font:
            trace["texttemplate"] = "%{z:.2f}"
            trace["textfont"] = {"size": cell_font}
        data.append(trace)
    if masked is not None and masked.any():  # after the heads: data[i] stays head i + 1
        for i in range(h):
            grey = _masked_overlay(masked, True, style, cell_font, where[i])
            grey.update(xaxis=data[i]["xaxis"], yaxis=data[i]["yaxis"])
            data.append(grey)
    return data, shown


def _label_panels(layout: dict[str, Any], g: _Grid, labels: Sequence[str], style: Style) -> None:
    """Every panel's key labels on top and query labels at the left (as every heatmap), and the subplot titles
    above the key labels."""
    lab = [esc(s) for s in labels]
    base = {"tickmode": "array", "showgrid": False, "automargin": False, **_TICKS}
    x_axis = {**base, "tickfont": {"size": g.x_font}, "tickvals": np.array(g.x_ticks), "side": "top"}
    x_axis.update(ticktext=[lab[j] for j in g.x_ticks], tickangle=g.angle)
    y_axis = {
        **base,
        "tickfont": {"size": g.y_font},
        "tickvals": np.array(g.y_ticks),
        "autorange": "reversed",
    }
    y_axis["ticktext"] = [lab[i] for i in g.y_ticks]
    for name, axis in layout.items():
        if name.startswith("xaxis"):
            axis.update(x_axis)
        elif name.startswith("yaxis"):
            axis.update(y_axis)
    for note in layout.get("annotations", []):
        note["font"] = {**note.get("font", {}), "size": style.font}
        note["yshift"] = int(g.x_depth + 10)


@functools.lru_cache(maxsize=16)
def _grid_json(
    rows: int, cols: int, n_titles: int, horizontal_spacing: float, vertical_spacing: float, language: str
) -> str:
    """The layout of a rows x cols grid of subplots (axes, domains, titles "head 1".."head n" in `language`),
    made once per language."""
    with i18n.using(language):
        titles = [_("head {n}", n=i + 1) for i in range(n_titles)]
    grid = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=titles,
        horizontal_spacing=horizontal_spacing,
        vertical_spacing=vertical_spacing,
    )
    layout = grid.to_plotly_json()["layout"]
    layout.pop("template", None)
    return json.dumps(layout)


head_grid = figure_only(drawn_head_grid)  # the figure alone
