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
from collections.abc import AsyncIterator
from typing import Any

from explorer.model import models

WARM_ENV = "ATTENTION_EXPLORER_WARM"


def start() -> dict[str, str]:
    """Start loading every real model that can load here, in the background; {engine name: its phase}."""
    from attention_core import pretrained

    names = sorted((m.engine for m in models.MODELS.values() if m.engine), key=lambda n: n != "SmolLM2-135M")
    return {name: pretrained.load_in_background(name).phase for name in names if pretrained.available(name)}


@functools.cache  # once per process
def from_env() -> dict[str, str]:
    """start() when ATTENTION_EXPLORER_WARM=1 (for hosts that run app.py itself); {} otherwise."""
    return start() if os.environ.get(WARM_ENV, "") == "1" else {}


@contextlib.asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """st.App's lifespan (server.py): the loads start as the server does."""
    start()
    yield
