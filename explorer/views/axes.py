"""A heatmap's axes: tick labels fitted to the width (the largest font that fits, upright, at -45 or -90
degrees, else every k-th label) and the margins that hold them, shared by the heatmap, the head grid and the
logit lens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from explorer.views.style import _TICKS, Style, _min_font, esc, label_step, text_px


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
    -90 degrees. Presenting, labels upright at any font down to the minimum come first: a projector's
    minimum is read from the back of a room, and upright labels leave the rows a screen's height."""
    n = max(len(ems), 1)
    each = space / n
    widest = max(ems, default=0.0)
    if style.present and n <= 24:
        for size in range(style.font, _min_font(style) - 1, -1):
            if widest * size + 6 <= each:
                return size, 0, 1
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
    if y_step > 1:  # fitted to a guess of the key labels' depth: again, to their own
        y_font, y_ticks = _refit_rows(row_ems, (y_font, y_step, y_ticks), size[1] - top - bottom, style,
                                      (left, plot_w), keep_rows)  # fmt: skip
    common = {"showgrid": False, "zeroline": False, "automargin": False, **_TICKS}
    xaxis = {"tickmode": "array", "tickvals": np.array(x_ticks), "ticktext": [esc(col_labels[j]) for j in x_ticks],
             "side": "top", "tickangle": angle, "title": {"text": x_title, "font": {"size": style.font}},
             "tickfont": {"size": x_font}, **common}  # fmt: skip
    yaxis = {"tickmode": "array", "tickvals": np.array(y_ticks), "ticktext": [esc(row_labels[i]) for i in y_ticks],
             "autorange": "reversed", "title": {"text": y_title, "font": {"size": style.font}},
             "tickfont": {"size": y_font}, **common}  # fmt: skip
    # The right margin is Plotly's to grow for the colour bar; the row sums set theirs (heatmap).
    return xaxis, yaxis, {"l": int(left), "r": 10, "t": int(top), "b": int(bottom)}


def _refit_rows(
    row_ems: list[float],
    fitted: tuple[int, int, list[int]],
    space: float,
    style: Style,
    widths: tuple[float, float],
    keep_rows: Sequence[int],
) -> tuple[int, list[int]]:
    """The query labels fitted again to the rows' own `space` (px, under the key labels as drawn): their
    (font, ticks), more of them where they then take at most 5% more of the plot's width (left margin,
    plot width: `widths`); else as `fitted` (font, step, ticks)."""
    y_font, y_step, y_ticks = fitted
    left, plot_w = widths
    font, step = _fit_rows(row_ems, space, style)
    wider = max((row_ems[i] * font for i in thinned(len(row_ems), step, keep_rows)), default=0.0) + 8
    if step < y_step and wider + style.font * 1.4 + 15 - left <= 0.05 * plot_w:
        return font, thinned(len(row_ems), step, keep_rows)
    return y_font, y_ticks
