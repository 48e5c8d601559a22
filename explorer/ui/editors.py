"""Matrix <-> DataFrame and the st.data_editor wrapper.

The rules (streamlit/streamlit #7354, #9196): the editor gets a DataFrame built from the canonical matrix,
a key, and num_rows="fixed"; its edits are applied once, in on_change, to the canonical matrix in state;
its return value is never fed back in. Column ids are c0, c1, ... (unique); the labels people see (token
text, "k0", ...) go through column_config, so repeated words never clash as column names.

What an editor reports comes from the browser, so anyone can craft it: not JSON, numbers
of thousands of digits, rows or columns that do not exist, added or deleted rows, nested values. Streamlit
reads it before any of the app's code runs, and an exception there stays on the page until the next edit.
`read_message` (installed on import, explorer.ui.patches) makes Streamlit's reader give an empty edit plus the reason instead;
`_apply` refuses the whole message with a message naming the editor, keeps every matrix as it was, and gives
the editor a fresh key, so the refused message is never replayed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from explorer.i18n import N_, _
from explorer.model import settings_table as table
from explorer.ui import patches, state
from explorer.views.text import literal

LIMIT = table.VALUE_LIMIT  # larger entries would overflow the scores (q . k of two 1e300 entries is inf)
REFUSED = "explorer_refused"  # set by the guarded reader in an editor's state: why its message was refused
_EMPTY = {"edited_rows": {}, "added_rows": [], "deleted_rows": []}


def problem_of(state: object) -> str | None:
    """Why an editor's reported state (after Streamlit's reader) cannot be an edit of ours, or None."""
    if not isinstance(state, dict):
        return N_("it is not an object")
    edited, added, deleted = (state.get(k) for k in ("edited_rows", "added_rows", "deleted_rows"))
    if not isinstance(edited, dict) or not all(isinstance(c, dict) for c in edited.values()):
        return N_("its edited rows are not an object of rows")
    if added or deleted:
        return N_("it adds or deletes rows (the matrices have a fixed size)")
    if not isinstance(added, list) or not isinstance(deleted, list):
        return N_("its added or deleted rows are not lists")
    return None


def read_message(ui_value: str | None, original) -> dict:  # noqa: ANN001 - Streamlit's own reader
    """Streamlit's reading of an editor's message, or an empty edit carrying the reason it was refused."""
    try:
        out = original(ui_value)
        why = problem_of(out)
    except (ValueError, TypeError, AttributeError, KeyError, RecursionError, OverflowError) as e:
        out, why = (
            None,
            N_("it is not the JSON a data editor sends")
            if isinstance(e, ValueError)
            else str(type(e).__name__),
        )
    if why is None:
        return out
    from streamlit.elements.widgets.data_editor import DataEditorState

    return DataEditorState({**_EMPTY, REFUSED: why})


# Installed on import, for every way the app is started: Streamlit reads a message before the app's code runs.
patches.guard_editor_messages(read_message)


def frame(m: np.ndarray, row_labels: Sequence[str]) -> pd.DataFrame:
    """A 2-D matrix as a DataFrame: index = row labels, columns c0..c{n-1}."""
    return pd.DataFrame(np.asarray(m), index=list(row_labels), columns=[f"c{j}" for j in range(m.shape[1])])


def parse_cell(value: object) -> tuple[float | None, str | None]:
    """A cell's new value as a float, or the reason it cannot be used."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, _("the cell was cleared")
    try:
        v = float(str(value).strip().replace("−", "-")) if isinstance(value, str) else float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None, _("{value} is not a number", value=repr(str(value)[:40]))
    if math.isnan(v):
        return None, _("NaN is not a number a matrix can hold")
    if math.isinf(v):
        return None, _("an infinite value would make every score it touches infinite")
    if abs(v) > LIMIT:
        return None, _(
            "{value:.3g} is too large (the limit is ±{limit:,.0f}: larger values overflow the scores)",
            value=v,
            limit=LIMIT,
        )
    return v, None


def _cell(key: object, size: int, prefix: str = "") -> int | None:
    """A row position ("3", 3) or column id ("c3") reported by the editor, or None if it is not one of ours
    (the index column "_index", or anything out of range: widget state comes from the browser)."""
    if isinstance(key, bool):
        return None
    text = str(key)
    if prefix:
        if not text.startswith(prefix):
            return None
        text = text[len(prefix) :]
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        return None
    i = int(text)
    return i if i < size else None


