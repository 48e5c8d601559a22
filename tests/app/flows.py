"""AppTest steps a person takes, shared by the app tests: open the app, go home through the frame, and
edit a data editor's cells through its real on_change (AppTest itself cannot type into st.data_editor)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from explorer.ui import page_table, state

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60  # seconds per run: generous for a loaded 2-core CI machine
PAGES = tuple(p.script for p in page_table.listed()[1:])  # every page after the first, in the menu's order


def open_app(sentence: str | None = None) -> AppTest:
    """app.py after its first run (the first page, with the frame), optionally on a given sentence."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    if sentence is not None:
        at.session_state["sentence"] = sentence
    at.run()
    assert not at.exception, at.exception
    return at


def home(at: AppTest) -> AppTest:
    """Back to the first page through app.py (the frame: sentence box, messages, sidebar with Undo)."""
    at.switch_page("app_pages/sentence.py")
    at.run()
    assert not at.exception, at.exception
    return at


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, (page, at.exception)
    return at


def editor_key(at: AppTest, name: str, *parts: object) -> str:
    """The current key of the data editor of matrix `name` (keys carry a version: ed.<name>.<parts>.v<n>)."""
    prefix = ".".join(["ed", name, *map(str, parts)]) + ".v"
    return next(e.key for e in at.data_editor if e.key.startswith(prefix))


def edit_cells(at: AppTest, key: str, edited_rows: dict[str, dict[str, Any]]) -> AppTest:
    """Run `at` as if the browser had reported these edits of the data editor `key`: its on_change runs.

    The editor's widget state (the JSON the browser sends: edited_rows by row position and column id) is
    added to the widget states of the next run, where the browser's would be.
    """
    node = next(e for e in at.data_editor if e.key == key)
    states = at._tree.get_widget_states()
    value = {"edited_rows": edited_rows, "added_rows": [], "deleted_rows": []}
    states.widgets.append(WidgetState(id=node.proto.id, string_value=json.dumps(value)))
    at._tree.get_widget_states = lambda: states  # one run only: the run builds a new tree
    at.run()
    return at


def matrix(at: AppTest, name: str) -> np.ndarray:
    return np.array(at.session_state["m.matrices"][name], copy=True)


def editor_values(at: AppTest, key: str) -> np.ndarray:
    """What the data editor `key` shows (its input table)."""
    node = next(e for e in at.data_editor if e.key == key)
    return node.value.to_numpy(dtype=float)


def open_share(at: AppTest) -> AppTest:
    """Open the sidebar's "Share and export" (as a click on it does: its contents are drawn only while open)."""
    at.session_state[state.K_SHARE_OPEN] = True
    at.run()
    assert not at.exception, at.exception
    return at
