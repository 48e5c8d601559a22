"""Make sure every page runs inside the frame (app.py), even on a fresh server's first request.

Streamlit keeps a relic of its first multipage design: until some session has called st.navigation, a
server whose entrypoint has a `pages/` folder serves `/<name>` by running `pages/<name>.py` alone (no frame,
an automatic menu). So the first visitor of a deep link such as `/encoder` after a restart would see the
page without its sentence box and sidebar. A page that finds itself run that way switches the process to
st.navigation mode and reruns: the rerun goes through app.py and shows the same page, framed.
"""

from __future__ import annotations

import functools
import gc
import importlib
import pkgutil

import streamlit as st


def ensure_frame() -> None:
    """Rerun through app.py if this page was started alone by the `pages/` folder relic (see module doc).

    Only a page script run by the relic qualifies: app.py itself (the relic's "main page") is the frame.
    """
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    if not PagesManager.uses_pages_directory or ctx is None:
        return
    manager = ctx.pages_manager
    if manager.current_page_script_hash and manager.current_page_script_hash != manager.main_script_hash:
        PagesManager.uses_pages_directory = False
        st.rerun()


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
