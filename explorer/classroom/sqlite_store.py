"""The class store in SQLite (the standard library's sqlite3), in one file of a data folder: the default,
for one server process and its many session threads (one connection behind a lock: each call is a few
statements of microseconds; WAL lets a benchmark or an export read beside it)."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from explorer.classroom import store as s
from explorer.classroom.store import ClassError, Opened, Pulse, Question

SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (code TEXT PRIMARY KEY, key_hash TEXT NOT NULL, expires REAL NOT NULL,
    version INTEGER NOT NULL DEFAULT 0, view TEXT NOT NULL DEFAULT '', qid TEXT);
CREATE TABLE IF NOT EXISTS students (code TEXT NOT NULL, id TEXT NOT NULL, nickname TEXT NOT NULL,
    PRIMARY KEY (code, id));
CREATE TABLE IF NOT EXISTS questions (code TEXT NOT NULL, qid TEXT NOT NULL, n INTEGER NOT NULL,
    prompt TEXT NOT NULL, options TEXT NOT NULL, truth INTEGER, PRIMARY KEY (code, qid));
CREATE TABLE IF NOT EXISTS answers (code TEXT NOT NULL, qid TEXT NOT NULL, student TEXT NOT NULL,
    choice INTEGER NOT NULL, PRIMARY KEY (code, qid, student));
CREATE TABLE IF NOT EXISTS guesses (tag TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS guesses_at ON guesses (at);
"""
SWEEP_EVERY_S = 60.0  # expired classes are deleted at most this often (and at every create)


