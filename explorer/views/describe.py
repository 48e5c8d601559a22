"""What a chart shows, in words and as tables: the text a screen reader
says for a chart (its title, then one or two sentences from its numbers) and the same numbers as tables
whose row and column headers are the chart's labels (tokens, dimensions, curve names), rounded as the chart
prints them. The chart element (explorer/ui/chart) and the HTML export read it. Pure.

A builder that hands over a Drawn (views.drawn: the heatmap builder) has had these made from its own numbers
(matrix_text); title_of, beyond_of and describe return them as they are. Any other chart is read from its
figure: a heatmap's full labels from layout.meta.table (its tick labels may be thinned to every k-th), curves
and bars from their traces.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

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


def plain(text: object) -> str:
    """Plotly text as plain text: line breaks as spaces, tags dropped, entities read."""
    t = re.sub(r"<br\s*/?>", " ", "" if text is None else str(text), flags=re.I)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", t)).split())


def _array(value: Any) -> np.ndarray:
    """A Plotly data array as float64: a numpy array, (nested) lists with None for gaps, or the typed-array
    JSON {dtype, bdata, shape} a chart element's figure holds."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if value.get("shape"):
            arr = arr.reshape([int(s) for s in str(value["shape"]).split(",")])
        return arr.astype(np.float64)
    if isinstance(value, np.ndarray):
        return value.astype(np.float64)
    return np.array(value, dtype=object).astype(np.float64)


