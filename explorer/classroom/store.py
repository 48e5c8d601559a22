"""The class store's interface, its values and bounds, join codes, and the choice of back end.

A class is made by its teacher (`create`: a join code to show and a teacher key to keep); students join by
the code (`join`: a student id, nothing that names a device; a tab joins with an id it made, so a join
repeated by a run the visitor stopped half-way is the same student, counted once). The teacher publishes
what is on their screen (`publish`: the page and its share-link query, a version that grows), asks a
question (`ask`) and reveals its answer (`reveal`); students read it all in one call (`pulse`, polled about
twice a second) and answer (`answer`). Every call of the teacher's takes the key; a student's id cannot
drive. A class ends when its teacher ends it or CLASS_TTL_S after it was made, and everything it stored is
deleted then.

Both back ends (sqlite_store, redis_store) pass the same tests (tests/core/test_classroom_store.py).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from explorer.i18n import N_, _

BACKEND_ENV = "ATTENTION_EXPLORER_CLASSES"  # "sqlite" (default) or "redis"
DATA_ENV = "ATTENTION_EXPLORER_DATA"  # the SQLite store's folder (default: data/ beside the app)
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "data"

# No 0/O, 1/I/L: read off a projector and typed without a doubt. 31**8 ≈ 8.5e11 codes: at the guessing
# bound below, one address finds a given live class with odds of about 1 in 10**8 in a class's lifetime.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LEN = 8
CLASS_TTL_S = 4 * 3600  # a class ends this long after it was made (a lesson, with room to spare)
MAX_STUDENTS = 300  # students in one class
MAX_QUESTIONS = 200  # questions one class asks
MAX_OPTIONS = 64  # a question's choices (a sentence's tokens: at most 64)
MAX_OPTION_CHARS = 80  # one choice's text
MAX_PROMPT_CHARS = 300  # a question's text
MAX_QID_CHARS = 64
MAX_NICK_CHARS = 24  # an optional nickname
MAX_VIEW_CHARS = 20_000  # the teacher's page and query (the address bar's own bound is 8,000)
GUESSES = 30  # wrong codes one address may type in GUESS_WINDOW_S (a class behind one NAT mistypes too)
GUESS_WINDOW_S = 60
ALL_GUESSES = 600  # wrong codes from every address together in GUESS_WINDOW_S


class ClassError(ValueError):
    """A request the store refuses; its message is a sentence for the person, marked for the catalogs (N_)
    and worded in the language on screen wherever it is read (str()), with its {placeholders} from `values`."""

    def __init__(self, message: str, /, **values: object) -> None:
        super().__init__(message)
        self.values = values

    def __str__(self) -> str:
        return _(self.args[0], **self.values)


@dataclass(frozen=True)
class Opened:
    """A new class: the join code students type, and the key only the teacher's session holds."""

    code: str
    key: str


@dataclass(frozen=True)
class Question:
    """A question asked of the class: its id (the teacher's page makes it from what is asked), its text, its
    choices, and the index of the right one once revealed (None before)."""

    qid: str
    prompt: str
    options: tuple[str, ...]
    truth: int | None = None


@dataclass(frozen=True)
class Pulse:
    """All a student's or the teacher's poll reads: the view's version and text, the question now asked (or
    None), how many answered it, how many students joined."""

    version: int
    view: str
    question: Question | None
    answered: int
    students: int


class Store(Protocol):
    def create(self) -> Opened: ...
    def drives(self, code: str, key: str) -> bool: ...
    def join(self, code: str, who: str, nickname: str = "", student: str = "") -> str: ...
    def rejoin(self, code: str, student: str) -> bool: ...
    def pulse(self, code: str) -> Pulse | None: ...
    def publish(self, code: str, key: str, view: str) -> int: ...
    def ask(self, code: str, key: str, question: Question | None) -> None: ...
    def answer(self, code: str, student: str, qid: str, choice: int) -> None: ...
    def mine(self, code: str, student: str, qid: str) -> int | None: ...
    def counts(self, code: str, qid: str) -> tuple[int, ...]: ...
    def reveal(self, code: str, key: str, qid: str, truth: int) -> None: ...
    def export(self, code: str, key: str) -> list[tuple[Question, tuple[int, ...]]]: ...
    def end(self, code: str, key: str) -> None: ...
    def sweep(self) -> int: ...


# ------------------------------------------------------------------------------------------------ values


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LEN))


def new_key() -> str:
    return secrets.token_urlsafe(24)


MAX_STUDENT_CHARS = 40  # a student id a tab made (new_student: 16 characters)


def new_student() -> str:
    return secrets.token_urlsafe(12)


def id_to_join(student: str) -> str:
    """The id a join takes: the tab's own (`student`, made once by new_student), else a new one."""
    return student[:MAX_STUDENT_CHARS] if student else new_student()


def key_hash(key: str) -> str:
    """What the store keeps of the teacher key: a reader of the store cannot drive the class."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def key_matches(stored: str | None, key: str) -> bool:
    return stored is not None and hmac.compare_digest(stored, key_hash(key))


def shown_code(code: str) -> str:
    """The code as the projector shows it: two groups of four."""
    return f"{code[:4]}-{code[4:]}" if len(code) == CODE_LEN else code


def typed_code(text: str) -> str:
    """What a student typed, as a code: spaces and dashes dropped, upper case; "" when it cannot be one."""
    code = "".join(c for c in str(text)[:40] if c not in " -\t").upper()
    return code if len(code) == CODE_LEN and all(c in CODE_ALPHABET for c in code) else ""


def address_tag(address: str) -> str:
    """The guessing bound's name for an address: a short hash, kept only for GUESS_WINDOW_S."""
    return hashlib.sha256(f"class-guess:{address}".encode()).hexdigest()[:16]


def nickname(text: str) -> str:
    """An optional nickname, cut to MAX_NICK_CHARS, control characters dropped; shown literally."""
    kept = "".join(c for c in str(text) if c.isprintable())
    return kept.strip()[:MAX_NICK_CHARS]


def check_question(q: Question) -> Question:
    """A question within the bounds (text cut, at most MAX_OPTIONS choices), or ClassError."""
    if not q.qid or len(q.qid) > MAX_QID_CHARS:
        raise ClassError(N_("A question needs an id of at most 64 characters."))
    if not 2 <= len(q.options) <= MAX_OPTIONS:
        raise ClassError(
            N_("A class question has 2 to {most} choices, not {n}."), most=MAX_OPTIONS, n=len(q.options)
        )
    return Question(
        q.qid, q.prompt[:MAX_PROMPT_CHARS], tuple(str(o)[:MAX_OPTION_CHARS] for o in q.options), None
    )


def check_view(view: str) -> str:
    if len(view) > MAX_VIEW_CHARS:
        raise ClassError(N_("The page is too large to share with the class ({n} characters)."), n=len(view))
    return view


# The store's refusals (ClassError: worded where they are read)
NO_CLASS = N_("No class has this code: check it on the teacher's screen (it may have ended).")
NOT_TEACHER = N_("Only the class's teacher can do this.")
TOO_MANY_GUESSES = N_("Too many wrong codes from here: wait a minute, then type the code again.")
FULL = N_("This class is full ({most} students).")  # raised with most=MAX_STUDENTS
ENDED_QUESTION = N_("This question is closed: the teacher has moved on or revealed the answer.")
TOO_MANY_QUESTIONS = N_("A class asks at most {most} questions.")  # most=MAX_QUESTIONS
NOT_A_CHOICE = N_("The answer is not one of the question's choices.")
JOIN_FIRST = N_("Join the class to answer.")
