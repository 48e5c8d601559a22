"""Pure Plotly figure builders: arrays and labels in, a go.Figure out. No Streamlit, no state.

Conventions every heatmap follows:
- rows are queries (top to bottom in sentence order), columns are keys (left to right);
- axes are numeric (0..n-1) with the token labels as tick text, so repeated words never merge;
- every label is escaped: Plotly renders tags such as <b> or <a href> in text, a token is never markup;
- values are printed in the cells while the matrix is small enough to read (MAX_CELLS_WITH_TEXT per side);
- weights use a fixed 0..1 sequential scale; signed matrices a diverging scale centred on 0.
"""

from __future__ import annotations

import functools
import html
import json
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from numpy.typing import NDArray
from plotly.colors import sample_colorscale
from plotly.subplots import make_subplots

MAX_CELLS_WITH_TEXT = 12  # values printed in cells up to 12 x 12
MASKED_GREY = "#9e9e9e"

# Colour-blind-safe pairs (sequential for weights, diverging for signed values).
PALETTES: dict[str, tuple[str, str, str]] = {
    # name: (sequential, diverging, description)
    "default": ("Viridis", "RdBu_r", "Viridis and red-blue: colour-blind safe"),
    "projector": ("Cividis", "PuOr_r", "Cividis and purple-orange: survives a washed-out projector"),
    "warm": ("Inferno", "BrBG_r", "Inferno and brown-teal: strong contrast"),
    "grey": ("Greys", "RdGy_r", "Greyscale: for printing and any colour vision"),
}


@dataclass(frozen=True)
class Style:
    """How figures look: presentation mode enlarges every text; palette picks the colour scales."""

    present: bool = False
    palette: str = "default"
    dark: bool = False

    @property
    def font(self) -> int:
        return 22 if self.present else 14

    @property
    def cell_font(self) -> int:
        return 22 if self.present else 13

    @property
    def title_font(self) -> int:
        return 28 if self.present else 17

    @property
    def cell_px(self) -> int:
        return 64 if self.present else 40

    @property
    def sequential(self) -> str:
        return PALETTES.get(self.palette, PALETTES["default"])[0]

    @property
    def diverging(self) -> str:
        return PALETTES.get(self.palette, PALETTES["default"])[1]

    @property
    def template(self) -> str:
        # An explicit template: exported images are never black (streamlit/streamlit #6897).
        return "plotly_dark" if self.dark else "plotly_white"


def esc(label: object) -> str:
    """Text shown literally by Plotly: &, <, > escaped (Plotly renders a subset of HTML in labels), and $ and %
    as character references, so "$x$" is never typeset and "%{y}" is never a hover-template field."""
    return html.escape(str(label), quote=False).replace("$", "&#36;").replace("%", "&#37;")


# Figures are assembled as plain dicts and wrapped once, unvalidated: building them through Plotly's
# validating objects (update_layout, make_subplots, a named template) cost 60-300 ms per figure, most of a
# page's rerun. tests/app/test_figures.py checks that every builder's output is a valid Plotly figure.
_TEMPLATE_LAYOUT = (
    "annotationdefaults", "autotypenumbers", "coloraxis", "colorway", "font", "hoverlabel", "hovermode",
    "paper_bgcolor", "plot_bgcolor", "title", "xaxis", "yaxis",
)  # fmt: skip
_TEMPLATE_TRACES = ("heatmap", "bar", "scatter")
# Tick labels are never hidden for running past the chart (automargin keeps them inside anyway): Plotly's
# check measures every label again for each label drawn, seconds in the browser at 64 tokens.
_TICKS = {"ticklabeloverflow": "allow"}
# A matrix with more rows or columns than this is drawn without the 1-pixel gaps between cells: at 64 tokens
# the gaps were a white grid over the colours, and drawing cell by cell made Plotly several times slower.
_GAP_MIN_CELLS = 32


