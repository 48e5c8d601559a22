"""Nothing lost: edits made in the data editors survive page changes, reruns, sentence changes
(rows of words that stay keep their values) and dimension changes (the overlapping block is kept); resets
and re-draws can be undone from the sidebar.

Every edit goes through the editor's real on_change (fixtures.edit_cells), every change of page through
AppTest.switch_page, every setting through its widget.
"""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_array_equal
from streamlit.testing.v1 import AppTest

from explorer.model import seeding
from explorer.ui import state
from tests.app.fixtures import PAGES, edit_cells, editor_key, editor_values, go, home, matrix, open_app


def projections() -> AppTest:
    return go(open_app(), "app_pages/projections.py")


def test_edits_survive_every_page_and_reruns() -> None:
    at = projections()
    edit_cells(at, editor_key(at, "w_q", 0), {"0": {"c0": 0.5}, "3": {"c2": -1.25}})
    edit_cells(at, editor_key(at, "w_v", 0), {"7": {"c3": 2.0}})
    go(at, "app_pages/scores.py")
    at.radio(key="scores.scale_mode").set_value("none").run()
    at.toggle(key="scores.rope").set_value(True).run()
    edited = {name: matrix(at, name) for name in ("w_q", "w_k", "w_v")}
    assert edited["w_q"][0, 0, 0] == 0.5 and edited["w_q"][0, 3, 2] == -1.25 and edited["w_v"][0, 7, 3] == 2.0
    for page in (*PAGES, *PAGES[::-1]):
        go(at, page)
        at.run()  # a rerun of the same page
        for name, value in edited.items():
            assert_array_equal(matrix(at, name), value, err_msg=f"{name} after {page}")
    home(at)
    go(at, "app_pages/projections.py")
    shown = editor_values(at, editor_key(at, "w_q", 0))
    assert shown[0, 0] == 0.5 and shown[3, 2] == -1.25  # the editor shows the edit, not the seed's value
    go(at, "app_pages/scores.py")
    assert at.radio(key="scores.scale_mode").value == "none"  # page settings survive too
    assert at.toggle(key="scores.rope").value is True


def test_sentence_change_keeps_rows_of_words_that_stay() -> None:
    at = open_app("the cat sat on the mat")
    at.radio(key="sentence.emb_source").set_value("table").run()
    key = editor_key(at, "emb")
    edit_cells(at, key, {"1": {"c0": 7.0}, "2": {"c1": -3.0}, "0": {"c2": 5.0}})  # cat, sat, the
    emb = matrix(at, "emb")
    w_q = matrix(at, "w_q")
    at.text_input(key="sentence").set_value("a cat sat down").run()
    assert not at.exception
    new = matrix(at, "emb")
    assert new.shape == (4, 8)
    assert_array_equal(new[1], emb[1])  # "cat" keeps its edited row
    assert_array_equal(new[2], emb[2])  # "sat" too
    assert new[1, 0] == 7.0 and new[2, 1] == -3.0
    seeded = seeding.embeddings(["a", "cat", "sat", "down"], 8, 0)
    assert_array_equal(new[[0, 3]], seeded[[0, 3]])  # new words get their seeded vectors
    assert_array_equal(matrix(at, "w_q"), w_q)  # the weights do not depend on the sentence
    at.text_input(key="sentence").set_value("sat the cat").run()  # words move: rows follow their word
    moved = matrix(at, "emb")
    assert_array_equal(moved[0], emb[2]) and assert_array_equal(moved[2], emb[1])
    seeded_the = seeding.embeddings(["the"], 8, 0)[0]
    assert_array_equal(moved[1], seeded_the)  # "the" left the sentence in between: back to its seeded row
    shown = editor_values(at, editor_key(at, "emb"))
    assert shown[2, 0] == 7.0  # and the editor shows it


def test_positional_table_keeps_positions_when_the_sentence_changes() -> None:
    at = go(open_app("one two three"), "app_pages/positional-encoding.py")
    at.radio(key="pe.kind").set_value("learned").run()
    edit_cells(at, editor_key(at, "pe_table"), {"0": {"c0": 9.0}, "2": {"c3": -9.0}})
    home(at)
    at.text_input(key="sentence").set_value("one two three four five").run()
    pe = matrix(at, "pe_table")
    assert pe.shape == (5, 8) and pe[0, 0] == 9.0 and pe[2, 3] == -9.0
    at.text_input(key="sentence").set_value("one").run()
    assert matrix(at, "pe_table")[0, 0] == 9.0


def test_dimension_changes_keep_the_overlapping_block() -> None:
    at = projections()
    edit_cells(at, editor_key(at, "w_q", 0), {"0": {"c0": 0.5}, "7": {"c3": 0.75}})
    before = matrix(at, "w_q")  # (2, 8, 4)
    home(at)
    at.number_input(key="cfg.d_k").set_value(6).run()
    grown = matrix(at, "w_q")
    assert grown.shape == (2, 8, 6)
    assert_array_equal(grown[:, :, :4], before)
    assert_array_equal(grown[:, :, 4:], seeding.projection(0, "w_q", 2, 8, 6)[:, :, 4:])  # new: seeded
    at.number_input(key="cfg.d_k").set_value(3).run()
    assert_array_equal(matrix(at, "w_q"), before[:, :, :3])
    at.number_input(key="cfg.d_k").set_value(4).run()
    back = matrix(at, "w_q")
    assert back[0, 0, 0] == 0.5 and back[0, 7, 3] != 0.75  # a cell cut away is not remembered
    at.number_input(key="cfg.d_model").set_value(10).run()
    wide = matrix(at, "w_q")
    assert wide.shape == (2, 10, 4) and wide[0, 0, 0] == 0.5
    at.number_input(key="cfg.n_heads").set_value(1).run()
    at.number_input(key="cfg.n_heads").set_value(3).run()
    heads = matrix(at, "w_q")
    assert heads.shape == (3, 10, 4) and heads[0, 0, 0] == 0.5
    assert matrix(at, "w_o").shape == (12, 10)
    go(at, "app_pages/projections.py")
    assert editor_values(at, editor_key(at, "w_q", 0))[0, 0] == 0.5


