"""The real models loaded before the first visitor asks for them: in the background, as the server starts.

`streamlit run server.py` (scripts/serve.sh, the Dockerfile, deploy/) starts the loads in its lifespan and
answers its health check (so a load balancer sends it visitors) once they are done, or after READY_WAIT_S
seconds when they take longer (a first download): the first visitor then finds the models loaded. A host
whose entry point is app.py (Streamlit Community Cloud) starts them at the first run of the process when
ATTENTION_EXPLORER_WARM=1. Either way, while a model is still on its way, a real-model page says so
(explorer.ui.model_ui.begin) and the toy pages do not wait at all. SmolLM2, the slower, starts first; a
model that is neither installed nor allowed to download is left alone (its pages say how to install it).
ATTENTION_EXPLORER_WARM=0 makes server.py load none (a server for the toy pages, or a test of them).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

from explorer.model import models

WARM_ENV = "ATTENTION_EXPLORER_WARM"
READY_WAIT_S = 10.0  # server.py answers its health check once the models are loaded, or after this long


def start() -> threading.Thread:
    """Start loading every real model that can load here, one after the other in one background thread
    (SmolLM2 first: the slower; two loads at once only slow each other down); that thread."""
    from attention_core import pretrained

    wanted = os.environ.get(WARM_ENV, "") != "0"  # 0: a server for the toy pages; a model loads at its page
    names = [
        m.engine for m in models.MODELS.values() if wanted and m.engine and pretrained.available(m.engine)
    ]
    names.sort(key=lambda name: name != "SmolLM2-135M")
    thread = threading.Thread(target=_load_all, args=(names,), name="load the models", daemon=True)
    thread.start()
    return thread


def _load_all(names: list[str]) -> None:
    from attention_core import pretrained

    for name in names:
        with contextlib.suppress(Exception):  # a failure is kept in pretrained.load_state for the pages
            pretrained.load(name)


@functools.cache  # once per process
def from_env() -> bool:
    """For hosts that run app.py itself and serve a class from it (ATTENTION_EXPLORER_WARM=1): what server.py
    does as it starts, done at the first run instead (the server's tuning, the imports, the models' loads);
    whether it did."""
    if os.environ.get(WARM_ENV, "") != "1":
        return False
    from explorer.ui import boot

    boot.tune_server()
    threading.Thread(target=boot.at_server_start, name="import the app", daemon=True).start()
    start()
    return True


@contextlib.asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """st.App's lifespan (server.py): the server's tuning (explorer.ui.boot.tune_server), the app's imports
    (the first run of a process would otherwise pay for Plotly, pandas and every page's modules) and the
    models' loads start as the server does. The server
    answers /_stcore/health once they are done, or after READY_WAIT_S whatever remains (a download):
    then a real-model page says the model is on its way, and the rest of the app works."""
    from explorer.compute import jobs
    from explorer.ui import boot

    boot.tune_server()
    imports = threading.Thread(target=boot.at_server_start, name="import the app", daemon=True)
    imports.start()
    loads = start()
    pool = threading.Thread(target=jobs.backend, name="start the workers", daemon=True)
    pool.start()  # the worker processes start (and load the models) beside the server's own loads
    await asyncio.to_thread(_join, (imports, loads, pool), READY_WAIT_S)
    try:
        yield
    finally:
        jobs.close()


def _join(threads: tuple[threading.Thread, ...], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
