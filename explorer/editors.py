"""Matrix <-> DataFrame and the st.data_editor wrapper.

The rules (streamlit/streamlit #7354, #9196): the editor gets a DataFrame built from the canonical matrix,
a key, and num_rows="fixed"; its edits are applied once, in on_change, to the canonical matrix in state;
its return value is never fed back in. Column ids are c0, c1, ... (unique); the labels people see (token
text, "k0", ...) go through column_config, so repeated words never clash as column names.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from explorer import settings_table as table
from explorer import state

LIMIT = table.VALUE_LIMIT  # larger entries would overflow the scores (q . k of two 1e300 entries is inf)


def frame(m: np.ndarray, row_labels: Sequence[str]) -> pd.DataFrame:
    """A 2-D matrix as a DataFrame: index = row labels, columns c0..c{n-1}."""
    return pd.DataFrame(np.asarray(m), index=list(row_labels), columns=[f"c{j}" for j in range(m.shape[1])])


def parse_cell(value: object) -> tuple[float | None, str | None]:
    """A cell's new value as a float, or the reason it cannot be used."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, "the cell was cleared"
    try:
        v = float(str(value).strip().replace("−", "-")) if isinstance(value, str) else float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None, f"{str(value)[:40]!r} is not a number"
    if math.isnan(v):
        return None, "NaN is not a number a matrix can hold"
    if math.isinf(v):
        return None, "an infinite value would make every score it touches infinite"
    if abs(v) > LIMIT:
        return None, f"{v:.3g} is too large (the limit is ±{LIMIT:,.0f}: larger values overflow the scores)"
    return v, None


def _cell(key: object, size: int, prefix: str = "") -> int | None:
    """A row position ("3", 3) or column id ("c3") reported by the editor, or None if it is not one of ours
    (the index column "_index", or anything out of range: widget state comes from the browser)."""
    text = str(key)
    if prefix:
        if not text.startswith(prefix):
            return None
        text = text[len(prefix) :]
    if not text.isdigit():
        return None
    i = int(text)
    return i if i < size else None


def _apply(name: str, key: str, index: tuple[int, ...], title: str, rows: list[str], cols: list[str]) -> None:
    """on_change: apply every reported edit to the canonical matrix; report any cell that was refused."""
    edits = state.editor_state(key).get("edited_rows", {})
    m = np.array(state.matrix(name), copy=True)
    sub = m[index] if index else m
    refused: list[str] = []
    for r, changes in (edits if isinstance(edits, dict) else {}).items():
        i = _cell(r, sub.shape[0])
        if i is None or not isinstance(changes, dict):
            continue
        for col, value in changes.items():
            j = _cell(col, sub.shape[1], prefix="c")
            if j is None:
                continue
            if sub.dtype == bool:
                sub[i, j] = bool(value)
                continue
            v, why = parse_cell(value)
            if why is None:
                sub[i, j] = v
            else:
                refused.append(f"{title}, row {rows[i]!r}, column {cols[j]!r}: {why}; kept {sub[i, j]:.6g}.")
    state.set_matrix(name, m, from_editor=not refused)
    for msg in refused:
        state.say("refused", msg)  # a toast: it does not push the page down under the person's cursor


def matrix_editor(
    name: str,
    *,
    title: str,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    index: tuple[int, ...] = (),
    digits: int = 4,
    height: int | None = None,
) -> None:
    """Draw the editor of `state.matrix(name)[index]` (a 2-D slice); edits land in on_change."""
    m = state.matrix(name)
    sub = m[index] if index else m
    rows, cols = [str(r) for r in row_labels], [str(c) for c in col_labels]
    key = state.editor_key(name, *index)
    if sub.dtype == bool:
        config = {f"c{j}": st.column_config.CheckboxColumn(label=c) for j, c in enumerate(cols)}
    else:
        config = {
            f"c{j}": st.column_config.NumberColumn(label=c, format=f"%.{digits}f", step=10.0**-digits)
            for j, c in enumerate(cols)
        }
    st.data_editor(
        frame(sub, rows),
        key=key,
        num_rows="fixed",
        column_config=config,
        on_change=_apply,
        args=(name, key, index, title, rows, cols),
        disabled=["_index"],  # row labels are tokens or dimension names, not data
        width="stretch",
        height=height or "auto",
    )


def draw_buttons(names: tuple[str, ...], what: str, keys: tuple[str, str], *, short: bool = False) -> None:
    """Re-randomize / Reset buttons side by side for the matrices `names` (one undo step each, in state).

    what: the matrices as people read them ("W_O", "W1 and W2"); keys: the two buttons' widget keys; short: labels without `what` (it is in the heading above), `what` in the help.
    """
    b1, b2 = st.columns(2)
    b1.button(
        "Re-randomize" if short else f"Re-randomize {what}",
        key=keys[0],
        icon=":material/casino:",
        on_click=state.rerandomize,
        args=names,
        help=f"A new seeded draw of {what} (undo from the sidebar).",
        width="stretch",
    )
    b2.button(
        "Reset" if short else f"Reset {what}",
        key=keys[1],
        icon=":material/restart_alt:",
        on_click=state.reset_matrix,
        args=names,
        help=f"Back to the seed's {what} (undo from the sidebar).",
        width="stretch",
    )
