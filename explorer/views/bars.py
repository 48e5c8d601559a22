"""Bar charts: the next-token probabilities and a token's output as stacked contributions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from plotly.colors import sample_colorscale

from explorer.i18n import _, ngettext
from explorer.views import describe
from explorer.views.drawn import Drawn, figure_only
from explorer.views.style import (
    _TICKS,
    FULL_PX,
    PRESENT_CHART_PX,
    Style,
    _drawn_px,
    _figure,
    _layout,
    _min_font,
    dims,
    esc,
    text_px,
)


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


def drawn_bars(
    categories: Sequence[str],
    values: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    x_title: str,
    y_title: str,
    y_range: tuple[float, float] | None = None,
    width_px: int = FULL_PX,
    height_px: int | None = None,
    colours: Sequence[str] | None = None,
) -> Drawn:
    """One bar per category, its value printed on it. Categories are positions (repeats stay apart).
    width_px: as heatmap's (the title wraps to it); height_px: the chart's height (default: the style's).
    colours: one per category (a page that draws each token in its colour: key_colours), else the
    sequential scale at each value (0..1)."""
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
        # ("Invalid color specifier") for every bar on every draw, 0.1 s per chart at 64 tokens. The outline
        # keeps a bar of a pale or dark colour (the scale's ends) visible on the page.
        "marker": {
            "color": list(colours)
            if colours is not None
            else sample_colorscale(style.sequential, np.clip(values, 0.0, 1.0).tolist()),
            "line": {"color": style.edge, "width": 1},
        },
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
    height = height_px or (PRESENT_CHART_PX if style.present else 380)
    fig = _figure([bar], _layout(style, title, height, width_px, xaxis=xaxis, yaxis=yaxis))
    one = describe.Series("", [describe.said(c) for c in categories], np.asarray(values, dtype=np.float64),
                          texts if size else None)  # fmt: skip
    return describe.drawn_bars(fig, title, x_title, [one])


# One colour per key bar and per curve, all different and none grey (grey is the "other keys" bar), as many
# as stacked_contributions draws bars of keys (max_keys). Each has 3:1 contrast against both themes'
# backgrounds, so a line shows in light and dark; in that band of lightness, each next colour is the one
# farthest (CIEDE2000) from those before it with normal vision and with simulated protanopia, deuteranopia
# and tritanopia: benchmarks/colour_check.py --derive picks them, tests/app/views/test_colour.py checks them.
# The "other keys" bar: a grey with 3:1 contrast against both themes' backgrounds (3.5:1 on white, 5.3:1
# on the dark page), as KEY_COLOURS.
OTHER_GREY = "#888888"
KEY_COLOURS = (
    "#005AFF", "#E17800", "#964B69", "#C31E00", "#1EA578", "#B478A5", "#4B784B", "#695A96", "#9687E1",
    "#E13C5A", "#0F8787", "#C35A87",
)  # fmt: skip


NOTED_DIMS = 16  # stacked_contributions prints each output's value up to this many dimensions


def kept_keys(contributions: NDArray[np.float64], max_keys: int = 12) -> NDArray[np.intp]:
    """The keys stacked_contributions draws in their own colours, in sentence order: every key up to
    ``max_keys``, else the max_keys - 1 that contribute most (sum of |a_ij v_j| over the dimensions)."""
    n_keys = contributions.shape[0]
    if n_keys <= max_keys:
        return np.arange(n_keys)
    strength = np.abs(contributions).sum(axis=1)  # (n_keys,)
    return np.sort(np.argsort(-strength, kind="stable")[: max_keys - 1])


def key_colours(contributions: NDArray[np.float64], max_keys: int = 12) -> list[str]:
    """Each key's colour in stacked_contributions of these contributions (n_keys, d_v): a kept key its own,
    the others the grey of "other keys". A page that draws the keys in another chart too colours them so:
    one colour per token across the page."""
    out = [OTHER_GREY] * contributions.shape[0]
    for c, j in enumerate(kept_keys(contributions, max_keys)):
        out[int(j)] = KEY_COLOURS[c % len(KEY_COLOURS)]
    return out


def _stacked_bars(
    contributions: NDArray[np.float64],
    key_labels: Sequence[str],
    names: list[str],
    colour: list[str],
    shown: NDArray[np.intp],
    rest: NDArray[np.intp],
) -> list[dict[str, Any]]:
    """A bar trace per kept key (`shown`, in its colour) over the dimensions `names`, then one grey bar of the
    `rest` together."""
    data: list[dict[str, Any]] = [
        {"type": "bar", "x": names, "y": contributions[j], "name": esc(key_labels[j]), "marker": {"color": colour[j]},
         "hovertemplate": f"{esc(key_labels[j])}<br>%{{x}}: %{{y:.6f}}<extra></extra>"}
        for j in shown
    ]  # fmt: skip
    if rest.size:
        name = ngettext("{n} other key", "{n} other keys", int(rest.size))
        data.append(
            {"type": "bar", "x": names, "y": contributions[rest].sum(axis=0), "name": name,
             "marker": {"color": OTHER_GREY}, "hovertemplate": _("{keys} together", keys=name) + "<br>%{x}: %{y:.6f}<extra></extra>"}
        )  # fmt: skip
    return data


def drawn_stacked_contributions(
    contributions: NDArray[np.float64],
    key_labels: Sequence[str],
    total: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    max_keys: int = 12,
    width_px: int = FULL_PX,
    height_px: int | None = None,
) -> Drawn:
    """Per output dimension, the stacked contributions a_ij v_j of every key j, and their sum (a marker).
    width_px: as heatmap's (the title wraps to it); height_px: the chart's height (default: the style's).

    contributions (n_keys, d_v); total (d_v,) = contributions.sum(axis=0), the query's output row.
    With more than ``max_keys`` keys, the max_keys - 1 keys that contribute most (sum of |a_ij v_j| over the
    dimensions) keep their own bars, in sentence order, and the rest are stacked as one grey "other keys"
    bar: sixty colours cannot be told apart, and a legend of sixty entries took most of a second to draw.
    """
    n_keys, d_v = contributions.shape
    names = dims("v", d_v)
    shown = kept_keys(contributions, max_keys)
    rest = np.setdiff1d(np.arange(n_keys), shown)
    data = _stacked_bars(contributions, key_labels, names, key_colours(contributions, max_keys), shown, rest)
    data.append(
        {
            "type": "scatter", "x": names, "y": total, "mode": "markers", "name": _("output (sum)"),
            "marker": {"symbol": "diamond", "size": 16 if style.present else 11, "color": "black",
                       "line": {"width": 2, "color": "white"}},
            "hovertemplate": _("output {dimension}: {value}", dimension="%{x}", value="%{y:.6f}") + "<extra></extra>",
        }
    )  # fmt: skip
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
        height_px or (PRESENT_CHART_PX if style.present else 440),
        width_px,
        barmode="relative",
        legend={"font": {"size": style.font}},
        xaxis={},
        yaxis={"title": {"text": _("contribution aᵢⱼ · vⱼ")}, "zeroline": True, "zerolinewidth": 2},
        annotations=notes,
    )
    parts = [describe.Series(describe.said(key_labels[j]), names, np.asarray(contributions[j], dtype=np.float64))
             for j in shown]  # fmt: skip
    if rest.size:
        parts.append(describe.Series(ngettext("{n} other key", "{n} other keys", int(rest.size)), names,
                                     contributions[rest].sum(axis=0)))  # fmt: skip
    parts.append(describe.Series(_("output (sum)"), names, np.asarray(total, dtype=np.float64), bar=False))
    return describe.drawn_bars(_figure(data, layout), title, "", parts)


bars = figure_only(drawn_bars)  # the figure alone


stacked_contributions = figure_only(drawn_stacked_contributions)  # the figure alone