def text_px(text: str, size: float) -> float:
    """About how wide ``text`` is drawn at a font of ``size`` px: 0.6 em per character (Plotly's Open Sans
    averages 0.55 em on Latin text), 1 em for wide characters (CJK, emoji). It sizes margins, so it errs wide."""
    return size * sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.6 for c in str(text))


def label_step(n: int, space_px: float, font_px: float) -> int:
    """Show every k-th of n tick labels so that labels ``font_px`` high do not overlap in ``space_px``."""
    return max(1, math.ceil(n * (font_px + 3) / max(space_px, 1.0)))


@functools.lru_cache(maxsize=4)
def _template_json(name: str) -> str:
    """The named Plotly template cut to what these figures use (2-D axes; heatmap, bar, scatter traces):
    1 KB instead of 7 KB in every chart, the same look (every colour scale here is explicit)."""
    full = pio.templates[name].to_plotly_json()
    layout = {k: v for k, v in full.get("layout", {}).items() if k in _TEMPLATE_LAYOUT}
    data = {
        k: [{p: v for p, v in t.items() if p != "colorscale"} for t in full.get("data", {}).get(k, [])]
        for k in _TEMPLATE_TRACES
    }
    return json.dumps({"layout": layout, "data": data}, separators=(",", ":"))


def template_of(style: Style) -> dict[str, Any]:
    """The explicit template of a figure (exported images are never black: streamlit/streamlit #6897)."""
    return json.loads(_template_json(style.template))


@functools.lru_cache(maxsize=64)
def _colorscale(name: str) -> tuple[tuple[float, str], ...]:
    """A named colour scale as (position, colour) pairs: the browser knows only a few names."""
    return go.Heatmap(colorscale=name).colorscale


def _figure(data: list[dict[str, Any]], layout: dict[str, Any]) -> go.Figure:
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def _layout(style: Style, title: str, height: int, **extra: Any) -> dict[str, Any]:
    """The layout every figure shares (template, title, fonts, height, margins), plus `extra` keys."""
    layout: dict[str, Any] = {
        "template": template_of(style),
        "title": {"text": esc(title), "font": {"size": style.title_font}},
        "font": {"size": style.font},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 30 + style.title_font * 2, "b": 10},
        "hoverlabel": {"font": {"size": style.font}},
    }
    layout.update(extra)
    return layout


def _height(rows: int, style: Style, extra: int = 140) -> int:
    return int(min(extra + rows * style.cell_px, 1100))


def _fmt_text(n_rows: int, n_cols: int, digits: int) -> str | None:
    if n_rows <= MAX_CELLS_WITH_TEXT and n_cols <= MAX_CELLS_WITH_TEXT:
        return f"%{{z:.{digits}f}}"
    return None


