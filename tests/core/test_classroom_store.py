"""The class store's two back ends pass the same tests: SQLite in a folder, and a real redis-server started
here (not a fake). A class: made, joined by its code (guessing bounded), the teacher's view published and
read, a question asked, answered, counted and revealed, exported, ended or expired, and then gone."""

from __future__ import annotations

import csv
import io
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from explorer.classroom import open_store
from explorer.classroom import store as s
from explorer.classroom.redis_store import RedisStore
from explorer.classroom.sqlite_store import SqliteStore
from explorer.classroom.store import ClassError, Question
from tests.core.test_jobs import until
from tests.core.test_jobs_redis import _pings, redis_server

Make = Callable[..., s.Store]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of its own (no queue workers: the store needs none), started as the job tests do."""
    proc, url = redis_server(tmp_path_factory.mktemp("class-redis"))
    try:
        import redis

        until(lambda: _pings(redis.Redis.from_url(url)), "redis-server")
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(params=["sqlite", "redis"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Make]:
    """make(**kw) -> a store; every store one test makes shares one back end (two replicas, one class)."""
    if request.param == "sqlite":
        yield lambda **kw: SqliteStore(tmp_path / "classes.sqlite3", **kw)
    else:
        url = request.getfixturevalue("redis_url")
        import redis

        redis.Redis.from_url(url).flushdb()
        yield lambda **kw: RedisStore(url, **kw)


def leftovers(store: s.Store, code: str) -> int:
    """Whatever the back end still holds of class `code` (rows, or keys)."""
    if isinstance(store, SqliteStore):
        db = store._db
        return sum(
            db.execute(f"SELECT COUNT(*) FROM {t} WHERE code = ?", (code,)).fetchone()[0]  # noqa: S608
            for t in ("classes", "students", "questions", "answers")
        )
    return len(store.redis.keys(f"*{code}*"))


Q = Question("q1", "Which word does “it” attend to most?", ("The", "cat", "sat", "it"))


def test_a_class_is_made_with_a_code_to_type_and_a_key_to_keep(make: Make) -> None:
    store = make()
    a, b = store.create(), store.create()
    assert a.code != b.code and len(a.code) == s.CODE_LEN and set(a.code) <= set(s.CODE_ALPHABET)
    assert len(a.key) >= 32 and a.code not in a.key
    assert s.typed_code(f" {s.shown_code(a.code).lower()} ") == a.code
    assert s.typed_code("ABCD-EFG0") == ""  # 0 is not in the alphabet
    pulse = store.pulse(a.code)
    assert pulse is not None and (pulse.version, pulse.view, pulse.question, pulse.students) == (
        0,
        "",
        None,
        0,
    )


def test_the_teacher_publishes_the_view_and_a_second_replica_reads_it(make: Make) -> None:
    one, two = make(), make()
    c = one.create()
    assert one.publish(c.code, c.key, "scores?sentence=a") == 1
    assert one.publish(c.code, c.key, "scores?sentence=a") == 1  # the same view: no new version
    assert one.publish(c.code, c.key, "softmax?sentence=a") == 2
    pulse = two.pulse(c.code)
    assert pulse is not None and (pulse.version, pulse.view) == (2, "softmax?sentence=a")
    student = two.join(c.code, "addr")
    assert two.drives(c.code, c.key)  # the teacher's tab reloaded, on either replica: it drives again
    assert not any(two.drives(c.code, key) for key in (student, "x" * 32, "")) and not two.drives(
        "ZZZZZZZZ", c.key
    )
    for key in (student, "x" * 32, ""):
        with pytest.raises(ClassError, match="Only the class's teacher"):
            two.publish(c.code, key, "somewhere")
    with pytest.raises(ClassError, match="too large"):
        one.publish(c.code, c.key, "x" * (s.MAX_VIEW_CHARS + 1))
    assert two.pulse(c.code).view == "softmax?sentence=a"  # type: ignore[union-attr]


def test_wrong_codes_are_refused_and_guessing_is_bounded_per_address(make: Make) -> None:
    store = make()
    c = store.create()
    with pytest.raises(ClassError, match="No class has this code"):
        store.join("ABCDEFGH", "guesser")
    for _ in range(s.GUESSES - 1):
        with pytest.raises(ClassError, match="No class has this code"):
            store.join(s.new_code(), "guesser")
    with pytest.raises(ClassError, match="Too many wrong codes"):
        store.join(c.code, "guesser")  # even the right code, until the window passes
    assert store.join(c.code, "classmate")  # another address is not held back
    assert store.pulse(c.code).students == 1  # type: ignore[union-attr]


def test_the_class_answers_and_the_teacher_reveals(make: Make) -> None:
    teacher, replica = make(), make()
    c = teacher.create()
    ids = [replica.join(c.code, f"a{i}", "Ana") for i in range(4)]
    assert len(set(ids)) == 4
    with pytest.raises(ClassError, match="closed"):
        replica.answer(c.code, ids[0], Q.qid, 1)  # nothing asked yet
    teacher.ask(c.code, c.key, Q)
    for i, choice in zip(ids, (1, 1, 3, 0), strict=True):
        replica.answer(c.code, i, Q.qid, choice)
    replica.answer(c.code, ids[3], Q.qid, 1)  # a student changes their mind: one answer each
    pulse = replica.pulse(c.code)
    assert pulse is not None and pulse.question == Q and (pulse.answered, pulse.students) == (4, 4)
    assert teacher.counts(c.code, Q.qid) == (0, 3, 0, 1)
    assert replica.mine(c.code, ids[2], Q.qid) == 3 and replica.mine(c.code, "nobody", Q.qid) is None
    with pytest.raises(ClassError, match="Join the class"):
        replica.answer(c.code, "not-a-student", Q.qid, 1)
    with pytest.raises(ClassError, match="not one of the question's choices"):
        replica.answer(c.code, ids[0], Q.qid, 4)
    with pytest.raises(ClassError, match="Only the class's teacher"):
        replica.reveal(c.code, ids[0], Q.qid, 1)
    teacher.reveal(c.code, c.key, Q.qid, 1)
    assert replica.pulse(c.code).question.truth == 1  # type: ignore[union-attr]
    with pytest.raises(ClassError, match="closed"):
        replica.answer(c.code, ids[2], Q.qid, 1)  # revealed: no answer changes after the truth
    assert teacher.counts(c.code, Q.qid) == (0, 3, 0, 1)


def test_a_student_rejoins_as_themselves_after_a_reload(make: Make) -> None:
    one, two = make(), make()
    c, other = one.create(), one.create()
    kid = one.join(c.code, "a")
    assert two.rejoin(c.code, kid)  # another replica: the same student, their answers kept
    assert not two.rejoin(c.code, "made-up") and not two.rejoin(other.code, kid)
    one.end(c.code, c.key)
    assert not two.rejoin(c.code, kid)


def test_a_join_repeated_with_the_tabs_own_id_is_one_student_even_in_a_full_class(
    make: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run the visitor stopped after the store's join and before the tab wrote it down joins again in
    the next run: with the id the tab made, it is the same student (its nickname the last one), not two."""
    one, two = make(), make()
    c = one.create()
    monkeypatch.setattr(s, "MAX_STUDENTS", 2)
    mine = s.new_student()
    assert one.join(c.code, "a", "Ana", student=mine) == mine
    assert two.join(c.code, "a", "Ana B", student=mine) == mine  # another replica, the same tab
    other = one.join(c.code, "b")
    assert other != mine and one.pulse(c.code).students == 2  # type: ignore[union-attr]
    assert two.join(c.code, "a", student=mine) == mine  # the class is full, but not for a student of it
    with pytest.raises(ClassError, match="full"):
        one.join(c.code, "c", student=s.new_student())
    one.ask(c.code, c.key, Q)
    two.answer(c.code, mine, Q.qid, 1)
    assert one.counts(c.code, Q.qid) == (0, 1, 0, 0)
    assert s.id_to_join("x" * 100) == "x" * s.MAX_STUDENT_CHARS and len(s.id_to_join("")) == 16


