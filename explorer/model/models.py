"""The models a visitor can pick, as data, and the pure glue between the real-model pages and the engine.

One row per model (``MODELS``): the key carried in links (``model=minilm``), the engine's name, what the
sidebar says about it, how its tokens make words (for the head labels), and whether it predicts a next
token. No Streamlit here: the cached wrappers are in explorer.compute.model_compute, the pages only draw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from attention_core import analysis, pretrained


@dataclass(frozen=True)
class ModelChoice:
    key: str  # the link's model= value
    engine: str | None  # attention_core.pretrained name; None for the toy explorer
    title: str  # the picker's label
    about: str  # one line under the picker (static Markdown, ours)
    scheme: str = "wordpiece"  # how tokens make words (attention_core.analysis.word_ids)
    decoder: bool = False  # predicts the next token (causal mask)
    shape: tuple[int, int] = (1, 1)  # (layers, heads): bounds a link's layer=, head=, off= without loading


MODELS: dict[str, ModelChoice] = {
    m.key: m
    for m in (
        ModelChoice("toy", None, "Toy model (the explorer)", "Random or hand-set weights you can edit."),
        ModelChoice(
            "minilm",
            "all-MiniLM-L6-v2",
            "MiniLM (encoder)",
            "all-MiniLM-L6-v2: a BERT encoder, 6 layers × 12 heads, d_model 384, float32 weights as shipped.",
            shape=(6, 12),
        ),
        ModelChoice(
            "smollm2",
            "SmolLM2-135M",
            "SmolLM2-135M (decoder)",
            "SmolLM2-135M-Instruct: a Llama decoder, 30 layers × 9 heads sharing 3 key/value heads, "
            "d_model 576. It runs 4-bit Q4_1 weights with an 8-bit (Q8_0) embedding, dequantized to float32.",
            scheme="bytelevel",
            decoder=True,
            shape=(30, 9),
        ),
    )
}
DEFAULT_REAL = "minilm"  # what the real-model pages show while the toy model is picked


def choice(key: str) -> ModelChoice:
    """The row of ``key``; ValueError naming the choices for anything else."""
    if key not in MODELS:
        raise ValueError(f"unknown model {key!r}: choose one of {', '.join(MODELS)}")
    return MODELS[key]


def missing(key: str) -> str | None:
    """One sentence saying how to get model ``key`` when it is not installed, else None."""
    name = choice(key).engine
    if name is None or pretrained.available(name):
        return None
    return str(pretrained.how_to_install(name))


def model(key: str) -> Any:
    """The loaded model (loaded once per process by the engine, shared read-only)."""
    return pretrained.load(choice(key).engine)


def shape(key: str) -> tuple[int, int]:
    """(n_layers, n_heads) of model ``key``."""
    c = model(key).config
    return int(c.n_layers), int(c.n_heads)


def real_key(key: str) -> str:
    """The real model a real-model page shows: the picked one, or DEFAULT_REAL while the toy is picked."""
    return key if key in MODELS and MODELS[key].engine else DEFAULT_REAL


def head_mask(shape: tuple[int, int], off: Iterable[tuple[int, int]]) -> NDArray[np.float64] | None:
    """The engine's head_mask for the switched-off heads (0-based (layer, head) pairs), None when none is off
    (the untouched model, one cache entry)."""
    cells = [(int(l), int(h)) for l, h in off if 0 <= int(l) < shape[0] and 0 <= int(h) < shape[1]]
    if not cells:
        return None
    mask = np.ones(shape)
    for l, h in cells:
        mask[l, h] = 0.0
    return mask


def off_matrix(shape: tuple[int, int], off: Iterable[tuple[int, int]]) -> NDArray[np.bool_]:
    """(L, H) True where a head is switched off."""
    mask = head_mask(shape, off)
    return np.zeros(shape, dtype=bool) if mask is None else mask == 0.0


def off_pairs(matrix: NDArray[np.bool_]) -> tuple[tuple[int, int], ...]:
    """The switched-off heads of an (L, H) boolean matrix as sorted 0-based (layer, head) pairs."""
    return tuple((int(l), int(h)) for l, h in zip(*np.nonzero(matrix), strict=True))


def format_heads(off: Iterable[tuple[int, int]]) -> str:
    """Switched-off heads for a link, 1-based: "3.6,5.1" (layer 3 head 6, layer 5 head 1)."""
    return ",".join(f"{l + 1}.{h + 1}" for l, h in sorted(set(off)))


def parse_heads(text: str, shape: tuple[int, int]) -> tuple[tuple[tuple[int, int], ...], list[str]]:
    """The heads of a link's "3.6,5.1" (1-based) as 0-based pairs, and what could not be read (kept out).

    At most L * H pairs are read: a link cannot make this loop long.
    """
    pairs: set[tuple[int, int]] = set()
    bad: list[str] = []
    for part in text.split(",")[: shape[0] * shape[1]]:
        part = part.strip()
        if not part:
            continue
        layer, _, head = part.partition(".")
        if layer.isdigit() and head.isdigit() and 1 <= int(layer) <= shape[0] and 1 <= int(head) <= shape[1]:
            pairs.add((int(layer) - 1, int(head) - 1))
        else:
            bad.append(part[:20])
    return tuple(sorted(pairs)), bad


def layer_off_pairs(
    shape: tuple[int, int], off: Iterable[tuple[int, int]], layer: int
) -> tuple[tuple[int, int], ...]:
    """The switched-off heads after switching off every head of ``layer`` too."""
    keep = analysis.layer_off(~off_matrix(shape, off), layer)
    return off_pairs(keep == 0.0)


def only_head_pairs(
    shape: tuple[int, int], off: Iterable[tuple[int, int]], layer: int, head: int
) -> tuple[tuple[int, int], ...]:
    """The switched-off heads after keeping only ``head`` in ``layer`` (other layers as they were)."""
    keep = analysis.only_head(~off_matrix(shape, off), layer, head)
    return off_pairs(keep == 0.0)


# ------------------------------------------------------------------------------------------ links

LINK_PARAMS = ("model", "layer", "head", "off")  # beside sentence=; layer and head 1-based


@dataclass
class LinkRead:
    """What a link asked of the real-model pages (None: not in the link), and messages for the person."""

    model: str | None = None
    layer: int | None = None
    head: int | None = None
    off: tuple[tuple[int, int], ...] | None = None
    messages: list[str] = field(default_factory=list)


def read_link(params: Mapping[str, str]) -> LinkRead:
    """model=toy|minilm|smollm2, layer=3, head=6, off=3.6,5.1 (1-based): each part read on its own; a bad one
    gives a message and is left out."""
    out = LinkRead()
    model = str(params.get("model", "") or "").strip().lower()
    if model:
        if model in MODELS:
            out.model = model
        else:
            out.messages.append(f"model= takes {', '.join(MODELS)}; the link's value was left out.")
    row = MODELS[out.model or "toy"]
    for name, count in (("layer", row.shape[0]), ("head", row.shape[1])):
        raw = str(params.get(name, "") or "").strip()
        if not raw:
            continue
        if raw.isdigit() and 1 <= int(raw) <= count and row.engine:
            setattr(out, name, int(raw) - 1)
        else:
            out.messages.append(f"{name}= takes 1 to {count} for {row.title}; the link's value was left out.")
    raw = str(params.get("off", "") or "")[:2000]
    if raw.strip():
        out.off, bad = parse_heads(raw, row.shape)
        if bad:
            out.messages.append(f"off= lists heads as layer.head (e.g. 3.6); left out: {', '.join(bad[:5])}.")
    return out


def link_params(model: str, layer: int, head: int, off: Iterable[tuple[int, int]]) -> dict[str, str]:
    """The link parameters of the real-model state (empty for the toy model; defaults left out)."""
    if model not in MODELS or not MODELS[model].engine:
        return {}
    out = {"model": model}
    if layer or head:
        out.update(layer=str(layer + 1), head=str(head + 1))
    heads = format_heads(off)
    if heads:
        out["off"] = heads
    return out