def _strays(title: str, strays: list[str]) -> str:
    """The message for cells an editor does not have (the first three named)."""
    cells = ", ".join(strays[:3])
    if len(strays) <= 3:
        return _(
            "{title}: the editor sent cells it does not have ({cells}); ignored.", title=title, cells=cells
        )
    return _(
        "{title}: the editor sent cells it does not have ({cells} and {more} more); ignored.",
        title=title,
        cells=cells,
        more=len(strays) - 3,
    )


def _apply(name: str, key: str, index: tuple[int, ...], title: str, rows: list[str], cols: list[str]) -> None:
    """on_change: apply every reported edit to the canonical matrix; report any cell that was refused.

    A message that is not an edit at all (see the module's docstring) is refused as a whole; a cell that is
    not in this editor (a row or column it does not have, the row labels) is ignored, with a message."""
    reported = state.editor_state(key)
    m = state.editable(name)
    sub = m[index] if index else m
    why = reported.get(REFUSED) or problem_of(reported)
    if why:
        state.set_matrix(name, m)  # unchanged; a fresh editor, so the message is not read again
        state.say(
            "refused",
            _(
                "{title}: the editor sent a change the explorer cannot read ({why}); nothing changed.",
                title=title,
                why=_(why),  # marked where it was found (outside the run: no language there)
            ),
        )
        return
    edits: dict = {}
    strays: list[str] = []
    for r, changes in reported["edited_rows"].items():
        for c, value in changes.items():
            i, j = _cell(r, sub.shape[0]), _cell(c, sub.shape[1], prefix="c")
            if i is None or j is None:
                strays.append(_("row {row}, column {col}", row=repr(str(r)[:20]), col=repr(str(c)[:20])))
            else:
                edits.setdefault(r, {})[c] = value
    if strays:
        state.say("refused", _strays(title, strays))
    refused: list[str] = []
    for r, changes in edits.items():
        i = _cell(r, sub.shape[0])
        for col, value in changes.items():
            j = _cell(col, sub.shape[1], prefix="c")
            if sub.dtype == bool:
                sub[i, j] = bool(value)
                continue
            v, no = parse_cell(value)
            if no is None:
                sub[i, j] = v
            else:
                refused.append(
                    _(
                        "{title}, row {row}, column {col}: {reason}; kept {kept:.6g}.",
                        title=title,
                        row=repr(rows[i]),
                        col=repr(cols[j]),
                        reason=no,
                        kept=sub[i, j],
                    )
                )
    if not np.array_equal(m, state.matrix(name)):  # a cell edit is one step undo() can take back
        state.remember_for_undo()
    state.set_matrix(name, m, from_editor=not (refused or strays))
    for msg in refused:
        state.say("refused", msg)  # a toast: it does not push the page down under the person's cursor


def matrix_editor(
    name: str,
    *,
    title: str,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    index: tuple[int | slice, ...] = (),
    digits: int = 4,
    height: int | None = None,
) -> None:
    """Draw the editor of `state.matrix(name)[index]` (a 2-D slice: a head, or a window of rows or columns of a
    large matrix, e.g. (slice(None), slice(0, 64)); the labels are the slice's); edits land in on_change."""
    m = state.matrix(name)
    sub = m[index] if index else m
    rows, cols = [str(r) for r in row_labels], [str(c) for c in col_labels]
    parts = [f"{i.start or 0}-{i.stop}" if isinstance(i, slice) else i for i in index]
    key = state.editor_key(name, *parts)
    if sub.dtype == bool:
        config = {f"c{j}": st.column_config.CheckboxColumn(label=c) for j, c in enumerate(cols)}
    else:
        config = {
            f"c{j}": st.column_config.NumberColumn(label=c, format=f"%.{digits}f", step=10.0**-digits)
            for j, c in enumerate(cols)
        }
    try:
        _draw(sub, rows, key, config, (name, key, index, title, rows, cols), height)
    except (IndexError, KeyError, ValueError, TypeError, OverflowError):
        # A crafted message Streamlit could not apply (on_change refuses them first; this is the last line):
        # the canonical matrix is untouched; a fresh editor shows it.
        state.set_matrix(name, np.array(m, copy=True))
        why = _("{title}: the editor sent a change the explorer cannot read; nothing changed.", title=title)
        st.toast(literal(why), icon=":material/block:", duration="infinite")
        fresh = state.editor_key(name, *parts)
        _draw(sub, rows, fresh, config, (name, fresh, index, title, rows, cols), height)


