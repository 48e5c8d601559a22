"""What a chart shows, in words and as tables: the text a screen reader
says for a chart (its title, then one or two sentences from its numbers) and the same numbers as tables
whose row and column headers are the chart's labels (tokens, dimensions, curve names), rounded as the chart
prints them. The chart element (explorer/ui/chart) and the HTML export read it. Pure.

Every builder hands its chart over as a Drawn (views.drawn), its words and tables made here from the numbers
it drew (the drawn_* functions below); nothing reads a figure back. title_of, beyond_of and describe return
what a Drawn holds.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from explorer import i18n
from explorer.i18n import _, ngettext
from explorer.views.drawn import Drawn, Table

MAX_ROWS = 200  # a table's rows at most (a curve's points are sampled down to them)


def fixed(value: float, digits: int) -> str:
    """`value` with `digits` decimals, rounded as JavaScript's toFixed and so as Plotly prints a cell (the
    exact binary value, a tie away from zero): 0.125 -> "0.13", where Python's format gives "0.12"."""
    if not np.isfinite(value):
        return "−∞" if value < 0 else ("∞" if value > 0 else "NaN")
    q = Decimal(1).scaleb(-digits)
    return str(Decimal(float(value)).quantize(q, rounding=ROUND_HALF_UP))


def short(value: float) -> str:
    """A number in a sentence or a curve's table: 4 significant digits."""
    return f"{float(value):.4g}" if np.isfinite(value) else fixed(value, 0)


def prose(number: str) -> str:
    """A number written by `fixed` or `short` as a sentence in the language on screen writes it (0,25 in
    Spanish); tables keep the chart's own writing."""
    point = i18n.decimal(0.5, 1)[1]  # the language's decimal sign
    return number if point == "." else number.replace(".", point)


def plain(text: object) -> str:
    """Plotly text as plain text: line breaks as spaces, tags dropped, entities read."""
    t = re.sub(r"<br\s*/?>", " ", "" if text is None else str(text), flags=re.I)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", t)).split())


def _array(value: Any) -> np.ndarray:
    """Numbers as float64 (a list may hold None for a gap: NaN)."""
    if isinstance(value, np.ndarray):
        return value.astype(np.float64)
    return np.array(value, dtype=object).astype(np.float64)


def title_of(drawn: Drawn) -> str:
    """The chart's title as plain text ("Chart" when it has none)."""
    return drawn.title


def beyond_of(drawn: Drawn) -> str:
    """The whole note on the values beyond a heatmap's colour range (colour_range.note), "" when none are."""
    return drawn.beyond


def describe(drawn: Drawn, tables: bool = True) -> tuple[str, list[Table]]:
    """(one or two sentences on what the chart shows, its numbers as tables); tables=False: no tables (the
    sentence alone costs next to nothing; a heatmap's table formats every cell, made when first asked for)."""
    return drawn.summary, (drawn.tables if tables else [])


# ------------------------------------------------------------------------------------------- heatmaps


def drawn_matrix(
    figure: Any, title: str, panels: list[Panel], labels: Labels, digits: int, weights: bool, beyond: str
) -> Drawn:
    """A heatmap's figure handed over with its words and tables (matrix_text), from the matrices drawn."""
    name = " ".join(str(title).split()) or _("Chart")  # as the figure's wrapped, escaped title reads

    def text(tables: bool) -> tuple[str, list[Table]]:
        return matrix_text(name, panels, labels, digits, weights, beyond, tables)

    return Drawn(figure, name, beyond, text(False)[0], lambda: text(True)[1])


@dataclass(frozen=True, eq=False)
class Panel:
    """One matrix of a heatmap: name ("" for a single one), z (n_rows, n_cols) as drawn (masked cells NaN),
    masked (n_rows, n_cols) True = a grey cell or None, value: what a grey cell says ("0" or "-inf")."""

    name: str
    z: np.ndarray
    masked: np.ndarray | None = None
    value: str = ""


