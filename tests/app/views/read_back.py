"""What a Plotly figure shows, read back from the figure itself (its public JSON: a figure's to_plotly_json,
or the spec the chart element sent): the reference the tests hold each builder's own words and tables
against (views.drawn.Drawn, made from the numbers the builder drew). The app never reads a figure back.

A heatmap's full labels from layout.meta.table (its tick labels may be thinned to every k-th); the /model
grid's from layout.meta.keys; the line view's from its label traces' hover; other heatmaps, curves and
bars from their traces and axes.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import numpy as np

from explorer.views.describe import (
    MAX_ROWS,
    Labels,
    Panel,
    Series,
    Table,
    bars_text,
    cells_text,
    grid_of_heads_text,
    line_view_text,
    matrix_text,
    plain,
    short,
)
from explorer.views.drawn import Drawn


def array(value: Any) -> np.ndarray:
    """A Plotly data array as float64: a numpy array, (nested) lists with None for gaps, or the typed-array
    JSON {dtype, bdata, shape} a sent figure holds."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if value.get("shape"):
            arr = arr.reshape([int(s) for s in str(value["shape"]).split(",")])
        return arr.astype(np.float64)
    if isinstance(value, np.ndarray):
        return value.astype(np.float64)
    return np.array(value, dtype=object).astype(np.float64)


