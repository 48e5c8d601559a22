"""explorer.ui.class_push: the watcher reads each class once per tick, whatever its number of students, and runs
again exactly the students whose page is behind (with the teacher's page named), once per change; a class
that ended is told once and then watched no more; a session that is gone is forgotten."""

from __future__ import annotations

import json

from explorer.classroom.store import Pulse, Question
from explorer.ui.class_push import ENDED, UNREAD, Watcher, seen_of


class Class:
    """A store's pulse for one class, changed by the test, and every read counted."""

    def __init__(self) -> None:
        self.pulse: Pulse | None = Pulse(1, json.dumps({"page": "scores", "query": ""}), None, 0, 3)
        self.reads = 0

    def read(self, code: str) -> Pulse | None:
        assert code == "ABCDEFGH"
        self.reads += 1
        return self.pulse

    def move(self, page: str, question: Question | None = None) -> None:
        assert self.pulse is not None
        view = json.dumps({"page": page, "query": "h=2"})
        self.pulse = Pulse(self.pulse.version + 1, view, question, 0, 3)


def test_a_move_reruns_each_following_student_once_with_the_teachers_page() -> None:
    cls, runs = Class(), []
    w = Watcher(cls.read, rerun=lambda sid, page: runs.append((sid, page)) or sid != "gone", tick=60)
    assert cls.pulse is not None
    for sid in ("a", "b", "gone"):
        w.watch(sid, "ABCDEFGH", True, seen_of(cls.pulse, True))
    w.watch("c", "ABCDEFGH", False, seen_of(cls.pulse, False))  # exploring on their own
    assert w.once() == 0 and runs == [] and cls.reads == 1  # nothing changed: nobody runs
    cls.move("heads")
    assert w.once() == 2 and cls.reads == 2  # one read for the class, not one per student
    assert sorted(runs) == [("a", "heads"), ("b", "heads"), ("gone", "heads")]
    assert set(w.watched()) == {"a", "b", "c"}  # a session that could not be run is forgotten
    runs.clear()
    assert w.once() == 0 and runs == []  # asked once per change, before their runs register again


def test_a_question_and_its_reveal_reach_the_followers_and_an_ended_class_is_told_once() -> None:
    cls, runs = Class(), []
    w = Watcher(cls.read, rerun=lambda sid, page: runs.append((sid, page)) or True, tick=60)
    assert cls.pulse is not None
    w.watch("a", "ABCDEFGH", True, seen_of(cls.pulse, True))
    w.watch("c", "ABCDEFGH", False, seen_of(cls.pulse, False))
    q = Question("q1", "Which word?", ("cat", "mat"))
    cls.move("scores", q)
    assert w.once() == 1 and runs == [("a", "scores")]
    assert cls.pulse is not None
    w.watch("a", "ABCDEFGH", True, seen_of(cls.pulse, True))  # its run drew the question
    cls.pulse = Pulse(
        cls.pulse.version, cls.pulse.view, Question("q1", "Which word?", ("cat", "mat"), 1), 1, 3
    )
    runs.clear()
    assert w.once() == 1 and runs == [("a", "scores")]  # the reveal
    cls.pulse, runs[:] = None, []
    assert w.once() == 2 and sorted(runs) == [("a", ""), ("c", "")]  # the class ended: everyone is told
    assert w.watched() == {} and seen_of(Pulse(1, "", None, 0, 0), True) != ENDED
    reads = cls.reads
    assert w.once() == 0 and cls.reads == reads  # and the class is read no more


def test_a_run_asked_for_reads_the_pulse_it_was_asked_for_until_it_registers() -> None:
    cls = Class()
    w = Watcher(cls.read, rerun=lambda sid, page: sid != "gone", tick=60)
    assert cls.pulse is not None
    for sid in ("a", "gone"):
        w.watch(sid, "ABCDEFGH", True, seen_of(cls.pulse, True))
    assert w.asked_for("a", "ABCDEFGH") is UNREAD  # not run again by the watcher: the page reads the store
    cls.move("heads")
    w.once()
    first = cls.pulse
    cls.move("softmax")  # before a's run: read at the next tick, and a is asked again for it
    w.once()
    assert w.asked_for("a", "ABCDEFGH") is cls.pulse and first is not cls.pulse
    assert w.asked_for("a", "ABCDEFGH") is cls.pulse  # the run's every read, until its page registers
    assert w.asked_for("a", "OTHERCLS") is UNREAD  # asked for one class: a run in another reads its store
    w.watch("a", "ABCDEFGH", True, seen_of(cls.pulse, True))
    assert w.asked_for("a", "ABCDEFGH") is UNREAD  # drawn: a later run of its own reads the store
    assert w.asked_for("gone", "ABCDEFGH") is UNREAD
    assert (
        w.asked_for("a", "OTHERCLS") is UNREAD
    )  # asked for one class: a run in another reads its store  # a session that could not be run is forgotten whole
