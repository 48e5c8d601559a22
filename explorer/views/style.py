"""How every figure looks: sizes, palettes, the Style a page passes, fonts, titles, layouts and the
template. Pure Plotly, no Streamlit; the builders (heatmap, grid, curves, bars) read it."""

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
from plotly.colors import sample_colorscale

from explorer.i18n import N_

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

# Colour-blind-safe pairs (sequential for weights, diverging for signed values): under a simulated
# protanopia, deuteranopia and tritanopia each scale's steps stay apart and a diverging scale's two signs
# stay apart (tests/app/views/test_colour.py).
PALETTES: dict[str, tuple[str, str, str]] = {
    # name: (sequential, diverging, description)
    # (the description fits the sidebar's select box: the scales' names are in its help)
    "default": ("Viridis", "RdBu_r", N_("Colour-blind safe")),
    "projector": ("Cividis", "PuOr_r", N_("Washed-out projector")),
    "warm": ("Inferno", "RdYlBu_r", N_("Strong contrast")),
    "grey": ("Greys", "PRGn_r", N_("Greyscale, for print")),
}


@dataclass(frozen=True)
class Style:
    """How figures look: presentation mode enlarges every text; palette picks the colour scales."""

    present: bool = False
    palette: str = "default"
    dark: bool = False
    fit_weights: bool = (
        False  # True: weights coloured over their own range (stated on the colour bar), not 0..1
    )

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
    def edge(self) -> str:
        """The outline of a shape whose fill is a value's colour (a bar coloured as its heatmap cell): the
        axis text's colour (explorer/ui/chart), 3:1 or more against the page in both themes, so a pale or
        dark fill still stands out from the page."""
        return "#e6eaf1" if self.dark else "#5c5f6e"

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
# validating objects (update_layout, make_subplots, a named template) costs tens to hundreds of ms per
# figure, most of a page's rerun. tests/app/views/test_figures.py checks that every builder's output is a valid Plotly figure.
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


# The chart's toolbar (explorer/ui/chart: full screen, download, reset zoom) appears over the top right corner
# on hover: a title's first line ends this far from the right edge, clear of it.
MODEBAR_PX = 86  # its three buttons (about 26 px each) and their padding


def _title(title: str, style: Style, width_px: float) -> tuple[dict[str, Any], float]:
    """The layout title, wrapped to the chart's width (a title is never cut off at the chart's edge, nor
    covered by the toolbar: MODEBAR_PX), and the height its lines after the first add."""
    lines = wrap(title, max(width_px - 30 - MODEBAR_PX, 100.0), style.title_font)
    if len(lines) > 1:  # below the first line the whole width is free again
        lines = lines[:1] + wrap(" ".join(lines[1:]), max(width_px - 30, 100.0), style.title_font)
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


def _pin_title(layout: dict[str, Any]) -> dict[str, Any]:
    """The figure title at the very top, above the margin that holds the axis labels: its first line 8 px
    from the top whether it has one line or several (charts side by side keep their titles level)."""
    title = layout["title"]
    # Plotly draws a title of two or more lines 0.7 em higher than a title of one line (not a line per extra
    # line): its first line went up into the edge. Pad it down by as much.
    shift = 0.7 * title["font"]["size"] if "<br>" in str(title.get("text", "")) else 0.0
    title.update({"yref": "container", "y": 1, "yanchor": "top", "pad": {"t": round(8 + shift)}})
    return layout


def number(v: float) -> str:
    """A tick label: whole numbers in full (500, 1000, not 5 or 1k), others in short form (0.01)."""
    return f"{int(v)}" if float(v).is_integer() and abs(v) < 1e9 else f"{v:g}"


def _min_font(style: Style, cell: bool = False) -> int:
    """The smallest text drawn: legible on a laptop, and from the back of a room when presenting (a label or a
    number smaller is not drawn: every other label is, and the hover tells the rest)."""
    if style.present:
        return PRESENT_TICK_PX
    return 9 if cell else 10
