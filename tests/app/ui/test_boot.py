"""explorer.ui.boot: what the imports made is kept out of the collector's sight, and freed memory is given back,
once per process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = textwrap.dedent(
    """
    import gc, json, sys
    import plotly.graph_objects, streamlit, pandas
    from explorer.ui import boot
    out = {"tracked_before": len(gc.get_objects()), "notebook_before": "explorer.export.notebook" in sys.modules}
    boot.freeze_imports()
    out["notebook_after"] = "explorer.export.notebook" in sys.modules  # every module, imported first
    out["pretrained_after"] = "attention_core.pretrained" in sys.modules
    out["frozen"] = gc.get_freeze_count()
    out["tracked_after"] = len(gc.get_objects())
    made_later = [[i] for i in range(1000)]  # what a visitor's run makes
    import http.cookies  # and a module imported later
    boot.freeze_imports()
    out["frozen_again"] = gc.get_freeze_count()
    print(json.dumps(out))
    """
)


def test_every_module_is_imported_then_frozen_once_and_nothing_made_later_is_frozen() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert not out["notebook_before"] and out["notebook_after"] and out["pretrained_after"], out
    # Streamlit, Plotly and pandas make well over 50,000 objects; after the freeze the collector tracks
    # almost none (what Streamlit's gc.collect(2) after every run walks).
    assert out["tracked_before"] > 50_000, out
    assert out["frozen"] > out["tracked_before"], out
    assert out["tracked_after"] < 0.05 * out["frozen"], out
    assert out["frozen_again"] == out["frozen"], out  # once per process: a visitor's objects stay collectable


def test_bound_memory_starts_one_trimming_thread_per_process() -> None:
    import threading

    from explorer.ui import boot

    boot.bound_memory()
    boot.bound_memory()
    names = [t.name for t in threading.enumerate()]
    assert names.count("malloc-trim") == 1  # glibc (this machine and CI): the thread runs, once


FREED_ON_THREADS = textwrap.dedent(
    """
    import ctypes, sys, threading
    if "--bound" in sys.argv:
        from explorer.ui import boot
        boot.bound_memory()
    def own_mb():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) / 1024 for line in f if line.startswith("RssAnon:"))
    def run():  # what a page's run does with a job's result read from Redis, on a thread of its own
        for mb in (40, 30):  # a large block freed: glibc would raise its thresholds past the next ones
            block = bytearray(mb << 20)
            del block
        blocks = [bytearray(20 << 20) for _ in range(3)]  # a pickle, its arrays, an uploaded file's copy
        del blocks
    before = own_mb()
    runs = [threading.Thread(target=run) for _ in range(3)]
    for t in runs:
        t.start()
    for t in runs:
        t.join()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    print(own_mb() - before)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc (Linux)")
def test_large_blocks_a_run_freed_on_its_thread_are_handed_back_to_the_system() -> None:
    """Three runs each free 150 MB in blocks of tens of MB: the web process (bound_memory) is back within a
    few MB of where it was, where glibc left to itself keeps tens of MB at its arenas' tops."""
    kept = {}
    for how in ("--bound", "--glibc"):
        done = subprocess.run([sys.executable, "-c", FREED_ON_THREADS, how], cwd=ROOT, capture_output=True,
                              text=True, check=True, timeout=120)  # fmt: skip
        kept[how] = float(done.stdout.strip().splitlines()[-1])
    assert kept["--bound"] < 8 < kept["--glibc"], kept


def test_the_whole_process_collection_waits_for_a_moment_without_runs_but_not_for_ever() -> None:
    """Sessions let go at t=100: while pages run, the collection that frees them (and pauses every page) waits
    for a tick without runs, at most FULL_WAITS_S; never twice within FULL_EVERY_S; nothing owed, none."""
    from explorer.ui.boot import FULL_EVERY_S, FULL_WAITS_S, full_due

    assert not full_due(None, 0.0, 500.0, busy=False)  # nothing to free
    assert full_due(100.0, 0.0, 105.0, busy=False)  # a quiet tick: at once
    assert not full_due(100.0, 0.0, 105.0, busy=True)  # a class at work: it waits
    assert not full_due(100.0, 0.0, 100.0 + FULL_WAITS_S - 1, busy=True)
    assert full_due(100.0, 0.0, 100.0 + FULL_WAITS_S, busy=True)  # but not for ever
    assert not full_due(100.0, 98.0, 98.0 + FULL_EVERY_S - 1, busy=False)  # one ran just before
    assert full_due(100.0, 98.0, 98.0 + FULL_EVERY_S, busy=False)


NODELAY = textwrap.dedent(
    """
    import asyncio, json, socket
    from explorer.ui import patches

    def accepted_nodelay():
        # a connection an asyncio server accepts on a socket bound as Streamlit binds its own (protocol 0)
        listener = socket.socket(socket.AF_INET)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        got = []

        async def main():
            def accepted(reader, writer):
                got.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                writer.close()

            server = await asyncio.start_server(accepted, sock=listener)
            async with server:
                _, writer = await asyncio.open_connection(*listener.getsockname())
                while not got:
                    await asyncio.sleep(0.01)
                writer.close()

        asyncio.run(main())
        return got[0]

    before = accepted_nodelay()
    patches.send_writes_at_once()
    print(json.dumps({"before": before, "after": accepted_nodelay()}))
    """
)


