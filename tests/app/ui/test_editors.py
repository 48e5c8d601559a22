"""explorer/ui/editors.py: cell parsing, matrix <-> DataFrame, and edits applied once to the canonical matrix."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

from explorer.ui import editors


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.5, 1.5),
        (-2, -2.0),
        (0, 0.0),
        ("3.25", 3.25),
        ("  -0.5 ", -0.5),
        ("−1.5", -1.5),  # the typographic minus people paste from documents
        ("1e3", 1000.0),
        (1e6, 1e6),
        (-1e6, -1e6),
        (True, 1.0),
        (np.float64(0.25), 0.25),
    ],
)
def test_parse_cell_accepts_numbers(value: object, expected: float) -> None:
    v, why = editors.parse_cell(value)
    assert why is None and v == expected


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (None, "cleared"),
        ("", "cleared"),
        ("   ", "cleared"),
        ("abc", "not a number"),
        ("1,5", "not a number"),
        ([1], "not a number"),
        (float("nan"), "NaN"),
        ("nan", "NaN"),
        (float("inf"), "infinite"),
        ("-inf", "infinite"),
        (1e6 + 1, "too large"),
        ("-2e7", "too large"),
        (1e308, "too large"),
    ],
)
def test_parse_cell_refuses_with_a_reason(value: object, reason: str) -> None:
    v, why = editors.parse_cell(value)
    assert v is None and why is not None and reason in why


def test_frame_unique_column_ids_and_labels_as_index() -> None:
    m = np.arange(6.0).reshape(2, 3)
    df = editors.frame(m, ["the", "the"])  # repeated row labels are fine in an index
    assert list(df.columns) == ["c0", "c1", "c2"]
    assert list(df.index) == ["the", "the"]
    assert_allclose(df.to_numpy(), m)


def _editor_script() -> None:
    """A page with only the W_Q editor of head 2; `t.edits` (set by the test) plays the person's edits."""
    import numpy as np
    import streamlit as st

    from explorer.ui import editors, state

    state.init()
    key = state.editor_key("w_q", 1)
    edits = st.session_state.pop("t.edits", None)
    if edits is not None:
        st.session_state[key] = {"edited_rows": edits, "added_rows": [], "deleted_rows": []}
        rows, cols = [f"d{j}" for j in range(8)], [f"k{j}" for j in range(4)]
        editors._apply("w_q", key, (1,), "W_Q (head 2)", rows, cols)
        del st.session_state[key]
    st.session_state["t.w_q"] = np.array(state.matrix("w_q"))
    st.session_state["t.key"] = state.editor_key("w_q", 1)  # the key the editor gets on this run
    for kind, text in state.take_messages():
        st.session_state.setdefault("t.messages", []).append((kind, text))


def _run(at: AppTest, edits: dict | None = None) -> AppTest:
    if edits is not None:
        at.session_state["t.edits"] = edits
    at.run()
    assert not at.exception, at.exception
    return at


def test_edits_land_once_in_the_canonical_matrix() -> None:
    at = _run(AppTest.from_function(_editor_script, default_timeout=60))
    before, key_before = at.session_state["t.w_q"], at.session_state["t.key"]
    _run(at, {0: {"c1": 0.5}, "3": {"c0": "-1.25"}})
    after = at.session_state["t.w_q"]
    assert after[1, 0, 1] == 0.5 and after[1, 3, 0] == -1.25
    changed = np.argwhere(after != before)
    assert sorted(map(tuple, changed)) == [(1, 0, 1), (1, 3, 0)]  # only head 2, only those cells
    assert at.session_state["t.key"] == key_before  # an edit from the editor keeps the editor (no reset)
    assert "t.messages" not in at.session_state
    _run(at)  # a rerun with no new edits changes nothing (edits are applied once)
    assert_allclose(at.session_state["t.w_q"], after)


@pytest.mark.parametrize("bad", [None, "", "x", float("nan"), "inf", 1e9])
def test_refused_cell_keeps_last_good_value_and_says_why(bad: object) -> None:
    at = _run(AppTest.from_function(_editor_script, default_timeout=60))
    _run(at, {2: {"c2": 0.75}})
    good = at.session_state["t.w_q"].copy()
    key = at.session_state["t.key"]
    _run(at, {2: {"c2": bad}, 0: {"c0": 2.0}})
    after = at.session_state["t.w_q"]
    assert after[1, 2, 2] == 0.75, "a refused cell keeps its last good value"
    assert after[1, 0, 0] == 2.0, "the other cells of the same edit still land"
    assert np.isfinite(after).all()
    assert_allclose(
        np.delete(after.ravel(), np.ravel_multi_index((1, 0, 0), after.shape)),
        np.delete(good.ravel(), np.ravel_multi_index((1, 0, 0), good.shape)),
    )
    messages = at.session_state["t.messages"]
    assert len(messages) == 1 and messages[0][0] == "refused"  # shown as a toast
    assert "row 'd2'" in messages[0][1] and "column 'k2'" in messages[0][1] and "0.75" in messages[0][1]
    assert at.session_state["t.key"] != key, "a refused edit gives a fresh editor showing the kept value"