@dataclass(frozen=True)
class Labels:
    """A heatmap's rows and columns in full, and what they are (row_title, col_title)."""

    rows: list[str]
    cols: list[str]
    row_title: str = "row"
    col_title: str = "column"
    queries: bool = False  # rows are queries and columns keys (attention: each row sums to 1)


def matrix_text(
    title: str, panels: list[Panel], labels: Labels, digits: int, weights: bool, beyond: str, tables_too: bool
) -> tuple[str, list[Table]]:
    """(what a heatmap of `panels` shows, its numbers as tables when `tables_too`): one sentence per panel,
    then the whole note on the values beyond its colour range (`beyond`, "" for none)."""
    rows, cols, rt, ct = labels.rows, labels.cols, labels.row_title, labels.col_title
    tables, sentences = [], []
    for p in panels:
        if tables_too:
            cells = [[fixed(v, digits) for v in row] for row in p.z]
            if p.masked is not None:
                for i, j in zip(*np.nonzero(p.masked), strict=True):
                    cells[i][j] = _("{value} (masked)", value="−∞" if p.value == "-inf" else p.value)
            caption = f"{title}: {p.name}" if p.name else title
            tables.append(
                Table(caption, _("{rows} by {cols}", rows=rt, cols=ct), cols,
                      [(rows[i], cells[i]) for i in range(len(rows))])
            )  # fmt: skip
        sentences.append(
            _matrix_sentence(p.name, p.z, p.masked, rows, cols, rt, ct, digits, weights and labels.queries)
        )
    said = f"{title}. " + " ".join(sentences)
    return (f"{said} {beyond}." if beyond else said), tables  # the note opens on a count


def _matrix_sentence(
    name: str,
    z: np.ndarray,
    masked: np.ndarray | None,
    rows: list[str],
    cols: list[str],
    rt: str,
    ct: str,
    digits: int,
    weights: bool,
) -> str:
    size = _("{n_rows} {rows} rows by {n_cols} {cols} columns", n_rows=len(rows), rows=rt, n_cols=len(cols),
             cols=ct)  # fmt: skip
    if name:
        size = f"{name}: {size}"
    if not np.isfinite(z).any():
        return _("{size}, every cell masked.", size=size)
    i, j = np.unravel_index(np.nanargmax(z), z.shape)
    lo = np.unravel_index(np.nanargmin(z), z.shape)
    n_masked = int(masked.sum()) if masked is not None else 0
    if weights:  # attention: rows are queries and sum to 1
        sums = np.nansum(z, axis=1)
        if np.allclose(sums[np.isfinite(z).any(axis=1)], 1.0, atol=5e-4):
            rows_say = _("every row sums to 1")
        else:
            rows_say = _(
                "rows sum to {low} to {high}",
                low=prose(fixed(sums.min(), 3)),
                high=prose(fixed(sums.max(), 3)),
            )
        said = _(
            "{size}; the largest weight, {weight}, is what “{query}” puts on “{key}”; {rows_say}",
            size=size, weight=prose(fixed(z[i, j], digits)), query=rows[i], key=cols[j], rows_say=rows_say,
        )  # fmt: skip
    else:
        said = _(
            "{size}, values from {low} (“{low_row}”, “{low_col}”) to {high} (“{high_row}”, “{high_col}”)",
            size=size, low=prose(fixed(z[lo], digits)), low_row=rows[lo[0]], low_col=cols[lo[1]],
            high=prose(fixed(z[i, j], digits)), high_row=rows[i], high_col=cols[j],
        )  # fmt: skip
    if n_masked:
        return _("{said}; {masked} of {cells} cells masked.", said=said, masked=n_masked, cells=z.size)
    return f"{said}."


def drawn_grid_of_heads(figure: Any, title: str, L: int, H: int, names: list[str]) -> Drawn:
    """The /model grid's figure handed over with its words and table (grid_of_heads_text)."""
    name = said(title) or _("Chart")
    text, tables = grid_of_heads_text(name, L, H, names)
    return Drawn(figure, name, "", text, lambda: tables)