def heatmap(
    z: NDArray[np.float64],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    title: str,
    style: Style,
    weights: bool = False,
    masked: NDArray[np.bool_] | None = None,
    row_sums: bool = False,
    x_title: str = "key",
    y_title: str = "query",
    digits: int = 2,
    zrange: tuple[float, float] | None = None,
    max_text_cols: int = MAX_CELLS_WITH_TEXT,
    groups: Sequence[str] = (),
    width_px: int = 1000,
) -> go.Figure:
    """One matrix as a heatmap. z (n_rows, n_cols); masked (n_rows, n_cols) True = drawn grey "-inf".

    weights=True: fixed 0..1 sequential scale. Otherwise a diverging scale centred on 0 (or `zrange`).
    row_sums=True: each row's sum printed at the right (weights rows sum to 1, fully masked rows to 0).
    max_text_cols: print values only up to this many columns (lower it for a chart in a narrow column).
    groups: names of equal blocks of columns (n_cols must divide evenly), e.g. the heads of a concatenation:
    each block is named above its columns and blocks are divided by lines.
    width_px: about how wide the chart is drawn (1280 px screen: ~1000 full width, ~280 a third); labels that would
    overlap at that width are thinned to every k-th (the hover still names every cell).
    """
    z = np.asarray(z, dtype=np.float64)
    n_rows, n_cols = z.shape
    shown = z.copy()
    if masked is not None and masked.any():
        shown[masked] = np.nan
    finite = shown[np.isfinite(shown)]
    if weights:
        zmin, zmax, zmid, scale = 0.0, 1.0, None, style.sequential
    elif zrange is not None:
        zmin, zmax, zmid, scale = zrange[0], zrange[1], None, style.diverging
    else:
        bound = float(np.max(np.abs(finite))) if finite.size else 1.0
        bound = bound or 1.0
        zmin, zmax, zmid, scale = -bound, bound, 0.0, style.diverging
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
        "colorscale": _colorscale(scale),
        "textfont": {"size": style.cell_font},
        "hovertemplate": f"{where}<br>value %{{z:.10g}}<extra></extra>",
        "colorbar": {"thickness": 14, "tickfont": {"size": style.font}},
        "xgap": gap,
        "ygap": gap,
    }
    if zmid is not None:
        trace["zmid"] = zmid
    text = _fmt_text(n_rows, n_cols, digits) if n_cols <= max_text_cols else None
    if text is not None:
        trace["texttemplate"] = text
    if small:
        # (row label, column label) of every cell, as a numpy string array: copied whole, not cell by cell.
        rows_esc, cols_esc = [esc(s) for s in row_labels], [esc(s) for s in col_labels]
        width = max(1, *map(len, rows_esc), *map(len, cols_esc))
        pairs = np.empty((len(rows_esc), len(cols_esc), 2), dtype=f"<U{width}")
        pairs[:, :, 0] = np.array(rows_esc)[:, None]
        pairs[:, :, 1] = np.array(cols_esc)[None, :]
        trace["customdata"] = pairs
    data = [trace]
    if masked is not None and masked.any():
        grey = _masked_overlay(masked, weights, style, gap, text is not None, where)
        if small:
            grey["customdata"] = trace["customdata"]
        data.append(grey)
    height = _height(n_rows, style)
    # Right of the plot: the row sums, or the colour bar and its tick labels.
    right = 20 + style.cell_font * 5 if row_sums else 40 + text_px("-0.00", style.font)
    xaxis, yaxis, margin = _axes(row_labels, col_labels, style, x_title, y_title, (width_px, height), right)
    extra: dict[str, Any] = {"xaxis": xaxis, "yaxis": yaxis, "margin": margin}
    if groups:
        extra.update(_group_marks(groups, n_cols, style, margin))
    if row_sums:
        sums = np.nansum(np.where(np.isfinite(z), z, 0.0), axis=1)
        extra["annotations"] = extra.get("annotations", []) + [
            {
                "x": 1.0,
                "y": i,
                "xref": "paper",
                "yref": "y",
                "xanchor": "left",
                "showarrow": False,
                "text": f"Σ {s:.3f}",
                "font": {"size": style.cell_font},
            }
            for i, s in enumerate(sums)
        ]
        # The sums take the right-hand side, so the colour bar lies under the chart instead.
        trace["colorbar"] = {
            "thickness": 14, "tickfont": {"size": style.font}, "orientation": "h", "x": 0.5, "xanchor": "center",
            "y": -0.02, "yanchor": "top", "len": 0.8,
        }  # fmt: skip
        extra["margin"] = {**margin, "r": 20 + style.cell_font * 5, "b": 40 + style.font}
        return _figure(data, _pin_title(_layout(style, title, height + 40 + style.font, **extra)))
    return _figure(data, _pin_title(_layout(style, title, height, **extra)))


MASKED_TEXT = "#1a1a1a"  # the value printed on a masked cell: 7.6:1 against MASKED_GREY


def masked_value(weights: bool) -> str:
    """What a masked cell holds: its weight after the softmax is 0, its score before it is -inf."""
    return "0" if weights else "-inf"


