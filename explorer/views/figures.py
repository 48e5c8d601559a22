"""Pure Plotly figure builders: arrays and labels in, a go.Figure out. No Streamlit, no state.

Conventions every heatmap follows:
- rows are queries (top to bottom in sentence order), columns are keys (left to right);
- axes are numeric (0..n-1) with the token labels as tick text, so repeated words never merge;
- every label is escaped: Plotly renders tags such as <b> or <a href> in text, a token is never markup;
- every label is shown while it fits (smaller, then rotated), and a cell prints its value only where the
  number fits in it, for the width the chart is drawn at (FULL_PX, HALF_PX, THIRD_PX; PRESENT_SCALE);
- weights use a sequential scale, fitted to their range (stated on the colour bar) or fixed 0..1 (Style);
  signed matrices a diverging scale centred on 0;
- masked cells are grey: "0" on weights (their weight), "-inf" only on the scores before the softmax.
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

MASKED_GREY = "#9e9e9e"
# About how wide a chart is drawn at 1280 px with the sidebar open (measured in Chromium: the main column is
# 820 px wide); in presentation mode (1920 px, no sidebar, wider padding) the same chart is PRESENT_SCALE
# times as wide. Labels and cell values are fitted to these widths.
FULL_PX = 820
HALF_PX = 400
THIRD_PX = 265
PRESENT_SCALE = 2.2
# While presenting, a step fits one 1920 x 1080 screen: its main chart is at most this high (the step bar,
# the sentence box, the formula and the step's controls take the rest).
PRESENT_CHART_PX = 540
# While presenting, axis ticks and titles a figure does not size itself (bars, curves) are this large.
PRESENT_TICK_PX = 18

# Colour-blind-safe pairs (sequential for weights, diverging for signed values).
PALETTES: dict[str, tuple[str, str, str]] = {
    # name: (sequential, diverging, description)
    # (the description fits the sidebar's select box: the scales' names are in its help)
    "default": ("Viridis", "RdBu_r", "Colour-blind safe"),
    "projector": ("Cividis", "PuOr_r", "Washed-out projector"),
    "warm": ("Inferno", "BrBG_r", "Strong contrast"),
    "grey": ("Greys", "RdGy_r", "Greyscale, for print"),
}


@dataclass(frozen=True)
class Style:
    """How figures look: presentation mode enlarges every text; palette picks the colour scales."""

    present: bool = False
    palette: str = "default"
    dark: bool = False
    fit_weights: bool = True  # weights coloured over their own range (stated on the colour bar), not 0..1

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


# One naming of dimensions on every page: the letter says which vector a dimension belongs to, the number
# which of its entries it is (d: a token vector of width d_model; q, k, v: a head's query, key, value; f: the
# feed-forward's hidden layer); a head's block of the concatenation is "h1·v0", head 1's v0.
DIM_SPACES = {"d": "d_model", "q": "query", "k": "key", "v": "value", "f": "feed-forward hidden"}


def dims(space: str, n: int, head: int | None = None) -> list[str]:
    """The names of n dimensions of ``space`` (a key of DIM_SPACES): d0, d1, ...; with ``head`` (0-based),
    that head's: h1·v0, h1·v1, ..."""
    if space not in DIM_SPACES:
        raise ValueError(f"space must be one of {sorted(DIM_SPACES)}, got {space!r}")
    prefix = "" if head is None else f"h{head + 1}·"
    return [f"{prefix}{space}{j}" for j in range(n)]


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
# A matrix with more rows or columns than this is drawn without the 1-pixel lines between cells: at 64 tokens
# they were a white grid over the colours.
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
    # The lines between cells (cell_lines) are the page's colour, as Plotly's gaps showed it; explorer.ui.chart
    # sets the page's own (light or dark) in the browser.
    layout["shapedefaults"] = {"line": {"color": layout.get("paper_bgcolor", "white")}}
    return json.dumps({"layout": layout, "data": data}, separators=(",", ":"))


def template_of(style: Style) -> dict[str, Any]:
    """The explicit template of a figure (exported images are never black: streamlit/streamlit #6897)."""
    return json.loads(_template_json(style.template))


