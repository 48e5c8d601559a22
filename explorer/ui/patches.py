"""Every change the app makes inside Streamlit (and asyncio), in one place.

Each reaches a private name that a new version may rename or remove; tests/app/ui/test_patches.py checks, for
each, that what it relies on is still there and behaves as assumed, and fails on another Streamlit version
than STREAMLIT_VERSION until someone has looked again (then the pin moves with requirements.txt).

send_writes_at_once     asyncio's per-connection hook: TCP_NODELAY on the sockets Streamlit accepts
guard_editor_messages   Streamlit's reader of data-editor messages: a crafted one becomes a refused edit
forget_closed_sessions  Streamlit's store of closed sessions: expired ones are let go
one_run_per_session     runner.fastReruns off whatever the configuration says
session_turn            the frame's run waits for the session's running one (a script run's stop request)
asked_to_move_on        whether the running script has been asked to stop or to run again (the same request)
rerun_session           another session's script run again from the server, as its browser would ask
no_collection_per_run   runner.postScriptGC off: no full garbage collection after every script run
uploads_not_copied      an uploaded file's copy for each run it is a widget's value: the same bytes instead
script_events_batched   a script run's messages handed to the event loop in batches, one wake-up for each
stopped_runs_delivered  a run that has ended has its messages sent before the session's next script thread starts
script_threads_named    every thread's name given to the OS too (top -H, ps -L, /proc/PID/task/*/comm), a script
                        thread's changed to ENDED_THREAD once its runs are over
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import logging
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

STREAMLIT_VERSION = "1.67.0"  # what the patches below were read against (requirements.txt pins the same)


@functools.cache  # once per process
def send_writes_at_once() -> None:
    """Nagle's algorithm off (TCP_NODELAY) on every TCP connection the process's event loop opens or accepts.

    asyncio turns it off only on sockets that say they are TCP (`sock.proto == IPPROTO_TCP`); Streamlit binds
    its listening socket as `socket.socket(family)`, protocol 0, so the connections it accepts keep Nagle on,
    and on a kept-alive connection a response's second write (the body after the headers) waits for the
    browser's delayed acknowledgement of the first: 40 ms per request after a connection's first. A new tab
    fetches about 120 files over six connections; WebSocket messages wait the same way.
    """
    from asyncio import base_events  # the hook asyncio's socket transports call for each new connection

    def set_nodelay(sock: socket.socket) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    base_events._set_nodelay = set_nodelay  # noqa: SLF001 - see the docstring


def guard_editor_messages(read: Callable[[Any, Callable[[Any], Any]], Any]) -> None:
    """Put `read(ui_value, original)` in front of Streamlit's reader of data-editor messages (once per
    process): `original` is Streamlit's own reading, `read` gives what the widget's state becomes
    (explorer.ui.editors.read_message: an empty edit carrying the reason when a message is refused).

    Streamlit reads an editor's message before any of the app's code runs, and an exception there stays on
    the page until the next edit; there is no public hook for it.
    """
    from streamlit.elements.widgets import data_editor as de

    original = de.DataEditorSerde.deserialize
    if getattr(original, "explorer_guard", False):
        return

    def deserialize(self, ui_value):  # noqa: ANN001, ANN202 - Streamlit's signature
        return read(ui_value, lambda v: original(self, v))

    deserialize.explorer_guard = True  # type: ignore[attr-defined]
    de.DataEditorSerde.deserialize = deserialize


def forget_closed_sessions(manager: object | None = None) -> int:
    """Let go of the closed sessions whose time to reconnect (server.disconnectedSessionTTL) is over; returns
    how many there were.

    Streamlit keeps a closed session (its state: the example, the edited matrices) for a reconnect in a TTL
    cache that drops an expired entry only when another session is stored or the entries are counted: after
    the last visitor of a class leaves, nothing does either, and every session stays in memory (66 real-layer
    sessions: about 350 MB, benchmarks/layer_memory.py). Counting them drops them. Each one dropped is then
    shut down as Streamlit shuts down a session it closes itself: dropping it alone left its uploaded files in
    the upload store and its download buttons' callables (each holding its example: 50 MB for a real layer
    opened from a file) in the media store, for good (flood --kinds upload). `manager` is the runtime's
    session manager (for a test); nothing happens where the storage is not Streamlit's own.
    """
    if manager is None:
        from streamlit import runtime

        if not runtime.exists():
            return 0
        manager = getattr(runtime.get_instance(), "_session_mgr", None)
    stored = getattr(getattr(manager, "_session_storage", None), "_cache", None)
    expire = getattr(stored, "expire", None)
    if not callable(expire):
        return 0
    gone = expire()
    for _, info in gone:
        shutdown = getattr(getattr(info, "session", None), "shutdown", None)
        if callable(shutdown):
            try:
                shutdown()
            except Exception:  # noqa: BLE001 - one session's end must not stop the others' (logged)
                logging.getLogger(__name__).exception("shutting down a closed session")
    return len(gone)


def sessions_held(manager: object | None = None) -> int | None:
    """How many sessions the server holds, open or closed and kept for a reconnect; None where that is not
    known (no runtime, or a session storage not Streamlit's own). `manager` as in forget_closed_sessions."""
    if manager is None:
        from streamlit import runtime

        if not runtime.exists():
            return None
        manager = getattr(runtime.get_instance(), "_session_mgr", None)
    listed = getattr(manager, "list_sessions", None)
    if not callable(listed):
        return None
    try:
        return len(listed())
    except Exception:  # noqa: BLE001 - a storage that cannot list: unknown, nothing is let go
        return None


@functools.cache  # once per process, before the first rerun is requested where it can (server.py)
def one_run_per_session() -> None:
    """A visitor's new rerun waits for their running script to stop, whatever .streamlit/config.toml or the
    command line says: Streamlit's runner.fastReruns (on by default) starts a new script thread for each
    rerun while the old one still computes, and applies the new run's widget states to the session's state
    under it: one visitor sending reruns every 50 ms would have a dozen script threads at once, and runs
    would fail on state changed under them. With it off, the running script is asked to rerun and does so at its next
    element (`session_turn` guards the frame's run as well)."""
    from streamlit import config

    config.set_option("runner.fastReruns", False, where_defined="explorer.ui.patches")


@functools.cache  # once per process, as a server for a class starts (explorer.ui.boot.tune_server)
def no_collection_per_run() -> None:
    """No full garbage collection after every script run, whatever the configuration says.

    Streamlit collects all generations after each run (runner.postScriptGC), holding the GIL. In a class
    every move of the teacher's runs each student's page: with sixty students that collection was a quarter of
    the server's CPU (python -m benchmarks class_answers, py-spy --gil), and each run's last messages wait
    behind it. Python's own collector still runs as objects are made (the young generations every few hundred,
    the old ones as they grow), and explorer.ui.boot's refreeze collects everything every few seconds while
    visitors run pages."""
    from streamlit import config

    config.set_option("runner.postScriptGC", False, where_defined="explorer.ui.patches")


_TURNS: dict[str, list] = {}  # session id -> [its lock, runs holding or waiting for it] (while any does)
_TURNS_GUARD = threading.Lock()


@contextlib.contextmanager
def session_turn() -> Iterator[None]:
    """The frame's run, one at a time per session: a run that starts while another of the same session still
    runs (a second script thread) waits until that one has stopped; a run asked to stop while it waits stops.
    The table holds only sessions with a run under way."""
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None:
        yield
        return
    with _TURNS_GUARD:
        turn = _TURNS.setdefault(ctx.session_id, [threading.Lock(), 0])
        turn[1] += 1
    try:
        while not turn[0].acquire(timeout=0.02):
            requests = ctx.script_requests
            if requests is not None and getattr(requests, "_state", None) == ScriptRequestType.STOP:
                raise StopException()  # a newer rerun replaced this one while it waited
        try:
            yield
        finally:
            turn[0].release()
    finally:
        with _TURNS_GUARD:
            turn[1] -= 1
            if turn[1] == 0:
                _TURNS.pop(ctx.session_id, None)


def asked_to_move_on() -> bool:
    """Whether this thread's script run has been asked to stop or to run again (its visitor moved on): a
    waiting page then draws its message at once, and Streamlit stops the run there; otherwise a message
    that has not changed need not be sent again."""
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    requests = None if ctx is None else ctx.script_requests
    state = getattr(requests, "_state", None)
    return state in (ScriptRequestType.STOP, ScriptRequestType.RERUN)


# A widget value that is a press (a button, a chat input): sent once by the browser, never replayed.
_PRESSES = ("trigger_value", "string_trigger_value", "json_trigger_value", "chat_input_value")


def rerun_session(session_id: str, page: str = "") -> bool:
    """Run session `session_id`'s script again, as its browser would ask with the page, address and widget
    values it sent last (a press is not pressed again); False when no connected session has this id.
    `page`: the url path of the page to run (as a link to it would ask); "" for the page it is on.

    Safe from any thread: the request is made on the server's event loop, where Streamlit makes its own (a
    source file saved with runOnSave reruns every session the same way). The browser draws the run as it
    draws one it asked for."""
    from streamlit import runtime

    if not runtime.exists():
        return False
    manager = getattr(runtime.get_instance(), "_session_mgr", None)
    info = None if manager is None else manager.get_active_session_info(session_id)
    if info is None:
        return False
    session = info.session

    def request() -> None:
        session.request_rerun(asked_again(session._client_state, page))  # noqa: SLF001 - what it sent last

    session._event_loop.call_soon_threadsafe(request)  # noqa: SLF001 - the session's own loop
    return True


def asked_again(last: Any, page: str = "") -> Any:
    """A copy of a browser's last request (a ClientState) as a new full run of its page (or of `page`, a url
    path), its presses (a button, a chat input) left out: what rerun_session asks for."""
    from streamlit.proto.ClientState_pb2 import ClientState

    sent = ClientState()
    sent.CopyFrom(last)
    sent.fragment_id, sent.is_auto_rerun, sent.is_history_navigation = "", False, False
    kept = [w for w in sent.widget_states.widgets if w.WhichOneof("value") not in _PRESSES]
    del sent.widget_states.widgets[:]
    sent.widget_states.widgets.extend(kept)
    if page:  # another page: named by its hash, as st.Page makes it (a name alone reads as a new page load)
        from streamlit.util import calc_hash

        sent.page_script_hash, sent.page_name = calc_hash(page), ""
    return sent


@functools.cache  # once per process, before the first upload (server.py)
def uploads_not_copied() -> None:
    """An uploaded file is handed to the run as it is, not deep-copied: Streamlit copies a widget's value
    each run so that a page cannot change it in place, and a file uploader's value is the file itself (a
    43 MB layer file copied inside the interpreter lock at each run it is there). The app only reads an
    uploaded file (getvalue) and lets it go from the upload store once read (explorer.ui.state.release_upload)."""
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    UploadedFile.__deepcopy__ = lambda self, memo: self  # type: ignore[method-assign]


class _Batch:
    """A session's callbacks for its event loop, in order, waiting for the loop to run them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: list[Callable[[], None]] = []

    def add(self, callback: Callable[[], None]) -> bool:
        """Queue `callback`; True when the loop must be woken for it (nothing was waiting: no drain is due)."""
        with self._lock:
            self._waiting.append(callback)
            return len(self._waiting) == 1

    def drain(self) -> None:
        """On the event loop: run every callback waiting, in order (one that fails is logged, as the loop would)."""
        with self._lock:
            waiting, self._waiting = self._waiting, []
        for callback in waiting:
            try:
                callback()
            except Exception:  # noqa: BLE001 - the loop logs a failing callback and runs the next
                logging.getLogger(__name__).exception("a script run's event on the event loop")


@functools.cache  # once per process, as a server for a class starts (explorer.ui.boot.tune_server)
def script_events_batched() -> None:
    """A session's script-run events reach the event loop in batches: the loop is woken once for all that
    arrived before it ran, not once per element.

    Streamlit hands each message a script thread makes (every element, every widget) to the event loop with
    call_soon_threadsafe, which writes a byte to the loop's wake-up socket: a system call that lets go of the
    interpreter lock and then waits to take it back behind every other thread. When a teacher's move runs
    sixty students' pages, that wait is about a fifth of each run (py-spy on `python -m benchmarks
    class_answers`). The events keep their order: they wait in the session's own list, and the loop runs
    them all, first to last, from one callback."""
    from streamlit.runtime.app_session import AppSession

    schedule = AppSession._call_soon_on_event_loop  # noqa: SLF001 - the method the events go through

    def call_soon(self: Any, callback: Callable[[], None]) -> None:
        batch = self.__dict__.get("_explorer_batch") or self.__dict__.setdefault("_explorer_batch", _Batch())
        if batch.add(callback):
            schedule(self, batch.drain)

    call_soon.__wrapped__ = schedule  # type: ignore[attr-defined]  # Streamlit's own, for the patch's test
    AppSession._call_soon_on_event_loop = call_soon  # type: ignore[method-assign]


@functools.cache  # once per process, before the first rerun is requested where it can (server.py, app.py)
def stopped_runs_delivered() -> None:
    """A run that has ended reaches the browser whole, even when the next request comes before the event loop
    has handled its messages.

    A session's script thread hands each message to the event loop and then, its run over, stops. A request
    that reaches the loop after the thread stopped and before the loop handled those messages (a fragment's
    timer, a student's page run again for the teacher's move) starts a new script thread, and AppSession
    ignores every event of a thread that is no longer its own: the ended run's elements and its end are
    never sent. When a fragment run follows (one that redraws only itself), the page keeps what it showed
    before, for good: a student missed the teacher's step or the revealed answer under load (`python -m
    benchmarks class_answers`, about one class in four on a busy machine). Here the messages still waiting
    (batched: script_events_batched) are handled first, while the stopped thread is still the session's own;
    a stopped thread has handed all of them over before it refuses a rerun."""
    script_events_batched()
    from streamlit.runtime.app_session import AppSession

    create = AppSession._create_scriptrunner  # noqa: SLF001 - where a session starts its next script thread

    def create_after_delivery(self: Any, initial_rerun_data: Any) -> None:
        batch = self.__dict__.get("_explorer_batch")
        if self._scriptrunner is not None and batch is not None:  # noqa: SLF001 - the thread that stopped
            batch.drain()
        create(self, initial_rerun_data)

    create_after_delivery.__wrapped__ = create  # type: ignore[attr-defined]  # Streamlit's own, for the test
    AppSession._create_scriptrunner = create_after_delivery  # type: ignore[method-assign]


PR_SET_NAME = 15  # Linux's prctl option: the calling thread's name, as /proc, ps -L and top -H show it


@functools.cache  # finding the C library runs a program (ldconfig); every thread start names itself
def _libc() -> Any:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def name_this_thread(name: str) -> bool:
    """Give the calling thread's name to the OS (its first 15 bytes: the kernel's limit); False where the
    system has no prctl (not Linux)."""
    try:
        return _libc().prctl(PR_SET_NAME, name.encode()[:15], 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


@functools.cache  # once per process, as a server for a class starts (explorer.ui.boot.tune_server)
def script_threads_named() -> None:
    """Each thread the server's Python starts carries its name into the OS, and a script thread
    ("ScriptRunner.scriptThread") is named ENDED_THREAD once it has taken its last request (no run is left in
    it, only its cleanup), so an operator (or a test) can tell a server's script runs from its other threads
    without attaching to it: a thread started by another otherwise carries its starter's name in the OS (a
    spinner's timer started by a script run would read as a second script thread), and a thread that has
    ended its runs may take a while to exit on a busy machine. Python 3.11 names threads for itself only."""
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    bootstrap = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]  # where every thread starts

    def started(self: threading.Thread) -> None:
        name_this_thread(self.name)
        bootstrap(self)

    started.__wrapped__ = bootstrap  # type: ignore[attr-defined]  # Python's own, for the patch's test
    threading.Thread._bootstrap_inner = started  # type: ignore[attr-defined]

    run = ScriptRunner._run_script_thread  # noqa: SLF001 - the target each script thread starts with

    def named(self: Any) -> None:  # (its name given to the OS by `started`, as every thread's)
        ready = self._requests.on_scriptrunner_ready  # noqa: SLF001 - where the thread takes its next run

        def next_run() -> Any:
            request = ready()
            if request.type != ScriptRequestType.RERUN:
                name_this_thread(ENDED_THREAD)
            return request

        self._requests.on_scriptrunner_ready = next_run  # noqa: SLF001 - this runner's own queue
        run(self)

    named.__wrapped__ = run  # type: ignore[attr-defined]  # Streamlit's own, for the patch's test
    ScriptRunner._run_script_thread = named  # type: ignore[method-assign]


ENDED_THREAD = "ScriptEnded"  # the OS's name of a script thread whose runs are over