def _masked_overlay(
    masked: NDArray[np.bool_], weights: bool, style: Style, gap: int, with_text: bool, where: str
) -> dict[str, Any]:
    """Grey cells over the masked positions (n_rows, n_cols), True = masked: a weights chart marks them 0
    (the weight the softmax gives them), a scores chart -inf (the score the mask writes); the hover names the
    cell (``where``, a hover-template fragment) and says "masked" and its value either way."""
    value = masked_value(weights)
    what = "weight 0 (its score is -inf)" if weights else "score -inf (its weight is 0)"
    grey: dict[str, Any] = {
        "type": "heatmap",
        "z": np.where(masked, 1.0, np.nan),
        "x": np.arange(masked.shape[1]),
        "y": np.arange(masked.shape[0]),
        "colorscale": ((0, MASKED_GREY), (1, MASKED_GREY)),
        "showscale": False,
        "textfont": {"size": style.cell_font, "color": MASKED_TEXT},
        "hovertemplate": f"{where}<br>masked: {what}<extra></extra>",
        "meta": {"masked_value": value},
        "xgap": gap,
        "ygap": gap,
    }
    if with_text:  # the values only where the other cells print theirs
        grey["text"] = np.where(masked, value, "").tolist()
        grey["texttemplate"] = "%{text}"
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