class SqliteStore:
    def __init__(
        self, path: str | Path, ttl_s: float = s.CLASS_TTL_S, clock: Callable[[], float] = time.time
    ) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.clock, self.ttl_s = clock, ttl_s
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=10)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "PRAGMA synchronous=NORMAL"
        )  # WAL: a power cut may lose the last answers, not the file
        self._db.executescript(SCHEMA)
        self._swept = 0.0

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _live(self, db: sqlite3.Connection, code: str) -> tuple | None:
        now = self.clock()
        if now - self._swept > SWEEP_EVERY_S:
            self._sweep(db, now)
        return db.execute(
            "SELECT key_hash, version, view, qid FROM classes WHERE code = ? AND expires > ?", (code, now)
        ).fetchone()

    def _teacher(self, db: sqlite3.Connection, code: str, key: str) -> tuple:
        row = self._live(db, code)
        if row is None:
            raise ClassError(s.NO_CLASS)
        if not s.key_matches(row[0], key):
            raise ClassError(s.NOT_TEACHER)
        return row

    # ------------------------------------------------------------------------------------ the teacher

    def create(self) -> Opened:
        key = s.new_key()
        with self._tx() as db:
            self._sweep(db, self.clock())
            while True:
                code = s.new_code()
                if db.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone() is None:
                    break
            db.execute(
                "INSERT INTO classes (code, key_hash, expires) VALUES (?, ?, ?)",
                (code, s.key_hash(key), self.clock() + self.ttl_s),
            )
        return Opened(code, key)

    def drives(self, code: str, key: str) -> bool:
        """`key` is the live class's teacher key (a teacher's tab reloaded: it drives again)."""
        with self._tx() as db:
            row = self._live(db, code)
        return row is not None and s.key_matches(row[0], key)

    def publish(self, code: str, key: str, view: str) -> int:
        view = s.check_view(view)
        with self._tx() as db:
            row = self._teacher(db, code, key)
            if row[2] == view:
                return int(row[1])
            db.execute("UPDATE classes SET version = version + 1, view = ? WHERE code = ?", (view, code))
            return int(row[1]) + 1

    def ask(self, code: str, key: str, question: Question | None) -> None:
        q = None if question is None else s.check_question(question)
        with self._tx() as db:
            self._teacher(db, code, key)
            if q is not None:
                known = db.execute("SELECT 1 FROM questions WHERE code = ? AND qid = ?", (code, q.qid))
                if known.fetchone() is None:
                    (n,) = db.execute("SELECT COUNT(*) FROM questions WHERE code = ?", (code,)).fetchone()
                    if n >= s.MAX_QUESTIONS:
                        raise ClassError(s.TOO_MANY_QUESTIONS, most=s.MAX_QUESTIONS)
                    db.execute(
                        "INSERT INTO questions (code, qid, n, prompt, options) VALUES (?, ?, ?, ?, ?)",
                        (code, q.qid, n, q.prompt, json.dumps(q.options)),
                    )
            db.execute("UPDATE classes SET qid = ? WHERE code = ?", (None if q is None else q.qid, code))

    def reveal(self, code: str, key: str, qid: str, truth: int) -> None:
        with self._tx() as db:
            self._teacher(db, code, key)
            q = self._question(db, code, qid)
            if q is None:
                raise ClassError(s.ENDED_QUESTION)
            if not 0 <= int(truth) < len(q.options):
                raise ClassError(s.NOT_A_CHOICE)
            db.execute("UPDATE questions SET truth = ? WHERE code = ? AND qid = ?", (int(truth), code, qid))

    def export(self, code: str, key: str) -> list[tuple[Question, tuple[int, ...]]]:
        with self._tx() as db:
            self._teacher(db, code, key)
            qids = [r[0] for r in db.execute("SELECT qid FROM questions WHERE code = ? ORDER BY n", (code,))]
            return [(q, self._counts(db, code, q)) for q in (self._question(db, code, i) for i in qids) if q]

    def end(self, code: str, key: str) -> None:
        with self._tx() as db:
            self._teacher(db, code, key)
            self._delete(db, [code])

    # ------------------------------------------------------------------------------------ the students

    def join(self, code: str, who: str, nickname: str = "", student: str = "") -> str:
        now = self.clock()
        with self._tx() as db:
            since = now - s.GUESS_WINDOW_S
            db.execute("DELETE FROM guesses WHERE at <= ?", (since,))
            (mine,) = db.execute("SELECT COUNT(*) FROM guesses WHERE tag = ?", (who,)).fetchone()
            (every,) = db.execute("SELECT COUNT(*) FROM guesses").fetchone()
            if mine >= s.GUESSES or every >= s.ALL_GUESSES:
                raise ClassError(s.TOO_MANY_GUESSES)
            if self._live(db, code) is None:
                db.execute("INSERT INTO guesses (tag, at) VALUES (?, ?)", (who, now))
                # the guess is counted even though the join fails: commit, then refuse
                refused = True
            else:
                refused = False
                student = s.id_to_join(student)
                known = db.execute(
                    "SELECT 1 FROM students WHERE code = ? AND id = ?", (code, student)
                ).fetchone()
                (n,) = db.execute("SELECT COUNT(*) FROM students WHERE code = ?", (code,)).fetchone()
                if known is None and n >= s.MAX_STUDENTS:
                    raise ClassError(s.FULL, most=s.MAX_STUDENTS)
                db.execute(
                    "INSERT INTO students VALUES (?, ?, ?)"
                    " ON CONFLICT (code, id) DO UPDATE SET nickname = excluded.nickname",
                    (code, student, s.nickname(nickname)),
                )
        if refused:
            raise ClassError(s.NO_CLASS)
        return student

    def rejoin(self, code: str, student: str) -> bool:
        """True when `student` is a student of the live class `code` (a reload, or a replica's death: the
        same student, their answers kept)."""
        with self._lock:
            if self._live(self._db, code) is None:
                return False
            known = self._db.execute("SELECT 1 FROM students WHERE code = ? AND id = ?", (code, student))
            return known.fetchone() is not None

    def pulse(self, code: str) -> Pulse | None:
        with self._lock:
            db = self._db
            row = self._live(db, code)
            if row is None:
                return None
            _, version, view, qid = row
            q = None if qid is None else self._question(db, code, qid)
            (answered,) = db.execute(
                "SELECT COUNT(*) FROM answers WHERE code = ? AND qid = ?", (code, qid)
            ).fetchone()
            (n,) = db.execute("SELECT COUNT(*) FROM students WHERE code = ?", (code,)).fetchone()
            return Pulse(int(version), view, q, int(answered) if q else 0, int(n))

    def answer(self, code: str, student: str, qid: str, choice: int) -> None:
        with self._tx() as db:
            row = self._live(db, code)
            if row is None:
                raise ClassError(s.NO_CLASS)
            known = db.execute("SELECT 1 FROM students WHERE code = ? AND id = ?", (code, student))
            if known.fetchone() is None:
                raise ClassError(s.JOIN_FIRST)
            q = self._question(db, code, qid)
            if q is None or row[3] != qid or q.truth is not None:
                raise ClassError(s.ENDED_QUESTION)
            if not 0 <= int(choice) < len(q.options):
                raise ClassError(s.NOT_A_CHOICE)
            db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)", (code, qid, student, int(choice))
            )

    def mine(self, code: str, student: str, qid: str) -> int | None:
        with self._lock:
            row = self._db.execute(
                "SELECT choice FROM answers WHERE code = ? AND qid = ? AND student = ?", (code, qid, student)
            ).fetchone()
        return None if row is None else int(row[0])

    def counts(self, code: str, qid: str) -> tuple[int, ...]:
        with self._lock:
            if self._live(self._db, code) is None:
                return ()
            q = self._question(self._db, code, qid)
            return () if q is None else self._counts(self._db, code, q)

    # ------------------------------------------------------------------------------------------ keeping

    def sweep(self) -> int:
        with self._tx() as db:
            return self._sweep(db, self.clock())

    def _sweep(self, db: sqlite3.Connection, now: float) -> int:
        self._swept = now
        gone = [r[0] for r in db.execute("SELECT code FROM classes WHERE expires <= ?", (now,))]
        self._delete(db, gone)
        return len(gone)

    @staticmethod
    def _delete(db: sqlite3.Connection, codes: list[str]) -> None:
        for table in ("answers", "questions", "students", "classes"):
            db.executemany(f"DELETE FROM {table} WHERE code = ?", [(c,) for c in codes])  # noqa: S608

    @staticmethod
    def _question(db: sqlite3.Connection, code: str, qid: str) -> Question | None:
        row = db.execute(
            "SELECT prompt, options, truth FROM questions WHERE code = ? AND qid = ?", (code, qid)
        ).fetchone()
        return None if row is None else Question(qid, row[0], tuple(json.loads(row[1])), row[2])

    @staticmethod
    def _counts(db: sqlite3.Connection, code: str, q: Question) -> tuple[int, ...]:
        got = dict(
            db.execute(
                "SELECT choice, COUNT(*) FROM answers WHERE code = ? AND qid = ? GROUP BY choice",
                (code, q.qid),
            ).fetchall()
        )
        return tuple(int(got.get(i, 0)) for i in range(len(q.options)))
