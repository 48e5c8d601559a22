"""Pure Plotly builders for /patching and the occlusion strip on /next-token (no Streamlit, no state); each
hands over a Drawn (the figure with its words and tables, views.drawn).

The sweeps are signed heatmaps (explorer.views.heatmap): a diverging scale centred on 0 and spanning at least
-1 .. 1, so a restored fraction of 1 has the same colour in every sweep; rows are layers, layer 1 on top.
Each cell's hover says what was patched and its restored fraction.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from explorer.i18n import N_, _
from explorer.views import describe
from explorer.views.drawn import Drawn
from explorer.views.heatmap import Axes, Cells, drawn_heatmap
from explorer.views.model_figures import show_token, token_labels
from explorer.views.style import FULL_PX, Style, _colorscale, _figure, _layout, esc, text_px

HOVER = "%{customdata}<br>restored fraction %{z:.3f}<extra></extra>"
# Presenting: a sweep's height beside /patching's controls, from under the sentence box to the foot of a
# 1080 px screen; each of 30 layers keeps its label at 18 px or more.
PRESENT_SWEEP_PX = 790


def position_labels(clean: Sequence[str], corrupt: Sequence[str]) -> list[str]:
    """The columns of the residual sweep: the clean token, "clean/corrupt" where the two differ."""
    shown = [c if c == k else f"{show_token(c)}/{show_token(k)}" for c, k in zip(clean, corrupt, strict=True)]
    return token_labels(shown)


def _span(restored: NDArray[np.float64]) -> tuple[float, float]:
    finite = restored[np.isfinite(restored)]
    bound = max(1.0, float(np.abs(finite).max()) if finite.size else 1.0)
    return -bound, bound


def _with_hover(drawn: Drawn, cells: NDArray[np.str_], template: str = HOVER) -> Drawn:
    """The heatmap trace with a sentence per cell on hover (what was patched); its words and tables stay."""
    drawn.figure.data[0].customdata = cells
    drawn.figure.data[0].hovertemplate = template
    return drawn


def resid_sweep(
    restored: NDArray[np.float64],
    clean: Sequence[str],
    corrupt: Sequence[str],
    *,
    style: Style,
    width_px: int = FULL_PX,
    height_px: int | None = None,
) -> Drawn:
    """(n_layers, n) restored fractions of the residual stream, layer x position; height_px: the chart's height
    (default: by its rows)."""
    L, n = restored.shape
    cols = position_labels(clean, corrupt)
    rows = [str(i + 1) for i in range(L)]  # under the axis title "layer": narrow, the keys keep the width
    cells = np.empty((L, n), dtype=object)
    for p in range(n):
        what = f"“{show_token(clean[p])}”"
        if clean[p] != corrupt[p]:
            what = _("“{clean}” (clean) in place of “{corrupt}” (corrupt)", clean=show_token(clean[p]),
                     corrupt=show_token(corrupt[p]))  # fmt: skip
        for layer in range(L):
            cells[layer, p] = esc(_("the residual stream entering layer {layer} at position {position}: {what}",
                                    layer=layer + 1, position=p, what=what))  # fmt: skip
    fig = drawn_heatmap(
        restored,
        rows,
        cols,
        title=_("Residual stream: restored fraction"),
        style=style,
        cells=Cells(zrange=_span(restored)),
        axes=Axes(x_title=N_("position"), y_title=N_("layer"), width_px=width_px, height_px=height_px),
    )
    return _with_hover(fig, cells.astype(str))


def head_sweep(
    restored: NDArray[np.float64], *, style: Style, width_px: int = FULL_PX, height_px: int | None = None
) -> Drawn:
    """(n_layers, n_heads) restored fractions of the heads' outputs, layer x head; height_px: the chart's
    height (default: by its rows)."""
    L, H = restored.shape
    rows, cols = [str(i + 1) for i in range(L)], [str(h + 1) for h in range(H)]  # under "layer" and "head"
    cells = np.array(
        [[esc(_("head {head} of layer {layer}: its output (A V, before W_O) at every position, from the clean run",
                 head=h + 1, layer=i + 1)) for h in range(H)] for i in range(L)]
    )  # fmt: skip
    fig = drawn_heatmap(
        restored,
        rows,
        cols,
        title=_("Heads: restored fraction"),
        style=style,
        cells=Cells(zrange=_span(restored)),
        axes=Axes(x_title=N_("head"), y_title=N_("layer"), width_px=width_px, height_px=height_px),
    )
    return _with_hover(fig, cells)


def occlusion_strip(
    tokens: Sequence[str], delta: NDArray[np.float64], target: str, *, style: Style, width_px: int = FULL_PX
) -> Drawn:
    """The sentence as a row of coloured tokens: each token's cell coloured by how p(target) changes when that
    token is removed (diverging, centred on 0), the token and the change written in its cell and on hover."""
    shown = show_token(target)
    title = _(
        "Which tokens matter for “{token}”: the change in its probability without each token", token=shown
    )
    what = _("p({token}) changes by", token=esc(shown))
    return token_strip(tokens, delta, title=title, what=what, style=style, width_px=width_px)


def token_strip(
    tokens: Sequence[str],
    delta: NDArray[np.float64],
    *,
    title: str,
    what: str,
    style: Style,
    digits: int = 2,
    width_px: int = FULL_PX,
) -> Drawn:
    """The sentence as a row of coloured tokens, each cell coloured by its change (diverging, centred on 0),
    the token and the change written in it; NaN is a token that was never removed ("kept", no colour).
    ``what`` (HTML, escaped by the caller) is the hover's words before the number."""
    shown = [show_token(t) for t in tokens]
    z = np.asarray(delta, dtype=np.float64)
    kept = ~np.isfinite(z)
    bound = float(np.abs(z[~kept]).max()) if (~kept).any() else 0.0
    bound = bound or 1.0
    widths = np.array(
        [max(text_px(s, style.cell_font), text_px("+0." + "0" * digits, style.cell_font)) + 14 for s in shown]
    )
    edges = np.concatenate([[0.0], np.cumsum(widths)])  # each token as wide as its text
    # Each cell: the token over its change (a heatmap's texttemplate reads only x, y, z and text), or "kept".
    kept_word = _("kept")
    cells = [
        f"{esc(s)}<br>{kept_word if k else f'{v:+.{digits}f}'}"
        for s, v, k in zip(shown, z, kept, strict=True)
    ]
    hover = [esc(_("“{token}”: kept in every run", token=s)) if k
             else esc(_("without token {i}, “{token}”", i=i, token=s)) + f": {what} {v:+.4f}"
             for i, (s, v, k) in enumerate(zip(shown, z, kept, strict=True))]  # fmt: skip
    trace = {
        "type": "heatmap", "z": np.where(kept, 0.0, z)[None, :], "x": edges, "y": [0.0, 1.0],
        "zmin": -bound, "zmax": bound, "zmid": 0.0, "colorscale": _colorscale(style.diverging),
        "showscale": False, "xgap": 2, "text": np.array([cells]), "texttemplate": "%{text}",
        "textfont": {"size": style.cell_font}, "customdata": np.array([hover]),
        "hovertemplate": "%{customdata}<extra></extra>",
    }  # fmt: skip
    axis = {"visible": False, "fixedrange": True}
    layout = _layout(style, title, int(40 + style.title_font * 2 + 3 * style.cell_font + 24), width_px,
                     xaxis={**axis, "range": [0, float(edges[-1])]}, yaxis={**axis, "range": [0, 1]})  # fmt: skip
    # Its table: a column per token, named as its cell reads ("cat -0.20"), the change to two decimals.
    labels = describe.Labels(["0"], [describe.plain(c) for c in cells])
    return describe.drawn_with(_figure([trace], layout), title, describe.cells_text, trace["z"], labels)