@functools.lru_cache(maxsize=64)
def _colorscale(name: str) -> tuple[tuple[float, str], ...]:
    """A named colour scale as (position, colour) pairs: the browser knows only a few names."""
    return go.Heatmap(colorscale=name).colorscale


@functools.lru_cache(maxsize=64)
def _upper_half(name: str) -> tuple[tuple[float, str], ...]:
    """The half of a diverging scale above its middle, as a scale of its own: values >= 0 (a ReLU's output)
    from the colour of 0 to the colour of the largest, with no colours for values that cannot occur."""
    ts = np.linspace(0.0, 1.0, 11)
    return tuple(zip(ts.tolist(), sample_colorscale(name, (0.5 + ts / 2).tolist()), strict=True))


def _figure(data: list[dict[str, Any]], layout: dict[str, Any]) -> go.Figure:
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def wrap(text: str, width_px: float, size: float) -> list[str]:
    """``text`` cut at spaces into lines no wider than ``width_px`` at a font of ``size`` px (a word longer
    than the width gets a line of its own)."""
    lines: list[str] = []
    for word in str(text).split(" "):
        if lines and text_px(f"{lines[-1]} {word}", size) <= width_px:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines or [""]


def _title(title: str, style: Style, width_px: float) -> tuple[dict[str, Any], float]:
    """The layout title, wrapped to the chart's width (a title is never cut off at the chart's edge), and
    the height its lines after the first add."""
    lines = wrap(title, max(width_px - 30, 100.0), style.title_font)
    return (
        {"text": "<br>".join(esc(line) for line in lines), "font": {"size": style.title_font}},
        (len(lines) - 1) * style.title_font * 1.3,
    )


def level(figs: Sequence[go.Figure]) -> list[go.Figure]:
    """Charts drawn side by side, their plots level: each gets the top margin of the deepest (a title that
    wraps, key labels set on top), as room above its plot, its title still at the top and its plot its own
    height. Changes the figures given (just built, not drawn yet) and returns them."""
    figs = list(figs)
    top = max((f.layout.margin.t or 0 for f in figs), default=0)
    for fig in figs:
        room = top - (fig.layout.margin.t or 0)
        if room:
            fig.update_layout(height=fig.layout.height + room, margin_t=top)
    return figs


def _drawn_px(width_px: float, style: Style) -> float:
    """How wide a chart of ``width_px`` (at 1280 px, sidebar open) is drawn in this style."""
    return width_px * (PRESENT_SCALE if style.present else 1.0)


def _layout(style: Style, title: str, height: int, width_px: float = FULL_PX, **extra: Any) -> dict[str, Any]:
    """The layout every figure shares (template, title wrapped to ``width_px``, fonts, height, margins),
    plus `extra` keys."""
    head, more = _title(title, style, _drawn_px(width_px, style))
    layout: dict[str, Any] = {
        "template": template_of(style),
        "title": head,
        "font": {"size": style.font},
        "height": int(height + more),
        "margin": {"l": 10, "r": 10, "t": int(30 + style.title_font * 2 + more), "b": 10},
        "hoverlabel": {"font": {"size": style.font}},
    }
    layout.update(extra)
    if style.present:  # axis text readable from the back row (the theme's own is 12/14 px, for a laptop)
        for name in [k for k in layout if k.startswith(("xaxis", "yaxis"))]:
            axis = dict(layout.get(name, {}))
            axis["tickfont"] = {"size": PRESENT_TICK_PX, **axis.get("tickfont", {})}
            title = axis.get("title")
            if title:
                title = {"text": title} if isinstance(title, str) else dict(title)
                title["font"] = {"size": PRESENT_TICK_PX, **title.get("font", {})}
                axis["title"] = title
            layout[name] = axis
    return layout


