"""Pure Plotly builders for /logit-lens and /induction: arrays and labels in, a Drawn out (the figure with
its words and tables, views.drawn).

The logit lens is a grid of layers (rows, the embeddings on top) by positions (columns, the sentence's
tokens): each cell is coloured by the probability of the token the model would predict there if it stopped
after that layer, on the fixed 0..1 scale of a probability, and shows that token where it fits; its hover
lists the top five. A followed token's probability through the layers is a line. The induction page draws
the best head's weights with its stripe and the loss per position on the two copies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from explorer.i18n import _
from explorer.views import describe
from explorer.views.axes import _axes
from explorer.views.bars import KEY_COLOURS
from explorer.views.curves import curves_of
from explorer.views.drawn import Drawn
from explorer.views.model_figures import show_token
from explorer.views.style import (
    FULL_PX,
    PRESENT_CHART_PX,
    PRESENT_SCALE,
    Style,
    _colorscale,
    _figure,
    _layout,
    _pin_title,
    _title,
    esc,
    text_px,
)

TOKEN_CHARS = 10  # a cell's token is cut to this many characters (the hover has it whole)


def layer_names(n_layers: int) -> list[str]:
    """The lens's row names: "embeddings", then "layer 1" .. "layer L" (the stream after that layer)."""
    return [_("embeddings")] + [_("layer {n}", n=layer) for layer in range(1, n_layers + 1)]


def _cut(token: str) -> str:
    shown = show_token(token)
    return shown if len(shown) <= TOKEN_CHARS else shown[: TOKEN_CHARS - 1] + "…"


def lens_grid(
    ids: NDArray[np.int64],
    probs: NDArray[np.float64],
    words: Mapping[int, str],
    tokens: Sequence[str],
    *,
    rows: Sequence[int],
    style: Style,
    title: str,
    width_px: int = FULL_PX,
) -> Drawn:
    """The logit lens as a heatmap: ids, probs (L + 1, n, k) top tokens most probable first; words: id ->
    display string; tokens: the n column labels (unique); rows: which of the L + 1 rows to draw, top first.
    z is the top token's probability, the cell text its token (drawn where it fits), the hover the top k."""
    rows = list(rows)
    top_ids, top_p = ids[rows, :, 0], probs[rows, :, 0]  # (R, n)
    names = [layer_names(ids.shape[0] - 1)[r] for r in rows]
    n = len(tokens)
    hover = np.empty(top_p.shape, dtype=object)
    for a, r in enumerate(rows):
        for i in range(n):
            lines = [f"{j + 1}. “{esc(show_token(words[int(t)]))}” {p:.3f}" for j, (t, p) in
                     enumerate(zip(ids[r, i], probs[r, i], strict=True))]  # fmt: skip
            hover[a, i] = (
                _("{row}, after “{token}”", row=names[a], token=esc(tokens[i])) + "<br>" + "<br>".join(lines)
            )
    cut = [[_cut(words[int(t)]) for t in row] for row in top_ids]
    text = np.array([[esc(t) for t in row] for row in cut], dtype=object)
    height = PRESENT_CHART_PX if style.present else int(min(140 + len(rows) * 30, 1100))
    width = width_px * (PRESENT_SCALE if style.present else 1.0)
    right = 40 + text_px("0.00", style.font) + 30
    xaxis, yaxis, margin = _axes(names, list(tokens), style, _("after the token"), _("read after"),
                                 (width, height), right)  # fmt: skip
    xaxis["title"]["text"] = _("position: the prediction after this token")
    cell_w = (width - margin["l"] - right) / max(n, 1)
    cell_h = (height - margin["t"] - margin["b"]) / max(len(rows), 1)
    widest = max((text_px(t, 1.0) for row in cut for t in row), default=1.0)
    font = int(min(style.cell_font, (cell_w - 4) / max(widest, 0.1), cell_h * 0.75))
    trace: dict[str, Any] = {
        "type": "heatmap", "z": top_p, "x": np.arange(n), "y": np.arange(len(rows)), "zmin": 0.0, "zmax": 1.0,
        "colorscale": _colorscale(style.sequential), "customdata": hover,
        "hovertemplate": "%{customdata}<extra></extra>",
        "colorbar": {"thickness": 14, "tickfont": {"size": style.font},
                     "title": {"text": _("p(top)"), "font": {"size": style.font}}},
    }  # fmt: skip
    readable = font >= (14 if style.present else 9)
    if readable:  # the token where it can be read, else only in the hover
        trace.update(text=text, texttemplate="%{text}", textfont={"size": font})
    layout = _layout(style, title, height, width_px, xaxis=xaxis, yaxis=yaxis, margin=margin)
    layout["margin"]["t"] += int(_title(title, style, width)[1])
    layout["meta"] = {"rows": rows}
    labels = describe.Labels(describe.tick_names(yaxis, len(rows)) or [str(i) for i in range(len(rows))],
                             describe.tick_names(xaxis, n) or [str(j) for j in range(n)],
                             describe.plain(yaxis["title"]["text"]) or "row")  # fmt: skip
    return describe.drawn_with(
        _figure([trace], _pin_title(layout)),
        title,
        describe.cells_text,
        top_p,
        labels,
        text=[[describe.plain(t) for t in row] for row in text] if readable else None,
    )


