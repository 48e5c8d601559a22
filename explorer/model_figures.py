"""Pure Plotly builders for the real-model pages: arrays and labels in, a go.Figure out (no Streamlit, no state).

The grid of every layer and head is ONE figure, not 72 or 270 charts: one heatmap trace per layer (its
heads side by side, a few empty columns apart) plus one text trace for the head labels, on categorical axes
whose category names say where a cell is ("layer 3 · query 4 it", "head 6 · key 1 the"), so the hover names
every cell without sending a label per cell. Rows are queries, columns are keys, first token on top, on the
fixed 0..1 scale of every attention heatmap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from plotly.colors import sample_colorscale

from attention_core import token_labels as unique_labels
from explorer.figures import MASKED_GREY, Style, _colorscale, _figure, _layout, esc, text_px
from explorer.pipeline import short

# What a head's label is called in the grid, where a panel is 80-200 px wide (the rule names of
# attention_core.analysis.HEAD_RULES, plus "broad" and "mixed").
SHORT_LABELS: dict[str, str] = {
    "previous": "← previous",
    "next": "next →",
    "self": "itself",
    "same_word": "same word",
    "cls": "[CLS]",
    "sep": "[SEP]",
    "first": "first token",
    "broad": "broad",
    "mixed": "mixed",
}


def show_token(token: str) -> str:
    """A token as shown on the model pages: a leading space (a new word in byte-level BPE) as "␣"."""
    return "␣" + token[1:] if token.startswith(" ") else token


def token_labels(tokens: Sequence[str]) -> list[str]:
    """The model pages' tick labels: shown tokens (``show_token``), cut like the toy's (pipeline.short), and
    made unique like the toy's (a repeated token gets " ·i", its position)."""
    return unique_labels([short(show_token(t)) for t in tokens])


GRID_CELLS = 200_000  # weights drawn in the grid at most: about 1 MB sent, drawn in well under a second