def _height(rows: int, style: Style, extra: int = 140) -> int:
    """A heatmap's height for its rows: at most 1100 px; while presenting PRESENT_CHART_PX, or as much as
    every row label needs at the smallest presenting font (a long sentence takes more than one screen)."""
    if style.present:
        return int(
            min(extra + rows * style.cell_px, max(PRESENT_CHART_PX, 220 + rows * (_min_font(style) + 4)))
        )
    return int(min(extra + rows * style.cell_px, 1100))


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
    groups: Sequence[str] = (),
    width_px: int = FULL_PX,
    keep_rows: Sequence[int] = (),
    keep_cols: Sequence[int] = (),
    height_px: int | None = None,
    nonneg: bool = False,
) -> go.Figure:
    """One matrix as a heatmap. z (n_rows, n_cols); masked (n_rows, n_cols) True = a grey cell marked "0" on a
    weights chart (the weight the softmax gives it), "-inf" on any other (the score the mask writes).

    weights=True: a sequential scale, fitted to the finite values (style.fit_weights, the range written on
    the colour bar) or fixed 0..1. Otherwise a diverging scale centred on 0 (or `zrange`, e.g. one range
    shared by several charts); nonneg=True (values >= 0, e.g. a ReLU's output): the diverging scale's upper
    half over 0..max, so the colour bar holds no negative values.
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
    z = np.asarray(z, dtype=np.float64)
    n_rows, n_cols = z.shape
    shown = z.copy()
    if masked is not None and masked.any():
        shown[masked] = np.nan
    finite = shown[np.isfinite(shown)]
    colorbar: dict[str, Any] = {"thickness": 14, "tickfont": {"size": style.font}}
    if weights:
        zmin, zmax = weight_range(finite, style)
        zmid, scale = None, style.sequential
        colorbar.update(_range_note(zmin, zmax, style))
    elif zrange is not None:
        zmin, zmax, zmid, scale = zrange[0], zrange[1], None, style.diverging
    elif nonneg:
        zmin, zmax, zmid, scale = (
            0.0,
            float(finite.max()) if finite.size and finite.max() > 0 else 1.0,
            None,
            "",
        )
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
    if masked is not None and masked.any():
        grey = _masked_overlay(masked, weights, style, cell_font, where)
        if small:
            grey["customdata"] = trace["customdata"]
        data.append(grey)
    extra: dict[str, Any] = {"xaxis": xaxis, "yaxis": yaxis, "margin": margin}
    if gap:
        extra["shapes"] = [cell_lines(n_rows, n_cols, gap)]
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
    return _figure(data, _pin_title(_layout(style, title, height, width_px, **extra)))


def mask_matrix(
    blocked: NDArray[np.bool_] | None,
    labels: Sequence[str],
    *,
    mask_title: str,
    style: Style,
    width_px: int = FULL_PX,
    keep_rows: Sequence[int] = (),
    keep_cols: Sequence[int] = (),
) -> go.Figure:
    """The mask M itself (n, n), added to the scores: 0 (white) where a query may attend, -inf (grey) where it
    may not; blocked (n, n) True = may not, None = no mask (no grey cell, and the title says so)."""
    n = len(labels)
    masked = None if blocked is None or not np.asarray(blocked).any() else np.asarray(blocked, dtype=bool)
    title = (
        f"Mask M ({mask_title}): grey −∞ = may not attend"
        if masked is not None
        else f"Mask M ({mask_title}): all 0, nothing masked"
    )
    fig = heatmap(
        np.zeros((n, n)), labels, labels, title=title, style=style, masked=masked, zrange=(-1.0, 1.0),
        digits=0, width_px=width_px, keep_rows=keep_rows, keep_cols=keep_cols,
    )  # fmt: skip
    fig.update_traces(showscale=False, selector=0)  # one value, 0: no colour bar to read
    return fig


def shared_range(*matrices: NDArray[np.float64]) -> tuple[float, float]:
    """One symmetric colour range (-b, b) for several signed matrices drawn side by side, b the largest
    |value| among them: the same number gets the same colour in each (E + P = X can be read off)."""
    finite = [np.abs(m[np.isfinite(m)]) for m in matrices]
    bound = max((float(f.max()) for f in finite if f.size), default=1.0)
    return -(bound or 1.0), bound or 1.0


def weight_range(finite: NDArray[np.float64], style: Style) -> tuple[float, float]:
    """The colour range of weights: 0..1, or fitted to the finite values (style.fit_weights).

    Fitted, a flat row of 30 weights near 1/30 still shows which keys get a little more: 0..1 paints them
    all one colour. A range narrower than 0.01 is widened to 0.01 around its middle (inside 0..1).
    """
    if not style.fit_weights or not finite.size:
        return 0.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    if hi - lo < 0.01:
        mid = min(max((lo + hi) / 2, 0.005), 0.995)
        lo, hi = mid - 0.005, mid + 0.005
    return lo, hi


def _range_note(lo: float, hi: float, style: Style) -> dict[str, Any]:
    """Colour bar ticks at both ends of a fitted range, and its title saying so."""
    if (lo, hi) == (0.0, 1.0):
        return {}
    ticks = np.linspace(lo, hi, 5)
    return {
        "tickmode": "array",
        "tickvals": ticks,
        "ticktext": [f"{t:.3f}" if i in (0, 4) else f"{t:.2f}" for i, t in enumerate(ticks)],
        "title": {"text": "fitted", "font": {"size": style.font}, "side": "top"},
    }


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


def _min_font(style: Style, cell: bool = False) -> int:
    """The smallest text drawn: legible on a laptop, and from the back of a room when presenting."""
    if style.present:
        return 14
    return 9 if cell else 10


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


def _row_sums(sums: NDArray[np.float64], font: float) -> dict[str, Any]:
    """Each row's sum, just right of the plot (x2 is 0..1 across it, y2 the rows): a text trace, drawn in one
    pass (one annotation a row took Plotly half a 64-row chart's redraw). At x = 1, the range's end: Plotly
    hides a point past its axis's range when the trace is not clipped (exported PNGs lost the sums at 1.01);
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


def _pin_title(layout: dict[str, Any]) -> dict[str, Any]:
    """The figure title at the very top, above the margin that holds the axis labels: its first line 8 px
    from the top whether it has one line or several (charts side by side keep their titles level)."""
    title = layout["title"]
    # Plotly draws a title of two or more lines 0.7 em higher than a title of one line (not a line per extra
    # line): its first line went up into the edge. Pad it down by as much.
    shift = 0.7 * title["font"]["size"] if "<br>" in str(title.get("text", "")) else 0.0
    title.update({"yref": "container", "y": 1, "yanchor": "top", "pad": {"t": round(8 + shift)}})
    return layout


def thinned(n: int, step: int, keep: Sequence[int] = ()) -> list[int]:
    """The positions of n that keep a label: every ``step``-th, and every position in ``keep``, whose
    neighbours on the grid closer than ``step`` give way (so no two labels get closer than a step)."""
    ticks = set(range(0, n, max(step, 1)))
    for k in keep:
        if 0 <= k < n and k not in ticks:
            ticks = {t for t in ticks if abs(t - k) >= step or t in keep}
            ticks.add(int(k))
    return sorted(ticks)


def _fit_rows(ems: list[float], space: float, style: Style) -> tuple[int, int]:
    """(font, step) of labels stacked in ``space`` px (one line each): the largest font from style.font
    down to the minimum at which all fit; else the minimum and every step-th."""
    n = max(len(ems), 1)
    for size in range(style.font, _min_font(style) - 1, -1):
        if size + 3 <= space / n:
            return size, 1
    size = _min_font(style)
    return size, label_step(n, space, size)


def _fit_cols(ems: list[float], space: float, style: Style) -> tuple[int, int, int]:
    """(font, angle, step) of labels side by side in ``space`` px: the largest font at which all fit
    upright (up to 24 labels), else at -45 degrees, else at -90; below the minimum font, every step-th at
    -90 degrees."""
    n = max(len(ems), 1)
    each = space / n
    widest = max(ems, default=0.0)
    for size in range(style.font, _min_font(style) - 1, -1):
        if n <= 24 and widest * size + 6 <= each:
            return size, 0, 1
        if (size + 2) * 1.42 <= each:
            return size, -45, 1
        if size + 3 <= each:
            return size, -90, 1
    size = _min_font(style)
    return size, -90, label_step(n, space, size)


def _axes(
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    style: Style,
    x_title: str,
    y_title: str,
    size: tuple[float, float],
    right: float,
    bottom: int = 10,
    keep_rows: Sequence[int] = (),
    keep_cols: Sequence[int] = (),
) -> tuple[dict[str, Any], dict[str, Any], dict[str, int]]:
    """The x (keys, on top) and y (queries, first on top) axes of a heatmap, and the margins that hold them.

    size: (width, height) of the chart in px; right, bottom: the margins right of and under the plot.
    Every label is shown while it fits: query labels at the largest font that gives each row its line, key
    labels at the largest font that fits upright, else at -45, else at -90 degrees (_fit_cols); past the
    smallest font, every k-th label, always with those in keep_rows / keep_cols.
    Margins are computed from the labels' lengths (no automargin: Plotly's measuring pass drew every chart
    twice). From the top: the title (pinned to the top of the figure), the x-axis title, the key labels (one
    line high upright; at -45 degrees width * sin 45 + height * cos 45; at -90 their width), the plot; on the
    left the query labels and the y-axis title.
    """
    n_rows, n_cols = len(row_labels), len(col_labels)
    row_ems = [text_px(r, 1.0) for r in row_labels]
    col_ems = [text_px(c, 1.0) for c in col_labels]
    head = 8 + style.title_font * 1.5 + style.font * 1.4 + 15 + 6  # title and axis title above the labels
    y_font, y_step = _fit_rows(row_ems, size[1] - head - style.font * 3 - bottom, style)
    y_ticks = thinned(n_rows, y_step, keep_rows)
    left = max((row_ems[i] * y_font for i in y_ticks), default=0.0) + 8 + style.font * 1.4 + 15
    plot_w = max(100.0, size[0] - left - right)
    x_font, angle, x_step = _fit_cols(col_ems, plot_w, style)
    x_ticks = thinned(n_cols, x_step, keep_cols)
    x_w = max((col_ems[j] * x_font for j in x_ticks), default=0.0)
    x_depth = {0: x_font * 1.3, -45: (x_w + x_font) * 0.71, -90: x_w + 6}[angle]
    top = head + x_depth
    common = {"showgrid": False, "zeroline": False, "automargin": False, **_TICKS}
    xaxis = {
        "tickmode": "array",
        "tickvals": np.array(x_ticks),
        "ticktext": [esc(col_labels[j]) for j in x_ticks],
        "side": "top",
        "tickangle": angle,
        "title": {"text": x_title, "font": {"size": style.font}},
        "tickfont": {"size": x_font},
        **common,
    }
    yaxis = {
        "tickmode": "array",
        "tickvals": np.array(y_ticks),
        "ticktext": [esc(row_labels[i]) for i in y_ticks],
        "autorange": "reversed",
        "title": {"text": y_title, "font": {"size": style.font}},
        "tickfont": {"size": y_font},
        **common,
    }
    # The right margin is Plotly's to grow for the colour bar; the row sums set theirs (heatmap).
    return xaxis, yaxis, {"l": int(left), "r": 10, "t": int(top), "b": int(bottom)}


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
    """Small multiples of every head's weights (n_heads, n, n) on one colour scale (fitted to every head's
    weights together, or 0..1: style.fit_weights), up to 4 panels a row.

    width_px: as heatmap's. Between two panels there is room for the right panel's query labels; panels are
    square up to ``max_side_px`` high. Labels and cell values are shown as heatmap shows them (all while they
    fit; values only where they fit).
    """
    h, n, _ = weights.shape
    cols = min(h, 4)
    rows = (h + cols - 1) // cols
    lab = [esc(s) for s in labels]
    ems = [text_px(s, 1.0) for s in labels]
    width = _drawn_px(width_px, style)
    colorbar_px = 40 + text_px("0.000", style.font)
    cap = max_side_px or (PRESENT_CHART_PX - 160 if style.present else 420)
    # Panel width with labels at the largest font, then the query labels fitted to the panel's height.
    first_w = max(ems, default=0.0) * style.font + 16
    side = min(cap, max(120.0, (width - first_w - colorbar_px - (cols - 1) * first_w) / cols))
    y_font, y_step = _fit_rows(ems, side, style)
    y_ticks = thinned(n, y_step)
    y_w = max((ems[i] * y_font for i in y_ticks), default=0.0)
    left = y_w + 12
    area = max(200.0, width - left - colorbar_px)
    spacing_px = y_w + 16  # the next panel's query labels
    panel = (area - (cols - 1) * spacing_px) / cols
    side = min(cap, max(120.0, panel))
    x_font, angle, x_step = _fit_cols(ems, panel, style)
    x_ticks = thinned(n, x_step)
    x_w = max((ems[j] * x_font for j in x_ticks), default=0.0)
    x_depth = {0: x_font * 1.3, -45: (x_w + x_font) * 0.71, -90: x_w + 6}[angle]
    above = style.font * 1.6 + x_depth + 16  # a row's subplot titles and key labels
    top = int(style.title_font * 1.6 + 16 + above)
    height = int(top + rows * side + (rows - 1) * above + 10)
    cell_font = cell_text_font(weights[np.isfinite(weights)], 2, (panel / n, side / n), style, "0")
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
    if gap:
        layout["shapes"] = [cell_lines(n, n, gap, data[i]["xaxis"], data[i]["yaxis"]) for i in range(h)]
    return _figure(data, layout)


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
    width_px: int = FULL_PX,
) -> go.Figure:
    """Curves ys (m, k) over x (m,), one per name; optional markers (p,), (p, k) on the same curves.

    Log axes label their ticks with whole values (log_ticks); the title wraps to width_px (as heatmap's)."""
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
                "line": {
                    "width": 3 if style.present else 2,
                    "dash": (dash[j] if dash else "solid"),
                    "color": KEY_COLOURS[j % len(KEY_COLOURS)],  # one colour per curve, its markers too
                },
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
                    "marker": {
                        "size": 12 if style.present else 8,
                        "color": KEY_COLOURS[j % len(KEY_COLOURS)],
                        "line": {"width": 1, "color": "black"},
                    },
                    "name": esc(name),
                    "hovertemplate": "position %{x}<br>value %{y:.6f}<extra></extra>",
                }
            )
    xaxis: dict[str, Any] = {"title": {"text": esc(x_title)}, "type": "log" if log_x else "linear"}
    yaxis: dict[str, Any] = {"title": {"text": esc(y_title)}, "type": "log" if log_y else "linear"}
    if log_x:
        legend_px = max((text_px(n, style.font) for n in names), default=0.0) + 50 if len(names) > 1 else 0.0
        space = _drawn_px(width_px, style) - 110 - legend_px  # the plot's width: less the margins and legend
        xaxis.update(log_ticks(x, exact=True, space_px=space, font_px=style.font))
    if log_y:
        yaxis.update(log_ticks(ys))
    layout = _layout(
        style,
        title,
        height or (PRESENT_CHART_PX if style.present else 420),
        width_px,
        xaxis=xaxis,
        yaxis=yaxis,
        legend={"font": {"size": style.font}},
    )
    return _figure(data, layout)


