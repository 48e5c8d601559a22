"""The whole state of one example, as a plain frozen dataclass (no Streamlit).

`Example` is what the app computes from, what presets build, what a shared link or a JSON export
carries. It holds its layer's identity (`real`: a model of the models table, "toy" by default; `real_layer`):
explorer.model.layer.of(ex) is the layer that answers for it. `explorer.ui.state` turns session state into an Example and back; `explorer.compute.pipeline` runs it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from explorer import cache
from explorer.model import defaults, layer, toy
from explorer.model import settings_table as table
from explorer.model.arrays import F64, Mask

DEFAULT_SENTENCE = table.DEFAULT_SENTENCE

# Names of the matrices an Example holds; the order is the export order (and a link's matrix numbers: new
# names go at the end). The biases and W_up are a real layer's (explorer.model.bridge); the toy model has none (empty).
LAYER_ONLY = tuple(toy.LAYER_ONLY_EMPTY)  # only a real layer has these (the toy: empty)
MATRIX_NAMES = ("emb", "pe_table", "w_q", "w_k", "w_v", "w_o", "w1", "w2", "custom_mask", *LAYER_ONLY)
_EMPTY = {  # a matrix's value in an Example made without it (conform gives it its shape)
    "emb": (0, 0),
    "pe_table": (0, 0),
    "w_q": (0, 0, 0),
    "w_k": (0, 0, 0),
    "w_v": (0, 0, 0),
    "w_o": (0, 0),
    "w1": (0, 0),
    "w2": (0, 0),
    "custom_mask": (0, 0),
    **toy.LAYER_ONLY_EMPTY,
}


def _default(name: str) -> Any:
    """The settings table's default of setting `name` (the table declares it; Example only reads it)."""
    return table.row(name).default


def _empty(name: str) -> Any:
    """The field of matrix `name`: empty in an Example made without it (conform gives it its shape)."""
    dtype = bool if name == "custom_mask" else np.float64
    return field(default_factory=lambda: np.zeros(_EMPTY[name], dtype=dtype))


@dataclass(frozen=True, eq=False)
class Example:
    """Everything that decides what every page shows: the settings, one field per row of the settings table
    (explorer.model.settings_table: its order, type and default; tests/app/model/test_example_fields.py keeps the
    two in step), then the matrices (MATRIX_NAMES).

    Matrix shapes (n = number of tokens): emb (n, d_model) hand-set embeddings, used when emb_source ==
    "table" (a real layer's X); pe_table (n, d_model) learned/hand-set positions, used when pe_kind ==
    "learned"; w_q, w_k, w_v (n_heads, d_model, d_k); w_o (n_heads*d_k, d_model); w1 (d_model, d_ff), w2
    (d_ff, d_model); custom_mask (n, n) bool, True = may attend. A real layer's biases
    (empty for the toy model): b_q, b_k, b_v (n_heads, d_k), b_o (d_model,), b1 (d_ff,), b2 (d_model,); and a
    SwiGLU layer's up projection w_up (d_model, d_ff) (empty for every other layer: SmolLM2 has one).
    """

    sentence: str = _default("sentence")
    d_model: int = _default("d_model")
    n_heads: int = _default("n_heads")
    d_k: int = _default("d_k")
    seed: int = _default("seed")
    emb_source: str = _default("emb_source")
    pe_kind: str = _default("pe_kind")
    pe_base: float = _default("pe_base")
    pe_scale: bool = _default("pe_scale")
    scale_mode: str = _default("scale_mode")
    scale_custom: float = _default("scale_custom")
    alibi: bool = _default("alibi")
    rope: bool = _default("rope")
    mask_kind: str = _default("mask_kind")
    window: int = _default("window")
    d_ff: int = _default("d_ff")
    norm_first: bool = _default("norm_first")
    real: str = _default("real")
    real_layer: int = _default("real_layer")

    emb: F64 = _empty("emb")
    pe_table: F64 = _empty("pe_table")
    w_q: F64 = _empty("w_q")
    w_k: F64 = _empty("w_k")
    w_v: F64 = _empty("w_v")
    w_o: F64 = _empty("w_o")
    w1: F64 = _empty("w1")
    w2: F64 = _empty("w2")
    custom_mask: Mask = _empty("custom_mask")
    b_q: F64 = _empty("b_q")
    b_k: F64 = _empty("b_k")
    b_v: F64 = _empty("b_v")
    b_o: F64 = _empty("b_o")
    b1: F64 = _empty("b1")
    b2: F64 = _empty("b2")
    w_up: F64 = _empty("w_up")

    def digest(self) -> str:
        """A content hash: equal examples (same settings, same matrix values) give the same digest."""
        h = hashlib.blake2b(digest_size=16)
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, np.ndarray):
                h.update(f"{f.name}{v.shape}{v.dtype}".encode())
                h.update(cache.ARRAY_DIGESTS.of(v))
            else:
                h.update(f"{f.name}={v!r};".encode())
        return h.hexdigest()

    def settings(self) -> dict[str, object]:
        """The scalar settings (everything but the matrices)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in MATRIX_NAMES}

    def with_(self, **changes: object) -> Example:
        return replace(self, **changes)


def tokens_of(sentence: str) -> tuple[list[str], bool]:
    """The toy tokenizer's tokens of a sentence, cut to MAX_TOKENS (explorer.model.toy.tokens_of)."""
    return toy.tokens_of(sentence)