def grid_of_heads_text(title: str, L: int, H: int, names: list[str]) -> tuple[str, list[Table]]:
    """The /model grid of L layers by H heads: each head's label ("layer l, head h: label (score s)")."""
    words = [n.split(": ", 1)[1] if ": " in n else n for n in names]
    labels = [re.sub(r" \([^()]*\)(;.*)?$", "", w) for w in words]  # the label, its score (and more) cut
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    say = ", ".join(ngettext("{n} head {label}", "{n} heads {label}", c, label=label) for label, c in ranked)
    table = Table(title, _("layer by head"), [_("head {n}", n=h + 1) for h in range(H)],
                  [(_("layer {n}", n=l + 1), words[l * H : (l + 1) * H]) for l in range(L)])  # fmt: skip
    said = _("{title}. {layers} layers by {heads} heads, each labelled by what it does on this sentence: {say}.",
             title=title, layers=L, heads=H, say=say)  # fmt: skip
    return said, [table]


def drawn_line_view(figure: Any, title: str, n: int, heads: list[str], hover: list[str]) -> Drawn:
    """The line view's figure handed over with its words and table (line_view_text)."""
    name = said(title) or _("Chart")
    text, tables = line_view_text(name, n, heads, hover)
    return Drawn(figure, name, "", text, lambda: tables)


def line_view_text(title: str, n: int, heads: list[str], hover: list[str]) -> tuple[str, list[Table]]:
    """The line view of n queries and `heads`: `hover`, each query's hover text ("query 3: it", then per
    head its strongest keys and their weights, one a line), is its table."""
    parts = [re.split(r"<br\s*/?>", str(h)) for h in hover]
    rows = [(plain(p[0]), ["; ".join(plain(x) for x in p[1:])]) for p in parts]  # "query 3: it", its weights
    if len(heads) > 1:
        say = _("{title}. Each of the {n} queries (left) joined to the keys (right) it attends to, a thicker "
                "line for more weight; {count} heads: {heads}.", title=title, n=n, count=len(heads),
                heads=", ".join(heads))  # fmt: skip
    else:
        say = _("{title}. Each of the {n} queries (left) joined to the keys (right) it attends to, a thicker "
                "line for more weight.", title=title, n=n)  # fmt: skip
    return say, [Table(title, _("query"), [_("its strongest keys and their weights")], rows)]


def drawn_with(
    figure: Any, title: str, words: Callable[..., tuple[str, list[Table]]], *args: Any, **kw: Any
) -> Drawn:
    """A figure handed over with its words and tables: words(title, *args, **kw), e.g. cells_text."""
    name = said(title) or _("Chart")
    text, tables = words(name, *args, **kw)
    return Drawn(figure, name, "", text, lambda: tables)


def cells_text(
    title: str,
    z: np.ndarray,
    labels: Labels,
    *,
    text: list[list[str]] | None = None,
    digits: int = 2,
    sign: bool = False,
) -> tuple[str, list[Table]]:
    """A heatmap z (r, c), its rows and columns named by `labels` (row_title heads the table); a cell as
    printed: its `text` (r, c) where it has some (more than one row), then its value to `digits` (`sign`: a +
    on a positive one). The sentence names the smallest and the largest value and where they are."""
    z = np.atleast_2d(_array(z))
    r, c = z.shape
    rows, cols = labels.rows, labels.cols

    def number(v: float) -> str:
        out = fixed(v, digits)
        return "+" + out if sign and np.isfinite(v) and not out.startswith("-") else out

    cells = [
        [(f"{text[i][j]} " if text is not None and r > 1 else "") + number(z[i, j]) for j in range(c)]
        for i in range(r)
    ]
    if not np.isfinite(z).any():
        return f"{title}.", []
    lo, hi = np.unravel_index(np.nanargmin(z), z.shape), np.unravel_index(np.nanargmax(z), z.shape)
    where = (lambda ij: f"“{cols[ij[1]]}”") if r == 1 else (lambda ij: f"“{rows[ij[0]]}”, “{cols[ij[1]]}”")
    say = ngettext(
        "{title}. {n} row by {cols} columns, values from {low} ({low_at}) to {high} ({high_at}).",
        "{title}. {n} rows by {cols} columns, values from {low} ({low_at}) to {high} ({high_at}).",
        r, title=title, cols=c, low=prose(number(z[lo])), low_at=where(lo), high=prose(number(z[hi])),
        high_at=where(hi),
    )  # fmt: skip
    return say, [Table(title, labels.row_title, cols, [(rows[i], cells[i]) for i in range(r)])]