def encoding_curves(
    t: NDArray[np.float64],
    curves: NDArray[np.float64],
    pe: NDArray[np.float64],
    dims: Sequence[str],
    *,
    style: Style,
) -> go.Figure:
    """The sinusoidal encoding's first (at most 8) dimensions as curves over ``t``, the sentence's positions
    (rows of ``pe``) marked on them: /positional-encoding's chart and the HTML export's, one builder."""
    shown = min(len(dims), 8)
    return lines(
        t,
        curves[:, :shown],
        dims[:shown],
        style=style,
        x_title="position",
        y_title="value",
        title=f"Encoding curves (first {shown} dimensions), the sentence's positions marked",
        markers_x=np.arange(pe.shape[0]),
        markers_y=pe[:, :shown],
    )


def number(v: float) -> str:
    """A tick label: whole numbers in full (500, 1000, not 5 or 1k), others in short form (0.01)."""
    return f"{int(v)}" if float(v).is_integer() and abs(v) < 1e9 else f"{v:g}"


def log_ticks(
    values: NDArray[np.float64], exact: bool = False, space_px: float = 0.0, font_px: float = 12.0
) -> dict[str, Any]:
    """Ticks of a log axis, each labelled with its whole value (Plotly's own label minor ticks "2" and "5",
    so 500 read as "5"). ``exact``, at most 12 values: the values themselves, every k-th where their labels
    would touch across ``space_px`` (the axis' length; 0: unknown). Otherwise 1, 2, 5 × the powers of ten
    inside the values' range when it spans at most 4 of them (a variance up to 512 gets 200 and 500, not
    only 1, 10, 100), else the powers of ten that span them."""
    v = np.asarray(values, dtype=np.float64)
    v = np.unique(v[np.isfinite(v) & (v > 0)])
    if not v.size:
        return {}
    if exact and v.size <= 12:
        ticks = v
        if space_px and v.size > 1:
            span = max(float(np.log10(v[-1] / v[0])), 1e-9)
            gaps = np.diff(np.log10(v)) / span * space_px  # px between neighbours
            widest = max(text_px(number(t), font_px) for t in v) + 8
            k = 1
            while k < v.size - 1 and float(gaps.min()) * k < widest:
                k += 1
            ticks = v[::-1][::k][::-1]  # every k-th, counted from the largest (kept at the end)
    else:
        lo, hi = math.floor(math.log10(v.min())), math.ceil(math.log10(v.max()))
        if hi - lo <= 4:
            cands = np.array([m * 10.0**e for e in range(lo, hi + 1) for m in (1, 2, 5)])
            ticks = cands[(cands >= v.min() * 0.999) & (cands <= v.max() * 1.001)]
            if ticks.size < 2:
                ticks = 10.0 ** np.arange(lo, hi + 1)
        else:
            ticks = 10.0 ** np.arange(lo, hi + 1)
    return {"tickmode": "array", "tickvals": ticks, "ticktext": [number(t) for t in ticks]}