def parts(fig: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A figure's (traces, layout) as plain dicts: a Drawn's figure, a figure, or a sent spec."""
    fig = fig.figure if isinstance(fig, Drawn) else fig
    spec = fig if isinstance(fig, dict) else fig.to_plotly_json()
    return list(spec.get("data") or []), dict(spec.get("layout") or {})


def title_of(fig: Any) -> str:
    """The chart's title as plain text ("Chart" when it has none)."""
    title = parts(fig)[1].get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return plain(text) or "Chart"


def beyond_of(fig: Any) -> str:
    """The whole note on the values beyond a heatmap's colour range, "" when none are."""
    meta = parts(fig)[1].get("meta")
    return str(meta.get("beyond") or "") if isinstance(meta, dict) else ""


def describe(fig: Any, tables: bool = True) -> tuple[str, list[Table]]:
    """(one or two sentences on what the figure shows, its numbers as tables), read from the figure."""
    data, layout = parts(fig)
    meta = layout.get("meta") or {}
    title = title_of(fig)
    if isinstance(meta, dict) and "keys" in meta and "grid" in meta:
        L, H = int(meta["grid"][0]), int(meta["grid"][1])
        return grid_of_heads_text(title, L, H, [str(n) for n in meta["keys"]["names"]])
    if isinstance(meta, dict) and "table" in meta:
        return _matrices(title, data, meta["table"], beyond_of(fig), tables)
    if isinstance(meta, dict) and "lines" in meta:
        lines = meta["lines"]
        heads = [plain(t.get("name")) for t in data if t.get("type") == "scatter" and t.get("x") == [None]]
        return line_view_text(title, int(lines[0]), heads, list(data[int(lines[1])].get("hovertext") or []))
    if any(t.get("type") == "heatmap" for t in data):
        return _any_heatmap(title, data, layout)
    if any(t.get("type") == "bar" for t in data):
        return _bars(title, data, layout)
    lines = [t for t in data if t.get("type") == "scatter" and "lines" in str(t.get("mode", ""))]
    if lines:
        return _curves(title, data, layout, lines)
    return f"{title}.", []


def _matrices(
    title: str, data: list[dict[str, Any]], hint: dict[str, Any], beyond: str, tables_too: bool
) -> tuple[str, list[Table]]:
    """A heatmap, or one per panel (head_grid): the masked cells are the grey traces' (meta.masked_value)."""
    grids = [t for t in data if t.get("type") == "heatmap" and "masked_value" not in (t.get("meta") or {})]
    greys = [t for t in data if "masked_value" in (t.get("meta") or {})]
    panels = []
    for k, (name, trace) in enumerate(zip(hint.get("panels") or [""], grids, strict=False)):
        masked = np.isfinite(array(greys[k]["z"])) if k < len(greys) else None
        value = str((greys[k].get("meta") or {}).get("masked_value", "")) if k < len(greys) else ""
        panels.append(Panel(name, array(trace["z"]), masked, value))
    labels = Labels([str(r) for r in hint["rows"]], [str(c) for c in hint["cols"]],
                    str(hint.get("row_title", "row")), str(hint.get("col_title", "column")),
                    queries=bool(hint.get("queries")))  # fmt: skip
    return matrix_text(title, panels, labels, int(hint.get("digits", 2)), bool(hint.get("weights")), beyond,
                       tables_too)  # fmt: skip


def _ticks(layout: dict[str, Any], axis: str, n: int) -> list[str] | None:
    """An axis's n tick labels when it names every position 0 .. n-1, else None."""
    spec = layout.get(axis) or {}
    vals, text = spec.get("tickvals"), spec.get("ticktext")
    if vals is None or text is None:
        return None
    named = {round(float(v)): plain(t) for v, t in zip(array(vals).tolist(), list(text), strict=False)}
    return [named[i] for i in range(n)] if all(i in named for i in range(n)) else None


def _axis_title(layout: dict[str, Any], name: str, default: str) -> str:
    axis = layout.get(name) or {}
    title = axis.get("title") if isinstance(axis, dict) else None
    text = title.get("text") if isinstance(title, dict) else title
    return plain(text) or default


def _any_heatmap(title: str, data: list[dict[str, Any]], layout: dict[str, Any]) -> tuple[str, list[Table]]:
    """A heatmap with no table of its own: rows and columns named by its axes where they name every one, by a
    single row's cell text, else by number; a cell as printed (its text, then its value as its template
    rounds it)."""
    trace = next(t for t in data if t.get("type") == "heatmap")
    z = np.atleast_2d(array(trace["z"]))
    r, c = z.shape
    text = trace.get("text")
    text = np.atleast_2d(np.asarray(text, dtype=object)) if text is not None else None
    fmt = re.search(r"%\{z:(\+?)\.(\d)f\}", str(trace.get("texttemplate", "")))
    sign, digits = (bool(fmt.group(1)), int(fmt.group(2))) if fmt else (False, 2)
    rows = _ticks(layout, "yaxis", r) or [str(i) for i in range(r)]
    cols = _ticks(layout, "xaxis", c)
    if cols is None:
        cols = [plain(t) for t in text[0]] if text is not None and r == 1 else [str(j) for j in range(c)]
    labels = Labels(rows, cols, _axis_title(layout, "yaxis", "row"))
    words = None if text is None else [[plain(t) for t in row] for row in text]
    return cells_text(title, z, labels, text=words, digits=digits, sign=sign)


def _curves(
    title: str, data: list[dict[str, Any]], layout: dict[str, Any], lines: list[dict[str, Any]]
) -> tuple[str, list[Table]]:
    """Line charts: each curve's range; the table at the marked points where there are any, else at the x of
    the curve with the fewest points, each curve read at the rows' x (NaN where it has no point)."""
    xt, yt = _axis_title(layout, "xaxis", "x"), _axis_title(layout, "yaxis", "y")
    x = array(lines[0].get("x", np.arange(len(array(lines[0].get("y", []))))))
    said = []
    for t in lines:
        y = array(t["y"])
        said.append(
            f"{plain(t.get('name')) or 'a curve'} from {short(np.nanmin(y))} to {short(np.nanmax(y))}"
        )
    sentence = (
        f"{title}. {len(lines)} {'curve' if len(lines) == 1 else 'curves'} of {yt} against {xt} from "
        f"{short(np.nanmin(x))} to {short(np.nanmax(x))}: " + "; ".join(said) + "."
    )
    marks = [t for t in data if t.get("type") == "scatter" and str(t.get("mode")) == "markers"]
    source = marks if len(marks) == len(lines) else lines
    base = min(source, key=lambda t: len(array(t.get("y", []))))  # rows where every curve has a point, if any
    xs = array(base.get("x", np.arange(len(array(base.get("y", []))))))
    keep = np.unique(np.linspace(0, len(xs) - 1, min(len(xs), MAX_ROWS)).round().astype(int))
    ys = [_at_x(t, xs[keep]) for t in source]
    table = Table(title, xt, [plain(t.get("name")) or f"curve {k + 1}" for k, t in enumerate(lines)],
                  [(short(xs[i]), [short(y[r]) for y in ys]) for r, i in enumerate(keep)])  # fmt: skip
    return sentence, [table]


def _at_x(trace: dict[str, Any], at: np.ndarray) -> np.ndarray:
    """A curve's y at the x values `at`: its own point there, NaN where it has none."""
    y = array(trace["y"])
    x = array(trace.get("x", np.arange(len(y))))
    where = {float(v): i for i, v in enumerate(x)}
    return np.array([y[where[float(v)]] if float(v) in where else np.nan for v in at])


def _categories(trace: dict[str, Any], layout: dict[str, Any], horizontal: bool) -> list[str]:
    """A bar trace's category labels: its own strings, or the axis's tick text at its positions."""

    def values(v: Any) -> list[Any]:
        if isinstance(v, dict) or (isinstance(v, np.ndarray) and v.dtype.kind in "iuf"):
            return array(v).tolist()
        return list(v)

    n = len(array(trace.get("x" if horizontal else "y", [])))
    where = values(trace.get("y" if horizontal else "x", range(n)))
    axis = layout.get("yaxis" if horizontal else "xaxis") or {}
    ticks = dict(zip(values(axis.get("tickvals", [])), list(axis.get("ticktext", [])), strict=False))

    def name(v: Any) -> str:
        v = ticks.get(v, v)
        return short(v) if isinstance(v, float) else plain(v)

    return [name(v) for v in where]


def _bars(title: str, data: list[dict[str, Any]], layout: dict[str, Any]) -> tuple[str, list[Table]]:
    """Bar charts: each bar's value as the chart prints it (its text), or to 4 significant digits."""
    traces = [t for t in data if t.get("type") == "bar" or (t.get("type") == "scatter" and t.get("name"))]
    series = []
    for t in traces:
        horizontal = t.get("orientation") == "h"
        text = t.get("text")
        nums = array(t.get("x" if horizontal else "y", []))
        shown = [str(s) for s in text] if isinstance(text, list | tuple) and len(text) == len(nums) else None
        series.append(Series(plain(t.get("name")), _categories(t, layout, horizontal), nums, shown,
                             t.get("type") == "bar"))  # fmt: skip
    horizontal = traces[0].get("orientation") == "h"
    return bars_text(title, _axis_title(layout, "yaxis" if horizontal else "xaxis", "bar"), series)


def says_what_it_shows(drawn: Drawn) -> None:
    """A Drawn's title, note, sentence and tables are those read back from the figure it holds."""
    fig = drawn.figure
    assert (drawn.title, drawn.beyond) == (title_of(fig), beyond_of(fig))
    assert (drawn.summary, drawn.tables) == describe(fig, tables=True)