def tick_names(axis: dict[str, Any], n: int) -> list[str] | None:
    """The n labels of an axis a builder made (tickvals, ticktext) when they name every position 0 .. n-1 (as
    plain text), else None (thinned: a table names its rows by number)."""
    vals, text = axis.get("tickvals"), axis.get("ticktext")
    if vals is None or text is None:
        return None
    named = {round(float(v)): plain(t) for v, t in zip(_array(vals).tolist(), list(text), strict=False)}
    return [named[i] for i in range(n)] if all(i in named for i in range(n)) else None


# ------------------------------------------------------------------------------------------ curves, bars


def drawn_curves(
    figure: Any,
    title: str,
    x: np.ndarray,
    ys: np.ndarray,
    names: list[str],
    axis_titles: tuple[str, str],
    marks: tuple[np.ndarray, np.ndarray] | None = None,
) -> Drawn:
    """A line chart's figure handed over with its words and table (curves_text), from the curves drawn."""
    name = " ".join(str(title).split()) or _("Chart")
    said, tables = curves_text(name, x, ys, names, axis_titles, marks)
    return Drawn(figure, name, "", said, lambda: tables)


def curves_text(
    title: str,
    x: np.ndarray,
    ys: np.ndarray,
    names: list[str],
    axis_titles: tuple[str, str],
    marks: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[str, list[Table]]:
    """Curves ys (m, k) over one x (m,), one per name (see lines_text)."""
    x = _array(x)
    return lines_text(title, [(x, y) for y in _array(ys).reshape(len(x), -1).T], names, axis_titles, marks)


def lines_text(
    title: str,
    curves: list[tuple[np.ndarray, np.ndarray]],
    names: list[str],
    axis_titles: tuple[str, str],
    marks: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[str, list[Table]]:
    """Curves (x_j (m_j,), y_j (m_j,)), one per name: each curve's range (x's, the first curve's); the table at
    the marked points `marks` ((p,), (p, k)) where there are any, else at the x of the curve with the fewest
    points, each curve read there (NaN where it has no point: one measured at fewer steps than another), at
    most MAX_ROWS rows."""
    xt, yt = axis_titles[0] or "x", axis_titles[1] or "y"
    curves = [(_array(x), _array(y)) for x, y in curves]
    said = [_("{curve} from {low} to {high}", curve=n or _("a curve"), low=prose(short(np.nanmin(y))),
              high=prose(short(np.nanmax(y)))) for n, (_x, y) in zip(names, curves, strict=True)]  # fmt: skip
    k, x = len(names), curves[0][0]
    sentence = ngettext(
        "{title}. {n} curve of {y} against {x} from {low} to {high}: {curves}.",
        "{title}. {n} curves of {y} against {x} from {low} to {high}: {curves}.",
        k, title=title, y=yt, x=xt, low=prose(short(np.nanmin(x))), high=prose(short(np.nanmax(x))),
        curves="; ".join(said),
    )  # fmt: skip
    if marks is not None:
        xs = _array(marks[0])
        at = list(_array(marks[1]).reshape(len(xs), -1).T)
    else:
        xs = min(curves, key=lambda c: len(c[1]))[0]
        at = [_at_x(cx, cy, xs) for cx, cy in curves]
    keep = np.unique(np.linspace(0, len(xs) - 1, min(len(xs), MAX_ROWS)).round().astype(int))
    table = Table(title, xt, [n or _("curve {n}", n=j + 1) for j, n in enumerate(names)],
                  [(short(xs[i]), [short(y[i]) for y in at]) for i in keep])  # fmt: skip
    return sentence, [table]


def _at_x(x: np.ndarray, y: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A curve (x, y) read at the x values `at`: its own point there, NaN where it has none."""
    where = {float(v): i for i, v in enumerate(x)}
    return np.array([y[where[float(v)]] if float(v) in where else np.nan for v in at])


@dataclass(frozen=True, eq=False)
class Series:
    """One series of a bar chart: its name ("" for none), its categories' labels, its values (one a label),
    the values as the chart prints them (None: to 4 significant digits), and whether it is drawn as bars (a
    marker otherwise: a stack's sum)."""

    name: str
    labels: list[str]
    values: np.ndarray
    shown: list[str] | None = None
    bar: bool = True


def drawn_bars(figure: Any, title: str, corner: str, series: list[Series]) -> Drawn:
    """A bar chart's figure handed over with its words and table (bars_text), from the values drawn."""
    name = said(title) or _("Chart")
    text, tables = bars_text(name, said(corner) or _("bar"), series)
    return Drawn(figure, name, "", text, lambda: tables)


def said(text: object) -> str:
    """A label as a chart's text says it: its whitespace one space (as the figure shows it)."""
    return " ".join(str(text).split())


def bars_text(title: str, corner: str, series: list[Series]) -> tuple[str, list[Table]]:
    """Bar charts: each bar's value as the chart prints it, or to 4 significant digits; one series named by
    its bars, stacked parts by their sum and the largest part, else each series by its bars."""
    cats: list[str] = []
    values: list[dict[str, str]] = []
    for t in series:
        got = {c: (t.shown[k] if t.shown else short(t.values[k])) for k, c in enumerate(t.labels)}
        cats += [c for c in t.labels if c not in cats]
        values.append(got)
    names = [t.name or _("value") for t in series]
    table = Table(title, corner, names, [(c, [v.get(c, "") for v in values]) for c in cats[:MAX_ROWS]])
    if len(series) == 1:
        first = ", ".join(f"{c} {prose(values[0][c])}" for c in cats[:10])
        if len(cats) > 10:
            return _("{title}. {n} bars: {bars}, and {more} more.", title=title, n=len(cats), bars=first,
                     more=len(cats) - 10), [table]  # fmt: skip
        return ngettext("{title}. {n} bar: {bars}.", "{title}. {n} bars: {bars}.", len(cats), title=title,
                        bars=first), [table]  # fmt: skip
    bars = [t for t in series if t.bar]
    if len(bars) < len(series):  # stacked parts and their sum (a marker): the sum, and the largest part
        total = series[names.index(names[-1])]
        nums = [t.values for t in bars]
        k, c = np.unravel_index(np.argmax(np.abs(np.stack(nums))), (len(nums), len(cats)))
        say = ", ".join(f"{cat} {prose(values[-1][cat])}" for cat in cats[:8]) + (
            ", …" if len(cats) > 8 else ""
        )
        return _(
            "{title}. {parts} parts stacked in each of {bars} bars; {total}: {say}; the largest part is {part}'s "
            "in {bar}, {value}.",
            title=title, parts=len(bars), bars=len(cats), total=total.name, say=say, part=names[k], bar=cats[c],
            value=prose(values[k][cats[c]]),
        ), [table]  # fmt: skip
    per = "; ".join(
        f"{n}: "
        + ", ".join(f"{c} {prose(v[c])}" for c in cats[:6] if c in v)
        + (", …" if len(cats) > 6 else "")
        for n, v in zip(names, values, strict=True)
    )
    return _("{title}. {series} series over {bars} bars: {per}.", title=title, series=len(series), bars=len(cats),
             per=per), [table]  # fmt: skip
