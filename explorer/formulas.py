"""LaTeX with the actual numbers substituted (pure: strings out, no Streamlit)."""

from __future__ import annotations

import math

import numpy as np

MAX_TERMS = 6  # products written out in a dot product before "+ ..."


def num(v: float, digits: int = 3) -> str:
    """A number for LaTeX: fixed digits, minus sign, infinities as \\infty."""
    if math.isinf(v):
        return r"-\infty" if v < 0 else r"\infty"
    s = f"{v:.{digits}f}"
    return s.replace("-", "{-}") if s.startswith("-") else s


def sub(*indices: object) -> str:
    """A LaTeX subscript of several indices, comma-separated: a_{7,10}, never a_{710} (is it 71, 0 or 7, 10?)."""
    return "_{" + ",".join(str(i) for i in indices) + "}"


def dot_terms(q: np.ndarray, k: np.ndarray, digits: int = 2) -> str:
    """q . k written out: (q0)(k0) + (q1)(k1) + ..., cut after MAX_TERMS products."""
    terms = [
        f"({num(a, digits)})({num(b, digits)})" for a, b in zip(q[:MAX_TERMS], k[:MAX_TERMS], strict=True)
    ]
    more = r" + \dots" if len(q) > MAX_TERMS else ""
    return " + ".join(terms) + more


def score_cell(
    q: np.ndarray,
    k: np.ndarray,
    raw: float,
    scale: float,
    bias: float | None,
    masked: bool,
    weight: float,
    row_scaled: np.ndarray,
    i: int,
    j: int,
    d_k: int,
) -> list[str]:
    """The lines of the formula for cell (i, j): raw score, scaled (+ bias), mask, softmax weight.

    q, k (d_k,) the query and key vectors; raw = q . k; scale the factor; row_scaled (n_keys,) the query's
    scaled and masked scores (masked = -inf) used by the softmax.
    """
    scale_tex = (
        r"\frac{1}{\sqrt{" + str(d_k) + "}}" if math.isclose(scale, 1 / math.sqrt(d_k)) else num(scale, 4)
    )
    lines = [rf"q{sub(i)} \cdot k{sub(j)} = {dot_terms(q, k)} = {num(raw, 4)}"]
    scaled = raw * scale + (bias or 0.0)
    bias_tex = f" + ({num(bias, 3)})" if bias is not None else ""
    s_ij, a_ij = f"s{sub(i, j)}", f"a{sub(i, j)}"
    lines.append(rf"{s_ij} = {num(raw, 4)} \times {scale_tex}{bias_tex} = {num(scaled, 4)}")
    if masked:
        lines.append(rf"\text{{masked: }} {s_ij} = -\infty \;\Rightarrow\; {a_ij} = 0")
        return lines
    finite = row_scaled[np.isfinite(row_scaled)]
    m = float(finite.max())
    denom = float(np.exp(finite - m).sum())
    s_ij_row = "s" + sub(i, "j'")  # s_{i,j'}: every key of the row
    lines.append(
        rf"{a_ij} = \frac{{e^{{{s_ij} - \max_{{j'}} {s_ij_row}}}}}{{\sum_{{j'}} e^{{{s_ij_row} - \max}}}}"
        rf" = \frac{{e^{{{num(scaled - m, 4)}}}}}{{{num(denom, 4)}}} = {num(weight, 4)}"
    )
    return lines
    finite = row_scaled[np.isfinite(row_scaled)]
    m = float(finite.max())
    denom = float(np.exp(finite - m).sum())
    lines.append(
        rf"a_{{{i}{j}}} = \frac{{e^{{s_{{{i}{j}}} - \max_j s_{{{i}j}}}}}}{{\sum_{{j'}} e^{{s_{{{i}j'}} - \max}}}}"
        rf" = \frac{{e^{{{num(scaled - m, 4)}}}}}{{{num(denom, 4)}}} = {num(weight, 4)}"
    )
    return lines
