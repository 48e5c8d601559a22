"""explorer.ui.patches: what each patch relies on inside Streamlit (and asyncio) is still there, as assumed.

Each test fails on another Streamlit version than the one the patches were read against, so that a version
change sends someone to read them again (then STREAMLIT_VERSION moves with requirements.txt).
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import streamlit

from explorer.ui import editors, patches
from tests.app import fixtures

ROOT = Path(__file__).resolve().parents[3]


def test_the_patches_were_read_against_the_streamlit_installed_and_pinned() -> None:
    assert streamlit.__version__ == patches.STREAMLIT_VERSION
    pinned = re.search(r"^streamlit==([^\s#]+)", (ROOT / "requirements.txt").read_text(), re.M)
    assert pinned is not None and pinned.group(1) == patches.STREAMLIT_VERSION


def test_asyncio_calls_its_nodelay_hook_for_each_connection_and_streamlit_binds_with_protocol_0() -> None:
    from asyncio import base_events, selector_events

    assert streamlit.__version__ == patches.STREAMLIT_VERSION
    assert list(inspect.signature(base_events._set_nodelay).parameters) == ["sock"]  # noqa: SLF001
    # The socket transport calls the hook through the module, so replacing it there takes effect.
    assert "base_events._set_nodelay(" in inspect.getsource(selector_events._SelectorSocketTransport)  # noqa: SLF001
    from streamlit.web.server.starlette import starlette_server  # where Streamlit binds its listening socket

    bind = inspect.getsource(starlette_server._bind_socket)  # noqa: SLF001
    assert "socket.socket(family=family)" in bind and "IPPROTO_TCP" not in bind, sys.version


def test_streamlit_reads_editor_messages_through_the_guard() -> None:
    from streamlit.elements.widgets import data_editor as de

    assert streamlit.__version__ == patches.STREAMLIT_VERSION
    reader = de.DataEditorSerde.deserialize
    assert getattr(reader, "explorer_guard", False)  # installed when explorer.ui.editors was imported
    serde = de.DataEditorSerde()
    good = {"edited_rows": {"0": {"c0": 1.5}}, "added_rows": [], "deleted_rows": []}
    read = dict(serde.deserialize(json.dumps(good)))  # Streamlit's own reading, through: rows as ints
    assert read == {**good, "edited_rows": {0: {"c0": 1.5}}}
    refused = serde.deserialize("{not json")
    assert isinstance(refused, de.DataEditorState) and refused[editors.REFUSED]
    assert refused["edited_rows"] == {}
    patches.guard_editor_messages(editors.read_message)  # once per process: not wrapped twice
    assert de.DataEditorSerde.deserialize is reader


def test_streamlits_store_of_closed_sessions_is_where_the_patch_looks() -> None:
    from streamlit.runtime import Runtime
    from streamlit.runtime.caching.ttl_cache import TTLCache
    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    assert streamlit.__version__ == patches.STREAMLIT_VERSION
    assert "self._session_mgr =" in inspect.getsource(Runtime.__init__)
    assert "self._session_storage = session_storage" in inspect.getsource(WebsocketSessionManager.__init__)
    storage = MemorySessionStorage(ttl_seconds=10)
    assert isinstance(storage._cache, TTLCache) and callable(storage._cache.expire)  # noqa: SLF001
    assert patches.forget_closed_sessions() == 0  # no runtime in a test: nothing to do


def test_a_script_runs_stop_request_and_fast_reruns_are_where_the_patches_read_them() -> None:
    """session_turn reads a waiting run's stop request (ScriptRequests._state == STOP); one_run_per_session sets
    runner.fastReruns, which AppSession reads at every rerun request (tests/load/test_one_run.py: a server
    flooded with reruns keeps one script thread)."""
    import inspect

    from streamlit import config
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.scriptrunner_utils.script_requests import (
        RerunData,
        ScriptRequests,
        ScriptRequestType,
    )

    requests = ScriptRequests()
    assert requests._state == ScriptRequestType.CONTINUE
    requests.request_stop()
    assert requests._state == ScriptRequestType.STOP
    asked = ScriptRequests()
    asked.request_rerun(RerunData())
    assert asked._state == ScriptRequestType.RERUN  # what asked_to_move_on reads too
    assert not patches.asked_to_move_on()  # no script run in this thread
    assert 'config.get_option("runner.fastReruns")' in inspect.getsource(AppSession.request_rerun)
    before = config.get_option("runner.fastReruns")
    try:
        patches.one_run_per_session.cache_clear()
        patches.one_run_per_session()
        assert config.get_option("runner.fastReruns") is False
    finally:
        config.set_option("runner.fastReruns", before)


def test_another_sessions_rerun_is_asked_where_streamlit_asks_its_own() -> None:
    """rerun_session: the session's last request and its event loop are where the patch reads them, a
    request naming a page by its path runs that page, and the request asked for is a full run without the
    last presses (a button pressed again would leave the class, or explore)."""
    from streamlit.navigation.page import Page
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.proto.WidgetStates_pb2 import WidgetState
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.session_manager import SessionManager
    from streamlit.util import calc_hash

    assert streamlit.__version__ == patches.STREAMLIT_VERSION
    init = inspect.getsource(AppSession.__init__)
    assert (
        "self._client_state = ClientState()" in init
        and "self._event_loop = asyncio.get_running_loop()" in init
    )
    assert "page_name=client_state.page_name" in inspect.getsource(AppSession.request_rerun)
    assert "return calc_hash(self._url_path)" in inspect.getsource(Page._script_hash.fget)
    assert "self.intended_page_script_hash" in inspect.getsource(PagesManager._resolve_page_script)
    assert callable(SessionManager.get_active_session_info)
    assert patches.rerun_session("no-such-session", "scores") is False  # no runtime in a test
    last = ClientState(
        query_string="join=ABCDEFGH", page_script_hash="abc", fragment_id="f1", is_auto_rerun=True
    )
    last.widget_states.widgets.extend(
        [
            WidgetState(id="w-sentence", string_value="A dog ran."),
            WidgetState(id="w-leave", trigger_value=True),
        ]
    )
    again = patches.asked_again(last, "heads")
    assert again.fragment_id == "" and not again.is_auto_rerun and again.query_string == "join=ABCDEFGH"
    assert [w.id for w in again.widget_states.widgets] == ["w-sentence"]
    assert (again.page_script_hash, again.page_name) == (calc_hash("heads"), "")
    assert patches.asked_again(last).page_script_hash == "abc" and len(last.widget_states.widgets) == 2


def test_streamlit_collects_after_each_run_only_while_its_option_says_so() -> None:
    """no_collection_per_run turns off runner.postScriptGC, the option Streamlit reads after every run."""
    from streamlit import config
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    assert streamlit.__version__ == patches.STREAMLIT_VERSION
    finished = inspect.getsource(ScriptRunner._on_script_finished)
    assert 'if config.get_option("runner.postScriptGC"):' in finished and "gc.collect(2)" in finished
    before = config.get_option("runner.postScriptGC")
    try:
        patches.no_collection_per_run.cache_clear()
        patches.no_collection_per_run()
        assert config.get_option("runner.postScriptGC") is False
    finally:
        config.set_option("runner.postScriptGC", before)


def test_an_uploaded_file_is_handed_to_each_run_without_a_copy() -> None:
    """uploads_not_copied: Streamlit deep-copies a widget's value at each run (register_widget); an uploaded
    file (a BytesIO of the whole file) is then the same object, its bytes the same buffer."""
    import copy

    from streamlit.runtime.state.session_state import SessionState
    from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

    assert streamlit.__version__ == patches.STREAMLIT_VERSION
    assert "widget_value = deepcopy(widget_value)" in inspect.getsource(SessionState.register_widget)
    data = bytes(range(256)) * 4096  # 1 MB
    f = UploadedFile(UploadedFileRec("id", "layer.json", "application/json", data), None)  # type: ignore[arg-type]
    had = UploadedFile.__dict__.get("__deepcopy__")
    try:
        patches.uploads_not_copied.cache_clear()
        patches.uploads_not_copied()
        assert copy.deepcopy([f])[0] is f
        assert f.getvalue() == data
    finally:
        if had is None:
            del UploadedFile.__deepcopy__
        else:
            UploadedFile.__deepcopy__ = had
        patches.uploads_not_copied.cache_clear()
    assert copy.deepcopy(f) is not f  # Streamlit's own behaviour, the patch taken off again


def test_a_runs_events_reach_the_event_loop_in_order_with_fewer_wake_ups() -> None:
    """script_events_batched: the script thread's events go through AppSession._call_soon_on_event_loop (the
    method patched); with the patch, 500 events from a thread run on the loop in their order, each once,
    with fewer wake-ups of the loop than events; a callback that fails does not stop the next."""
    import asyncio

    from streamlit.runtime.app_session import AppSession, AppSessionState

    assert streamlit.__version__ == patches.STREAMLIT_VERSION
    assert "self._call_soon_on_event_loop(" in inspect.getsource(AppSession._on_scriptrunner_event)
    had = AppSession.__dict__["_call_soon_on_event_loop"]  # patched already if a server's start ran here
    streamlits = getattr(had, "__wrapped__", had)
    assert "call_soon_threadsafe(callback)" in inspect.getsource(streamlits)
    ran: list[int] = []
    wakes = [0]

    def event(i: int) -> Callable[[], None]:
        def run() -> None:
            ran.append(i)
            if i == 7:
                raise ValueError("one event fails")

        return run

    async def main() -> None:
        loop = asyncio.get_running_loop()
        woken = loop.call_soon_threadsafe

        def counted(callback: Callable[[], None], *args: Any) -> Any:
            wakes[0] += 1
            return woken(callback, *args)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign]
        session = AppSession.__new__(AppSession)
        session._event_loop, session._state = loop, AppSessionState.SHUTDOWN_REQUESTED  # never started
        for burst in (range(500), range(500, 600)):  # each made while the loop is busy elsewhere
            sender = threading.Thread(
                target=lambda b=burst: [session._call_soon_on_event_loop(event(i)) for i in b]
            )
            sender.start()
            sender.join()  # the loop blocked meanwhile, as it is while a script thread holds the interpreter
            while len(ran) < burst.stop:
                await asyncio.sleep(0.001)

    try:
        AppSession._call_soon_on_event_loop = streamlits
        patches.script_events_batched.cache_clear()
        patches.script_events_batched()
        fixtures.run_async(main())
    finally:
        AppSession._call_soon_on_event_loop = had
        patches.script_events_batched.cache_clear()
    assert ran == list(range(600))
    assert wakes[0] == 2  # one per burst, not one per event


PAGE_WITH_A_FRAGMENT = """
import streamlit as st

