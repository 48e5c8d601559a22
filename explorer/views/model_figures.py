"""Pure Plotly builders for the real-model pages: arrays and labels in, a go.Figure out (no Streamlit, no state).

The grid of every layer and head is ONE figure, not 72 or 270 charts, and one heatmap: every layer's row of
panels (its heads side by side, a few empty columns apart) under a band of empty rows for the head labels,
plus one text trace for the labels, on categorical axes whose category names say where a cell is ("layer 3 ·
query 4 it", "head 6 · key 1 the"), so the hover names every cell without sending a label per cell. (One
heatmap per layer on axes of their own took twice as long for Plotly to draw: benchmarks/grid.py.)
Rows are queries, columns are keys, first token on top, on the fixed 0..1 scale of every attention heatmap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from attention_core import token_labels as unique_labels
from explorer.compute.pipeline import short
from explorer.i18n import N_, _
from explorer.model.description import show_token
from explorer.views import describe
from explorer.views.bars import KEY_COLOURS
from explorer.views.drawn import Drawn, figure_only
from explorer.views.grid_geometry import _grid_geometry, grid_tokens
from explorer.views.style import (
    FULL_PX,
    MASKED_GREY,
    PRESENT_TICK_PX,
    Style,
    _colorscale,
    _figure,
    _layout,
    esc,
    text_px,
)

# What a head's label is called in the grid, where a panel is 80-200 px wide (the rule names of
# attention_core.analysis.HEAD_RULES, plus "broad" and "mixed").
SHORT_LABELS: dict[str, str] = {  # marked: translated where drawn
    "previous": N_("← previous"),
    "next": N_("next →"),
    "self": N_("itself"),
    "same_word": N_("same word"),
    "sep": "[SEP]",
    "first": N_("first token"),
    "broad": N_("broad"),
    "mixed": N_("mixed"),
}


# What each sign in a shown token means, in one line under the next-token buttons (for the signs shown).
SIGNS = {  # marked: translated where said
    "␣": N_("“␣” is a space (a token that starts with one begins a new word)"),
    "↵": N_("“↵” a new line"),
    "<|": N_("“<|im_end|>” the token that ends a turn in a chat (the model expects the text to stop here)"),
}


def token_signs(tokens: Sequence[str]) -> str:
    """The line saying what the signs in these tokens (as shown) mean; "" when they have none."""
    shown = [show_token(t) for t in tokens]
    said = [_(text) for sign, text in SIGNS.items() if any(sign in t for t in shown)]
    return "; ".join(said) + "." if said else ""


def cannot_add(token: str) -> str | None:
    """Why a predicted token is not offered to add to the sentence (one sentence), or None: a token of white
    space only would change nothing (the sentence box holds one line, and the model reads the sentence
    without the spaces at its ends)."""
    if token.strip():
        return None
    if "\n" in token or "\r" in token:
        return _("“↵” cannot be added: the sentence box holds one line.")
    return _(
        "“{token}” alone cannot be added: the spaces at the end of the sentence are dropped.",
        token=show_token(token),
    )


def token_labels(tokens: Sequence[str]) -> list[str]:
    """The model pages' tick labels: shown tokens (``show_token``), cut like the toy's (pipeline.short), and
    made unique like the toy's (a repeated token gets " ·i", its position)."""
    return unique_labels([short(show_token(t)) for t in tokens])


