"""Line charts: the positional-encoding curves and the why-scale experiment."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from explorer.i18n import _
from explorer.views import describe
from explorer.views.bars import KEY_COLOURS
from explorer.views.drawn import Drawn, figure_only
from explorer.views.style import (
    FULL_PX,
    HALF_PX,
    PRESENT_CHART_PX,
    Style,
    _drawn_px,
    _figure,
    _layout,
    esc,
    number,
    text_px,
)


def drawn_lines(
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
) -> Drawn:
    """Curves ys (m, k) over x (m,), one per name; optional markers (p,), (p, k) on the same curves.

    Log axes label their ticks with whole values (log_ticks); the title wraps to width_px (as heatmap's)."""
    marks = (markers_x, markers_y) if markers_x is not None and markers_y is not None else None
    data = _curve_traces(x, ys, names, style, marks, dash)
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
    return describe.drawn_curves(_figure(data, layout), title, x, ys, [str(n) for n in names],
                                 (str(x_title), str(y_title)), marks)  # fmt: skip


def _curve_traces(
    x: NDArray[np.float64],
    ys: NDArray[np.float64],
    names: Sequence[str],
    style: Style,
    marks: tuple[NDArray[np.float64], NDArray[np.float64]] | None,
    dash: Sequence[str] | None,
) -> list[dict[str, Any]]:
    """A line per curve ys[:, j], one colour each, and its marked points (p,), (p, k) on it where given."""
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
        if marks is not None:
            data.append(
                {
                    "type": "scatter",
                    "x": marks[0],
                    "y": marks[1][:, j],
                    "mode": "markers",
                    "legendgroup": str(j),
                    "showlegend": False,
                    "marker": {
                        "size": 12 if style.present else 8,
                        "color": KEY_COLOURS[j % len(KEY_COLOURS)],
                        "line": {"width": 1, "color": "black"},
                    },
                    "name": esc(name),
                    "hovertemplate": _("position {x}<br>value {y}", x="%{x}", y="%{y:.6f}")
                    + "<extra></extra>",
                }
            )
    return data


def drawn_encoding_curves(
    t: NDArray[np.float64],
    curves: NDArray[np.float64],
    pe: NDArray[np.float64],
    dims: Sequence[str],
    *,
    style: Style,
) -> Drawn:
    """The sinusoidal encoding's first (at most 8) dimensions as curves over ``t``, the sentence's positions
    (rows of ``pe``) marked on them: /positional-encoding's chart and the HTML export's, one builder."""
    shown = min(len(dims), 8)
    return drawn_lines(
        t,
        curves[:, :shown],
        dims[:shown],
        style=style,
        x_title=_("position"),
        y_title=_("value"),
        title=_("Encoding curves (first {n} dimensions), the sentence's positions marked", n=shown),
        markers_x=np.arange(pe.shape[0]),
        markers_y=pe[:, :shown],
    )


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
    """The figures of drawn_scale_experiment (which see)."""
    variance, peak, entropy = drawn_scale_experiment(
        d_ks, var, sat, n_keys, style=style, variance_px=variance_px
    )
    return variance.figure, peak.figure, entropy.figure


def drawn_scale_experiment(
    d_ks: NDArray[np.float64], var: Any, sat: Any, n_keys: int, *, style: Style, variance_px: int = FULL_PX
) -> tuple[Drawn, Drawn, Drawn]:
    """The why-scale page's three charts over d_k: the variance of q·k with and without 1/sqrt(d_k) beside
    the theory (var: attention_core.ScoreVariance), the largest softmax weight and the softmax's entropy
    (sat: attention_core.SoftmaxSaturation over n_keys keys)."""
    x = d_ks.astype(float)
    variance = drawn_lines(
        x,
        np.column_stack([var.unscaled, var.scaled, d_ks, np.ones_like(d_ks)]),
        [_("var(q·k) measured"), _("var(q·k / √d_k) measured"), _("d_k (theory)"), _("1 (theory)")],
        dash=["solid", "solid", "dot", "dot"],
        style=style,
        log_x=True,
        log_y=True,
        x_title="d_k",
        y_title=_("variance"),
        title=_("Variance of the score q·k of random unit-variance vectors"),
        width_px=variance_px,
    )
    peak = drawn_lines(
        x,
        np.column_stack([sat.max_weight_unscaled, sat.max_weight_scaled]),
        [_("without scale"), _("with 1/√d_k")],
        style=style,
        log_x=True,
        x_title="d_k",
        y_title=_("mean largest weight"),
        title=_("Largest softmax weight over {n} keys (1/{n} = flat, 1 = all on one key)", n=n_keys),
        width_px=HALF_PX,
    )
    entropy = drawn_lines(
        x,
        np.column_stack([sat.entropy_unscaled, sat.entropy_scaled, np.full(len(d_ks), sat.max_entropy)]),
        [_("without scale"), _("with 1/√d_k"), _("flat (log n)")],
        dash=["solid", "solid", "dot"],
        style=style,
        log_x=True,
        x_title="d_k",
        y_title=_("spread (entropy)"),
        title=_("How spread out the weights are (entropy: 0 = one key takes everything)"),
        width_px=HALF_PX,
    )
    return variance, peak, entropy


def curves_of(data: list[dict[str, Any]], layout: dict[str, Any], title: str) -> Drawn:
    """A builder's curves, each a trace of its `data` (the dicts it is about to draw, each with its own x),
    handed over with their words and table (describe.lines_text); names and axis titles as plain text."""
    curves = [(np.asarray(t["x"], dtype=np.float64), np.asarray(t["y"], dtype=np.float64)) for t in data]
    names = [describe.plain(t["name"]) for t in data]
    titles = (
        describe.plain(layout["xaxis"]["title"]["text"]),
        describe.plain(layout["yaxis"]["title"]["text"]),
    )
    name = describe.said(title) or "Chart"
    words, tables = describe.lines_text(name, curves, names, titles)
    return Drawn(_figure(data, layout), name, "", words, lambda: tables)


lines = figure_only(drawn_lines)  # the figure alone


encoding_curves = figure_only(drawn_encoding_curves)  # the figure alone