def grid_tokens(n_layers: int, n_heads: int, n: int) -> int:
    """How many tokens the grid shows: all n, or the first m with n_layers * n_heads * m * m <= GRID_CELLS
    (MiniLM: 52, SmolLM2: 27); the single-head pages show every token."""
    return min(n, max(2, math.isqrt(GRID_CELLS // (n_layers * n_heads))))


def _grid_geometry(L: int, H: int, n: int, style: Style, width_px: int) -> dict[str, Any]:
    """Sizes of the grid in px (panels, the label band above each layer's row, margins) and the number of
    empty columns between heads (about 5 px)."""
    left, right, top = (110 if style.present else 80), 70, int(2.2 * style.title_font + 2 * style.font)
    panel_w = max(40.0, (width_px - left - right) / H * 0.92)
    panel_h = float(min(max(panel_w * 0.75, 70), 160 if style.present else 120))
    font = max(10, min(style.font, int(panel_w / (11 * 0.6))))  # "first token" fits the panel
    band = font * 1.7
    gap = max(1, math.ceil(5 / (panel_w / n)))
    plot_h = L * (band + panel_h)
    return {"left": left, "right": right, "top": top, "panel_h": panel_h, "font": font, "band": band,
            "gap": gap, "plot_h": plot_h, "height": int(plot_h + top + 12)}  # fmt: skip


def model_grid(
    attentions: NDArray[np.floating],
    tokens: Sequence[str],
    rules: NDArray[np.object_],
    scores: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    selected: tuple[int, int] | None = None,
    off: NDArray[np.bool_] | None = None,
    width_px: int = 1000,
) -> Any:
    """Every layer x head of a model as one mosaic with each head's label above its panel.

    One heatmap trace per layer (its heads side by side, separated by a few empty columns) on its own
    y-axis, all on one categorical x-axis; the labels are one text trace on an extra y-axis spanning the
    plot in px. attentions (L, H, n, n) rows are queries; rules (L, H) rule names (analysis.HeadLabels.rules)
    and scores (L, H) the label's score; selected (layer, head) 0-based gets a frame; off (L, H) True marks
    switched-off heads (greyed, labelled "off"). Beyond ``grid_tokens`` tokens only the first rows and
    columns are drawn (the page says so).
    """
    A = np.asarray(attentions)
    m = grid_tokens(A.shape[0], A.shape[1], A.shape[2])
    A, tokens = A[:, :, :m, :m], list(tokens)[:m]
    L, H, n, _ = A.shape
    g = _grid_geometry(L, H, n, style, width_px)
    gap, band, panel_h, plot_h = g["gap"], g["band"], g["panel_h"], g["plot_h"]
    cols = H * n + (H - 1) * gap
    z = np.full((L, n, H, n + gap), np.nan, dtype=np.float32)  # (layer, query, head, key column)
    z[:, :, :, :n] = A.transpose(0, 2, 1, 3)
    z = z.reshape(L, n, H * (n + gap))[:, :, :cols]
    shown = [esc(show_token(t)) for t in tokens]
    x_cats = [
        f"head {c // (n + gap) + 1} · "
        + (f"key {c % (n + gap)} {shown[c % (n + gap)]}" if c % (n + gap) < n else f"gap {c % (n + gap)}")
        for c in range(cols)
    ]
    colorbar = {"thickness": 14, "tickfont": {"size": style.font}, "len": min(1.0, 700 / plot_h), "y": 1,
                "yanchor": "top"}  # fmt: skip
    data: list[dict[str, Any]] = []
    layout_axes: dict[str, Any] = {}
    axis = {"showgrid": False, "zeroline": False, "automargin": False, "tickfont": {"size": g["font"]}}
    for l in range(L):
        y_cats = [f"layer {l + 1} · query {i} {shown[i]}" for i in range(n)]
        name = f"y{l + 2}"  # "y" is the labels' axis, drawn first: the panels' subplots lie above it
        data.append({
            "type": "heatmap", "z": z[l], "x": x_cats, "y": y_cats, "zmin": 0.0, "zmax": 1.0, "yaxis": name,
            "colorscale": _colorscale(style.sequential), "hoverongaps": False, "showscale": l == 0,
            "hovertemplate": "%{y}<br>%{x}<br>weight %{z:.3f}<extra></extra>", "colorbar": colorbar,
        })  # fmt: skip
        top = (l * (band + panel_h) + band) / plot_h  # from the top of the plot, 0..1
        layout_axes[f"yaxis{l + 2}"] = {
            **axis, "autorange": "reversed", "anchor": "x",  # clipped: the last panel's end rounds to -1e-17
            "domain": [max(0.0, 1 - top - panel_h / plot_h), min(1.0, max(0.0, 1 - top))],
            "tickvals": [y_cats[n // 2]], "ticktext": [f"layer {l + 1}"],
        }  # fmt: skip
    off = np.zeros((L, H), dtype=bool) if off is None else np.asarray(off, dtype=bool)
    words = [
        "off" if off[l, h] else SHORT_LABELS.get(str(rules[l, h]), str(rules[l, h]))
        for l in range(L)
        for h in range(H)
    ]
    hover = [
        f"layer {l + 1}, head {h + 1}: {words[l * H + h]} (score {scores[l, h]:.2f})"
        for l in range(L)
        for h in range(H)
    ]
    label_axis = "y"  # px from the top of the plot, over its whole height; first, so the panels get the hover
    data.append({
        "type": "scatter", "mode": "text", "x": [x_cats[h * (n + gap) + n // 2] for _ in range(L) for h in range(H)],
        "y": [l * (band + panel_h) + band / 2 for l in range(L) for _ in range(H)], "yaxis": label_axis,
        "text": words, "hovertext": hover, "hoverinfo": "text", "textfont": {"size": g["font"]}, "showlegend": False,
    })  # fmt: skip
    layout_axes["yaxis"] = {"range": [plot_h, 0], "domain": [0, 1], "visible": False, "anchor": "x",
                            "fixedrange": True}  # fmt: skip
    shapes = [_frame(l, h, n, gap, MASKED_GREY, fill=True) for l, h in zip(*np.nonzero(off), strict=True)]
    if selected is not None:
        shapes.append(_frame(selected[0], selected[1], n, gap, "#d62728", fill=False))
    xaxis = {**axis, "side": "top", "anchor": "free", "position": 1,
             "tickvals": [x_cats[h * (n + gap) + n // 2] for h in range(H)],
             "ticktext": [f"head {h + 1}" for h in range(H)]}  # fmt: skip
    layout = _layout(style, title, g["height"], xaxis=xaxis, shapes=shapes, **layout_axes)
    layout["margin"] = {"l": g["left"], "r": g["right"], "t": g["top"], "b": 12}
    # The labels' axis spans the whole plot, so its subplot lies over the panels: with an opaque plot
    # background it hid every heatmap (the browser drew labels on white). Transparent: the panels show.
    layout["plot_bgcolor"] = "rgba(0,0,0,0)"
    layout["title"].update({"yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 8}})
    layout["meta"] = {"grid": [L, H, n, gap]}  # how picked_head reads a click
    return _figure(data, layout)


def picked_head(fig: Any, click: dict[str, Any] | None) -> tuple[int, int] | None:
    """The (layer, head) of model_grid's figure `fig` a click picked (explorer.chart.draw's value): a cell of a
    layer's heatmap, or a head's label; None for a gap between panels or anything else."""
    meta = (fig.layout.meta or {}) if hasattr(fig, "layout") else {}
    if not click or "grid" not in meta:
        return None
    L, H, n, gap = (int(v) for v in meta["grid"])
    curve, point = click["curve"], click["point"]
    if 0 <= curve < L and isinstance(point, list):
        col = int(point[1])
        head, at = divmod(col, n + gap)
        return (curve, head) if at < n and 0 <= head < H else None
    if curve == L and isinstance(point, int) and 0 <= point < L * H:
        return divmod(point, H)
    return None


def _frame(layer: int, head: int, n: int, gap: int, color: str, *, fill: bool) -> dict[str, Any]:
    """A rectangle over one panel of the grid, in category positions (cell i spans i - 0.5 .. i + 0.5)."""
    x0 = head * (n + gap) - 0.5
    shape: dict[str, Any] = {
        "type": "rect", "xref": "x", "yref": f"y{layer + 2}",
        "x0": x0, "x1": x0 + n, "y0": -0.5, "y1": n - 0.5, "line": {"color": color, "width": 4},
    }  # fmt: skip
    if fill:
        shape.update(fillcolor=color, opacity=0.75, line={"width": 0})
    return shape


def token_bars(
    tokens: Sequence[str],
    probs: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    after: NDArray[np.float64] | None = None,
    names: tuple[str, str] = ("untouched model", "heads switched off"),
) -> Any:
    """Horizontal bars of next-token probabilities, most likely on top; with ``after``, a second bar per token
    (the changed model) beside the first. Each probability is printed on its bar."""
    labels = [f"{i + 1}. “{esc(show_token(t))}”" for i, t in enumerate(tokens)]
    ys = np.arange(len(labels))
    colors = sample_colorscale(style.sequential, [0.35, 0.8])
    series = [(probs, names[0] if after is not None else "probability", colors[0])]
    if after is not None:
        series.append((after, names[1], colors[1]))
    data = [
        {
            "type": "bar", "orientation": "h", "x": p, "y": ys, "name": esc(name), "marker": {"color": color},
            "text": [f"{v:.3f}" for v in p], "textposition": "outside", "textfont": {"size": style.cell_font},
            "customdata": labels, "hovertemplate": "%{customdata}: %{x:.4f}<extra>" + esc(name) + "</extra>",
        }
        for p, name, color in series
    ]  # fmt: skip
    top = float(max(np.max(probs), 0.0 if after is None else np.max(after)))
    per_row = (2 if after is not None else 1) * (style.font + 14)
    layout = _layout(
        style, title, int(140 + len(labels) * per_row), barmode="group", showlegend=after is not None,
        legend={"font": {"size": style.font}, "orientation": "h", "y": -0.08},
        xaxis={"title": {"text": "probability"}, "range": [0, min(1.0, top * 1.25 + 0.02)]},
        yaxis={"tickmode": "array", "tickvals": ys, "ticktext": labels, "autorange": "reversed",
               "tickfont": {"size": style.font}},
    )  # fmt: skip
    return _figure(data, layout)


def value_bars(
    names: Sequence[str],
    values: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    x_title: str,
    digits: int = 3,
) -> Any:
    """Horizontal bars, one per name in the given order (first on top), each value printed beside its bar."""
    ys = np.arange(len(names))
    vals = np.asarray(values, dtype=np.float64)
    top = float(np.nanmax(vals)) if vals.size and np.isfinite(vals).any() else 0.0
    top = top if top > 0 else 1.0  # all zero (nothing moved): an axis 0..1.3, not 0..1e-9
    bar = {
        "type": "bar", "orientation": "h", "x": vals, "y": ys,
        "marker": {"color": sample_colorscale(style.sequential, [0.6])[0]},
        "text": [f"{v:.{digits}f}" for v in vals], "textposition": "outside",
        "textfont": {"size": style.cell_font}, "customdata": [esc(s) for s in names],
        "hovertemplate": "%{customdata}: %{x:.6f}<extra></extra>",
    }  # fmt: skip
    left = max((text_px(s, style.font) for s in names), default=0.0) + 20
    layout = _layout(
        style, title, int(140 + len(names) * (style.font + 14)),
        xaxis={"title": {"text": esc(x_title)}, "range": [0, top * 1.3]},
        yaxis={"tickmode": "array", "tickvals": ys, "ticktext": [esc(s) for s in names], "autorange": "reversed",
               "tickfont": {"size": style.font}, "automargin": False},
    )  # fmt: skip
    layout["margin"]["l"] = int(left)
    return _figure([bar], layout)