def test_reset_and_rerandomize_can_be_undone() -> None:
    at = projections()
    edit_cells(at, editor_key(at, "w_q", 0), {"0": {"c0": 0.5}})
    edited = matrix(at, "w_q")
    at.button(key="projections.reset.w_q").click().run()
    seeded = seeding.projection(0, "w_q", 2, 8, 4)
    assert_array_equal(matrix(at, "w_q"), seeded)
    home(at)
    at.button(key="frame.undo").click().run()
    assert_array_equal(matrix(at, "w_q"), edited)
    assert any("Restored" in i.value for i in at.info)
    go(at, "app_pages/projections.py")
    at.button(key="projections.rand.w_q").click().run()
    drawn = matrix(at, "w_q")
    assert_array_equal(drawn, seeding.projection(0, "w_q", 2, 8, 4, draw=1))
    home(at)
    at.button(key="frame.undo").click().run()
    assert_array_equal(matrix(at, "w_q"), edited)  # the edit the new draw replaced is back


def test_resetting_both_ffn_weights_is_one_undo_step() -> None:
    at = go(open_app(), "app_pages/encoder.py")
    assert not any(e.key and "w1" in e.key for e in at.data_editor)  # closed: the editors do not run
    at.session_state[state.K_FFN_EDITORS] = True  # the expander opened
    at.run()
    edit_cells(at, editor_key(at, "w1"), {"0": {"c0": 1.5}})
    edit_cells(at, editor_key(at, "w2"), {"0": {"c0": -1.5}})
    w1, w2 = matrix(at, "w1"), matrix(at, "w2")
    at.button(key="encoder.reset").click().run()
    assert matrix(at, "w1")[0, 0] != 1.5 and matrix(at, "w2")[0, 0] != -1.5
    home(at)
    at.button(key="frame.undo").click().run()
    assert_array_equal(matrix(at, "w1"), w1)
    assert_array_equal(matrix(at, "w2"), w2)


def test_undo_restores_the_draw_counters() -> None:
    """After undoing, growing a dimension fills new cells from the draw the matrix came from."""
    at = projections()
    at.button(key="projections.rand.w_k").click().run()
    at.button(key="projections.rand.w_k").click().run()  # draw 2
    at.button(key="projections.reset.w_q").click().run()  # remembers draw 2 of w_k
    home(at)
    at.button(key="frame.undo").click().run()
    at.number_input(key="cfg.d_k").set_value(5).run()
    w_k = matrix(at, "w_k")
    assert_array_equal(w_k, seeding.projection(0, "w_k", 2, 8, 5, draw=2))


def test_refused_edit_loses_nothing() -> None:
    at = projections()
    edit_cells(at, editor_key(at, "w_q", 0), {"0": {"c0": 0.5}})
    good = matrix(at, "w_q")
    edit_cells(at, editor_key(at, "w_q", 0), {"0": {"c0": "abc", "c1": float("nan")}, "1": {"c0": 1e300}})
    assert_array_equal(matrix(at, "w_q"), good)
    assert len([t for t in at.toast if "kept" in t.value]) == 3  # shown once by the frame, as toasts
    assert np.isfinite(matrix(at, "w_q")).all()


def test_an_ffn_edit_survives_closing_its_expander() -> None:
    """The W1/W2 editors run only while their expander is open: closing it must not lose an edit."""
    at = go(open_app(), "app_pages/encoder.py")
    at.session_state[state.K_FFN_EDITORS] = True
    at.run()
    edit_cells(at, editor_key(at, "w1"), {"2": {"c3": 0.875}})
    assert matrix(at, "w1")[2, 3] == 0.875
    at.session_state[state.K_FFN_EDITORS] = False
    at.run()
    assert not any(e.key and "w1" in e.key for e in at.data_editor)
    assert matrix(at, "w1")[2, 3] == 0.875  # still in the example (and in the charts' output)
    at.session_state[state.K_FFN_EDITORS] = True
    at.run()
    assert editor_values(at, editor_key(at, "w1"))[2, 3] == 0.875


def test_a_cell_edit_can_be_undone() -> None:
    """Undo covers data-editor cell edits too, one edit per step."""
    at = projections()
    seeded = matrix(at, "w_q")
    assert not [b for b in at.sidebar.button if b.key == "frame.undo"]  # nothing to undo yet
    edit_cells(at, editor_key(at, "w_q", 0), {"0": {"c0": 0.5}})
    once = matrix(at, "w_q")
    edit_cells(at, editor_key(at, "w_q", 0), {"0": {"c0": 0.5}, "2": {"c1": -2.0}})  # a second edit
    assert matrix(at, "w_q")[0, 2, 1] == -2.0
    at.button(key="frame.undo").click().run()
    assert_array_equal(matrix(at, "w_q"), once)  # the last edit taken back, the first kept
    assert editor_values(at, editor_key(at, "w_q", 0))[2, 1] == seeded[0, 2, 1]  # the editor shows it
    assert editor_values(at, editor_key(at, "w_q", 0))[0, 0] == 0.5
    assert any("Restored" in i.value for i in at.info)
    edit_cells(at, editor_key(at, "w_q", 0), {"1": {"c3": "not a number"}})  # refused: nothing to undo
    assert_array_equal(matrix(at, "w_q"), once)
    assert not [b for b in at.sidebar.button if b.key == "frame.undo"]
