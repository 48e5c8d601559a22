"""The class's answers at the end of the lesson's notebook: question by question, the counts and the truth,
no names, typed text escaped, and the same counts as data that runs."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from explorer.classroom import store as cs
from explorer.classroom.store import Question
from explorer.export import class_notebook
from explorer.ui import class_ui

IT = Question("q1", "Which word does “it” attend to most?", ("The", "cat", "it"), truth=1)
TYPED = Question("q2", "Next word after <b>*a* | b</b>?", ("x|y", "`z`"))  # never revealed


def lesson() -> bytes:
    return nbformat.writes(new_notebook(cells=[new_code_cell("x = 1")])).encode("utf-8")


def test_each_question_its_counts_share_and_truth_in_the_order_asked() -> None:
    nb = nbformat.reads(class_notebook.appended(lesson(), [(IT, (1, 3, 0)), (TYPED, (2, 0))]).decode(), 4)
    assert nb.cells[0].source == "x = 1"  # the lesson's own cells first
    first, second = nb.cells[2].source, nb.cells[3].source
    assert "**Question 1.** Which word does “it” attend to most?" in first
    assert (
        "| cat | 3 | 75% | ✓ |" in first and "| The | 1 | 25% |  |" in first and "| it | 0 | 0% |  |" in first
    )
    assert first.endswith("4 answers; the answer is cat.")
    assert r"Next word after \<b\>\*a\* \| b\</b\>?" in second and r"| x\|y | 2 | 100% |  |" in second
    assert "<b>" not in second and second.endswith("2 answers; not revealed.")
    scope: dict[str, object] = {}
    exec(nb.cells[-1].source, scope)  # noqa: S102 - the notebook's own cell, data only
    assert scope["class_answers"] == [
        {"question": IT.prompt, "choices": ["The", "cat", "it"], "answers": [1, 3, 0], "right": 1},
        {"question": TYPED.prompt, "choices": ["x|y", "`z`"], "answers": [2, 0], "right": None},
    ]


def test_no_question_asked_says_so() -> None:
    nb = nbformat.reads(class_notebook.appended(lesson(), []).decode(), 4)
    assert len(nb.cells) == 2 and "answered no question" in nb.cells[1].source


def test_the_teachers_notebook_carries_the_class_answers_and_no_student_id(
    tmp_path: Path, monkeypatch
) -> None:  # noqa: ANN001
    monkeypatch.setenv(cs.DATA_ENV, str(tmp_path))
    monkeypatch.delenv(cs.BACKEND_ENV, raising=False)
    class_ui.store.cache_clear()
    try:
        store = class_ui.store()
        c = store.create()
        kids = [store.join(c.code, f"addr{i}", "Ana") for i in range(3)]
        store.ask(c.code, c.key, Question("q1", IT.prompt, IT.options))
        for kid, choice in zip(kids, (1, 1, 0), strict=True):
            store.answer(c.code, kid, "q1", choice)
        store.reveal(c.code, c.key, "q1", 1)
        made = class_ui.with_answers((c.code, c.key), lesson)
        own = lesson()
        assert class_ui.with_answers(None, lambda: own) == own  # no class: the lesson's notebook alone
        text = made.decode()
        assert "| cat | 2 | 67% | ✓ |" in "".join(json.loads(text)["cells"][2]["source"])
        assert not any(kid in text for kid in kids) and "Ana" not in text and c.key not in text
    finally:
        class_ui.store.cache_clear()
