"""The whole state of one example, as a plain frozen dataclass (no Streamlit).

`Example` is what the app computes from, what presets build, what a shared link or a JSON export
carries. `explorer.ui.state` turns session state into an Example and back; `explorer.compute.pipeline` runs it.
"""

from __future__ import annotations

import hashlib
from dataclasses import field, fields, make_dataclass, replace

import numpy as np
from numpy.typing import NDArray

from explorer.compute import cache
from explorer.model import defaults, seeding
from explorer.model import settings_table as table
from explorer.model.arrays import F64, Mask

DEFAULT_SENTENCE = table.DEFAULT_SENTENCE
TOKEN_BYTES = cache.MB  # tokenized sentences (at most 500 characters each: thousands of them)

# Names of the matrices an Example holds; the order is the export order (and a link's matrix numbers: new
# names go at the end). The biases and W_up are a real layer's (explorer.model.bridge); the toy model has none (empty).
LAYER_ONLY = ("b_q", "b_k", "b_v", "b_o", "b1", "b2", "w_up")  # only a real layer has these (the toy: empty)
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
    "b_q": (0, 0),
    "b_k": (0, 0),
    "b_v": (0, 0),
    "b_o": (0,),
    "b1": (0,),
    "b2": (0,),
    "w_up": (0, 0),
}


class _ExampleMethods:
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


def _matrix_field(name: str) -> tuple[str, type, object]:
    shape, kind = _EMPTY[name], Mask if name == "custom_mask" else F64
    dtype = bool if name == "custom_mask" else np.float64
    return name, kind, field(default_factory=lambda: np.zeros(shape, dtype=dtype))


# Example: one field per row of the settings table (its default there), then the matrices. Shapes
# (n = number of tokens): emb (n, d_model) hand-set embeddings, used when emb_source == "table";
# pe_table (n, d_model) learned/hand-set positions, used when pe_kind == "learned";
# w_q, w_k, w_v (n_heads, d_model, d_k); w_o (n_heads*d_k, d_model);
# w1 (d_model, d_ff), w2 (d_ff, d_model); custom_mask (n, n) bool, True = may attend. A real layer's biases
# (empty for the toy model): b_q, b_k, b_v (n_heads, d_k), b_o (d_model,), b1 (d_ff,), b2 (d_model,); and a
# SwiGLU layer's up projection w_up (d_model, d_ff) (empty for every other layer: SmolLM2 has one).
Example = make_dataclass(
    "Example",
    [(s.name, s.pytype, field(default=s.default)) for s in table.SETTINGS]
    + [_matrix_field(name) for name in MATRIX_NAMES],
    bases=(_ExampleMethods,),
    frozen=True,
    eq=False,
)
Example.__module__ = __name__  # (make_dataclass's own `module=` needs Python 3.12)
Example.__doc__ = """Everything that decides what every page shows: the settings (explorer.model.settings_table, one
field per row) and the matrices (MATRIX_NAMES, shapes in the comment above)."""


def tokens_of(sentence: str) -> tuple[list[str], bool]:
    """The sentence's tokens, cut to MAX_TOKENS; the flag says whether it was cut.

    Only the first MAX_SENTENCE_CHARS characters are ever read (every way in cuts the sentence there first;
    this is the last guard: a longer text is never tokenized whole). A sentence is tokenized once: state,
    frame, pipeline and links all ask here, and a rerun with the same sentence tokenizes nothing.
    """
    toks, cut = _tokenized(sentence[: table.MAX_SENTENCE_CHARS])
    return list(toks), cut


@cache.shared(max_bytes=TOKEN_BYTES)
def _tokenized(sentence: str) -> tuple[tuple[str, ...], bool]:
    import attention_core as ac

    toks = ac.tokenize(sentence)
    return tuple(toks[: table.MAX_TOKENS]), len(toks) > table.MAX_TOKENS


def loaded(ex: Example) -> bool:
    """True when the example is a real model's layer opened in the explorer (explorer.model.bridge)."""
    return ex.real != "toy"


def tokens_for(ex: Example) -> tuple[list[str], bool]:
    """The example's tokens: the toy tokenizer's (tokens_of), or a loaded layer's model's, cut to MAX_TOKENS."""
    if not loaded(ex):
        return tokens_of(ex.sentence)
    from explorer.model import bridge

    return bridge.tokens_of(ex.real, ex.sentence[: table.MAX_SENTENCE_CHARS])


def empty_layer_only() -> dict[str, NDArray]:
    """The toy model's LAYER_ONLY matrices (biases, W_up): empty (a real layer's come from explorer.model.bridge)."""
    return {name: np.zeros(_EMPTY[name]) for name in LAYER_ONLY}


def _swiglu(ex: Example) -> bool:
    """The loaded layer's feed-forward is SwiGLU (it has an up projection W_up)."""
    from explorer.model import bridge

    return bridge.base(ex.real, ex.real_layer).config.activation == "swiglu"


def default_matrices(
    ex: Example, tokens: list[str], draws: dict[str, int] | None = None
) -> dict[str, NDArray]:
    """The app's default of every matrix at the example's shapes (what "reset" returns to): seeding scheme 1.

    Links and files are written against scheme 1 whatever this returns (explorer.model.seeding). A loaded layer's
    defaults are the layer itself: its trained weights, and X = its input for the sentence (explorer.model.bridge);
    links and files of a loaded layer carry the cells that differ from it.
    """
    if not loaded(ex):
        return {**seeding.matrices(ex, tokens, draws), **empty_layer_only()}
    from explorer.model import bridge

    b = bridge.base(ex.real, ex.real_layer)
    _, x, _ = bridge.layer_input(ex.real, ex.sentence[: table.MAX_SENTENCE_CHARS], ex.real_layer)
    n = x.shape[0]
    return {
        **b.weights,  # W_Q, W_K, W_V, W_O, W1, W2 and the biases
        "emb": x,
        "pe_table": np.zeros((n, ex.d_model)),
        "custom_mask": np.tril(np.ones((n, n), dtype=bool)),
    }


def expected_shapes(ex: Example, n: int) -> dict[str, tuple[int, ...]]:
    """The shape every matrix must have for these settings and n tokens."""
    d, h, k, f = ex.d_model, ex.n_heads, ex.d_k, ex.d_ff
    real = loaded(ex)
    biases = {"b_q": (h, k), "b_k": (h, k), "b_v": (h, k), "b_o": (d,), "b1": (f,), "b2": (d,)}
    return {
        **{name: shape if real else _EMPTY[name] for name, shape in biases.items()},
        "w_up": (d, f) if real and _swiglu(ex) else _EMPTY["w_up"],
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
    out: dict[str, NDArray] = {}
    for name in MATRIX_NAMES:
        old = getattr(ex, name)
        new = base[name]
        if name == "emb" and loaded(ex) and (old.shape != new.shape or old_tokens not in (None, tokens)):
            out[name] = new  # a loaded layer's X is the model's for this sentence (no row follows a word)
        elif old.shape == new.shape and not (name == "emb" and old_tokens not in (None, tokens)):
            out[name] = old
        elif old.size == 0:
            out[name] = new
        elif name == "emb" and old_tokens is not None and old_tokens != tokens:
            out[name] = defaults.realign_rows(old_tokens, old, tokens, new)
        else:
            out[name] = defaults.resize(old, new)
    return replace(ex, **out)
