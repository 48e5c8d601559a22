"""Pure Plotly builders for /minimal-pairs (no Streamlit, no state) and /ablation's occlusion strip.

One query's attention in one layer: the keys as rows (every word's label fits, read across) and the heads as
columns, so each column is one head's weights from the compared word (it sums to 1). In each sentence (one
colour range for both, so a colour means the same weight in each), their difference (a diverging scale
centred on 0), and the heads ranked by how much of their weight moved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from explorer.i18n import N_, _
from explorer.views.drawn import Drawn
from explorer.views.heatmap import Axes, Cells, drawn_heatmap
from explorer.views.model_figures import drawn_value_bars, token_labels
from explorer.views.patching import position_labels, token_strip
from explorer.views.style import FULL_PX, Style


def _heads(n_heads: int) -> list[str]:
    return [str(h + 1) for h in range(n_heads)]


def rows_chart(
    rows: NDArray[np.float64],
    tokens: Sequence[str],
    *,
    title: str,
    style: Style,
    zrange: tuple[float, float],
    width_px: int = FULL_PX,
) -> Drawn:
    """(n_heads, n) one layer's attention from one query, drawn keys x heads (a column per head)."""
    return drawn_heatmap(
        rows.T,
        token_labels(tokens),
        _heads(rows.shape[0]),
        title=title,
        style=style,
        cells=Cells(weights=True, zrange=zrange),
        axes=Axes(x_title=N_("head"), y_title=N_("key"), width_px=width_px),
    )


def difference_chart(
    difference: NDArray[np.float64],
    first: Sequence[str],
    second: Sequence[str],
    *,
    title: str,
    style: Style,
    width_px: int = FULL_PX,
) -> Drawn:
    """(n_heads, n) the second sentence's weights minus the first's, drawn keys x heads; a changed key is
    labelled "first/second". The colours span the largest change both ways: the few cells that move most are
    what the chart is about, not outliers to look past."""
    largest = float(np.abs(difference).max()) or 1.0
    return drawn_heatmap(
        difference.T,
        position_labels(first, second),
        _heads(difference.shape[0]),
        title=title,
        style=style,
        cells=Cells(zrange=(-largest, largest)),
        axes=Axes(x_title=N_("head"), y_title=N_("key"), width_px=width_px),
    )


def moved_names(
    moved: NDArray[np.float64], difference: NDArray[np.float64], tokens: Sequence[str]
) -> list[str]:
    """Each head of a layer, most moved first, with the key that lost most weight and the key that gained most:
    'head 2: “animal” → “street”'."""
    labels = token_labels(tokens)
    order = np.argsort(-moved, kind="stable")
    out = []
    for h in order:
        lost, gained = int(np.argmin(difference[h])), int(np.argmax(difference[h]))
        if moved[h] > 0:
            out.append(
                _("head {n}: “{lost}” → “{gained}”", n=h + 1, lost=labels[lost], gained=labels[gained])
            )
        else:
            out.append(_("head {n}", n=h + 1))
    return out


def moved_bars(
    moved: NDArray[np.float64],
    difference: NDArray[np.float64],
    second: Sequence[str],
    *,
    title: str,
    style: Style,
    width_px: int = FULL_PX,
) -> Drawn:
    """The heads of one layer ranked by the share of their weight that moved (0..1), each named with where the
    weight went from and to (keys of the second sentence)."""
    values = np.sort(np.asarray(moved, dtype=np.float64))[::-1]
    return drawn_value_bars(moved_names(moved, difference, second), values, style=style, title=title,
                      x_title=_("weight moved"), digits=3, width_px=width_px)  # fmt: skip


def no_taller_than(drawn: Drawn, like: Drawn) -> Drawn:
    """``drawn`` with its plot (between its margins) no taller than ``like``'s: two charts side by side end
    level (their tops are levelled by style.level). Changes its figure (just built, not drawn yet)."""

    def plot(f: Any) -> float:
        return float(f.layout.height - (f.layout.margin.t or 0) - (f.layout.margin.b or 0))

    fig = drawn.figure
    extra = plot(fig) - plot(like.figure)
    if extra > 0:
        fig.update_layout(height=int(fig.layout.height - extra))
    return drawn


def similarity_strip(
    tokens: Sequence[str], delta: NDArray[np.float64], *, style: Style, width_px: int = FULL_PX
) -> Drawn:
    """The sentence as coloured tokens: the change in its cosine similarity with the other sentence without each
    token ([CLS] and [SEP], never removed, "kept")."""
    title = _("Which tokens make the two sentences alike: the change in their cosine without each token")
    return token_strip(tokens, delta, title=title, what=_("the cosine changes by"), style=style, digits=3,
                       width_px=width_px)  # fmt: skip
