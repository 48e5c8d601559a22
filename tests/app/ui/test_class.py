"""A class through AppTest: the teacher starts it presenting, students join by the code (?join= or the first
page's box), follow the teacher's page and example, answer the class's question, see the count and the
reveal; "explore" and back keep the student's own edits; the teacher key never reaches a student; the CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.testing.v1 import AppTest

from explorer.classroom import store as cs
from explorer.compute import model_compute
from explorer.ui import chart, class_keep, class_ui, questions
from explorer.views.model_figures import show_token
from tests.app.fixtures import CAPITAL, ROOT, TIMEOUT, StopAtWrite, need, open_at, view_of

IT = 7  # "The cat sat on the mat because it was warm.": token 7 is "it"
LESSON_2 = "the cat saw the dog because the dog was loud"  # the attention lesson's second step sets it


@pytest.fixture(autouse=True)
def class_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test's classes in a store of its own (SQLite in a temporary folder)."""
    monkeypatch.setenv(cs.DATA_ENV, str(tmp_path))
    monkeypatch.delenv(cs.BACKEND_ENV, raising=False)
    class_ui.store.cache_clear()
    yield
    class_ui.store.cache_clear()


def tab(**query: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def bar(at: AppTest) -> str:
    """The class bar's text, bold marks dropped."""
    return " ".join(m.value for m in at.markdown if "Class" in m.value or "attend" in m.value).replace(
        "**", ""
    )


def teacher_with_class() -> tuple[AppTest, str, str]:
    t = tab(present="1", ask=str(IT))
    t.button(key="present.class").click().run()
    assert not t.exception, t.exception
    code, key = t.session_state["class.teach"]
    return t, code, key


def go(at: AppTest, script: str, **query: str) -> AppTest:
    at.switch_page(script)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_student_joins_by_the_link_follows_answers_and_sees_the_reveal() -> None:
    t, code, key = teacher_with_class()
    assert f"Class {cs.shown_code(code)}: 0 students joined." in bar(t)
    s = tab(join=code)
    assert "you follow the teacher" in bar(s) and "Step 1 of 18: Sentence" in bar(s)
    assert s.query_params["join"] == code  # a reload (or another replica) joins again
    go(t, "app_pages/scores.py", step="softmax")
    s.run()  # the poll sees the teacher's move; the next run shows it
    s.run()
    assert s.session_state["ui.page"] == "scores" and "part 3 of 3: Softmax" in bar(s)
    assert charts_of(s) == charts_of(t) and "scores.raw" not in charts_of(s)  # the projector's part only
    keys = {w.key for w in s.selectbox}
    assert "ui.colors" in keys and "ui.preset" not in keys  # following: only the look is theirs
    assert not any(
        el.proto.page_link.page for el in s.get("page_link")
    )  # no menu: the teacher picks the page
    assert "Which word will “it” attend to most \\(head 1\\)?" in bar(s)
    assert not any(b.key == "reveal" for b in s.button)  # a student cannot reveal the class's answer
    (radio,) = [r for r in s.radio if str(r.key).startswith("class.answer.")]
    assert radio.options == ["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "warm", "."]
    radio.set_value(1).run()
    s.button(key="class.send").click().run()
    assert any("You answered “cat”" in c.value for c in s.caption)
    assert s.query_params["me"] == s.session_state["class.joined"][1]
    again = tab(join=code, me=s.query_params["me"])  # a reload, or its replica died: the same student
    assert again.session_state["class.joined"][1] == s.session_state["class.joined"][1]
    t.run()
    assert "1 student joined. 1 of 1 answered." in bar(t)
    t.button(key="reveal").click().run()
    progress = [p.proto.text for p in t.get("progress")]
    s.run()
    s.run()
    truth = next(p.split(":")[0] for p in progress if "✓ right answer" in p)
    said = [a.value for a in [*s.success, *s.info] if "answer is" in a.value]
    assert said == ([f"Right: the answer is “{truth}”."] if truth == "cat" else
                    [f"The answer is “{truth}”; you answered “cat”."])  # fmt: skip
    assert any(a.value.startswith(f"Answer: “it” attends most to “{truth}”") for a in s.success)
    rows = list(csv.DictReader(io.StringIO(class_ui.answers_csv_bytes(code, key).decode())))
    assert [(r["choice"], r["answers"], r["right"]) for r in rows if r["answers"] != "0" or r["right"] == "yes"] == (
        [("cat", "1", "yes")] if truth == "cat" else
        sorted([("cat", "1", "no"), (truth, "0", "yes")], key=lambda r: rows_order(rows, r[0]))
    )  # fmt: skip
    for el in [*s.markdown, *s.caption, *s.code]:  # the teacher key is nowhere on a student's page
        assert key not in el.value
    assert all(key not in str(v) for v in s.query_params.values())


def charts_of(at: AppTest) -> set[str]:
    return {
        chart.key_of(el.proto) for el in at.get("bidi_component") if el.proto.component_name == chart.NAME
    }


def rows_order(rows: list[dict[str, str]], choice: str) -> int:
    return [r["choice"] for r in rows].index(choice)


def test_a_typed_code_joins_and_a_wrong_one_is_refused_with_a_message() -> None:
    _, code, _ = teacher_with_class()
    s = tab()
    s.text_input(key="class.code").set_value("ABCD-EFGH")
    s.button(key="FormSubmitter:class.join-Join").click().run()
    assert any("No class has this code" in w.value for w in s.warning)
    s.text_input(key="class.code").set_value(cs.shown_code(code).lower())
    s.text_input(key="class.nickname").set_value("**Bo**")
    s.button(key="FormSubmitter:class.join-Join").click().run()
    assert not s.exception, s.exception
    assert "as \\*\\*Bo\\*\\*: you follow the teacher" in bar(s)  # shown literally
    bad = tab(join="nonsense")
    assert any("A class code has 8 letters and digits" in w.value for w in bad.warning)


def test_explore_keeps_the_students_edits_and_follow_brings_the_teachers_page_back() -> None:
    t, code, _ = teacher_with_class()
    go(t, "app_pages/projections.py")
    s = tab(join=code)
    s.run()
    assert s.session_state["ui.page"] == "projections"
    s.button(key="class.explore").click().run()
    assert "you are exploring on your own" in bar(s)
    s.text_input(key="sentence").set_value("A dog ran.").run()
    go(t, "app_pages/heads.py")
    s.run()
    assert s.session_state["sentence"] == "A dog ran." and s.session_state["ui.page"] == "projections"
    s.button(key="class.follow").click().run()
    s.run()
    assert s.session_state["ui.page"] == "heads" and s.session_state["sentence"].startswith("The cat sat")
    s.button(key="class.explore").click().run()
    s.run()
    assert s.session_state["sentence"] == "A dog ran." and s.session_state["ui.page"] == "projections"


def test_the_teacher_ends_the_class_and_the_students_are_told() -> None:
    t, code, key = teacher_with_class()
    s = tab(join=code)
    t.button(key="class.end").click().run()
    assert "class.end" not in [b.key for b in t.button] and t.button(key="present.class")
    s.run()
    assert any("The class has ended" in i.value for i in s.info) and not bar(s)
    assert class_ui.store().pulse(code) is None
    with pytest.raises(cs.ClassError):
        class_ui.store().export(code, key)


def kept_data(at: AppTest) -> dict | None:
    """What the tab's key keeper (explorer.ui.class_keep) is told to do, None when it is not on the page."""
    for el in at.get("bidi_component"):
        if el.proto.component_name == class_keep.NAME:
            return json.loads(el.proto.json or "{}")
    return None


def resumed(kept: str) -> AppTest:
    """A reloaded tab whose sessionStorage held `kept`: the keeper's report, as its trigger brings it."""

    def script() -> None:
        import streamlit as st

        from explorer.ui import class_keep, class_ui, state

        st.text(
            f"{class_keep.resume(st.query_params.get('kept'), class_ui.store)} {state.classroom.teaching()}"
        )
        st.text(str(state.classroom.drop_kept()))

    at = AppTest.from_function(script, default_timeout=TIMEOUT)
    at.query_params["kept"] = kept
    return at.run()


def test_a_reloaded_teacher_tab_drives_its_class_again_and_no_student_sees_the_key() -> None:
    t, code, key = teacher_with_class()
    assert kept_data(t) == {"keep": f"{code}.{key}"}  # the teacher's tab keeps it (in its sessionStorage)
    s = tab(join=code)
    assert kept_data(s) is None  # a student's page has no keeper and no key
    assert key not in str([el.proto for el in s.get("bidi_component")])
    again = resumed(f"{code}.{key}")
    assert not again.exception and again.text[0].value.startswith("True")
    assert again.text[0].value.count(key) == 1 and again.text[1].value == "False"
    for wrong in (f"{code}.{'x' * 43}", f"{code}.", "garbage", "x" * 500):
        no = resumed(wrong)
        assert no.text[0].value.startswith("False") and "None" in no.text[0].value
    assert resumed(f"{code}.{'x' * 43}").text[1].value == "True"  # the tab is told to forget it
    t.button(key="class.end").click().run()
    assert kept_data(t) == {"drop": True}  # the class ended: the tab forgets the key
    assert resumed(f"{code}.{key}").text[0].value.startswith("False")


def test_a_real_model_question_is_the_classs_counted_and_revealed() -> None:
    need("smollm2")
    t = open_at("next-token", model="smollm2", sentence=CAPITAL, ask="next", present="1")
    t.button(key="present.class").click().run()
    code = t.session_state["class.teach"][0]
    q = class_ui.store().pulse(code).question  # type: ignore[union-attr]
    _, strings, _p = model_compute.next_tokens("smollm2", CAPITAL, 1.0)
    top = [show_token(x) for x in strings[: questions.CLASS_CHOICES]]
    assert q is not None and q.prompt == "Which word comes next after “The capital of France is”?"
    assert list(q.options) == sorted(set(top), key=str.casefold)  # an order that does not give it away
    s = tab(join=code)
    assert s.session_state["ui.page"] == "next-token" and not any(b.key == "reveal" for b in s.button)
    class_ui.store().answer(code, s.session_state["class.joined"][1], q.qid, q.options.index("␣Paris"))
    t.button(key="reveal").click().run()  # the teacher's Reveal: the truth to the class
    assert class_ui.store().pulse(code).question.truth == q.options.index(top[0])  # type: ignore[union-attr]
    s.run()
    assert any(a.value == "Right: the answer is “␣Paris”." for a in s.success)
    assert any(a.value.startswith("Answer: “␣Paris”") for a in s.success)  # the page shows its answer too


def test_following_students_draw_the_projectors_row_built_once_and_explore_brings_the_editors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from explorer.views import figures

    built: list[str] = []
    heatmap = figures.drawn_heatmap

    def counted(*args: object, **kwargs: object) -> object:
        built.append(str(kwargs.get("title")))
        return heatmap(*args, **kwargs)

    monkeypatch.setattr(figures, "drawn_heatmap", counted)
    t, code, _ = teacher_with_class()
    go(t, "app_pages/projections.py")
    first, second = tab(join=code), tab(join=code)
    first.run()
    before = len(built)
    second.run()
    for s in (first, second):
        assert s.session_state["ui.page"] == "projections"
        assert charts_of(s) == charts_of(t) == {"projections.w_q", "projections.w_k", "projections.w_v"}
        assert not s.data_editor  # the projector shows no editor: a following laptop neither
        intro = " ".join(m.value for m in s.markdown)
        assert "Edit any weight" not in intro and "Explore on my own" in intro  # says how to get them
    assert len(built) == before  # the second follower's row: the first's, not built again
    first.button(key="class.explore").click().run()
    edited = {str(e.key).split(".")[1] for e in first.data_editor}
    assert edited >= {"w_q", "w_k", "w_v"}  # exploring: the whole page, its editors
    intro = " ".join(m.value for m in first.markdown)
    assert "Edit any weight" in intro and "Explore on my own" not in intro


def test_a_move_that_keeps_the_example_applies_nothing_again_and_a_students_change_is_undone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from explorer.ui.state import classroom

    resets: list[int] = []
    reset = classroom.reset_view
    monkeypatch.setattr(classroom, "reset_view", lambda: (resets.append(1), reset())[1])
    t, code, _ = teacher_with_class()
    go(t, "app_pages/projections.py")
    s = tab(join=code)
    s.run()
    assert s.session_state["ui.page"] == "projections"
    applied = len(resets)
    go(t, "app_pages/scores.py", step="scores")
    s.run()
    s.run()
    assert s.session_state["ui.page"] == "scores" and len(resets) == applied  # the same example: kept
    assert charts_of(s) == charts_of(t)
    s.session_state["ui.head"] = 1  # a following student picks another head
    go(t, "app_pages/scores.py", step="softmax")
    s.run()
    s.run()
    assert len(resets) == applied + 1 and s.session_state["ui.head"] == t.session_state["ui.head"] == 0
    t.text_input(key="sentence").set_value("A dog ran.").run()  # a new example: applied
    s.run()
    s.run()
    assert len(resets) == applied + 2 and s.session_state["sentence"] == "A dog ran."


def test_a_views_mark_sees_a_replaced_matrix_and_a_list_changed_in_place() -> None:
    import numpy as np

    from explorer.ui.state import classroom

    w, heads = np.zeros((2, 2)), [0, 1]
    held = {"m": {"w_q": w}, "heads": heads, "ask": 7}
    before = classroom._mark(held)  # noqa: SLF001 - the mark itself, without a session
    assert classroom._mark({"m": {"w_q": w}, "heads": [0, 1], "ask": 7}) == before  # equal: the same mark
    assert classroom._mark({**held, "m": {"w_q": np.zeros((2, 2))}}) != before  # a new matrix, equal values
    heads.append(2)
    assert classroom._mark(held) != before  # changed in place
    assert classroom._mark({**held, "heads": [0, 1, 2], "ask": 3}) != classroom._mark(held)


def stopped_tab(stop: StopAtWrite, **query: str) -> AppTest:
    """A new tab whose first run is stopped where `stop` is armed, then run again (the newer request)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    was = stop.stopped
    at.run()
    assert stop.stopped == was + 1, "the first run was stopped where the test armed it"
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_join_from_the_address_survives_a_run_stopped_right_after_the_store_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A replica's death: the tab's address (join=, me=) rejoins on another replica, and the browser's second
    request stops that first run at the write that records the join. The next run is the same student
    still; a first join by the QR code's link, stopped the same way, is one student, not two."""
    t, code, _ = teacher_with_class()
    s = tab(join=code)
    me = s.session_state["class.joined"][1]
    store = class_ui.store()
    stop = StopAtWrite(monkeypatch)
    stop.after(type(store), "rejoin", monkeypatch)
    again = stopped_tab(stop, join=code, me=me)
    assert again.session_state["class.joined"][:2] == (code, me) and "you follow the teacher" in bar(again)
    stop.after(type(store), "join", monkeypatch)
    other = stopped_tab(stop, join=code)
    assert other.session_state["class.joined"][0] == code and "you follow the teacher" in bar(other)
    assert store.pulse(code).students == 2  # type: ignore[union-attr]  # s (rejoined once) and the other
    t.run()
    assert "2 students joined." in bar(t)


def test_a_link_a_lesson_step_and_the_teachers_view_are_applied_whole_after_a_stopped_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each is applied once, and marked so after its last write: stopped at a write while applying it, the
    next run applies it again, whole, as a run not stopped does (before, what was not written yet was lost
    for good: the URL, the lesson step or the teacher's view counted as applied)."""
    from explorer.ui import lesson_ui

    link = {"sentence": "A dog ran.", "d_model": "16", "heads": "4", "d_k": "2", "mask": "causal"}
    plain = tab(**link)
    opened = tab(lesson="attention", step="2")
    opened.run()
    t, code, _ = teacher_with_class()
    t.text_input(key="sentence").set_value("A dog ran.").run()
    following = tab(join=code)
    following.run()
    assert view_of(following)["sentence"] == "A dog ran." and opened.session_state["sentence"] == LESSON_2

    stop, real_apply, armed = StopAtWrite(monkeypatch), lesson_ui.apply_link, []

    def apply_then(params: dict) -> None:
        said = params.get("sentence")
        what = "link" if params.get("mask") == "causal" else "lesson" if said == LESSON_2 else (
            "view" if said == "A dog ran." else "")  # fmt: skip
        if what and what not in armed:
            armed.append(what)
            stop.arm(3 if what == "link" else 1)  # a few of its settings written (the link's), or none yet
        real_apply(params)

    monkeypatch.setattr(lesson_ui, "apply_link", apply_then)
    assert view_of(stopped_tab(stop, **link)) == view_of(plain)
    lesson = stopped_tab(stop, lesson="attention", step="2")
    lesson.run()
    assert view_of(lesson) == view_of(opened) and lesson.session_state["ui.page"] == "positional-encoding"
    student = stopped_tab(stop, join=code)
    student.run()
    assert armed == ["link", "lesson", "view"]
    assert view_of(student) == view_of(following)


def test_a_student_whose_move_to_the_teachers_page_was_replaced_by_a_newer_request_still_gets_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The teacher's view names a page; the student's run opens it (st.switch_page). A newer request of the
    student's browser, for the page it is on, may replace that switch: the next run opens the page then,
    since the page to open is let go of only by the run on it."""
    t, code, _ = teacher_with_class()
    s = tab(join=code)
    real, calls = class_ui.st.switch_page, []

    def replaced(*args: object, **kw: object) -> None:
        calls.append(args)
        if len(calls) == 1:
            raise StopException()  # the browser's request for the page it shows came first
        real(*args, **kw)

    monkeypatch.setattr(class_ui.st, "switch_page", replaced)
    go(t, "app_pages/scores.py", step="softmax")
    for _ in range(3):
        s.run()
    assert len(calls) >= 2 and s.session_state["ui.page"] == "scores" and "part 3 of 3: Softmax" in bar(s)