def drawn_model_grid(
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
    induction: NDArray[np.float64] | None = None,
    induction_threshold: float = 1.0,
    fit_px: int | None = None,
) -> Drawn:
    """Every layer x head of a model as one mosaic with each head's label above its panel.

    One heatmap: layer l's rows are ``band`` empty rows (its heads' labels, one text trace) then its n query
    rows, its heads side by side n key columns wide, ``gap`` empty columns apart; ``panels`` reads it back.
    attentions (L, H, n, n) rows are queries; rules (L, H) rule names (analysis.HeadLabels.rules) and scores
    (L, H) the label's score; selected (layer, head) 0-based gets a frame; off (L, H) True marks switched-off
    heads (greyed, labelled "off"); induction (L, H) each head's induction score, measured on another run: a
    head scoring at least induction_threshold gets a second line, "induction", under its label. Beyond
    ``grid_tokens`` tokens only the first rows and columns are drawn (the page says so). fit_px: the panels
    flatter so that the grid is at most that tall, if MIN_PANEL_PX tall panels get there (a projector's
    screen); else the grid keeps its size.
    layout.meta.grid = [L, H, n, gap, band] (``picked_head``, ``panels``); layout.meta.keys the heads as a
    keyboard grid (``_keys``).
    """
    A = np.asarray(attentions)
    m = grid_tokens(A.shape[0], A.shape[1], A.shape[2])
    A, tokens = A[:, :, :m, :m], list(tokens)[:m]
    L, H, n, _n = A.shape
    marked = (
        np.zeros((L, H), dtype=bool) if induction is None else np.asarray(induction) >= induction_threshold
    )
    g = _grid_geometry(L, H, n, style, width_px, 2 if marked.any() else 1, fit_px)
    gap, band, plot_h = g["gap"], g["band"], g["plot_h"]
    z, x_cats, y_cats = _mosaic(A, tokens, gap, band)
    colorbar = {"thickness": 14, "tickfont": {"size": style.font}, "len": min(1.0, 700 / plot_h), "y": 1,
                "yanchor": "top"}  # fmt: skip
    off = np.zeros((L, H), dtype=bool) if off is None else np.asarray(off, dtype=bool)
    words, hover = _head_words(rules, scores, off, induction, marked)
    data = [
        {
            "type": "heatmap", "z": z, "x": x_cats, "y": y_cats, "zmin": 0.0, "zmax": 1.0,
            "colorscale": _colorscale(style.sequential), "hoverongaps": False, "colorbar": colorbar,
            "hovertemplate": "%{y}<br>%{x}<br>" + _("weight") + " %{z:.3f}<extra></extra>",
        },
        _label_trace((x_cats, y_cats), (L, H, n, gap, band), g, words, hover, bool(marked.any())),
    ]  # fmt: skip
    shapes = _frames(off, selected, (n, gap, band))
    xaxis, yaxis = _grid_axes((x_cats, y_cats), (L, H, n, gap, band), g["font"])
    layout = _layout(style, title, g["height"], xaxis=xaxis, yaxis=yaxis, shapes=shapes)
    layout["margin"] = {"l": g["left"], "r": g["right"], "t": g["top"], "b": 12}
    layout["plot_bgcolor"] = "rgba(0,0,0,0)"  # the bands and gaps between panels: the page's own colour
    layout["title"].update({"yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 8}})
    layout["meta"] = {"grid": [L, H, n, gap, band], "keys": _keys(L, H, n, gap, band, hover, selected)}
    return describe.drawn_grid_of_heads(_figure(data, layout), title, L, H, [str(s) for s in hover])


def _label_trace(
    cats: tuple[list[str], list[str]],
    grid: tuple[int, int, int, int, int],
    g: dict[str, Any],
    words: list[str],
    hover: list[str],
    two: bool,
) -> dict[str, Any]:
    """Each head's label above its panel, as one text trace (its hover the head's whole label)."""
    (x_cats, y_cats), (L, H, n, gap, band) = cats, grid
    per = band + n
    # The label's row in its band: the middle one of the rows under the space (between the two middle ones if
    # even). With a second line for some heads ("induction"), the band is two lines high: every label then
    # stands on its last row, its text above it, so a one-line label is not left midway between two rows of
    # squares.
    label = band - g["space"]
    # A tight band: every label stands on the row above its panels' (text above its point), clear of them.
    high = two or g["tight"]
    at = band - 1 - int(g["tight"]) if high else g["space"] + (label - 1) // 2
    return {
        "type": "scatter", "mode": "text", "x": [x_cats[h * (n + gap) + n // 2] for _ in range(L) for h in range(H)],
        "y": [y_cats[l * per + at] for l in range(L) for _ in range(H)], "text": words, "hovertext": hover,
        "hoverinfo": "text", "textfont": {"size": g["font"]}, "showlegend": False,
        "textposition": "top center" if high else "middle center" if label % 2 else "bottom center",
    }  # fmt: skip


def _grid_axes(
    cats: tuple[list[str], list[str]], grid: tuple[int, int, int, int, int], font: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The grid's axes: "head h" over each panel's middle column, "layer l" beside its middle row."""
    (x_cats, y_cats), (L, H, n, gap, band) = cats, grid
    per, cols = band + n, H * n + (H - 1) * gap
    axis = {"showgrid": False, "zeroline": False, "automargin": False, "tickfont": {"size": font}}
    # Fixed ranges, first row on top: autorange would pad them for the label text (a tall empty strip).
    xaxis = {**axis, "side": "top", "range": [-0.5, cols - 0.5], "ticktext": [_("head {n}", n=h + 1) for h in range(H)],
             "tickvals": [x_cats[h * (n + gap) + n // 2] for h in range(H)]}  # fmt: skip
    yaxis = {**axis, "range": [L * per - 0.5, -0.5], "ticktext": [_("layer {n}", n=l + 1) for l in range(L)],
             "tickvals": [y_cats[l * per + band + n // 2] for l in range(L)]}  # fmt: skip
    return xaxis, yaxis


def _mosaic(
    A: NDArray[np.floating], tokens: Sequence[str], gap: int, band: int
) -> tuple[NDArray[np.float32], list[str], list[str]]:
    """The grid's one heatmap: A (L, H, n, n) laid out as layer l's `band` empty rows (its heads' labels) then
    its n query rows, its heads side by side n key columns wide, `gap` empty columns apart; and every
    column's and row's name (for the hover)."""
    L, H, n, _n = A.shape
    per, cols = band + n, H * n + (H - 1) * gap
    z = np.full((L, per, H, n + gap), np.nan, dtype=np.float32)  # (layer, row, head, key column)
    z[:, band:, :, :n] = A.transpose(0, 2, 1, 3)
    z = z.reshape(L * per, H * (n + gap))[:, :cols]
    shown = [esc(show_token(t)) for t in tokens]
    heads, keys = [_("head {n}", n=h + 1) for h in range(H)], [_("key {i}", i=j) for j in range(n)]
    layers, queries = [_("layer {n}", n=l + 1) for l in range(L)], [_("query {i}", i=j) for j in range(n)]
    x_cats = [
        f"{heads[c // (n + gap)]} · "
        + (f"{keys[c % (n + gap)]} {shown[c % (n + gap)]}" if c % (n + gap) < n else f"gap {c % (n + gap)}")
        for c in range(cols)
    ]
    y_cats = [
        f"{layers[r // per]} · "
        + (f"{queries[r % per - band]} {shown[r % per - band]}" if r % per >= band else f"label {r % per}")
        for r in range(L * per)
    ]  # fmt: skip (the gaps' and label bands' names are never shown: they only keep the categories apart)
    return z, x_cats, y_cats


def _head_words(
    rules: NDArray[np.object_],
    scores: NDArray[np.float64],
    off: NDArray[np.bool_],
    induction: NDArray[np.float64] | None,
    marked: NDArray[np.bool_],
) -> tuple[list[str], list[str]]:
    """Each head's label above its panel ("off" when switched off; a second line "induction" when marked) and
    its hover, layer by layer."""
    L, H = off.shape
    short = {rule: text if text.startswith("[") else _(text) for rule, text in SHORT_LABELS.items()}
    words = [
        _("off") if off[l, h] else short.get(str(rules[l, h]), str(rules[l, h]))
        for l in range(L)
        for h in range(H)
    ]
    hover = [
        _("layer {layer}, head {head}: {label} (score {score:.2f})", layer=l + 1, head=h + 1,
          label=words[l * H + h], score=float(scores[l, h]))
        if induction is None
        else _("layer {layer}, head {head}: {label} (score {score:.2f}); induction {induction:.2f} on random "
               "tokens repeated", layer=l + 1, head=h + 1, label=words[l * H + h], score=float(scores[l, h]),
               induction=float(induction[l, h]))
        for l in range(L)
        for h in range(H)
    ]  # fmt: skip
    second = _("induction")
    return [w + "<br>" + second if marked.ravel()[i] else w for i, w in enumerate(words)], hover


def _keys(
    L: int, H: int, n: int, gap: int, band: int, names: list[str], selected: tuple[int, int] | None
) -> dict[str, Any]:
    """The heads as a keyboard grid (explorer/ui/chart/assets/chart.js): the arrow keys move between the
    panels (columns and rows as axis spans, the label band included), Enter reports point row * cols + col
    of trace `curve`, the labels' (picked_head); `names` are what a screen reader says of each."""
    return {
        "curve": 1,
        "xs": [[h * (n + gap) - 0.5, h * (n + gap) + n - 0.5] for h in range(H)],
        "ys": [[l * (band + n) - 0.5, (l + 1) * (band + n) - 0.5] for l in range(L)],
        "names": names,
        "start": 0 if selected is None else selected[0] * H + selected[1],
        "help": _("the arrow keys move between the heads, Enter opens one"),
    }


def panels(z: NDArray[np.floating], grid: Sequence[int]) -> NDArray[np.float64]:
    """The (L, H, n, n) weights a model_grid heatmap draws: its z (rows, columns) and layout.meta.grid."""
    L, H, n, gap, band = (int(v) for v in grid)
    z = np.asarray(z, dtype=np.float64)
    per = band + n
    rows = np.concatenate([np.arange(l * per + band, (l + 1) * per) for l in range(L)])
    cols = np.concatenate([np.arange(h * (n + gap), h * (n + gap) + n) for h in range(H)])
    return z[np.ix_(rows, cols)].reshape(L, n, H, n).transpose(0, 2, 1, 3)


def picked_head(fig: Any, click: dict[str, Any] | None) -> tuple[int, int] | None:
    """The (layer, head) of model_grid's figure `fig` a click picked (explorer.ui.chart.draw's value): a cell of a
    head's panel or of the band above it (its label), or its label's text; None for a gap or anything else."""
    fig = fig.figure if isinstance(fig, Drawn) else fig
    meta = (fig.layout.meta or {}) if hasattr(fig, "layout") else {}
    if not click or "grid" not in meta:
        return None
    L, H, n, gap, band = (int(v) for v in meta["grid"])
    curve, point = click["curve"], click["point"]
    if curve == 0 and isinstance(point, list):
        layer = int(point[0]) // (band + n)
        head, at = divmod(int(point[1]), n + gap)
        return (layer, head) if at < n and 0 <= head < H and 0 <= layer < L else None
    if curve == 1 and isinstance(point, int) and 0 <= point < L * H:
        return divmod(point, H)
    return None


def _frames(
    off: NDArray[np.bool_], selected: tuple[int, int] | None, grid: tuple[int, int, int]
) -> list[dict[str, Any]]:
    """The switched-off heads' panels greyed, and a red frame round the selected head's (grid: n, gap, band)."""
    n, gap, band = grid
    shapes = [
        _frame(l, h, n, gap, band, MASKED_GREY, fill=True) for l, h in zip(*np.nonzero(off), strict=True)
    ]
    if selected is not None:
        shapes.append(_frame(selected[0], selected[1], n, gap, band, "#d62728", fill=False))
    return shapes


def _frame(layer: int, head: int, n: int, gap: int, band: int, color: str, *, fill: bool) -> dict[str, Any]:
    """A rectangle over one panel of the grid, in category positions (cell i spans i - 0.5 .. i + 0.5)."""
    x0, y0 = head * (n + gap) - 0.5, layer * (band + n) + band - 0.5
    shape: dict[str, Any] = {
        "type": "rect", "xref": "x", "yref": "y",
        "x0": x0, "x1": x0 + n, "y0": y0, "y1": y0 + n, "line": {"color": color, "width": 4},
    }  # fmt: skip
    if fill:
        shape.update(fillcolor=color, opacity=0.75, line={"width": 0})
    return shape


def drawn_token_bars(
    tokens: Sequence[str],
    probs: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    after: NDArray[np.float64] | None = None,
    names: tuple[str, str] = (N_("untouched model"), N_("heads switched off")),  # translated when drawn
    height_px: int | None = None,
) -> Drawn:
    """Horizontal bars of next-token probabilities, most likely on top, on an axis from 0 to 1; with
    ``after``, a second bar per token (the changed model, or another temperature) beside the first. Each
    probability is printed on its bar. height_px: the chart's height (default: by its bars)."""
    labels = [f"{i + 1}. “{esc(show_token(t))}”" for i, t in enumerate(tokens)]
    ys = np.arange(len(labels))
    colors = KEY_COLOURS[:2]  # two colours that stand out from the page in both themes, and from each other
    series = [(probs, _(names[0]) if after is not None else _("probability"), colors[0])]
    if after is not None:
        series.append((after, _(names[1]), colors[1]))
    # Each number at its font's size (Plotly shrinks a bar's outside text to the bar's thickness: two bars a
    # token in a chart of fixed height printed 0.640 at 11 px on the projector); beside two bars, the smallest
    # size a room reads, so the pair's numbers stay apart.
    num_px = PRESENT_TICK_PX + 1 if after is not None and style.present else style.cell_font
    data = [
        {
            "type": "bar", "orientation": "h", "x": p, "y": ys, "name": esc(name), "marker": {"color": color},
            "text": [f"{v:.3f}" for v in p], "textposition": "outside", "textfont": {"size": num_px},
            "constraintext": "none", "cliponaxis": False,
            "customdata": labels, "hovertemplate": "%{customdata}: %{x:.4f}<extra>" + esc(name) + "</extra>",
        }
        for p, name, color in series
    ]  # fmt: skip
    per_row = (2 if after is not None else 1) * (style.font + 14)
    layout = _layout(
        style, title, height_px or int(140 + len(labels) * per_row), barmode="group", showlegend=after is not None,
        # in the plot's bottom right corner, by the least likely tokens' short bars: under the axis it
        # covered the axis title
        legend={"font": {"size": style.font}, "orientation": "v", "x": 0.99, "xanchor": "right", "y": 0.02,
                "yanchor": "bottom", "bgcolor": "rgba(0,0,0,0)"},
        # 0 to 1 at every temperature (room right of 1 for a bar's number): a flatter distribution is seen.
        xaxis={"title": {"text": _("probability")}, "range": [0, 1.12], "tickvals": [0, 0.25, 0.5, 0.75, 1]},
        yaxis={"tickmode": "array", "tickvals": ys, "ticktext": labels, "autorange": "reversed",
               "tickfont": {"size": style.font}},
    )  # fmt: skip
    parts = [describe.Series(describe.said(name), [describe.plain(s) for s in labels], np.asarray(p, dtype=np.float64),
                            [f"{v:.3f}" for v in p]) for p, name, _ in series]  # fmt: skip
    return describe.drawn_bars(_figure(data, layout), title, "", parts)


def drawn_value_bars(
    names: Sequence[str],
    values: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    x_title: str,
    digits: int = 3,
    width_px: int = FULL_PX,
    height_px: int | None = None,
) -> Drawn:
    """Horizontal bars, one per name in the given order (first on top), each value printed beside its bar;
    the title wrapped to ``width_px`` (as heatmap's). height_px: the chart's height (default: by its bars)."""
    ys = np.arange(len(names))
    vals = np.asarray(values, dtype=np.float64)
    top = float(np.nanmax(vals)) if vals.size and np.isfinite(vals).any() else 0.0
    top = top if top > 0 else 1.0  # all zero (nothing moved): an axis 0..1.3, not 0..1e-9
    bar = {
        "type": "bar", "orientation": "h", "x": vals, "y": ys,
        "marker": {"color": KEY_COLOURS[0]},  # 3:1 or more against the page in both themes
        "text": [f"{v:.{digits}f}" for v in vals], "textposition": "outside",
        "textfont": {"size": style.cell_font}, "customdata": [esc(s) for s in names],
        "hovertemplate": "%{customdata}: %{x:.6f}<extra></extra>",
    }  # fmt: skip
    left = max((text_px(s, style.font) for s in names), default=0.0) + 20
    layout = _layout(
        style, title, height_px or int(140 + len(names) * (style.font + 14)), width_px,
        xaxis={"title": {"text": esc(x_title)}, "range": [0, top * 1.3]},
        yaxis={"tickmode": "array", "tickvals": ys, "ticktext": [esc(s) for s in names], "autorange": "reversed",
               "tickfont": {"size": style.font}, "automargin": False},
    )  # fmt: skip
    layout["margin"]["l"] = int(left)
    one = describe.Series("", [describe.said(s) for s in names], vals, list(bar["text"]))
    return describe.drawn_bars(_figure([bar], layout), title, "", [one])


model_grid = figure_only(drawn_model_grid)  # the figure alone


token_bars = figure_only(drawn_token_bars)  # the figure alone


value_bars = figure_only(drawn_value_bars)  # the figure alone
