"""The colour range of a signed (or non-negative) matrix, taken from the bulk of its values.

A trained model's numbers are not Gaussian: SmolLM2's X holds one value near 22,500 (the first token's
dimension 507) among values of about 1 to 10, and a colour range up to the largest value paints every other
cell the colour of 0 (a blank chart). So the range runs to the largest |value| while that leaves most cells
outside the palest tenth of the scale; otherwise it is narrowed until BULK_SHARE of them are, the values
beyond it are drawn in the end colours, the colour bar says "≥" at its ends, the farthest cells are circled
and the chart's subtitle names the largest with its value. The toy's charts keep the range up to their
largest value (benchmarks/colour_ranges.py: none of its signed matrices over a grid of settings is narrowed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from explorer import i18n
from explorer.i18n import N_, _, ngettext, numbers
from explorer.views.style import PRESENT_TICK_PX, Style, esc, text_px

# A chart is readable when most of its cells lie outside the palest part of its scale, the middle tenth of
# a diverging range (-b, b): |v| < PALE * b. A range that leaves half of them there or more is narrowed
# until BULK_SHARE of them are out.
PALE = 0.1
BULK_SHARE = 0.6
CIRCLED = 5  # the most extreme cells beyond the range get a ring (a wide matrix has hundreds of columns)
# A value is a massive activation (Sun et al. 2024, "Massive activations in large language models") when it
# is at least MASSIVE_ABS and MASSIVE_TIMES times the matrix's median |value|.
MASSIVE_ABS, MASSIVE_TIMES = 100.0, 300.0
MASSIVE = N_(
    "a massive activation: a huge number trained models keep on the first token, where heads put attention "
    "they do not need"
)


def bulk_bound(z: NDArray[np.float64]) -> float:
    """The half-width b of a colour range (-b, b) (or 0..b) for the finite values of z: their largest |value|
    when most of them are at least PALE * that; else the (1 - BULK_SHARE) quantile of |z| (of its non-zero
    values, when that quantile is 0) divided by PALE, so that BULK_SHARE of the cells are coloured. 1.0 for
    no values or all zeros."""
    a = np.abs(np.asarray(z, dtype=np.float64))
    a = a[np.isfinite(a)]
    top = float(a.max()) if a.size else 0.0
    if top == 0.0:
        return 1.0
    if np.count_nonzero(a >= PALE * top) > a.size / 2:
        return top
    low = float(np.quantile(a, 1 - BULK_SHARE))
    if low == 0.0:  # mostly zeros (a sparse matrix): the bulk of the values that are not
        low = float(np.quantile(a[a > 0], 1 - BULK_SHARE))
    return min(top, low / PALE)


def shared_bound(matrices: Sequence[NDArray[np.float64]]) -> float:
    """One half-width for several matrices drawn side by side: the largest of their bulk_bound (an all-zero
    matrix, which has no bulk, counts for nothing)."""
    bounds = [bulk_bound(m) for m in matrices if np.any(np.asarray(m)[np.isfinite(m)])]
    return max(bounds, default=1.0)


def beyond(z: NDArray[np.float64], lo: float, hi: float) -> NDArray[np.intp]:
    """The (row, column) of every finite cell of z outside lo..hi, the farthest beyond first: (k, 2)."""
    z = np.asarray(z, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        past = np.where(z > hi, z - hi, np.where(z < lo, lo - z, 0.0))
    past = np.where(np.isfinite(past), past, 0.0)
    cells = np.argwhere(past > 1e-12 * max(abs(lo), abs(hi), 1.0))
    order = np.argsort(-past[cells[:, 0], cells[:, 1]], kind="stable")
    return cells[order]


def amount(v: float) -> str:
    """A value as a note writes it, in the language on screen: thousands grouped (22,552), else three
    significant digits (-1.37; -1,37 in Spanish)."""
    return i18n.integer(round(v)) if abs(v) >= 1000 else numbers.formatted(v, ".3g", i18n.current())


def note(
    z: NDArray[np.float64],
    cells: NDArray[np.intp],
    rows: Sequence[str],
    cols: Sequence[str],
    lo: float,
    hi: float,
) -> str:
    """What a chart's subtitle says about the cells beyond its colour range (cells from ``beyond``, at least
    one): how many, the range, the largest named by its row and column with its value and, for a massive
    activation, what that is."""
    span = f"±{amount(hi)}" if lo == -hi else _("{low} to {high}", low=amount(lo), high=amount(hi))
    i, j = cells[0]
    largest = f"“{rows[i]}”, {cols[j]} = {amount(float(z[i, j]))}"
    head = ngettext(
        "{n} value beyond the colour range {span}, circled: {largest}",
        "{n} values beyond the colour range {span}, the largest circled: {largest}",
        len(cells),
        span=span,
        largest=largest,
    )
    if massive(z, float(z[i, j])):
        head = _("{note}, {massive}", note=head, massive=_(MASSIVE))
    return head


def massive(z: NDArray[np.float64], value: float) -> bool:
    """`value` (one of z's) is a massive activation: at least MASSIVE_ABS and MASSIVE_TIMES z's median size."""
    finite = np.abs(z[np.isfinite(z)])
    return abs(value) >= max(MASSIVE_ABS, MASSIVE_TIMES * float(np.median(finite)))


def short_note(
    z: NDArray[np.float64],
    cells: NDArray[np.intp],
    rows: Sequence[str],
    cols: Sequence[str],
    width_px: float,
    size: float,
) -> str:
    """The chart's own one-line note on its outliers, no wider than ``width_px`` at ``size`` px: the largest
    beyond the range named with its value, and "a massive activation" when it is one, as much as fits (the
    value always). The whole story (``note``) goes behind the page's help, where it squeezes no chart."""
    i, j = cells[0]
    value = f"{cols[j]} = {amount(float(z[i, j]))}"
    named = f"“{rows[i]}”, {value}"
    tries = (_("circled {value}", value=named), _("circled {value}", value=value))
    if massive(z, float(z[i, j])):
        tries = (
            _("circled {value}: a massive activation", value=named),
            _("circled {value}: a massive activation", value=value),
            *tries,
        )
    return next((t for t in tries if text_px(t, size) <= width_px), value)


def end_ticks(lo: float, hi: float, low_beyond: bool, high_beyond: bool, font: int) -> dict[str, Any]:
    """Colour-bar ticks at both ends and the middle, an end with values beyond it written "≥ hi" / "≤ lo"."""
    ticks = [lo, (lo + hi) / 2, hi]
    text = [amount(t) for t in ticks]
    if low_beyond:
        text[0] = f"≤ {text[0]}"
    if high_beyond:
        text[-1] = f"≥ {text[-1]}"
    return {"tickmode": "array", "tickvals": ticks, "ticktext": text, "tickfont": {"size": font}}


def frames(cells: NDArray[np.intp]) -> list[dict[str, Any]]:
    """Layout shapes that frame each of the first CIRCLED cells (row, column) beyond the range along its
    edges, a wide white line under a narrow black one: for cells that print their number, which a ring
    drawn over the cell's middle would cross."""
    out = []
    for color, width in (("white", 5), ("black", 2)):
        for i, j in cells[:CIRCLED]:
            out.append({"type": "rect", "xref": "x", "yref": "y", "x0": j - 0.45, "x1": j + 0.45,
                        "y0": i - 0.45, "y1": i + 0.45, "line": {"color": color, "width": width}})  # fmt: skip
    return out


def rings(
    cells: NDArray[np.intp], z: NDArray[np.float64], size: float, *, framed: bool = False
) -> list[dict[str, Any]]:
    """Two rings around each of the first CIRCLED cells (row, column) beyond the range, a wide white one
    under a narrow black one: seen on every colour of every palette, in the light and the dark theme.
    ``meta.beyond`` on the first says how many cells are beyond the range in all. framed: the cells print
    their numbers and are framed instead (``frames``): the rings stay, unseen, for their hover."""
    shown = cells[:CIRCLED]
    common = {"type": "scatter", "mode": "markers", "x": shown[:, 1].astype(float),
              "y": shown[:, 0].astype(float), "showlegend": False}  # fmt: skip
    under = {**common, "hoverinfo": "skip", "meta": {"beyond": int(len(cells))},
             "marker": {"symbol": "circle-open", "size": size, "color": "white", "line": {"width": 5, "color": "white"}}}  # fmt: skip
    over = {
        **common,
        "customdata": [amount(float(z[i, j])) for i, j in shown],
        "hovertemplate": _("beyond the colour range: {value}", value="%{customdata}") + "<extra></extra>",
        "marker": {
            "symbol": "circle-open",
            "size": size,
            "color": "black",
            "line": {"width": 2, "color": "black"},
        },
    }
    if framed:
        under["marker"]["opacity"] = over["marker"]["opacity"] = 0.0
    return [under, over]


def shared_range(*matrices: NDArray[np.float64]) -> tuple[float, float]:
    """One symmetric colour range (-b, b) for several signed matrices drawn side by side: the same number
    gets the same colour in each (E + P = X can be read off). b is the largest of their own ranges
    (colour_range.bulk_bound: the largest |value|, unless a few outliers would wash a chart out)."""
    bound = shared_bound(matrices)
    return -bound, bound


def shared_weight_range(*weights: NDArray[np.float64], style: Style) -> tuple[float, float]:
    """One colour range for several weights charts drawn side by side (weight_range over all their finite
    weights): the same colour is the same weight in each."""
    finite = np.concatenate([np.asarray(w, dtype=np.float64).ravel() for w in weights])
    return weight_range(finite[np.isfinite(finite)], style)


def weight_range(finite: NDArray[np.float64], style: Style) -> tuple[float, float]:
    """The colour range of weights: 0..1, or fitted to the finite values (style.fit_weights).

    Fitted, a flat row of 30 weights near 1/30 still shows which keys get a little more: 0..1 paints them
    all one colour. A range narrower than 0.01 is widened to 0.01 around its middle (inside 0..1).
    """
    if not style.fit_weights or not finite.size:
        return 0.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    if hi - lo < 0.01:
        mid = min(max((lo + hi) / 2, 0.005), 0.995)
        lo, hi = mid - 0.005, mid + 0.005
    return lo, hi


def _range_note(lo: float, hi: float, style: Style) -> dict[str, Any]:
    """Colour bar ticks at both ends of a fitted range, and its title saying so ("min to max": the range
    runs from these weights' smallest to their largest, not 0 to 1)."""
    if (lo, hi) == (0.0, 1.0):
        return {}
    ticks = np.linspace(lo, hi, 5)
    return {
        "tickmode": "array",
        "tickvals": ticks,
        "ticktext": [f"{t:.3f}" if i in (0, 4) else f"{t:.2f}" for i, t in enumerate(ticks)],
        "title": {"text": _("min to max"), "font": {"size": style.font}, "side": "top"},
    }


def subtitle(
    layout: dict[str, Any],
    parts: tuple[NDArray[np.float64], NDArray[np.intp], Sequence[str], Sequence[str]],
    whole: str,
    style: Style,
    width: float,
) -> None:
    """The note on a chart's outliers: one line under the title (short_note of z, cells, rows, cols, fitted
    to the chart's width), the whole note (``note``) in layout.meta.beyond for the page's help and the
    chart's text. The figure grows by the line, the plot keeps its height."""
    size = PRESENT_TICK_PX if style.present else style.font - 1
    line = short_note(*parts, max(width - 30, 100.0), size)
    layout["title"]["subtitle"] = {"text": esc(line), "font": {"size": size}}
    layout.setdefault("meta", {})["beyond"] = whole
    extra = int(size * 1.35 + 6)
    layout["height"] += extra
    layout["margin"]["t"] += extra


def row_range(matrices: Sequence[NDArray[np.float64]]) -> tuple[float, float] | None:
    """One range (-b, b) for matrices drawn side by side and meant to be compared (b from shared_bound), or
    None when on it one of them would have half its cells or more in the palest tenth (its numbers are much
    smaller: it would look blank). An all-zero matrix counts for nothing."""
    shown = [np.abs(np.asarray(m)[np.isfinite(m)]) for m in matrices]
    shown = [a for a in shown if a.any()]
    if not shown:
        return None
    bound = max(bulk_bound(a) for a in shown)
    if any(np.count_nonzero(a >= PALE * bound) <= a.size / 2 for a in shown):
        return None
    return -bound, bound
