"""Process-wide start-up work of the app (run once per process, from app.py)."""

from __future__ import annotations

import functools
import gc
import importlib
import pkgutil


@functools.cache  # once per process
def freeze_imports() -> None:
    """Move what the imports created (about 130,000 objects: Streamlit, Plotly's validators, pandas, the
    explorer) out of the garbage collector's sight, once per process, at the top of its first run.

    Streamlit collects garbage after every run (`gc.collect(2)`, runner.postScriptGC), holding the GIL: with
    those objects it took 45 ms on a quiet machine and 60-90 ms with the browser busy, and the run's last
    messages (the page's end, "finished") waited behind it. Frozen objects are never scanned (gc.freeze); they
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
