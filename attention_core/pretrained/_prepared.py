"""A prepared copy of a loaded model: its float32 weights in one file, memory-mapped at load, so that the next
process loads them in a fraction of a second instead of parsing and dequantizing the shipped file again.

    <cache>/prepared/<model>-<tag>/weights.f32   every array of the ModelWeights, float32, one after another
                                   index.json    written last: the format, the shipped file it came from (name,
                                                 size), each array's offset and shape, the other fields, the
                                                 weights file's sha256, and the model's own extra data (config,
                                                 vocabulary)

<cache> is the download folder (ATTENTION_EXPLORER_MODELS, or ~/.cache/attention-explorer/models). A folder is
used only when its index names the same shipped file and format and the weights file's sha256 matches (checked
at every load: 0.3 to 0.7 s for SmolLM2's 513 MB, which also brings them into memory for the first run); any
other folder counts as missing and is written again. Writing is best effort (a read-only disk loads from the
shipped file every time) and atomic (a folder appears whole or not at all). The memory map is shared: replicas
on one machine that load the same folder share one copy of the weights in the page cache.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from ..transformer import EmbeddingWeights, LayerWeights, ModelWeights
from . import _fetch

FORMAT = 1
_WEIGHTS, _INDEX = "weights.f32", "index.json"
_ALIGN = 64  # bytes: each array starts on a cache line


def folder_for(model: str, source: Path) -> Path:
    """Where the prepared copy of ``model`` read from the shipped file ``source`` lives."""
    tag = hashlib.sha256(f"{FORMAT}|{source.name}|{source.stat().st_size}".encode()).hexdigest()[:16]
    return _fetch.cache_root() / "prepared" / f"{model}-{tag}"


def _flatten(weights: ModelWeights) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays of `weights` by dotted name ("layers.3.w_qkv"), and its other fields (ints, None)."""
    arrays: dict[str, np.ndarray] = {}
    other: dict[str, Any] = {}

    def walk(prefix: str, obj: Any) -> None:
        for f in dataclasses.fields(obj):
            value, key = getattr(obj, f.name), f"{prefix}{f.name}"
            if isinstance(value, np.ndarray):
                arrays[key] = value
            elif dataclasses.is_dataclass(value):
                walk(key + ".", value)
            elif isinstance(value, tuple):
                other[key] = len(value)
                for i, item in enumerate(value):
                    walk(f"{key}.{i}.", item)
            else:
                other[key] = value

    walk("", weights)
    return arrays, other


def _unflatten(arrays: dict[str, np.ndarray], other: dict[str, Any]) -> ModelWeights:
    def build(cls: type, prefix: str) -> Any:
        fields = {}
        for f in dataclasses.fields(cls):
            key = f"{prefix}{f.name}"
            fields[f.name] = arrays[key] if key in arrays else other.get(key)
        return cls(**fields)

    layers = tuple(build(LayerWeights, f"layers.{i}.") for i in range(int(other["layers"])))
    return ModelWeights(
        embeddings=build(EmbeddingWeights, "embeddings."),
        layers=layers,
        final_norm_gain=arrays.get("final_norm_gain"),
        lm_head=arrays.get("lm_head"),
    )


def _sha256(path: Path) -> str:
    digest, buf = hashlib.sha256(), bytearray(8 << 20)
    view = memoryview(buf)
    with path.open("rb", buffering=0) as fh:
        while n := fh.readinto(buf):
            digest.update(view[:n])
    return digest.hexdigest()


def write(model: str, source: Path, weights: ModelWeights, extra: dict[str, Any]) -> Path | None:
    """Save a prepared copy of ``weights`` (float32 arrays) read from ``source``, with ``extra`` (plain JSON:
    the config, the vocabulary); its folder, or None where it cannot be written (the model works without)."""
    final = folder_for(model, source)
    arrays, other = _flatten(weights)
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=".writing-"))
        tmp.chmod(0o755)  # readable by every replica, as the download folder is
    except OSError:
        return None
    try:
        index: dict[str, Any] = {
            "format": FORMAT,
            "source": [source.name, source.stat().st_size],
            "other": other,
        }
        digest, offset, where = hashlib.sha256(), 0, {}
        with (tmp / _WEIGHTS).open("wb") as fh:
            for key, arr in arrays.items():
                assert arr.dtype == np.float32, key
                pad = -offset % _ALIGN
                data = b"\0" * pad + np.ascontiguousarray(arr).tobytes()
                fh.write(data)
                digest.update(data)
                where[key] = [offset + pad, list(arr.shape)]
                offset += len(data)
        index.update(arrays=where, sha256=digest.hexdigest(), extra=extra)
        (tmp / _INDEX).write_text(json.dumps(index), encoding="utf-8")
        if final.exists():  # damaged, or from another shipped file of the same size: replaced
            shutil.rmtree(final)
        os.replace(tmp, final)  # another process that got there first makes this fail: its copy stays
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return None
    return final


def read(model: str, source: Path) -> tuple[ModelWeights, dict[str, Any]] | None:
    """The prepared weights (read-only views of one memory map) and the extra data, or None when there is no
    good copy for ``source`` (missing, of another format or file, or its weights' sha256 differs)."""
    folder = folder_for(model, source)
    try:
        index = json.loads((folder / _INDEX).read_text(encoding="utf-8"))
        ok = index.get("format") == FORMAT and index.get("source") == [source.name, source.stat().st_size]
        if not ok or _sha256(folder / _WEIGHTS) != index.get("sha256"):
            return None
        flat = np.memmap(folder / _WEIGHTS, dtype=np.float32, mode="r").view(np.ndarray)
    except (OSError, ValueError):
        return None
    arrays = {}
    for key, (offset, shape) in index["arrays"].items():
        start = int(offset) // 4
        arrays[key] = flat[start : start + int(np.prod(shape))].reshape(shape)  # read-only: mode "r"
    return _unflatten(arrays, index["other"]), index["extra"]