def scale_experiment(
    d_ks: NDArray[np.float64], var: Any, sat: Any, n_keys: int, *, style: Style, variance_px: int = FULL_PX
) -> tuple[go.Figure, go.Figure, go.Figure]:
    """The why-scale page's three charts over d_k: the variance of q·k with and without 1/sqrt(d_k) beside
    the theory (var: attention_core.ScoreVariance), the largest softmax weight and the softmax's entropy
    (sat: attention_core.SoftmaxSaturation over n_keys keys)."""
    x = d_ks.astype(float)
    variance = lines(
        x,
        np.column_stack([var.unscaled, var.scaled, d_ks, np.ones_like(d_ks)]),
        ["var(q·k) measured", "var(q·k / √d_k) measured", "d_k (theory)", "1 (theory)"],
        dash=["solid", "solid", "dot", "dot"],
        style=style,
        log_x=True,
        log_y=True,
        x_title="d_k",
        y_title="variance",
        title="Variance of the score q·k of random unit-variance vectors",
        width_px=variance_px,
    )
    peak = lines(
        x,
        np.column_stack([sat.max_weight_unscaled, sat.max_weight_scaled]),
        ["without scale", "with 1/√d_k"],
        style=style,
        log_x=True,
        x_title="d_k",
        y_title="mean largest weight",
        title=f"Largest softmax weight over {n_keys} keys (1/{n_keys} = flat, 1 = all on one key)",
        width_px=HALF_PX,
    )
    entropy = lines(
        x,
        np.column_stack([sat.entropy_unscaled, sat.entropy_scaled, np.full(len(d_ks), sat.max_entropy)]),
        ["without scale", "with 1/√d_k", "flat (log n)"],
        dash=["solid", "solid", "dot"],
        style=style,
        log_x=True,
        x_title="d_k",
        y_title="entropy (nats)",
        title="Entropy of the softmax (0 = one key takes everything)",
        width_px=HALF_PX,
    )
    return variance, peak, entropy