def _normalised(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """z / max |z| (z itself when it is all 0)."""
    top = float(np.abs(z).max())
    return z / top if top > 0 else z


def token_views(
    tokens: Sequence[str],
    rows: Sequence[tuple[str, NDArray[np.float64]]],
    *,
    style: Style,
    width_px: int = FULL_PX,
) -> Drawn:
    """Views that give each input token a number, one row each, every row divided by its own largest |value|
    (so 1 is each view's most important token); the hover gives the value before dividing."""
    z = np.stack([_normalised(np.asarray(v, dtype=np.float64)) for _, v in rows])  # (views, n)
    cols = token_labels(tokens)
    names = [name for name, _ in rows]
    fig = drawn_heatmap(
        z,
        names,
        cols,
        title=_("Which tokens matter: each view divided by its largest value"),
        style=style,
        cells=Cells(zrange=(-1.0, 1.0)),
        axes=Axes(
            x_title=N_("token"),
            y_title=N_("view"),
            width_px=width_px,
            height_px=int(150 + len(rows) * style.cell_px),
        ),
    )
    cells = np.array(
        [
            [esc(f"{name}, “{show_token(t)}”: {float(v[j]):.4g}") for j, t in enumerate(tokens)]
            for name, v in rows
        ]
    )
    return _with_hover(
        fig, cells, "%{customdata}<br>" + _("of its largest: {share}", share="%{z:.3f}") + "<extra></extra>"
    )


def head_view(
    z: NDArray[np.float64], title: str, what: str, *, style: Style, width_px: int = FULL_PX
) -> Drawn:
    """An (n_layers, n_heads) view divided by its largest |value|; the hover gives the value before dividing."""
    L, H = z.shape
    rows, cols = [_("layer {n}", n=i + 1) for i in range(L)], [str(h + 1) for h in range(H)]
    fig = drawn_heatmap(
        _normalised(z),
        rows,
        cols,
        title=title,
        style=style,
        cells=Cells(zrange=(-1.0, 1.0)),
        axes=Axes(x_title=N_("head"), y_title=N_("layer"), width_px=width_px),
    )
    cells = np.array(
        [[esc(_("head {head} of layer {layer}: {what} {value:.4g}", head=h + 1, layer=i + 1, what=what,
                 value=float(z[i, h]))) for h in range(H)] for i in range(L)]
    )  # fmt: skip
    return _with_hover(
        fig, cells, "%{customdata}<br>" + _("of the largest: {share}", share="%{z:.3f}") + "<extra></extra>"
    )
