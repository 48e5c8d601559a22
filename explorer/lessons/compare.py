"""The comparison machinery of the lessons: a number as a notebook printed it, beside the app's number for
the same thing, and the small tables a lesson shows beyond its notebook. Pure: numpy, no Streamlit.

Every printed number is a `Printed` constant naming the notebook cell it comes from ("In [36]"), at the
precision the notebook printed it. A `Check` pairs it with the app's number; `rows` turns checks into the
lines of the comparison table. `Table` is what a lesson shows that its notebook could not.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import attention_core as ac
from explorer.compute.pipeline import Result
from explorer.i18n import N_, _
from explorer.model.arrays import F64
from explorer.model.example import Example, conform

Run = Callable[[Example], Result]  # how a lesson runs another example (the app passes compute.run: cached)


@dataclass(frozen=True, eq=False)
class Printed:
    """One number, vector or matrix as a notebook printed it: `decimals` digits after the point.

    agree_to: the decimals the app must reproduce; fewer than `decimals` only where the notebook's own inputs
    reach us rounded (seed 003 prints q, k, v to 8 decimals, so their products can move the 8th).
    """

    label: str
    cell: str
    values: F64
    decimals: int
    agree_to: int

    @property
    def why_fewer(self) -> str:
        if self.agree_to >= self.decimals:
            return ""
        return _("to {agree} of {decimals} decimals", agree=self.agree_to, decimals=self.decimals)


def printed(label: str, cell: str, values: object, decimals: int, agree_to: int | None = None) -> Printed:
    return Printed(
        label, cell, np.array(values, dtype=np.float64), decimals, decimals if agree_to is None else agree_to
    )


@dataclass(frozen=True, eq=False)
class Check:
    """A printed number beside the app's number for the same thing.

    They agree when every entry of the app's value rounds to the printed one: |app - printed| at most half a
    unit of the last printed decimal (plus 1e-12 for float noise); -inf agrees with -inf only.
    """

    printed: Printed
    app: F64 | None  # None when the app has no such number (e.g. the sentence has changed)
    source: str  # where the app's number comes from, e.g. "attention weights, head 1"

    @property
    def label(self) -> str:
        return self.printed.label

    @property
    def cell(self) -> str:
        return self.printed.cell

    @property
    def tolerance(self) -> float:
        return 0.5 * 10.0 ** (-self.printed.agree_to) + 1e-12

    @property
    def max_diff(self) -> float:
        """Largest |app - printed| over the finite entries (inf when shapes or infinities disagree)."""
        if self.app is None or np.shape(self.app) != self.printed.values.shape:
            return math.inf
        a, p = np.asarray(self.app, dtype=np.float64), self.printed.values
        fin = np.isfinite(p)
        if not np.array_equal(fin, np.isfinite(a)) or not np.array_equal(a[~fin], p[~fin]):
            return math.inf
        return float(np.max(np.abs(a[fin] - p[fin]), initial=0.0))

    @property
    def agrees(self) -> bool:
        return self.max_diff <= self.tolerance


def fmt(values: object, decimals: int) -> str:
    """Numbers as numpy prints them with this precision (suppress=True): "[0.1981 0.1992 0.1963]"."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 0:
        return repr(float(arr)) if decimals > 8 else np.format_float_positional(float(arr), decimals)
    return np.array2string(arr, precision=decimals, suppress_small=True, max_line_width=10_000)


@dataclass(frozen=True)
class Row:
    """One line of a comparison table: one printed row beside the app's same row."""

    what: str
    cell: str
    notebook: str
    app: str
    source: str
    agrees: bool
    agree_to: int  # decimals compared
    decimals: int  # decimals printed

    @property
    def verdict(self) -> str:
        if not self.agrees:
            return "✗"
        return "✓" if self.agree_to >= self.decimals else _("✓ ({n} dp)", n=self.agree_to)