def bar_text(texts: Sequence[str], n_bars: int, width_px: int, style: Style) -> tuple[int, int]:
    """(font px, angle) for the numbers over ``n_bars`` bars of a chart ``width_px`` wide: level while the
    widest fits its bar, else turned upright (-90) while a line of text fits the bar's width; (0, 0): no
    numbers (the hover still has them), never one smaller than the legible minimum."""
    bar_px = (_drawn_px(width_px, style) - 110) / max(n_bars, 1)  # the plot's width less the axis margins
    ems = max((text_px(t, 1.0) for t in texts), default=0.0)
    for size in range(style.cell_font, _min_font(style, cell=True) - 1, -1):
        if ems * size + 4 <= bar_px:
            return size, 0
    size = style.cell_font
    while size >= _min_font(style, cell=True):
        if size + 4 <= bar_px:
            return size, -90
        size -= 1
    return 0, 0


def bars(
    categories: Sequence[str],
    values: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    x_title: str,
    y_title: str,
    y_range: tuple[float, float] | None = None,
    width_px: int = FULL_PX,
) -> go.Figure:
    """One bar per category, its value printed on it. Categories are positions (repeats stay apart).
    width_px: as heatmap's (the title wraps to it)."""
    cats = [esc(c) for c in categories]
    texts = [f"{v:.3f}" for v in values]
    size, angle = bar_text(texts, len(cats), width_px, style)
    bar = {
        "type": "bar",
        "x": np.arange(len(cats)),
        "y": values,
        "text": texts if size else None,
        "textposition": "outside",
        "textangle": angle,
        "constraintext": "none",  # Plotly would shrink a number that does not fit its bar to ~7 px
        "cliponaxis": False,
        "textfont": {"size": size or style.cell_font},
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
    height = PRESENT_CHART_PX if style.present else 380
    return _figure([bar], _layout(style, title, height, width_px, xaxis=xaxis, yaxis=yaxis))


# One colour per key bar, all different and none grey (grey is the "other keys" bar): Paul Tol's colour-blind
# safe "muted" scheme plus three of his "bright" and "vibrant" ones, as many as stacked_contributions draws
# bars of keys (max_keys); Plotly's default cycle repeats after 10.
KEY_COLOURS = (
    "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499",
    "#EE6677", "#4477AA", "#EE7733",
)  # fmt: skip


NOTED_DIMS = 16  # stacked_contributions prints each output's value up to this many dimensions


def stacked_contributions(
    contributions: NDArray[np.float64],
    key_labels: Sequence[str],
    total: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    max_keys: int = 12,
    width_px: int = FULL_PX,
) -> go.Figure:
    """Per output dimension, the stacked contributions a_ij v_j of every key j, and their sum (a marker).
    width_px: as heatmap's (the title wraps to it).

    contributions (n_keys, d_v); total (d_v,) = contributions.sum(axis=0), the query's output row.
    With more than ``max_keys`` keys, the max_keys - 1 keys that contribute most (sum of |a_ij v_j| over the
    dimensions) keep their own bars, in sentence order, and the rest are stacked as one grey "other keys"
    bar: sixty colours cannot be told apart, and a legend of sixty entries took most of a second to draw.
    """
    n_keys, d_v = contributions.shape
    names = dims("v", d_v)
    if n_keys > max_keys:
        strength = np.abs(contributions).sum(axis=1)  # (n_keys,)
        shown = np.sort(np.argsort(-strength, kind="stable")[: max_keys - 1])
    else:
        shown = np.arange(n_keys)
    data: list[dict[str, Any]] = [
        {
            "type": "bar",
            "x": names,
            "y": contributions[j],
            "name": esc(key_labels[j]),
            "marker": {"color": KEY_COLOURS[c % len(KEY_COLOURS)]},
            "hovertemplate": f"{esc(key_labels[j])}<br>%{{x}}: %{{y:.6f}}<extra></extra>",
        }
        for c, j in enumerate(shown)
    ]
    rest = np.setdiff1d(np.arange(n_keys), shown)
    if rest.size:
        name = f"{rest.size} other keys"
        data.append(
            {
                "type": "bar",
                "x": names,
                "y": contributions[rest].sum(axis=0),
                "name": name,
                "marker": {"color": MASKED_GREY},
                "hovertemplate": f"{name} together<br>%{{x}}: %{{y:.6f}}<extra></extra>",
            }
        )
    data.append(
        {
            "type": "scatter",
            "x": names,
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
    # Each sum printed beside its marker on a plain box, so it stays legible over the coloured bars; beyond
    # NOTED_DIMS dimensions (a real layer's 64) the boxes would cover each other and the bars: hover tells.
    notes = [
        {
            "x": names[c], "y": float(t), "text": f"{t:.3f}", "showarrow": False, "xanchor": "left", "xshift": 12,
            "font": {"size": style.cell_font}, "bgcolor": "rgba(17,17,17,0.85)" if style.dark else "rgba(255,255,255,0.85)",
        }
        for c, t in enumerate(total)
        if d_v <= NOTED_DIMS
    ]  # fmt: skip
    layout = _layout(
        style,
        title,
        PRESENT_CHART_PX if style.present else 440,
        width_px,
        barmode="relative",
        legend={"font": {"size": style.font}},
        xaxis={},
        yaxis={"title": {"text": "contribution aᵢⱼ · vⱼ"}, "zeroline": True, "zerolinewidth": 2},
        annotations=notes,
    )
    return _figure(data, layout)