def _pin_title(layout: dict[str, Any]) -> dict[str, Any]:
    """The figure title at the very top, above the margin that holds the axis labels."""
    layout["title"].update({"yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 8}})
    return layout


def _axes(
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    style: Style,
    x_title: str,
    y_title: str,
    size: tuple[int, int],
    right: float,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, int]]:
    """The x (keys, on top) and y (queries, first on top) axes of a heatmap, and the margins that hold them.

    size: about (width, height) of the chart in px; right: the margin right of the plot. Labels are thinned
    to every k-th where they would overlap (the plot takes the height less about 200 px, the width less the
    margins); key labels stand upright while they fit, else at -45 degrees.
    Margins are computed from the labels' lengths (no automargin: Plotly's measuring pass drew every chart
    twice). From the top: the title (pinned to the top of the figure), the x-axis title, the key labels (one
    line high upright; at -45 degrees width * sin 45 + height * cos 45), the plot; on the left the query
    labels and the y-axis title.
    """
    n_rows, n_cols = len(row_labels), len(col_labels)
    tick = style.font if max(n_rows, n_cols) <= 24 else 10
    y_step = label_step(n_rows, size[1] - 200, tick)
    rows = list(row_labels)[::y_step]
    left = max((text_px(r, tick) for r in rows), default=0.0) + 8 + style.font * 1.4 + 15
    plot_w = max(100.0, size[0] - left - right)
    col_w = [text_px(c, tick) for c in col_labels]
    upright = n_cols <= 24 and (max(col_w, default=0.0) + 6) * n_cols <= plot_w
    x_step = 1 if upright else label_step(n_cols, plot_w, tick * 1.2)
    x_w = max(col_w[::x_step], default=0.0)
    x_depth = tick * 1.3 if upright else (x_w + tick) * 0.71
    top = 8 + style.title_font * 1.5 + style.font * 1.4 + 15 + x_depth + 6
    common = {"showgrid": False, "zeroline": False, "automargin": False, **_TICKS}
    xaxis = {
        "tickmode": "array",
        "tickvals": np.arange(0, n_cols, x_step),
        "ticktext": [esc(c) for c in list(col_labels)[::x_step]],
        "side": "top",
        "tickangle": 0 if upright else -45,
        "title": {"text": x_title, "font": {"size": style.font}},
        "tickfont": {"size": tick},
        **common,
    }
    yaxis = {
        "tickmode": "array",
        "tickvals": np.arange(0, n_rows, y_step),
        "ticktext": [esc(r) for r in rows],
        "autorange": "reversed",
        "title": {"text": y_title, "font": {"size": style.font}},
        "tickfont": {"size": tick},
        **common,
    }
    return xaxis, yaxis, {"l": int(left), "r": 10, "t": int(top), "b": 10}


def head_grid(
    weights: NDArray[np.float64],
    labels: Sequence[str],
    *,
    style: Style,
    title: str,
    masked: NDArray[np.bool_] | None = None,
) -> go.Figure:
    """Small multiples of every head's weights (n_heads, n, n) on one shared 0..1 scale."""
    h, n, _ = weights.shape
    cols = min(h, 4)
    rows = (h + cols - 1) // cols
    lab = [esc(s) for s in labels]
    text = _fmt_text(n, n, 2) if h <= 4 and n <= 8 else None
    gap = 1 if n <= 16 else 0  # small multiples: cells are a quarter as wide as in a full heatmap
    data = []
    for i in range(h):
        z = weights[i].copy()
        if masked is not None:
            z[masked] = np.nan
        trace: dict[str, Any] = {
            "type": "heatmap",
            "z": z,
            "x": np.arange(n),
            "y": np.arange(n),
            "coloraxis": "coloraxis",
            "textfont": {"size": style.cell_font},
            "xgap": gap,
            "ygap": gap,
            "hovertemplate": f"head {i + 1}<br>query %{{y}}<br>key %{{x}}<br>weight %{{z:.10g}}<extra></extra>",
            "xaxis": "x" if i == 0 else f"x{i + 1}",  # subplot i + 1, row-major from the top left
            "yaxis": "y" if i == 0 else f"y{i + 1}",
        }
        if text is not None:
            trace["texttemplate"] = text
        data.append(trace)
    if masked is not None and masked.any():  # after the heads: data[i] stays head i + 1
        for i in range(h):
            where = f"head {i + 1}<br>query %{{y}}<br>key %{{x}}"
            grey = _masked_overlay(masked, True, style, gap, text is not None, where)
            grey.update(xaxis=data[i]["xaxis"], yaxis=data[i]["yaxis"])
            data.append(grey)
    font = style.font if n <= 12 else max(10, style.font - 4)
    side = max(260, min(640 if style.present else 560, 60 + n * (style.cell_px if n <= 12 else 14)))
    # Labels are shown as many as fit without overlapping: at 64 tokens every token in a ~300 px wide panel
    # overlapped into a smear. A panel of a 4-column grid is about 300 px wide at 1920 px; its height is known.
    panel = (1200 if not style.present else 1440) / cols
    x_step = label_step(n, panel, font)
    y_step = label_step(n, side * 0.8, font)
    x_ticks = {"tickvals": np.arange(0, n, x_step), "ticktext": lab[::x_step]}
    y_ticks = {"tickvals": np.arange(0, n, y_step), "ticktext": lab[::y_step]}
    x_w = max((text_px(s, font) for s in labels[::x_step]), default=0.0)
    angle = 0 if x_w + 6 <= panel / len(x_ticks["ticktext"] or [0]) else -90  # upright while they fit
    y_w = max((text_px(s, font) for s in labels[::y_step]), default=0.0)
    x_depth = x_w if angle else font * 1.3
    top = int(style.title_font * 1.6 + style.font * 1.6 + x_depth + 24)
    height = int(rows * (side + x_depth) + 60)
    # Between two rows of panels: the lower row's subplot titles and key labels (a fraction of the plot area).
    between = (style.font * 1.6 + x_depth + 16) / max(1, height - top - 10)
    layout = json.loads(_grid_json(rows, cols, h, round(min(0.3, between), 2) if rows > 1 else 0.05))
    base = {"tickmode": "array", "showgrid": False, "automargin": False, "tickfont": {"size": font}, **_TICKS}
    for name, axis in layout.items():
        if name.startswith("xaxis"):
            axis.update(**base, **x_ticks, side="top", tickangle=angle)
        elif name.startswith("yaxis"):
            axis.update(**base, **y_ticks, autorange="reversed")
    # Subplot titles sit above the key labels (which are on top, like every heatmap).
    for note in layout.get("annotations", []):
        note["font"] = {**note.get("font", {}), "size": style.font}
        note["yshift"] = int(x_depth + 10)
    common = _layout(style, title, height)
    # Room above the plots for the title, then the subplot titles, then the key labels (no overlap, and
    # the same at presentation sizes): the title is pinned to the top of the figure. The margins are
    # computed (no automargin: Plotly's measuring pass drew the grid twice).
    common["margin"].update(t=top, l=int(y_w + 12))
    common["title"].update({"yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 8}})
    colorbar = {"thickness": 14, "tickfont": {"size": style.font}}
    layout.update(
        common,
        coloraxis={"colorscale": _colorscale(style.sequential), "cmin": 0, "cmax": 1, "colorbar": colorbar},
    )
    return _figure(data, layout)


@functools.lru_cache(maxsize=16)
def _grid_json(rows: int, cols: int, n_titles: int, vertical_spacing: float) -> str:
    """The layout of a rows x cols grid of subplots (axes, domains, titles "head 1".."head n"), made once."""
    grid = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[f"head {i + 1}" for i in range(n_titles)],
        horizontal_spacing=0.06,
        vertical_spacing=vertical_spacing,
    )
    layout = grid.to_plotly_json()["layout"]
    layout.pop("template", None)
    return json.dumps(layout)


def lines(
    x: NDArray[np.float64],
    ys: NDArray[np.float64],
    names: Sequence[str],
    *,
    style: Style,
    title: str,
    x_title: str,
    y_title: str,
    markers_x: NDArray[np.float64] | None = None,
    markers_y: NDArray[np.float64] | None = None,
    log_x: bool = False,
    log_y: bool = False,
    dash: Sequence[str] | None = None,
    height: int | None = None,
) -> go.Figure:
    """Curves ys (m, k) over x (m,), one per name; optional markers (p,), (p, k) on the same curves."""
    data: list[dict[str, Any]] = []
    for j, name in enumerate(names):
        data.append(
            {
                "type": "scatter",
                "x": x,
                "y": ys[:, j],
                "mode": "lines",
                "name": esc(name),
                "legendgroup": str(j),
                "line": {"width": 3 if style.present else 2, "dash": (dash[j] if dash else "solid")},
            }
        )
        if markers_x is not None and markers_y is not None:
            data.append(
                {
                    "type": "scatter",
                    "x": markers_x,
                    "y": markers_y[:, j],
                    "mode": "markers",
                    "legendgroup": str(j),
                    "showlegend": False,
                    "marker": {"size": 12 if style.present else 8, "line": {"width": 1, "color": "black"}},
                    "name": esc(name),
                    "hovertemplate": "position %{x}<br>value %{y:.6f}<extra></extra>",
                }
            )
    layout = _layout(
        style,
        title,
        height or (620 if style.present else 420),
        xaxis={"title": {"text": esc(x_title)}, "type": "log" if log_x else "linear"},
        yaxis={"title": {"text": esc(y_title)}, "type": "log" if log_y else "linear"},
        legend={"font": {"size": style.font}},
    )
    return _figure(data, layout)


def bars(
    categories: Sequence[str],
    values: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    x_title: str,
    y_title: str,
    y_range: tuple[float, float] | None = None,
) -> go.Figure:
    """One bar per category, its value printed on it. Categories are positions (repeats stay apart)."""
    cats = [esc(c) for c in categories]
    bar = {
        "type": "bar",
        "x": np.arange(len(cats)),
        "y": values,
        "text": [f"{v:.3f}" for v in values],
        "textposition": "outside",
        "textfont": {"size": style.cell_font},
        # Colours from the sequential scale (0..1), as colour strings: numbers for Plotly to map made it warn
        # ("Invalid color specifier") for every bar on every draw, 0.1 s per chart at 64 tokens.
        "marker": {"color": sample_colorscale(style.sequential, np.clip(values, 0.0, 1.0).tolist())},
        "customdata": cats,
        "hovertemplate": "%{customdata}: %{y:.10g}<extra></extra>",
    }
    xaxis = {
        "tickmode": "array",
        "tickvals": np.arange(len(cats)),
        "ticktext": cats,
        "title": {"text": esc(x_title)},
        **_TICKS,
    }
    yaxis: dict[str, Any] = {"title": {"text": esc(y_title)}}
    if y_range:
        yaxis["range"] = list(y_range)
    return _figure([bar], _layout(style, title, 560 if style.present else 380, xaxis=xaxis, yaxis=yaxis))


def stacked_contributions(
    contributions: NDArray[np.float64],
    key_labels: Sequence[str],
    total: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    max_keys: int = 12,
) -> go.Figure:
    """Per output dimension, the stacked contributions w_j * v_j of every key j, and their sum (a marker).

    contributions (n_keys, d_v); total (d_v,) = contributions.sum(axis=0), the query's output row.
    With more than ``max_keys`` keys, the max_keys - 1 keys that contribute most (sum of |w_j v_j| over the
    dimensions) keep their own bars, in sentence order, and the rest are stacked as one grey "other keys"
    bar: sixty colours cannot be told apart, and a legend of sixty entries took most of a second to draw.
    """
    n_keys, d_v = contributions.shape
    dims = [f"dim {c}" for c in range(d_v)]
    if n_keys > max_keys:
        strength = np.abs(contributions).sum(axis=1)  # (n_keys,)
        shown = np.sort(np.argsort(-strength, kind="stable")[: max_keys - 1])
    else:
        shown = np.arange(n_keys)
    data: list[dict[str, Any]] = [
        {
            "type": "bar",
            "x": dims,
            "y": contributions[j],
            "name": esc(key_labels[j]),
            "hovertemplate": f"{esc(key_labels[j])}<br>%{{x}}: %{{y:.6f}}<extra></extra>",
        }
        for j in shown
    ]
    rest = np.setdiff1d(np.arange(n_keys), shown)
    if rest.size:
        name = f"{rest.size} other keys"
        data.append(
            {
                "type": "bar",
                "x": dims,
                "y": contributions[rest].sum(axis=0),
                "name": name,
                "marker": {"color": MASKED_GREY},
                "hovertemplate": f"{name} together<br>%{{x}}: %{{y:.6f}}<extra></extra>",
            }
        )
    data.append(
        {
            "type": "scatter",
            "x": dims,
            "y": total,
            "mode": "markers",
            "name": "output (sum)",
            "marker": {
                "symbol": "diamond",
                "size": 16 if style.present else 11,
                "color": "black",
                "line": {"width": 2, "color": "white"},
            },
            "hovertemplate": "output %{x}: %{y:.6f}<extra></extra>",
        }
    )
    # Each sum printed beside its marker on a plain box, so it stays legible over the coloured bars.
    notes = [
        {
            "x": dims[c], "y": float(t), "text": f"{t:.3f}", "showarrow": False, "xanchor": "left", "xshift": 12,
            "font": {"size": style.cell_font}, "bgcolor": "rgba(17,17,17,0.85)" if style.dark else "rgba(255,255,255,0.85)",
        }
        for c, t in enumerate(total)
    ]  # fmt: skip
    layout = _layout(
        style,
        title,
        620 if style.present else 440,
        barmode="relative",
        legend={"font": {"size": style.font}},
        yaxis={"title": {"text": "contribution w_j · v_j"}, "zeroline": True, "zerolinewidth": 2},
        annotations=notes,
    )
    return _figure(data, layout)