def tokens_for(ex: Example) -> tuple[list[str], bool]:
    """The example's tokens as its model cuts them (the toy's words, or a real layer's model's tokens)."""
    return layer.of(ex).tokens(ex)


def default_matrices(
    ex: Example, tokens: list[str], draws: dict[str, int] | None = None
) -> dict[str, NDArray]:
    """The app's default of every matrix at the example's shapes (what "reset" returns to): the toy's seeded
    draws (scheme 1, explorer.model.seeding), or a real layer's trained weights and X, its input for the
    sentence (explorer.model.bridge)."""
    return layer.of(ex).defaults(ex, tokens, draws)


def expected_shapes(ex: Example, n: int, model: Any = None) -> dict[str, tuple[int, ...]]:
    """The shape every matrix must have for these settings and n tokens; `model` answers the layer-only
    shapes (layer.of(ex) when not given: the links hand in their own)."""
    d, h, k, f = ex.d_model, ex.n_heads, ex.d_k, ex.d_ff
    return {
        **(model or layer.of(ex)).layer_only_shapes(ex),
        "emb": (n, d),
        "pe_table": (n, d),
        "w_q": (h, d, k),
        "w_k": (h, d, k),
        "w_v": (h, d, k),
        "w_o": (h * k, d),
        "w1": (d, f),
        "w2": (f, d),
        "custom_mask": (n, n),
    }


def conform(ex: Example, old_tokens: list[str] | None = None, draws: dict[str, int] | None = None) -> Example:
    """The example with every matrix brought to the shapes its settings and sentence ask for.

    Cells that still fit keep their values; new cells get the seeded default. Embedding rows follow
    their word when the sentence changes (`old_tokens`), other per-token matrices keep their positions.
    """
    tokens, _ = tokens_for(ex)
    want = expected_shapes(ex, len(tokens))
    if all(getattr(ex, m).shape == want[m] for m in MATRIX_NAMES) and (old_tokens in (None, tokens)):
        return ex
    base = default_matrices(ex, tokens, draws)
    x_from_model = layer.of(ex).model_input(ex, ex.sentence) is not None
    out: dict[str, NDArray] = {}
    for name in MATRIX_NAMES:
        old = getattr(ex, name)
        new = base[name]
        if name == "emb" and x_from_model and (old.shape != new.shape or old_tokens not in (None, tokens)):
            out[name] = new  # a real layer's X is the model's for this sentence (no row follows a word)
        elif old.shape == new.shape and not (name == "emb" and old_tokens not in (None, tokens)):
            out[name] = old
        elif old.size == 0:
            out[name] = new
        elif (
            name == "emb" and old_tokens is not None and old_tokens != tokens and len(old) == len(old_tokens)
        ):
            out[name] = defaults.realign_rows(old_tokens, old, tokens, new)  # (rows of other tokens: resized)
        else:
            out[name] = defaults.resize(old, new)
    return replace(ex, **out)