def _parts(fig: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    data, layout = getattr(fig, "_data", None), getattr(fig, "_layout", None)
    if isinstance(data, list) and isinstance(layout, dict):
        return data, layout
    spec = fig if isinstance(fig, dict) else fig.to_plotly_json()
    return list(spec.get("data") or []), dict(spec.get("layout") or {})


def title_of(fig: Any) -> str:
    """The chart's title as plain text ("Chart" when it has none)."""
    if isinstance(fig, Drawn):
        return fig.title
    title = _parts(fig)[1].get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return plain(text) or "Chart"


def beyond_of(fig: Any) -> str:
    """The whole note on the values beyond a heatmap's colour range (colour_range.note), "" when none are."""
    if isinstance(fig, Drawn):
        return fig.beyond
    meta = _parts(fig)[1].get("meta")
    return str(meta.get("beyond") or "") if isinstance(meta, dict) else ""


def describe(fig: Any, tables: bool = True) -> tuple[str, list[Table]]:
    """(one or two sentences on what the chart shows, its numbers as tables); tables=False: no tables (the
    sentence alone costs next to nothing; a heatmap's table formats every cell)."""
    if isinstance(fig, Drawn):
        return fig.summary, (fig.tables if tables else [])
    data, layout = _parts(fig)
    meta = layout.get("meta") or {}
    title = title_of(fig)
    if isinstance(meta, dict) and "keys" in meta and "grid" in meta:
        return _grid_of_heads(title, meta)
    if isinstance(meta, dict) and "table" in meta:
        return _matrices(title, data, meta["table"], beyond_of(fig), tables)
    if isinstance(meta, dict) and "lines" in meta:
        return _line_view(title, data, meta["lines"])
    if any(t.get("type") == "heatmap" for t in data):
        return _any_heatmap(title, data, layout)
    if any(t.get("type") == "bar" for t in data):
        return _bars(title, data, layout)
    lines = [t for t in data if t.get("type") == "scatter" and "lines" in str(t.get("mode", ""))]
    if lines:
        return _curves(title, data, layout, lines)
    return f"{title}.", []


# ------------------------------------------------------------------------------------------- heatmaps


def drawn_matrix(
    figure: Any, title: str, panels: list[Panel], labels: Labels, digits: int, weights: bool, beyond: str
) -> Drawn:
    """A heatmap's figure handed over with its words and tables (matrix_text), from the matrices drawn."""
    name = " ".join(str(title).split()) or "Chart"  # as the figure's wrapped, escaped title reads

    def text(tables: bool) -> tuple[str, list[Table]]:
        return matrix_text(name, panels, labels, digits, weights, beyond, tables)

    return Drawn(figure, name, beyond, text(False)[0], lambda: text(True)[1])


def _matrices(
    title: str, data: list[dict[str, Any]], hint: dict[str, Any], beyond: str, tables_too: bool
) -> tuple[str, list[Table]]:
    """A heatmap, or one per panel (head_grid), read from its figure: the masked cells are the grey traces'
    (meta.masked_value)."""
    grids = [t for t in data if t.get("type") == "heatmap" and "masked_value" not in (t.get("meta") or {})]
    greys = [t for t in data if "masked_value" in (t.get("meta") or {})]
    panels = []
    for k, (name, trace) in enumerate(zip(hint.get("panels") or [""], grids, strict=False)):
        masked = np.isfinite(_array(greys[k]["z"])) if k < len(greys) else None
        value = str((greys[k].get("meta") or {}).get("masked_value", "")) if k < len(greys) else ""
        panels.append(Panel(name, _array(trace["z"]), masked, value))
    labels = Labels([str(r) for r in hint["rows"]], [str(c) for c in hint["cols"]],
                    str(hint.get("row_title", "row")), str(hint.get("col_title", "column")))  # fmt: skip
    return matrix_text(title, panels, labels, int(hint.get("digits", 2)), bool(hint.get("weights")), beyond,
                       tables_too)  # fmt: skip


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
                    cells[i][j] = f"{'−∞' if p.value == '-inf' else p.value} (masked)"
            caption = f"{title}: {p.name}" if p.name else title
            tables.append(
                Table(caption, f"{rt} by {ct}", cols, [(rows[i], cells[i]) for i in range(len(rows))])
            )
        sentences.append(_matrix_sentence(p.name, p.z, p.masked, rows, cols, rt, ct, digits, weights))
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
    head = f"{name}: " if name else ""
    size = f"{len(rows)} {rt} rows by {len(cols)} {ct} columns"
    if not np.isfinite(z).any():
        return f"{head}{size}, every cell masked."
    i, j = np.unravel_index(np.nanargmax(z), z.shape)
    lo = np.unravel_index(np.nanargmin(z), z.shape)
    n_masked = int(masked.sum()) if masked is not None else 0
    tail = f"; {n_masked} of {z.size} cells masked" if n_masked else ""
    if weights and (rt, ct) == ("query", "key"):  # attention: rows are queries and sum to 1
        sums = np.nansum(z, axis=1)
        if np.allclose(sums[np.isfinite(z).any(axis=1)], 1.0, atol=5e-4):
            rows_say = "every row sums to 1"
        else:
            rows_say = f"rows sum to {fixed(sums.min(), 3)} to {fixed(sums.max(), 3)}"
        return (
            f"{head}{size}; the largest weight, {fixed(z[i, j], digits)}, is what “{rows[i]}” puts on "
            f"“{cols[j]}”; {rows_say}{tail}."
        )
    return (
        f"{head}{size}, values from {fixed(z[lo], digits)} (“{rows[lo[0]]}”, “{cols[lo[1]]}”) to "
        f"{fixed(z[i, j], digits)} (“{rows[i]}”, “{cols[j]}”){tail}."
    )


def _grid_of_heads(title: str, meta: dict[str, Any]) -> tuple[str, list[Table]]:
    """The /model grid read from its figure: each head's label is in layout.meta.keys.names."""
    L, H = int(meta["grid"][0]), int(meta["grid"][1])
    return grid_of_heads_text(title, L, H, [str(n) for n in meta["keys"]["names"]])


def drawn_grid_of_heads(figure: Any, title: str, L: int, H: int, names: list[str]) -> Drawn:
    """The /model grid's figure handed over with its words and table (grid_of_heads_text)."""
    name = said(title) or "Chart"
    text, tables = grid_of_heads_text(name, L, H, names)
    return Drawn(figure, name, "", text, lambda: tables)


def grid_of_heads_text(title: str, L: int, H: int, names: list[str]) -> tuple[str, list[Table]]:
    """The /model grid of L layers by H heads: each head's label ("layer l, head h: label (score s)")."""
    words = [n.split(": ", 1)[1] if ": " in n else n for n in names]
    labels = [w.rsplit(" (score", 1)[0] for w in words]
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    say = ", ".join(f"{c} {'head' if c == 1 else 'heads'} {label}" for label, c in ranked)
    table = Table(title, "layer by head", [f"head {h + 1}" for h in range(H)],
                  [(f"layer {l + 1}", words[l * H : (l + 1) * H]) for l in range(L)])  # fmt: skip
    return f"{title}. {L} layers by {H} heads, each labelled by what it does on this sentence: {say}.", [
        table
    ]


def _ticks(layout: dict[str, Any], axis: str, n: int) -> list[str] | None:
    """An axis's n tick labels when it names every position 0 .. n-1, else None."""
    spec = layout.get(axis) or {}
    vals, text = spec.get("tickvals"), spec.get("ticktext")
    if vals is None or text is None:
        return None
    named = {round(float(v)): plain(t) for v, t in zip(_array(vals).tolist(), list(text), strict=False)}
    return [named[i] for i in range(n)] if all(i in named for i in range(n)) else None


def _any_heatmap(title: str, data: list[dict[str, Any]], layout: dict[str, Any]) -> tuple[str, list[Table]]:
    """A heatmap its builder left no labels for: rows and columns named by its axes where they name every
    one, by a single row's cell text (a row of tokens), else by number; a cell as printed (its text, then its
    value as the cell's template rounds it)."""
    trace = next(t for t in data if t.get("type") == "heatmap")
    z = np.atleast_2d(_array(trace["z"]))
    r, c = z.shape
    text = trace.get("text")
    text = np.atleast_2d(np.asarray(text, dtype=object)) if text is not None else None
    fmt = re.search(r"%\{z:(\+?)\.(\d)f\}", str(trace.get("texttemplate", "")))
    sign, digits = (fmt.group(1), int(fmt.group(2))) if fmt else ("", 2)

    def number(v: float) -> str:
        out = fixed(v, digits)
        return "+" + out if sign and np.isfinite(v) and not out.startswith("-") else out

    rows = _ticks(layout, "yaxis", r) or [str(i) for i in range(r)]
    cols = _ticks(layout, "xaxis", c)
    if cols is None:
        cols = [plain(t) for t in text[0]] if text is not None and r == 1 else [str(j) for j in range(c)]
    cells = [
        [(f"{plain(text[i, j])} " if text is not None and r > 1 else "") + number(z[i, j]) for j in range(c)]
        for i in range(r)
    ]
    if not np.isfinite(z).any():
        return f"{title}.", []
    lo, hi = np.unravel_index(np.nanargmin(z), z.shape), np.unravel_index(np.nanargmax(z), z.shape)
    where = (lambda ij: f"“{cols[ij[1]]}”") if r == 1 else (lambda ij: f"“{rows[ij[0]]}”, “{cols[ij[1]]}”")
    say = (
        f"{title}. {r} {'row' if r == 1 else 'rows'} by {c} columns, values from {number(z[lo])} ({where(lo)}) to {number(z[hi])} "
        f"({where(hi)})."
    )
    corner = _axis_title(layout, "yaxis", "row")
    return say, [Table(title, corner, cols, [(rows[i], cells[i]) for i in range(r)])]


def _line_view(title: str, data: list[dict[str, Any]], lines: list[int]) -> tuple[str, list[Table]]:
    """The line view read from its figure: its weights are in its label traces' hover (each query's
    strongest keys, per head)."""
    heads = [plain(t.get("name")) for t in data if t.get("type") == "scatter" and t.get("x") == [None]]
    return line_view_text(title, int(lines[0]), heads, list(data[int(lines[1])].get("hovertext") or []))


def drawn_line_view(figure: Any, title: str, n: int, heads: list[str], hover: list[str]) -> Drawn:
    """The line view's figure handed over with its words and table (line_view_text)."""
    name = said(title) or "Chart"
    text, tables = line_view_text(name, n, heads, hover)
    return Drawn(figure, name, "", text, lambda: tables)


def line_view_text(title: str, n: int, heads: list[str], hover: list[str]) -> tuple[str, list[Table]]:
    """The line view of n queries and `heads`: `hover`, each query's hover text ("query 3: it", then per
    head its strongest keys and their weights, one a line), is its table."""
    parts = [re.split(r"<br\s*/?>", str(h)) for h in hover]
    rows = [(plain(p[0]), ["; ".join(plain(x) for x in p[1:])]) for p in parts]  # "query 3: it", its weights
    say = (
        f"{title}. Each of the {n} queries (left) joined to the keys (right) it attends to, a thicker line "
        f"for more weight" + (f"; {len(heads)} heads: {', '.join(heads)}" if len(heads) > 1 else "") + "."
    )
    return say, [Table(title, "query", ["its strongest keys and their weights"], rows)]


# ------------------------------------------------------------------------------------------ curves, bars


def _axis_title(layout: dict[str, Any], name: str, default: str) -> str:
    axis = layout.get(name) or {}
    title = axis.get("title") if isinstance(axis, dict) else None
    text = title.get("text") if isinstance(title, dict) else title
    return plain(text) or default


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
    name = " ".join(str(title).split()) or "Chart"
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
    """Curves ys (m, k) over x (m,), one per name: each curve's range; the table at the marked points
    `marks` ((p,), (p, k)) where there are any, else at the curves' own points (at most MAX_ROWS)."""
    xt, yt = axis_titles[0] or "x", axis_titles[1] or "y"
    x, ys = _array(x), _array(ys).reshape(len(_array(x)), -1)
    said = [
        f"{n or 'a curve'} from {short(np.nanmin(y))} to {short(np.nanmax(y))}"
        for n, y in zip(names, ys.T, strict=True)
    ]
    k = len(names)
    sentence = (
        f"{title}. {k} {'curve' if k == 1 else 'curves'} of {yt} against {xt} from "
        f"{short(np.nanmin(x))} to {short(np.nanmax(x))}: " + "; ".join(said) + "."
    )
    xs, at = (
        (x, ys) if marks is None else (_array(marks[0]), _array(marks[1]).reshape(len(_array(marks[0])), -1))
    )
    keep = np.unique(np.linspace(0, len(xs) - 1, min(len(xs), MAX_ROWS)).round().astype(int))
    table = Table(title, xt, [n or f"curve {j + 1}" for j, n in enumerate(names)],
                  [(short(xs[i]), [short(y[i]) for y in at.T]) for i in keep])  # fmt: skip
    return sentence, [table]


def _curves(
    title: str, data: list[dict[str, Any]], layout: dict[str, Any], lines: list[dict[str, Any]]
) -> tuple[str, list[Table]]:
    """Line charts: each curve's range; the table at the marked points where there are any (the sentence's
    positions on the encoding's curves), else at the curves' own points."""
    xt, yt = _axis_title(layout, "xaxis", "x"), _axis_title(layout, "yaxis", "y")
    x = _array(lines[0].get("x", np.arange(len(_array(lines[0].get("y", []))))))
    said = []
    for t in lines:
        y = _array(t["y"])
        said.append(
            f"{plain(t.get('name')) or 'a curve'} from {short(np.nanmin(y))} to {short(np.nanmax(y))}"
        )
    sentence = (
        f"{title}. {len(lines)} {'curve' if len(lines) == 1 else 'curves'} of {yt} against {xt} from "
        f"{short(np.nanmin(x))} to {short(np.nanmax(x))}: " + "; ".join(said) + "."
    )
    marks = [t for t in data if t.get("type") == "scatter" and str(t.get("mode")) == "markers"]
    source = marks if len(marks) == len(lines) else lines
    base = min(
        source, key=lambda t: len(_array(t.get("y", [])))
    )  # rows where every curve has a point, if any
    xs = _array(base.get("x", np.arange(len(_array(base.get("y", []))))))
    keep = np.unique(np.linspace(0, len(xs) - 1, min(len(xs), MAX_ROWS)).round().astype(int))
    ys = [_at_x(t, xs[keep]) for t in source]  # each curve read at the rows' x (its own x may differ)
    table = Table(title, xt, [plain(t.get("name")) or f"curve {k + 1}" for k, t in enumerate(lines)],
                  [(short(xs[i]), [short(y[r]) for y in ys]) for r, i in enumerate(keep)])  # fmt: skip
    return sentence, [table]


def _at_x(trace: dict[str, Any], at: np.ndarray) -> np.ndarray:
    """A curve's y at the x values `at`: its own point there, NaN where it has none (a curve measured
    at fewer steps than another on the same axes)."""
    y = _array(trace["y"])
    x = _array(trace.get("x", np.arange(len(y))))
    where = {float(v): i for i, v in enumerate(x)}
    return np.array([y[where[float(v)]] if float(v) in where else np.nan for v in at])


def _categories(trace: dict[str, Any], layout: dict[str, Any], horizontal: bool) -> list[str]:
    """A bar trace's category labels: its own strings, or the axis's tick text at its positions."""

    def values(v: Any) -> list[Any]:
        if isinstance(v, dict) or (isinstance(v, np.ndarray) and v.dtype.kind in "iuf"):
            return _array(v).tolist()
        return list(v)

    n = len(_array(trace.get("x" if horizontal else "y", [])))
    where = values(trace.get("y" if horizontal else "x", range(n)))
    axis = layout.get("yaxis" if horizontal else "xaxis") or {}
    ticks = dict(zip(values(axis.get("tickvals", [])), list(axis.get("ticktext", [])), strict=False))

    def name(v: Any) -> str:
        v = ticks.get(v, v)
        return short(v) if isinstance(v, float) else plain(v)

    return [name(v) for v in where]


def _bars(title: str, data: list[dict[str, Any]], layout: dict[str, Any]) -> tuple[str, list[Table]]:
    """Bar charts read from their figure: each bar's value as the chart prints it (its text), or to 4
    significant digits."""
    traces = [t for t in data if t.get("type") == "bar" or (t.get("type") == "scatter" and t.get("name"))]
    series = []
    for t in traces:
        horizontal = t.get("orientation") == "h"
        text = t.get("text")
        nums = _array(t.get("x" if horizontal else "y", []))
        shown = [str(s) for s in text] if isinstance(text, list | tuple) and len(text) == len(nums) else None
        series.append(Series(plain(t.get("name")), _categories(t, layout, horizontal), nums, shown,
                             t.get("type") == "bar"))  # fmt: skip
    horizontal = traces[0].get("orientation") == "h"
    return bars_text(title, _axis_title(layout, "yaxis" if horizontal else "xaxis", "bar"), series)


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
    name = said(title) or "Chart"
    text, tables = bars_text(name, said(corner) or "bar", series)
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
    names = [t.name or "value" for t in series]
    table = Table(title, corner, names, [(c, [v.get(c, "") for v in values]) for c in cats[:MAX_ROWS]])
    if len(series) == 1:
        first = ", ".join(f"{c} {values[0][c]}" for c in cats[:10])
        more = f", and {len(cats) - 10} more" if len(cats) > 10 else ""
        return f"{title}. {len(cats)} bars: {first}{more}.", [table]
    bars = [t for t in series if t.bar]
    if len(bars) < len(series):  # stacked parts and their sum (a marker): the sum, and the largest part
        total = series[names.index(names[-1])]
        nums = [t.values for t in bars]
        k, c = np.unravel_index(np.argmax(np.abs(np.stack(nums))), (len(nums), len(cats)))
        say = ", ".join(f"{cat} {values[-1][cat]}" for cat in cats[:8]) + (", …" if len(cats) > 8 else "")
        return (
            f"{title}. {len(bars)} parts stacked in each of {len(cats)} bars; {total.name}: {say}; "
            f"the largest part is {names[k]}'s in {cats[c]}, {values[k][cats[c]]}."
        ), [table]
    per = "; ".join(
        f"{n}: " + ", ".join(f"{c} {v[c]}" for c in cats[:6] if c in v) + (", …" if len(cats) > 6 else "")
        for n, v in zip(names, values, strict=True)
    )
    return f"{title}. {len(series)} series over {len(cats)} bars: {per}.", [table]