def bias_editor(
    name: str, *, title: str, col_labels: Sequence[str], head: int | None = None, part: slice = slice(None)
) -> None:
    """A real layer's bias (explorer.model.bridge) as a one-row editor under its weights; the toy model has none, so
    nothing is drawn. head: the row of a per-head bias (b_q, b_k, b_v: (H, k)); part: a window of a long one
    (b1 beside W1's window of hidden units)."""
    if state.matrix(name).size == 0:
        return
    index: tuple[int | slice | None, ...] = (slice(head, head + 1),) if head is not None else (None,)
    if part != slice(None):
        index = (*index, part)
    if state.description().biases:
        st.caption(_("{title} (the model's trained bias), added to every token's row", title=title))
    else:  # SmolLM2 was trained without
        st.caption(_("{title} (zeros: the model has no bias here; set one to see its effect), added to every "
                     "token's row", title=title))  # fmt: skip
    matrix_editor(name, title=title, row_labels=["bias"], col_labels=col_labels, index=index)  # type: ignore[arg-type]


def up_editor(dims: Sequence[str], hid: Sequence[str], part: slice) -> None:
    """SwiGLU's up projection W_up (d_model, d_ff) of a real layer, the same window of hidden units as W1's;
    nothing for a layer without one (the toy model, MiniLM)."""
    if state.matrix("w_up").size == 0:
        return
    shown = "" if part == slice(None) else f" (hidden units {part.start}–{part.stop - 1})"
    st.caption(f"W_up: d_model × d_ff{shown}. SwiGLU: hidden = silu(x W1 + b1) · (x W_up), then W2.")
    index = () if part == slice(None) else (slice(None), part)
    matrix_editor("w_up", title="W_up", row_labels=dims, col_labels=list(hid[part]), height=300, index=index)


def held(*names: str) -> tuple[str, ...]:
    """Of `names` (a real layer's biases and W_up), those the example holds (the toy model holds none): the
    matrices a Reset button restores with its weights."""
    return tuple(n for n in names if state.matrix(n).size)


def _draw(sub: np.ndarray, rows: list[str], key: str, config: dict, args: tuple, height: int | None) -> None:
    st.data_editor(
        frame(sub, rows),
        key=key,
        num_rows="fixed",
        column_config=config,
        on_change=_apply,
        args=args,
        disabled=["_index"],  # row labels are tokens or dimension names, not data
        width="stretch",
        height=height or "auto",
    )


WINDOW = 64  # a large matrix is edited this many rows or columns at a time (the chart shows the whole)


def window(label: str, size: int, key: str) -> slice:
    """For a dimension larger than WINDOW: a picker of which WINDOW of its indices the editor shows (the
    whole matrix is still drawn and computed); slice(None) when it fits."""
    if size <= WINDOW:
        return slice(None)
    starts = list(range(0, size, WINDOW))
    start = st.select_slider(
        label, starts, format_func=lambda s: f"{s}–{min(s + WINDOW, size) - 1}", key=key,
        help=_("The editor shows {n} at a time, so that it stays quick: pick which.", n=WINDOW),
    )  # fmt: skip
    return slice(int(start), min(int(start) + WINDOW, size))


def draw_buttons(names: tuple[str, ...], what: str, keys: tuple[str, str], *, short: bool = False) -> None:
    """Re-randomize / Reset buttons side by side for the matrices `names` (one undo step each, in state).

    what: the matrices as people read them ("W_O", "W1 and W2"); keys: the two buttons' widget keys; short: labels without `what` (it is in the heading above), `what` in the help.
    """
    b1, b2 = st.columns(2)
    seeded = state.description().drawn
    b1.button(
        _("Re-randomize") if short else _("Re-randomize {what}", what=what),
        key=keys[0],
        icon=":material/casino:",
        on_click=state.rerandomize,
        args=names,
        help=_("A new seeded draw of {what} (undo from the sidebar).", what=what)
        if seeded
        else _("A real model's layer keeps its trained weights: Reset returns to them."),
        width="stretch",
        disabled=not seeded,
    )
    b2.button(
        _("Reset") if short else _("Reset {what}", what=what),
        key=keys[1],
        icon=":material/restart_alt:",
        on_click=state.reset_matrix,
        args=names,
        help=_("Back to the seed's {what} (undo from the sidebar).", what=what)
        if seeded
        else _("Back to the trained {what} (undo from the sidebar).", what=what),
        width="stretch",
    )
