"""One matrix as a CSV file (for a spreadsheet): exact values, tokens quoted so that no spreadsheet runs them."""

from __future__ import annotations

import numpy as np

from explorer.model.example import Example


def to_csv(ex: Example, name: str, row_labels: list[str] | None = None) -> str:
    """One matrix as CSV text, exact (repr floats); 3-D matrices get a head column, the mask 1/0, a bias vector
    one row."""
    m = np.asarray(getattr(ex, name))
    if m.ndim == 1:  # a bias vector: one row
        m = m[None, :]
    labels = row_labels or [str(i) for i in range(m.shape[-2] if m.ndim >= 2 else 0)]
    per_token = name in ("emb", "pe_table", "custom_mask")
    first = ["token"] if per_token else ["row"]
    cols = [str(j) for j in range(m.shape[-1])] if m.ndim else []
    lines = []
    if m.ndim == 3:
        lines.append(",".join(["head", *first, *cols]))
        for h in range(m.shape[0]):
            for i in range(m.shape[1]):
                lines.append(",".join([str(h + 1), str(i), *(_cell(v) for v in m[h, i])]))
    else:
        lines.append(",".join([*first, *cols]))
        for i in range(m.shape[0]):
            lab = _csv_text(labels[i]) if per_token and i < len(labels) else str(i)
            lines.append(",".join([lab, *(_cell(v) for v in m[i])]))
    return "\n".join(lines) + "\n"


def _cell(v: object) -> str:
    if isinstance(v, np.bool_ | bool):
        return "1" if v else "0"
    return repr(float(v))


def _csv_text(s: str) -> str:
    """A CSV field, quoted; a leading =, +, - or @ is prefixed with ' so spreadsheets never run it."""
    if s[:1] in ("=", "+", "-", "@", "\t", "\r"):
        s = "'" + s
    return '"' + s.replace('"', '""') + '"'
