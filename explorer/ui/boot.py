"""Process-wide start-up work of a server (run once per process, as the server starts: explorer.ui.warm).

Nothing here changes a number on a page: it is how one process serves a class (the collector, the GIL, memory).
What the app changes inside Streamlit lives in explorer.ui.patches.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import importlib
import pkgutil
import sys
import threading
import time

from explorer.ui import patches


@functools.cache  # once per process
def freeze_imports() -> None:
    """Move what the imports created (about 130,000 objects: Streamlit, Plotly's validators, pandas, the
    explorer) out of the garbage collector's sight, once per process, at the top of its first run.

    Streamlit collects garbage after every run (`gc.collect(2)`, runner.postScriptGC), holding the GIL: with
    those objects in sight it takes tens of milliseconds, and the run's last messages (the page's end,
    "finished") wait behind it. Frozen objects are never scanned (gc.freeze); they
    are still freed when nothing refers to them. So that nothing a visitor made is frozen with them (garbage
    in a frozen reference cycle is never collected), every module of the explorer and the engine is imported
    first, before the first run has made any state.
    """
    for name in ("explorer", "attention_core"):
        package = importlib.import_module(name)
        for module in pkgutil.walk_packages(package.__path__, f"{name}."):
            importlib.import_module(module.name)
    gc.collect()
    gc.freeze()


SWITCH_INTERVAL_S = 0.0005


@functools.cache  # once per process
def quick_switching() -> None:
    """Hand the GIL over every SWITCH_INTERVAL_S (Python's default: 5 ms).

    The server's event loop (every WebSocket message of every session goes through it) gives the GIL up at each
    system call (a socket write, waking itself for the next message) and, while script runs compute, waits
    a whole interval to get it back, often several (one per runnable thread): at the default interval a
    rerun's hundred messages would wait 5 ms each, and a class's page loads would take hundreds of
    milliseconds with the CPU mostly idle.
    """
    sys.setswitchinterval(SWITCH_INTERVAL_S)


REFREEZE_EVERY_S = 10.0
FULL_EVERY_S = 10.0  # at most one whole-process collection (refreeze) this often: it pauses every page
# While visitors run pages, the whole-process collection waits for a moment without runs, at most this long:
# it pauses every page for as long as it walks the process (a second with twenty sessions that opened a real
# layer's file), and a student who clicks then waits that second more.
FULL_WAITS_S = 60.0


def full_collections() -> int:
    """How many full collections the process has made: Streamlit makes one after every script run
    (runner.postScriptGC, on by default), so a change means visitors ran pages."""
    return int(gc.get_stats()[2]["collections"])


def collections() -> int:
    """How many collections of the older generations the process has made: Python collects as objects are
    made, so a change means something (visitors' runs, above all) made many since the last look."""
    return int(gc.get_stats()[1]["collections"]) + full_collections()


def refreeze() -> int:
    """Free every unreachable cycle (including frozen ones), then freeze what is alive; full_collections()
    after it (its own collection counted). It walks every object of the process, holding the GIL: with a
    class's sessions open, a second or more on a busy machine, every visitor's page waiting meanwhile."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    return full_collections()


def freeze_new() -> int:
    """Collect what runs made since the last freeze (the frozen objects are not walked), then freeze what of it
    is alive; full_collections() after it. As cheap as Streamlit's collection after each run."""
    gc.collect()
    gc.freeze()
    return full_collections()


@functools.cache  # once per process
def keep_collections_short() -> None:
    """Every REFREEZE_EVERY_S while visitors run pages, collect what runs made and move the objects that are
    alive into the permanent generation (freeze_new), so that a full collection walks only what runs made since.

    Streamlit collects after every run (`gc.collect(2)`, runner.postScriptGC), holding the GIL; a server for a
    class turns that off (patches.no_collection_per_run, in tune_server) and these collections every few
    seconds take its place. With a class's sessions open a full collection walks every session's objects. A
    frozen object is never walked, by these freezes either (freeze_new); garbage frozen in a cycle (a session
    dropped, what a run was making at the moment of a freeze) waits for the next whole-process collection
    (refreeze), made when sessions are let go (bound_memory), at most every FULL_EVERY_S: unfreezing
    everything every 10 s took a second of GIL each time with twenty real-model sessions open, half the
    server's CPU (py-spy, flood).
    """

    def refreeze_forever() -> None:
        seen = collections()
        while True:
            time.sleep(REFREEZE_EVERY_S)
            if collections() != seen:  # runs since the last look: garbage, and objects alive
                freeze_new()
                seen = collections()

    threading.Thread(target=refreeze_forever, name="refreeze", daemon=True).start()


M_ARENA_MAX = -8  # glibc's mallopt parameter: how many malloc arenas threads may create
CLASS_GONE = "attention explorer: every session has gone; the caches they shared are emptied"
TRIM_EVERY_S = 5.0  # forgetting expired sessions and a trim cost a few ms: memory comes back soon


@functools.cache  # once per process
def bound_memory() -> None:
    """Give memory back to the system once sessions are gone (glibc only; elsewhere nothing to do).

    Every script run happens on a thread of its own, and glibc gives busy threads arenas of their own (up
    to 8 per core), whose freed memory it keeps: after a class of real-layer sessions closes, the server would
    keep hundreds of MB over its idle figure (python -m benchmarks layer_memory). Two arenas, and a trim of the free pages
    every TRIM_EVERY_S seconds, return it; closed sessions past their time to reconnect are let go first
    (forget_closed_sessions). Once the last session is gone (a class left), the caches every session shared
    are emptied too (let_go_of_caches): bounded in bytes, together they may hold a few hundred MB a class made
    (a flood of the heavy pages left the web process 100 to 200 MB over idle with them), which the next
    class recomputes, or reads from the workers' results, in a few seconds.
    """
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(M_ARENA_MAX, 2)
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return

    def trim_forever() -> None:
        owed_since, last, seen, visited = None, 0.0, collections(), False
        while True:
            time.sleep(TRIM_EVERY_S)
            if patches.forget_closed_sessions() > 0 and owed_since is None:
                owed_since = time.monotonic()
            empty, visited = class_gone(visited, patches.sessions_held())
            if empty:
                let_go_of_caches()
            busy, seen = collections() != seen, collections()  # pages ran since the last tick
            if full_due(owed_since, last, time.monotonic(), busy):
                refreeze()  # a session's objects refer to each other, and may be frozen: this frees them
                owed_since, last, seen = None, time.monotonic(), collections()
            trim(0)
            if empty:  # what the logs of a class's server say, and what tests/load waits for
                print(CLASS_GONE, file=sys.stderr, flush=True)

    threading.Thread(target=trim_forever, name="malloc-trim", daemon=True).start()


def class_gone(visited: bool, held: int | None) -> tuple[bool, bool]:
    """(whether to empty the shared caches now, whether sessions were held since they were last emptied),
    from the latter and the number of sessions the server holds now (`held`, None when unknown): emptied once
    each time the last session goes, never before the first visitor (what a server warms at its start stays)."""
    if held is None:
        return False, visited
    if held > 0:
        return False, True
    return visited, False


def let_go_of_caches() -> None:
    """Empty the caches every session shares (the explorer's and the engine's results; the models stay
    loaded): what a class computed, kept while it works, given back when it has gone (bound_memory)."""
    from attention_core import pretrained
    from explorer import cache

    for store in cache.caches():
        store.clear()
    pretrained.clear_cache()


def full_due(owed_since: float | None, last: float, now: float, busy: bool) -> bool:
    """Whether the whole-process collection (refreeze) runs now: sessions were let go (`owed_since`, when
    first), the last one ran FULL_EVERY_S ago or more, and either no page ran since the last tick (`busy`
    False) or it has waited FULL_WAITS_S for such a moment."""
    if owed_since is None or now - last < FULL_EVERY_S:
        return False
    return not busy or now - owed_since >= FULL_WAITS_S


def tune_server() -> None:
    """The process-wide settings of a server for a class, once per process, as the server starts (server.py's
    lifespan, explorer.ui.warm; or the first run of app.py on a host that asks for it, warm.from_env):
    writes sent at once, a run's messages handed to the event loop in batches, the GIL handed over quickly,
    the collector kept short, memory given back, script threads named for the OS."""
    patches.send_writes_at_once()
    patches.no_collection_per_run()
    patches.script_events_batched()
    patches.stopped_runs_delivered()
    patches.script_threads_named()
    quick_switching()
    keep_collections_short()
    bound_memory()


def at_server_start() -> None:
    """What a server does before its first visitor (explorer/ui/warm.py, in a thread): the imports are made
    and frozen, so the first visitor's run does not pay for them, and the charts' assets are written and
    compressed (plotly.js: about half a second)."""
    freeze_imports()
    from explorer.ui.chart import serve

    serve.prepare()
