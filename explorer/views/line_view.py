"""Who attends to whom, as lines: the tokens in two columns, queries on the left and keys on the right, a line
from each query to each key it attends to, thicker and more opaque as its weight grows (BertViz's head view,
drawn from the same weights as the heatmaps). Several heads at once take distinct colours; one token can be
kept alone (its lines only). Pure Plotly: arrays and labels in, a go.Figure out.

A line's width and opacity come from its weight in steps (``LEVELS``): one trace per head and step, its
segments separated by gaps, so 12 heads of 64 tokens are about a hundred traces, not 49,000. Weights below
the first step are not drawn (the page says so); the hover of a token lists its weights exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from explorer.i18n import _
from explorer.views import describe
from explorer.views.bars import KEY_COLOURS
from explorer.views.drawn import Drawn, figure_only
from explorer.views.style import FULL_PX, PRESENT_CHART_PX, Style, _figure, _layout, esc, text_px

LEVELS = (0.02, 0.05, 0.1, 0.2, 0.4, 0.7)  # a weight from LEVELS[s] up to the next is drawn at step s
HOVER_KEYS = 5  # a token's hover lists its strongest weights, per head


def _segments(w: NDArray[np.float64], lo: float, hi: float) -> tuple[list[float | None], list[float | None]]:
    """x, y of the lines (0, i) -> (1, j) for the weights lo <= w[i, j] < hi, separated by None (a gap)."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for i, j in zip(*np.nonzero((w >= lo) & (w < hi)), strict=True):
        xs += [0.0, 1.0, None]
        ys += [float(i), float(j), None]
    return xs, ys


def _hover(w: NDArray[np.float64], heads: Sequence[str], labels: Sequence[str], side: str) -> list[str]:
    """Per token: its strongest weights in every head (a query's row, a key's column), exactly."""
    out = []
    for t, name in enumerate(labels):
        parts = [
            _("query {i}: {token}", i=t, token=esc(name))
            if side == "query"
            else _("key {i}: {token}", i=t, token=esc(name))
        ]
        for h, head in enumerate(heads):
            vec = w[h, t] if side == "query" else w[h, :, t]
            top = np.argsort(-vec, kind="stable")[:HOVER_KEYS]
            other = "key" if side == "query" else "query"
            pairs = ", ".join(
                (_("key {i}", i=int(k)) if other == "key" else _("query {i}", i=int(k)))
                + f" {esc(labels[int(k)])} {vec[k]:.3f}"
                for k in top
                if vec[k] > 0
            )
            parts.append(f"{esc(head)}: {pairs}")
        out.append("<br>".join(parts))
    return out


def _head_lines(
    shown: NDArray[np.float64], heads: Sequence[str], colours: list[int], style: Style
) -> list[dict[str, Any]]:
    """Each head's lines from queries (x = 0) to keys (x = 1), one trace per band of weights (LEVELS: thicker
    and less transparent for more weight), in the head's colour, then its legend entry."""
    thick = 2.5 if style.present else 1.6
    data: list[dict[str, Any]] = []
    for h in range(shown.shape[0]):
        colour = KEY_COLOURS[colours[h] % len(KEY_COLOURS)]
        for s, lo in enumerate(LEVELS):
            hi = LEVELS[s + 1] if s + 1 < len(LEVELS) else 1.01
            xs, ys = _segments(shown[h], lo, hi)
            if not xs:
                continue
            data.append({
                "type": "scatter", "mode": "lines", "x": xs, "y": ys, "hoverinfo": "skip",
                "line": {"color": colour, "width": thick * (1 + s)}, "opacity": min(1.0, 0.25 + 0.15 * s),
                "name": esc(heads[h]), "legendgroup": str(h), "showlegend": False,
            })  # fmt: skip
        data.append({"type": "scatter", "mode": "lines", "x": [None], "y": [None], "name": esc(heads[h]),
                     "legendgroup": str(h), "line": {"color": colour, "width": 4}})  # its legend entry  # fmt: skip
    return data


