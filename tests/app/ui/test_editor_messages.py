"""Data-editor messages crafted over the WebSocket: refused with a message, nothing lost.

A browser reports an edit as JSON ({"edited_rows": {"<row>": {"c<j>": value}}, "added_rows": [],
"deleted_rows": []}), and anyone can send any text there. Each crafted message below is sent as the widget
state of head 1's W_Q editor on /projections, the way fixtures.edit_cells sends a real one: the run shows no
exception (nor the next one), a message names the editor, every matrix keeps its values (an earlier good edit
included), and the next good edit lands.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.proto.WidgetStates_pb2 import WidgetState

from explorer.model.example import MATRIX_NAMES
from explorer.ui import editors
from tests.app.fixtures import editor_key, go, open_app


def msg(edited: object, added: object = (), deleted: object = ()) -> str:
    return json.dumps({"edited_rows": edited, "added_rows": list(added), "deleted_rows": list(deleted)})


CRAFTED = {
    "10**400": '{"edited_rows": {"0": {"c0": 1' + "0" * 400 + '}}, "added_rows": [], "deleted_rows": []}',
    "5000 digits": '{"edited_rows": {"0": {"c0": 1'
    + "0" * 5000
    + '}}, "added_rows": [], "deleted_rows": []}',
    "unknown column": msg({"0": {"c²": 1.0}}),
    "column c99": msg({"0": {"c99": 1.0}}),
    "index column": msg({"0": {"_index": "x"}}),
    "row 99": msg({"99": {"c0": 1.0}}),
    "row -1": msg({"-1": {"c0": 1.0}}),
    "row 10**9": msg({"1000000000": {"c0": 1.0}}),
    "row 'x'": msg({"x": {"c0": 1.0}}),
    "added row": msg({}, added=[{"c0": 1.0}]),
    "deleted row": msg({}, deleted=[0]),
    "not JSON": "{not json",
    "a list": "[1, 2]",
    "a number": "7",
    "null rows": '{"edited_rows": null}',
    "rows as a list": '{"edited_rows": [1, 2]}',
    "a row as a number": msg({"0": 5}),
    "nested value": msg({"0": {"c0": {"a": [1]}}}),
    "NaN": '{"edited_rows": {"0": {"c0": NaN}}, "added_rows": [], "deleted_rows": []}',
    "Infinity": '{"edited_rows": {"0": {"c0": Infinity}}, "added_rows": [], "deleted_rows": []}',
    "text": msg({"0": {"c0": "abc"}}),
    "decimal comma": msg({"0": {"c0": "1,5"}}),
    "deep": '{"edited_rows": ' + "[" * 5000 + "]" * 5000 + "}",
}


def send(at, key: str, raw: str):  # noqa: ANN001, ANN201 - AppTest
    node = next(e for e in at.data_editor if e.key == key)
    states = at._tree.get_widget_states()
    states.widgets.append(WidgetState(id=node.proto.id, string_value=raw))
    at._tree.get_widget_states = lambda: states  # one run only
    at.run()
    return at


def matrices(at) -> dict[str, np.ndarray]:  # noqa: ANN001
    return {n: np.array(v, copy=True) for n, v in at.session_state["m.matrices"].items()}


def toasts(at) -> list[str]:  # noqa: ANN001
    return [t.body for t in at.toast]


@pytest.mark.parametrize("case", list(CRAFTED))
def test_a_crafted_editor_message_is_refused_with_a_message_and_nothing_is_lost(case: str) -> None:
    at = go(open_app(), "app_pages/projections.py")
    key = editor_key(at, "w_q", 0)
    send(at, key, msg({"1": {"c1": 0.25}}))  # a good edit first: it must survive what follows
    assert not at.exception
    before = matrices(at)
    assert before["w_q"][0, 1, 1] == 0.25

    send(at, editor_key(at, "w_q", 0), CRAFTED[case])
    assert not at.exception, [e.message for e in at.exception]
    said = " ".join(toasts(at))
    assert "W\\_Q" in said or "W_Q" in said, said  # a message names the editor (Markdown-escaped)
    after = matrices(at)
    for name in MATRIX_NAMES:
        assert after[name].tobytes() == before[name].tobytes(), name

    at.run()  # the refused message is not replayed: the next run is clean too
    assert not at.exception
    send(at, editor_key(at, "w_q", 0), msg({"2": {"c3": -0.5}}))  # and the editor still takes an edit
    assert not at.exception
    assert matrices(at)["w_q"][0, 2, 3] == -0.5 and matrices(at)["w_q"][0, 1, 1] == 0.25


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
            lambda inner: (
                st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
            ),
            max_leaves=12,
        ).map(lambda v: json.dumps({"edited_rows": v})),
        st.dictionaries(
            st.text(max_size=4), st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=4))
        ).map(lambda v: json.dumps({"edited_rows": v, "added_rows": [], "deleted_rows": []})),
    )
)
def test_the_guarded_reader_never_raises(raw: str) -> None:
    """Whatever text arrives as an editor's message, Streamlit's reader (guarded) returns an edit or a refusal:
    edited_rows an object of objects, no added or deleted rows, or the reason."""
    from streamlit.elements.widgets.data_editor import DataEditorSerde

    out = DataEditorSerde().deserialize(raw)
    if editors.REFUSED in out:
        assert out[editors.REFUSED] and out["edited_rows"] == {}
    else:
        assert editors.problem_of(out) is None
