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
    vocab: int = 0  # vocabulary size (a decoder's): bounds a link's follow= without loading
    ordinary_from: int = (
        0  # the first token id that is not a special token (<|endoftext|>, <|im_start|>, ...)
    )


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
            vocab=49152,
            ordinary_from=17,
        ),
    )
}
DEFAULT_REAL = "minilm"  # what the real-model pages show while the toy model is picked
DEFAULT_DECODER = "smollm2"  # what the next-word pages show while an encoder (or the toy) is picked

# Induction heads (/induction, and their label on /model): random tokens repeated twice. The standard run is
# the page's default, seed 0 and 50 tokens; a head scoring at least INDUCTION_THRESHOLD on it is labelled
# "induction" (SmolLM2: 8 heads, the next scores 0.26; a head spreading its weight evenly scores 0.014).
INDUCTION_SEED = 0
INDUCTION_LENGTH = 50
INDUCTION_THRESHOLD = 0.3
INDUCTION_LENGTHS = (5, 50)  # the page's length control: 2 x 50 tokens run in about a second
INDUCTION_SEEDS = (0, 9999)
LENS_POSITIONS = 64  # the engine's token limit (attention_core.pretrained.MAX_TOKENS): bounds follow_at=


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

# Beside sentence=: model, layer and head (1-based), switched-off heads; the logit lens's followed token
# (its id) and position (1-based); the induction run's seed and length.
LINK_PARAMS = ("model", "layer", "head", "off", "follow", "follow_at", "ind_seed", "ind_len")


@dataclass
class LinkRead:
    """What a link asked of the real-model pages (None: not in the link), and messages for the person."""

    model: str | None = None
    layer: int | None = None
    head: int | None = None
    off: tuple[tuple[int, int], ...] | None = None
    follow: int | None = None  # a token id
    follow_at: int | None = None  # 0-based position
    ind_seed: int | None = None
    ind_len: int | None = None
    messages: list[str] = field(default_factory=list)


def link_int(raw: object, lo: int, hi: int) -> int | None:
    """A link's whole number in lo..hi: ASCII digits only ("¹", "١٠" and "+3" are refused), at most 6 of
    them; None for anything else."""
    text = str(raw or "").strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        return None
    value = int(text)
    return value if lo <= value <= hi else None


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
        pair = (link_int(layer, 1, shape[0]), link_int(head, 1, shape[1]))
        if pair[0] is not None and pair[1] is not None:
            pairs.add((pair[0] - 1, pair[1] - 1))
        else:
            bad.append(part[:20])
    return tuple(sorted(pairs)), bad


def read_link(params: Mapping[str, str]) -> LinkRead:
    """model=toy|minilm|smollm2, layer=3, head=6, off=3.6,5.1 (1-based), follow=7042 (a token id),
    follow_at=5 (1-based), ind_seed=0, ind_len=50: each part read on its own; a bad one gives a message and
    is left out."""
    out = LinkRead()
    model = str(params.get("model", "") or "").strip().lower()
    if model:
        if model in MODELS:
            out.model = model
        else:
            out.messages.append(f"model= takes {', '.join(MODELS)}; the link's value was left out.")
    row = MODELS[out.model or "toy"]
    decoder = MODELS[DEFAULT_DECODER]  # the next-word pages show it whatever the model picked
    bounds = {
        "layer": (1, row.shape[0], row.engine is not None, f"1 to {row.shape[0]} for {row.title}"),
        "head": (1, row.shape[1], row.engine is not None, f"1 to {row.shape[1]} for {row.title}"),
        "follow": (0, decoder.vocab - 1, True, f"a token id, 0 to {decoder.vocab - 1}"),
        "follow_at": (1, LENS_POSITIONS, True, f"a position, 1 to {LENS_POSITIONS}"),
        "ind_seed": (*INDUCTION_SEEDS, True, f"{INDUCTION_SEEDS[0]} to {INDUCTION_SEEDS[1]}"),
        "ind_len": (*INDUCTION_LENGTHS, True, f"{INDUCTION_LENGTHS[0]} to {INDUCTION_LENGTHS[1]}"),
    }
    for name, (lo, hi, applies, rule) in bounds.items():
        raw = str(params.get(name, "") or "")[:20].strip()
        if not raw:
            continue
        value = link_int(raw, lo, hi) if applies else None
        if value is None:
            out.messages.append(f"{name}= takes {rule}; the link's value was left out.")
        else:
            setattr(out, name, value - 1 if name in ("layer", "head", "follow_at") else value)
    raw = str(params.get("off", "") or "")[:2000]
    if raw.strip():
        out.off, bad = parse_heads(raw, row.shape)
        if bad:
            out.messages.append(f"off= lists heads as layer.head (e.g. 3.6); left out: {', '.join(bad[:5])}.")
    return out


def link_params(
    model: str,
    layer: int,
    head: int,
    off: Iterable[tuple[int, int]],
    *,
    follow: int | None = None,
    follow_at: int | None = None,
    ind_seed: int = INDUCTION_SEED,
    ind_len: int = INDUCTION_LENGTH,
) -> dict[str, str]:
    """The link parameters of the real-model state (defaults left out; model, layer, head and off only for a
    real model). follow_at is 0-based here, 1-based in the link."""
    out: dict[str, str] = {}
    if model in MODELS and MODELS[model].engine:
        out["model"] = model
        if layer or head:
            out.update(layer=str(layer + 1), head=str(head + 1))
        heads = format_heads(off)
        if heads:
            out["off"] = heads
    if follow is not None:
        out["follow"] = str(follow)
    if follow_at is not None:
        out["follow_at"] = str(follow_at + 1)
    if ind_seed != INDUCTION_SEED:
        out["ind_seed"] = str(ind_seed)
    if ind_len != INDUCTION_LENGTH:
        out["ind_len"] = str(ind_len)
    return out