def drawn_line_view(
    weights: NDArray[np.floating],
    labels: Sequence[str],
    heads: Sequence[str],
    *,
    style: Style,
    title: str,
    focus: tuple[str, int] | None = None,
    colours: Sequence[int] | None = None,
    width_px: int = FULL_PX,
) -> Drawn:
    """weights (m, n, n) of m heads, rows are queries; labels: the n token labels; heads: m names ("head 3");
    focus: ("query", i) or ("key", j) keeps only that token's lines; colours: each head's index into the
    palette (default 0..m-1). layout.meta.lines = [n, the query labels' trace, the key labels' trace]
    (``picked_token``)."""
    w = np.asarray(weights, dtype=np.float64)
    m, n, _n = w.shape
    shown = w.copy()
    if focus is not None:
        side, t = focus
        keep = np.zeros((n, n), dtype=bool)
        keep[(t, slice(None)) if side == "query" else (slice(None), t)] = True
        shown[:, ~keep] = 0.0
    data = _head_lines(shown, heads, list(range(m)) if colours is None else list(colours), style)
    font = style.font
    hovers = {side: _hover(w, heads, labels, side) for side in ("query", "key")}
    for x, side, pos in ((0.0, "query", "middle left"), (1.0, "key", "middle right")):
        data.append({
            "type": "scatter", "mode": "markers+text", "x": [x] * n, "y": list(range(n)),
            "text": [esc(t) for t in labels], "textposition": pos, "textfont": {"size": font},
            "marker": {"size": 10 if style.present else 7, "color": "#888888"}, "showlegend": False,
            "hovertext": hovers[side], "hoverinfo": "text", "name": side,
        })  # fmt: skip
    pad = max((text_px(t, font) for t in labels), default=40.0) + 24
    row = max(font * 1.9, 22.0)
    height = max(PRESENT_CHART_PX if style.present else 260, int(140 + n * row))
    plot_w = width_px * (2.2 if style.present else 1.0)
    span = pad / max(plot_w - 2 * pad, 100.0)  # the labels' share of the x range, each side
    layout = _layout(
        style, title, height, width_px,
        xaxis={"range": [-span - 0.02, 1 + span + 0.02], "visible": False, "fixedrange": True},
        yaxis={"range": [n - 0.5, -0.5], "visible": False, "fixedrange": True},
        legend={"font": {"size": font}, "orientation": "h", "y": -0.02, "yanchor": "top"},
        annotations=[
            {"x": 0, "y": -0.5, "xref": "x", "yref": "y", "text": _("queries"), "showarrow": False, "yanchor": "bottom",
             "xanchor": "right", "font": {"size": font}},
            {"x": 1, "y": -0.5, "xref": "x", "yref": "y", "text": _("keys"), "showarrow": False, "yanchor": "bottom",
             "xanchor": "left", "font": {"size": font}},
        ],
    )  # fmt: skip
    layout["meta"] = {"lines": [n, len(data) - 2, len(data) - 1]}
    layout["showlegend"] = m > 1
    heads_said = [describe.said(h) for h in heads]
    return describe.drawn_line_view(_figure(data, layout), title, n, heads_said, hovers["query"])


def picked_token(fig: Any, click: dict[str, Any] | None) -> tuple[str, int] | None:
    """("query", i) or ("key", j): the token a click on line_view's figure picked (its label or its dot); None
    for anything else."""
    fig = fig.figure if isinstance(fig, Drawn) else fig
    meta = (fig.layout.meta or {}) if hasattr(fig, "layout") else {}
    if not click or "lines" not in meta:
        return None
    n, query_curve, key_curve = (int(v) for v in meta["lines"])
    point = click.get("point")
    if not isinstance(point, int) or not 0 <= point < n:
        return None
    side = {query_curve: "query", key_curve: "key"}.get(int(click.get("curve", -1)))
    return None if side is None else (side, point)


line_view = figure_only(drawn_line_view)  # the figure alone