st.markdown("page " + st.query_params.get("n", "?"))


@st.fragment
def box():
    st.markdown("box")


box()
"""


def _ended_run_then_a_fragments_request(tmp_path: Path) -> list[str]:
    """A real session runs a page (a fragment in it) in full; the run ends while the event loop is busy
    (a class's other pages), and before the loop handles the run's messages, the fragment's timer asks for
    its run. What the browser is sent: each element's text and each run's end."""
    import asyncio
    import time

    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.runtime import Runtime
    from streamlit.runtime.script_data import ScriptData
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    page = tmp_path / "page.py"
    page.write_text(PAGE_WITH_A_FRAGMENT)

    async def main() -> list[str]:
        session = AppSession(ScriptData(str(page)), MemoryUploadedFileManager("/up"), ScriptCache(), None, {})
        try:
            session.request_rerun(ClientState(query_string="n=1"))
            runner = session._scriptrunner
            deadline = time.monotonic() + 30
            while runner._requests._state != ScriptRequestType.STOP:  # the loop blocked until the run ended
                assert time.monotonic() < deadline, "the page's run did not end"
                time.sleep(0.002)
            (fragment,) = session._fragment_storage._fragments  # its id, stored as the run ended
            session.request_rerun(ClientState(query_string="n=1", fragment_id=fragment, is_auto_rerun=True))
            while session._scriptrunner is not None:  # the fragment's run, until its thread has stopped
                assert time.monotonic() < deadline, "the fragment's run did not end"
                await asyncio.sleep(0.005)
            sent = []
            for m in session.flush_browser_queue():
                if m.WhichOneof("type") == "delta" and m.delta.WhichOneof("type") == "new_element":
                    sent.append(m.delta.new_element.markdown.body)
                elif m.WhichOneof("type") == "script_finished":
                    sent.append(f"end {m.script_finished}")
            return sent
        finally:
            session.shutdown()

    had = Runtime._instance
    Runtime._instance = mock.MagicMock()  # what a run asks of the server (its media files): nothing kept
    try:
        return fixtures.run_async(main())
    finally:
        Runtime._instance = had


def test_a_run_that_ended_reaches_the_browser_whole_when_a_request_follows_at_once(tmp_path: Path) -> None:
    """stopped_runs_delivered: with Streamlit's own AppSession, the ended run's page is never sent (its thread
    is no longer the session's own when the loop gets to its messages) and the browser keeps what it showed;
    with the patch, the page and its end are sent, then the fragment's run."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime.app_session import AppSession

    assert "self._create_scriptrunner(rerun_data)" in inspect.getsource(AppSession.request_rerun)
    assert "if sender is not self._scriptrunner:" in inspect.getsource(
        AppSession._handle_scriptrunner_event_on_event_loop
    )
    patches.one_run_per_session()
    had = {k: AppSession.__dict__[k] for k in ("_create_scriptrunner", "_call_soon_on_event_loop")}
    streamlits = {k: getattr(v, "__wrapped__", v) for k, v in had.items()}
    full, fragment = (
        f"end {ForwardMsg.FINISHED_SUCCESSFULLY}",
        f"end {ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}",
    )
    try:
        for k, v in streamlits.items():
            setattr(AppSession, k, v)
        patches.script_events_batched.cache_clear()
        patches.stopped_runs_delivered.cache_clear()
        assert _ended_run_then_a_fragments_request(tmp_path) == ["box", fragment]  # the page lost
        patches.stopped_runs_delivered()
        # the first run's box is not sent twice: the fragment's run, which draws it again, takes its place
        assert _ended_run_then_a_fragments_request(tmp_path) == ["page 1", full, "box", fragment]
    finally:
        for k, v in had.items():
            setattr(AppSession, k, v)
        patches.script_events_batched.cache_clear()
        patches.stopped_runs_delivered.cache_clear()


def test_a_script_thread_carries_its_name_into_the_os() -> None:
    """script_threads_named: Streamlit starts each script thread on ScriptRunner._run_script_thread under the
    name "ScriptRunner.scriptThread"; with the patch, the OS reads that name (its first 15 bytes) for the
    thread from its first step, Streamlit's own code runs after, and the name becomes ENDED_THREAD when the
    thread's request queue has no run left for it (it only cleans up then)."""
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
    from streamlit.runtime.scriptrunner_utils.script_requests import (
        RerunData,
        ScriptRequests,
        ScriptRequestType,
    )

    assert streamlit.__version__ == patches.STREAMLIT_VERSION
    source = inspect.getsource(ScriptRunner.request_rerun) + inspect.getsource(ScriptRunner.start)
    assert "target=self._run_script_thread" in source and 'name="ScriptRunner.scriptThread"' in source
    had = ScriptRunner.__dict__["_run_script_thread"]
    had_boot = bootstrap = threading.Thread.__dict__["_bootstrap_inner"]
    while hasattr(bootstrap, "__wrapped__"):  # Python's own, under the patch where the process has it
        bootstrap = bootstrap.__wrapped__
    assert "def _bootstrap_inner(self)" in inspect.getsource(bootstrap)
    seen: list[str] = []

    def comm() -> str:
        return Path(f"/proc/self/task/{threading.get_native_id()}/comm").read_text().strip()

    def started_under_its_name() -> None:
        runner = mock.MagicMock()
        runner._requests = ScriptRequests()
        runner._is_in_script_thread.side_effect = lambda: seen.append(comm()) or False
        try:
            ScriptRunner._run_script_thread(runner)
        except RuntimeError as e:  # Streamlit's own first check: the runner is not this thread's
            seen.append(str(e).split()[0])
        runner._requests.request_rerun(RerunData(query_string="a"))
        assert runner._requests.on_scriptrunner_ready().type == ScriptRequestType.RERUN
        seen.append(comm())  # a run taken: still a script thread
        assert runner._requests.on_scriptrunner_ready().type == ScriptRequestType.STOP
        seen.append(comm())  # no request left: its runs are over

    def run_in(name: str) -> None:
        thread = threading.Thread(target=started_under_its_name, name=name)
        thread.start()
        thread.join()

    def started_by_a_script_thread() -> str:
        """The OS's name of a thread (a spinner's timer) that a thread named as a script thread starts."""
        got: list[str] = []

        def script() -> None:
            patches.name_this_thread("ScriptRunner.scriptThread")
            timer = threading.Thread(target=lambda: got.append(comm()), name="Thread-9")
            timer.start()
            timer.join()

        thread = threading.Thread(target=script)
        thread.start()
        thread.join()
        return got[0]

    try:
        ScriptRunner._run_script_thread = getattr(had, "__wrapped__", had)
        threading.Thread._bootstrap_inner = bootstrap
        # The OS gives a new thread its starter's name.
        assert started_by_a_script_thread() == "ScriptRunner.sc"
        run_in("ScriptRunner.scriptThread")
        assert seen[0] != "ScriptRunner.sc" and seen[1] == "ScriptRunner._run_script_thread"  # its process's
        assert seen[2] == seen[3] == seen[0]
        seen.clear()
        patches.script_threads_named.cache_clear()
        patches.script_threads_named()
        run_in("ScriptRunner.scriptThread")
        assert seen == [
            "ScriptRunner.sc",
            "ScriptRunner._run_script_thread",
            "ScriptRunner.sc",
            patches.ENDED_THREAD,
        ]
    finally:
        ScriptRunner._run_script_thread = had
        threading.Thread._bootstrap_inner = had_boot
        patches.script_threads_named.cache_clear()