def rows(checks: list[Check]) -> list[Row]:
    """The checks as table lines: a matrix gives one line per row ("alphas, row 0"), a vector one line."""
    out: list[Row] = []
    for c in checks:
        p = c.printed.values
        d = c.printed.decimals
        if p.ndim < 2:
            app = _("(not in this example)") if c.app is None else fmt(c.app, d)
            out.append(Row(_(c.label), c.cell, fmt(p, d), app, c.source, c.agrees, c.printed.agree_to, d))
            continue
        app_ok = c.app is not None and np.shape(c.app) == p.shape
        for i in range(p.shape[0]):
            sub = Check(
                Printed(c.label, c.cell, p[i], d, c.printed.agree_to), c.app[i] if app_ok else None, c.source
            )
            app = fmt(c.app[i], d) if app_ok else _("(not in this example)")
            out.append(
                Row(
                    _("{label}, row {i}", label=_(c.label), i=i),
                    c.cell,
                    fmt(p[i], d),
                    app,
                    c.source,
                    sub.agrees,
                    c.printed.agree_to,
                    d,
                )
            )
    return out


@dataclass(frozen=True, eq=False)
class Table:
    """A small labelled matrix for the panel: rows x cols values at `decimals` digits.

    kind: "table" (numbers), or "weights" / "signed" (drawn as a heatmap), "text" (only `caption`).
    group: consecutive tables with the same non-empty group are drawn side by side.
    source: about where the example comes from (the notebook's runs, its seed): drawn in that detail.
    """

    title: str
    rows: list[str] = field(default_factory=list)
    cols: list[str] = field(default_factory=list)
    values: F64 = field(default_factory=lambda: np.zeros((0, 0)))
    decimals: int = 4
    caption: str = ""
    kind: str = "table"
    group: str = ""
    source: bool = False


def dims(n: int, prefix: str = "d") -> list[str]:
    return [f"{prefix}{j}" for j in range(n)]


def head_of(t: ac.AttentionTrace | None, name: str) -> F64 | None:
    """Head 1 (index 0) of a traced (h, ...) field, or None."""
    if t is None:
        return None
    return np.asarray(getattr(t, name)[0])


def row_of(m: F64 | None, i: int) -> F64 | None:
    return None if m is None or len(m) <= i else m[i]


# Where the app's number comes from, for head 1's traced fields (the comparison table's last column).
HEAD1 = {  # marked: translated where the table is made
    "q": N_("queries, head 1"),
    "k": N_("keys, head 1"),
    "v": N_("values, head 1"),
    "scores": N_("raw scores q kᵀ, head 1"),
    "weights": N_("attention weights, head 1"),
    "head_outputs": N_("head-1 output (before W_O)"),
}


def head1(res: Result, **printed: Printed) -> list[Check]:
    """Head 1's traced fields beside the printed numbers, in the order given (q=Q, k=K, weights=ALPHAS)."""
    return [Check(p, head_of(res.attention, name), _(HEAD1[name])) for name, p in printed.items()]


def table_example(
    sentence: str, emb: object, w_q: object, w_k: object, w_v: object, **settings: object
) -> Example:
    """A notebook's example: its embeddings as the hand-set table, its W_Q, W_K, W_V as (d_model, d_k) for one
    head or (n_heads, d_model, d_k), its other settings; every other matrix the seeded default (conform)."""
    heads = [np.asarray(m, dtype=np.float64) for m in (w_q, w_k, w_v)]
    heads = [m[None] if m.ndim == 2 else m for m in heads]  # (n_heads, d_model, d_k)
    n_heads, d_model, d_k = heads[0].shape
    ex = Example(
        sentence=sentence, d_model=d_model, n_heads=n_heads, d_k=d_k, emb_source="table",
        emb=np.array(emb, dtype=np.float64), w_q=heads[0], w_k=heads[1], w_v=heads[2], **settings,
    )  # fmt: skip
    return conform(ex)