def test_a_second_question_and_the_export_in_the_order_asked(make: Make) -> None:
    store = make()
    c = store.create()
    kid = store.join(c.code, "a")
    q2 = Question("q2", "Next word?", ("mat", "dog"))
    store.ask(c.code, c.key, q2)
    store.answer(c.code, kid, "q2", 0)
    store.ask(c.code, c.key, Q)
    store.answer(c.code, kid, Q.qid, 2)
    with pytest.raises(ClassError, match="closed"):
        store.answer(c.code, kid, "q2", 1)  # the teacher moved on
    store.ask(c.code, c.key, q2)  # asked again: the same question, its answers kept
    store.ask(c.code, c.key, None)
    assert store.pulse(c.code).question is None  # type: ignore[union-attr]
    got = store.export(c.code, c.key)
    assert [(q.qid, counts) for q, counts in got] == [("q2", (1, 0)), ("q1", (0, 0, 1, 0))]
    with pytest.raises(ClassError, match="Only the class's teacher"):
        store.export(c.code, kid)


def test_bounds_students_questions_choices_nickname(make: Make, monkeypatch: pytest.MonkeyPatch) -> None:
    store = make()
    c = store.create()
    monkeypatch.setattr(s, "MAX_STUDENTS", 2)
    store.join(c.code, "a", "x" * 100)
    store.join(c.code, "b", "<b>Bo</b>\x00\n")
    with pytest.raises(ClassError, match="full"):
        store.join(c.code, "c")
    assert s.nickname("x" * 100) == "x" * s.MAX_NICK_CHARS and s.nickname("<b>Bo</b>\x00\n") == "<b>Bo</b>"
    with pytest.raises(ClassError, match="choices"):
        store.ask(c.code, c.key, Question("one", "?", ("only",)))
    long = Question("long", "?" * 1000, ("a" * 500, "b"))
    store.ask(c.code, c.key, long)
    q = store.pulse(c.code).question  # type: ignore[union-attr]
    assert q is not None and len(q.prompt) == s.MAX_PROMPT_CHARS and len(q.options[0]) == s.MAX_OPTION_CHARS
    monkeypatch.setattr(s, "MAX_QUESTIONS", 2)
    store.ask(c.code, c.key, Q)
    with pytest.raises(ClassError, match="at most 2 questions"):
        store.ask(c.code, c.key, Question("third", "?", ("a", "b")))