def follow_line(
    token_probs: NDArray[np.float64],
    top_probs: NDArray[np.float64],
    top_words: Sequence[str],
    token: str,
    *,
    style: Style,
    title: str,
    log: bool = False,
    wins_from: int | None = None,
) -> Drawn:
    """A followed token's probability after each layer (L + 1 values, the embeddings first), beside the
    probability of that layer's top token (dashed; its hover names it); wins_from: the row from which the
    followed token stays the top one (a dotted vertical line)."""
    x = np.arange(len(token_probs))
    width = 3 if style.present else 2
    shown = esc(show_token(token))
    data = [
        {"type": "scatter", "x": x, "y": np.asarray(top_probs), "mode": "lines", "name": _("the top token"),
         "line": {"width": width, "dash": "dash", "color": "#888888"},
         "customdata": [esc(show_token(w)) for w in top_words],
         "hovertemplate": _("after layer {layer}: top “{token}” {p}", layer="%{x}", token="%{customdata}", p="%{y:.4f}")
         + "<extra></extra>"},
        {"type": "scatter", "x": x, "y": np.asarray(token_probs), "mode": "lines+markers",
         "name": f"“{shown}”", "line": {"width": width + 1, "color": KEY_COLOURS[0]},
         "marker": {"size": 9 if style.present else 6},
         "hovertemplate": _("after layer {layer}: “{token}” {p}", layer="%{x}", token=shown, p="%{y:.6f}")
         + "<extra></extra>"},
    ]  # fmt: skip
    shapes = []
    if wins_from is not None:
        shapes.append({"type": "line", "xref": "x", "yref": "paper", "x0": wins_from, "x1": wins_from,
                       "y0": 0, "y1": 1, "line": {"dash": "dot", "width": 2, "color": KEY_COLOURS[6]}})  # fmt: skip
    yaxis: dict[str, Any] = {"title": {"text": _("probability")}}
    if log:
        yaxis.update(type="log", exponentformat="power")
    else:
        yaxis["range"] = [0, 1.02]
    layout = _layout(
        style, title, PRESENT_CHART_PX if style.present else 380,
        xaxis={"title": {"text": _("after layer (0: the embeddings)")}, "dtick": 2 if len(x) > 16 else 1},
        yaxis=yaxis, shapes=shapes, legend={"font": {"size": style.font}, "orientation": "h", "y": -0.2},
    )  # fmt: skip
    return curves_of(data, layout, title)


def with_stripe(fig: Any, n: int, style: Style) -> Any:
    """A (2n, 2n) weights heatmap of a repeated run with its induction stripe framed: the cells (n + j, j + 1),
    j = 0..n-1 (the key just after the query's token last time), between two dashed lines a cell to each side
    of it (over the cells, a line would hide them). Changes `fig`."""
    line = {"dash": "dash", "width": 3 if style.present else 2, "color": "#ff6e54"}
    sides = [
        {"type": "line", "xref": "x", "yref": "y", "x0": 1 + d, "y0": n, "x1": n + d, "y1": 2 * n - 1,
         "line": line}
        for d in (-1.5, 1.5)
    ]  # fmt: skip
    fig.layout.shapes = (*fig.layout.shapes, *sides)
    return fig


def loss_lines(
    losses: NDArray[np.float64],
    n: int,
    *,
    style: Style,
    title: str,
    every_head_on: NDArray[np.float64] | None = None,
    height_px: int | None = None,
) -> Drawn:
    """The loss of predicting each token, first copy against second, by position in its copy: losses (2n - 1,)
    with losses[i] the loss of token i + 1 (the first copy's token 0 has none: it starts the text).
    every_head_on: the same run's losses (2n - 1,) with no head switched off, when some are: its second copy
    drawn dashed beside it (the copy the switched-off heads made). height_px: the chart's (default: the
    style's)."""
    x = np.arange(n)
    first = np.concatenate([[np.nan], losses[: n - 1]])  # tokens 1..n-1 of the first copy
    second = losses[n - 1 :]  # tokens 0..n-1 of the second copy
    width = 3 if style.present else 2
    lines = [
        (first, _("first copy"), KEY_COLOURS[6], "solid"),
        (second, _("second copy"), KEY_COLOURS[2], "solid"),
    ]
    if every_head_on is not None:
        lines[1] = (second, _("second copy, heads off"), KEY_COLOURS[2], "solid")
        lines.append((every_head_on[n - 1 :], _("second copy, every head on"), KEY_COLOURS[0], "dash"))
    data = [
        {"type": "scatter", "x": x, "y": y, "mode": "lines+markers", "name": name,
         "line": {"width": width, "color": color, "dash": dash}, "marker": {"size": 8 if style.present else 5},
         "hovertemplate": _("{line}, token {token}: {loss} nats", line=name, token="%{x}", loss="%{y:.3f}")
         + "<extra></extra>"}
        for y, name, color, dash in lines
    ]  # fmt: skip
    layout = _layout(
        style, title, height_px or (PRESENT_CHART_PX if style.present else 360),
        xaxis={"title": {"text": _("token of the copy (0 = its first)")}},
        yaxis={"title": {"text": _("loss (nats): −log p(token)")}, "rangemode": "tozero"},
        legend={"font": {"size": style.font}, "orientation": "h", "y": -0.22},
    )  # fmt: skip
    return curves_of(data, layout, title)