def test_connections_accepted_on_a_socket_bound_as_streamlits_send_at_once() -> None:
    """asyncio leaves Nagle's algorithm on for them (the 40 ms wait on a kept-alive connection); after
    send_writes_at_once TCP_NODELAY is set on each."""
    out = subprocess.run(
        [sys.executable, "-c", NODELAY], cwd=ROOT, capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout)
    assert got["before"] == 0 and got["after"] != 0


REFREEZE = textwrap.dedent(
    """
    import gc, json, threading
    from explorer.ui import boot

    class Node:
        pass

    def cycle():
        a, b = Node(), Node()
        a.other, b.other = b, a  # a reference cycle, as a session's state or a run's figures hold
        return a

    held = [cycle() for _ in range(1000)]  # a session's objects, alive
    boot.freeze_new()
    new_frozen = gc.get_freeze_count()
    held.clear()
    boot.freeze_new()
    new_kept = gc.get_freeze_count() == new_frozen  # a freeze of what is new leaves frozen garbage alone
    held = [cycle() for _ in range(1000)]
    before = boot.full_collections()
    after_own = boot.refreeze()
    counted = after_own == boot.full_collections() > before
    frozen = gc.get_freeze_count()
    walked = len(gc.get_objects())  # what a full collection walks now
    held.clear()  # the session is dropped: its frozen cycles are garbage
    gc.collect()
    kept = gc.get_freeze_count()  # a collection does not free frozen garbage...
    boot.refreeze()  # ...the next refreeze does
    boot.keep_collections_short()
    boot.keep_collections_short()  # once per process: one thread
    print(json.dumps({"frozen": frozen, "walked": walked, "kept": kept, "after": gc.get_freeze_count(),
                      "threads": sum(t.name == "refreeze" for t in threading.enumerate()),
                      "counted": counted, "new_kept": new_kept, "new_frozen": new_frozen}))
    """
)


def test_refreeze_keeps_live_objects_out_of_each_runs_collection_and_frees_them_once_dead() -> None:
    out = subprocess.run(
        [sys.executable, "-c", REFREEZE], cwd=ROOT, capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout)
    assert got["walked"] < 1000 <= got["frozen"]  # the 2,000 live objects are frozen, not walked
    assert got["kept"] == got["frozen"]
    assert got["new_kept"] and got["new_frozen"] >= 2000
    assert got["after"] <= got["frozen"] - 2000  # the dead cycles are gone
    assert got["threads"] == 1
    assert got[
        "counted"
    ]  # a run's full collection (Streamlit's, after each run) is what the thread looks for


def test_the_server_is_tuned_where_it_starts_and_app_py_keeps_only_what_one_visitor_waits_for() -> None:
    import inspect

    from explorer.ui import boot, warm

    app = (ROOT / "app.py").read_text(encoding="utf-8")
    assert "boot." not in app and "patches.send_writes_at_once()" in app and "warm.from_env()" in app
    for start in (warm.lifespan, warm.from_env):
        assert "boot.tune_server()" in inspect.getsource(start)
    tuned = inspect.getsource(boot.tune_server)
    for step in ("send_writes_at_once", "quick_switching", "keep_collections_short", "bound_memory"):
        assert f"{step}()" in tuned


def test_the_shared_caches_are_emptied_once_each_time_the_last_session_goes() -> None:
    from explorer.ui.boot import class_gone

    assert class_gone(False, 0) == (False, False)  # no visitor yet: what the server warmed stays
    assert class_gone(False, None) == (False, False)  # not known: nothing is let go
    assert class_gone(False, 3) == (False, True)  # a class at work
    assert class_gone(True, None) == (False, True)
    assert class_gone(True, 0) == (True, False)  # its last session gone: emptied, once
    assert class_gone(False, 0) == (False, False)


def test_letting_go_of_the_caches_empties_every_shared_cache() -> None:
    import numpy as np

    from attention_core import pretrained
    from explorer import cache
    from explorer.ui import boot

    store = cache.caches()[0]
    store.put("a key", np.ones(100))
    pretrained.RESULTS.put("a trace", np.ones(10), 80)
    assert len(store) >= 1 and "a trace" in pretrained.RESULTS
    boot.let_go_of_caches()
    assert all(len(c) == 0 and c.bytes == 0 for c in cache.caches())
    assert pretrained.cache_info()["entries"] == 0 and "a trace" not in pretrained.RESULTS


def test_the_sessions_held_are_the_open_and_the_closed_ones_kept_for_a_reconnect() -> None:
    from explorer.ui import patches

    class Manager:
        def list_sessions(self) -> list[str]:
            return ["open", "closed, kept"]

    assert patches.sessions_held(Manager()) == 2
    assert patches.sessions_held(object()) is None  # not Streamlit's storage: unknown
    assert patches.sessions_held() is None  # no runtime in a test
