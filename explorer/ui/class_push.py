"""A class's moves pushed to its students: one watcher per server process reads each class's pulse and runs
again the page of every student whose page no longer shows it.

Every student's page polling the store twice a second made sixty students 120 runs a second before anyone
moved, and a move waited for the next poll. Here a thread of the process reads each class that has a student
in this process, once per TICK_S whatever the number of students, and when the teacher moved, asked or
revealed (or the class ended) asks each of those students' sessions to run again (patches.rerun_session),
naming the teacher's page so that the run draws it at once. A student's page registers itself on every run
(`watch`) with what it drew of the class; a session that closed is forgotten. With replicas, each process
watches the classes of its own students in the shared store.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from explorer.classroom import store as cs
from explorer.ui import patches

TICK_S = 0.1  # how often the watcher reads each class: a move reaches the students within about this


def seen_of(pulse: cs.Pulse, follows: bool) -> tuple[object, ...]:
    """What makes a student's page change: the teacher's view (while following), the question and whether
    its truth is out (while following: an exploring student's page shows neither)."""
    q = pulse.question if follows else None
    return (
        pulse.version if follows else None,
        None if q is None else q.qid,
        q is not None and q.truth is not None,
    )


ENDED: tuple[object, ...] = ("ended",)  # a class that has ended: its students' pages say so
UNREAD = object()  # Watcher.asked_for: this run was not asked for by the watcher


@dataclass
class _Student:
    code: str
    follows: bool
    seen: tuple[object, ...]


class Watcher:
    """The process's watcher: the students' sessions of this process by id, and the thread that reads their
    classes. `rerun(session_id, page)` runs a session again (False: it is gone)."""

    def __init__(
        self,
        pulse: Callable[[str], cs.Pulse | None],
        rerun: Callable[[str, str], bool] = patches.rerun_session,
        tick: float = TICK_S,
    ) -> None:
        self._pulse, self._rerun, self._tick = pulse, rerun, tick
        self._students: dict[str, _Student] = {}
        self._asked: dict[str, tuple[str, cs.Pulse | None]] = {}  # session id -> (class, pulse run again for)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def watch(self, session_id: str, code: str, follows: bool, seen: tuple[object, ...]) -> None:
        """Session `session_id`'s page drew `seen` of class `code` (seen_of); the watcher starts if need be."""
        with self._lock:
            self._students[session_id] = _Student(code, follows, seen)
            self._asked.pop(session_id, None)  # drawn: its next runs read the store
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="class-watcher", daemon=True)
                self._thread.start()

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._students.pop(session_id, None)
            self._asked.pop(session_id, None)

    def asked_for(self, session_id: str, code: str) -> cs.Pulse | None | object:
        """The pulse that session `session_id` was last run again for, until its page registers what it drew
        (then UNREAD): that run reads it without the store's four queries (sixty students' runs at each move
        of the teacher). A newer move before the run replaces it; one after it runs the page again."""
        with self._lock:
            asked = self._asked.get(session_id)
        return asked[1] if asked is not None and asked[0] == code else UNREAD

    def watched(self) -> dict[str, str]:
        """Session id -> class code, of every student watched now."""
        with self._lock:
            return {sid: s.code for sid, s in self._students.items()}

    def _loop(self) -> None:
        while True:
            time.sleep(self._tick)
            with contextlib.suppress(Exception):  # whatever went wrong, the next tick reads again
                self.once()

    def once(self) -> int:
        """One tick: each watched class read once, each student whose page is behind run again. How many
        were."""
        with self._lock:
            codes = {s.code for s in self._students.values()}
        pulses: dict[str, cs.Pulse | None] = {}
        for code in codes:
            try:
                pulses[code] = self._pulse(code)
            except Exception:  # noqa: BLE001 - this class's store does not answer now: its students wait
                continue
        moved = 0
        with self._lock:
            behind = []
            for sid, s in self._students.items():
                if s.code not in pulses:
                    continue
                pulse = pulses[s.code]
                want = ENDED if pulse is None else seen_of(pulse, s.follows)
                if want != s.seen:
                    s.seen = want  # asked once; the run registers what it drew
                    self._asked[sid] = (s.code, pulse)
                    behind.append((sid, _page(pulse) if s.follows else ""))
            for sid, s in list(self._students.items()):
                if s.code in pulses and pulses[s.code] is None:
                    del self._students[sid]  # the class ended: told once, then watched no more
        for sid, page in behind:
            if self._rerun(sid, page):
                moved += 1
            else:
                self.forget(sid)
        return moved


def _page(pulse: cs.Pulse | None) -> str:
    """The url path of the teacher's page in `pulse` ("" when there is none, or the first page's)."""
    if pulse is None or not pulse.view:
        return ""
    try:
        return str(json.loads(pulse.view).get("page") or "")
    except (ValueError, AttributeError):
        return ""


@functools.lru_cache(maxsize=1)
def watcher() -> Watcher:
    """The process's watcher, reading the class store the pages use."""
    from explorer.ui import class_ui

    return Watcher(lambda code: class_ui.store().pulse(code))


def register(code: str, follows: bool, seen: tuple[object, ...]) -> None:
    """This run's student page drew `seen` of class `code`: its session is run again when that changes. Only
    in a server (a bare run or a test's AppTest has no other session to run, and runs its pages itself)."""
    from streamlit import runtime
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is not None and runtime.exists():
        watcher().watch(ctx.session_id, code, follows, seen)


def asked_for(code: str) -> cs.Pulse | None | object:
    """The pulse of class `code` this run's session was run again for by the process's watcher (until its
    page registers), else UNREAD."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not watcher.cache_info().currsize:
        return UNREAD
    return watcher().asked_for(ctx.session_id, code)


def unregister() -> None:
    """This run's session left its class (or it ended): it is not run again for it."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is not None and watcher.cache_info().currsize:
        watcher().forget(ctx.session_id)