def test_an_ended_class_is_gone_with_everything_it_stored(make: Make) -> None:
    store = make()
    c, other = store.create(), store.create()
    kid = store.join(c.code, "a", "Ana")
    store.ask(c.code, c.key, Q)
    store.answer(c.code, kid, Q.qid, 1)
    store.reveal(c.code, c.key, Q.qid, 1)
    assert leftovers(store, c.code) > 0
    with pytest.raises(ClassError, match="Only the class's teacher"):
        store.end(c.code, other.key)
    store.end(c.code, c.key)
    assert store.pulse(c.code) is None and leftovers(store, c.code) == 0 and not store.drives(c.code, c.key)
    with pytest.raises(ClassError, match="No class has this code"):
        store.join(c.code, "b")
    assert store.pulse(other.code) is not None


def test_a_class_expires_and_its_data_is_deleted(make: Make) -> None:
    store = make(ttl_s=0.3)
    c = store.create()
    kid = store.join(c.code, "a")
    store.ask(c.code, c.key, Q)
    store.answer(c.code, kid, Q.qid, 0)
    until(lambda: store.pulse(c.code) is None, "the class to expire")
    store.sweep()
    until(lambda: leftovers(store, c.code) == 0, "the expired class's data to be deleted")


def test_sixty_students_answering_at_once_are_all_counted(make: Make) -> None:
    store = make()
    c = store.create()
    store.ask(c.code, c.key, Q)
    errors: list[BaseException] = []

    def student(i: int) -> None:
        try:
            store.answer(c.code, store.join(c.code, f"a{i}"), Q.qid, i % 4)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=student, args=(i,)) for i in range(60)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.counts(c.code, Q.qid) == (15, 15, 15, 15) and store.pulse(c.code).answered == 60  # type: ignore[union-attr]


def test_the_sqlite_store_is_one_file_in_wal_mode(tmp_path: Path) -> None:
    SqliteStore(tmp_path / "d" / "classes.sqlite3").create()
    db = sqlite3.connect(tmp_path / "d" / "classes.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_open_store_picks_the_back_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(s.DATA_ENV, str(tmp_path))
    monkeypatch.delenv(s.BACKEND_ENV, raising=False)
    assert isinstance(open_store(), SqliteStore) and (tmp_path / "classes.sqlite3").exists()
    monkeypatch.setenv(s.BACKEND_ENV, "memcached")
    with pytest.raises(ValueError, match="sqlite or redis"):
        open_store()


def test_the_answers_csv_has_one_row_per_choice_and_no_names() -> None:
    from explorer.classroom.answers_csv import to_csv

    asked = [
        (Question("a", "Which word?", ("cat", "=SUM(A1)")), (3, 1)),
        (Question("b", "Next word?", ("mat", "dog"), truth=0), (2, 2)),
    ]
    rows = list(csv.reader(io.StringIO(to_csv(asked))))
    assert rows == [
        ["question", "asked", "choice", "answers", "right"],
        ["1", "Which word?", "cat", "3", ""],
        ["1", "Which word?", "'=SUM(A1)", "1", ""],  # a spreadsheet shows it as text, never runs it
        ["2", "Next word?", "mat", "2", "yes"],
        ["2", "Next word?", "dog", "2", "no"],
    ]
