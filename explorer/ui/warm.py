"""The real models loaded before the first visitor asks for them: in the background, as the server starts.

`streamlit run server.py` (scripts/serve.sh, the Dockerfile, deploy/) starts the loads in its lifespan, before
the server answers its first request; a host whose entry point is app.py (Streamlit Community Cloud) starts
them at the first run of the process when ATTENTION_EXPLORER_WARM=1. Either way the pages stay usable
meanwhile: a real-model page says the model is loading (explorer.ui.model_ui.begin) and the toy pages do not
wait at all. SmolLM2, the slower, starts first; a model that is neither installed nor allowed to download
is left alone (its pages say how to install it).
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import AsyncIterator
from typing import Any

from explorer.model import models

WARM_ENV = "ATTENTION_EXPLORER_WARM"


def start() -> list[str]:
    """Start loading every real model that can load here, one after the other in one background thread
    (SmolLM2 first: the slower; two loads at once only slow each other down); the names, in that order."""
    from attention_core import pretrained

    names = [m.engine for m in models.MODELS.values() if m.engine and pretrained.available(m.engine)]
    names.sort(key=lambda name: name != "SmolLM2-135M")
    threading.Thread(target=_load_all, args=(names,), name="load the models", daemon=True).start()
    return names


def _load_all(names: list[str]) -> None:
    from attention_core import pretrained

    for name in names:
        with contextlib.suppress(Exception):  # a failure is kept in pretrained.load_state for the pages
            pretrained.load(name)


@functools.cache  # once per process
def from_env() -> list[str]:
    """start() when ATTENTION_EXPLORER_WARM=1 (for hosts that run app.py itself); [] otherwise."""
    return start() if os.environ.get(WARM_ENV, "") == "1" else []


@contextlib.asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """st.App's lifespan (server.py): the loads start as the server does, and so do the app's imports (the
    first run of a process would otherwise pay for Plotly, pandas and every page's modules)."""
    from explorer.ui import boot

    threading.Thread(target=boot.at_server_start, name="import the app", daemon=True).start()
    start()
    yield
