"""The toy model behind an Example: a `Layer` (explorer.model.layer; a real model's layer is
explorer.model.bridge). Its weights are seeded draws (scheme 1, explorer.model.seeding) or a visitor's own
numbers, its tokens the explorer's own words, its settings every control of the settings table.

No Streamlit.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import NDArray

import attention_core as ac
from explorer import cache
from explorer.model import description, seeding
from explorer.model import settings_table as table
from explorer.model.arrays import F64

DRAWN = True  # seeded draws: re-randomize draws again; links and files carry each matrix's draw

TOKEN_BYTES = cache.MB  # tokenized sentences (at most 500 characters each: thousands of them)
# The seeded matrices of the last settings and sentences (a few KB each at the usual sizes, ~100 KB at the largest)
SEEDED_BYTES = cache.MB

# The shapes of the matrices only a real layer has (biases, SwiGLU's W_up): the toy's are empty.
LAYER_ONLY_EMPTY: dict[str, tuple[int, ...]] = {
    "b_q": (0, 0),
    "b_k": (0, 0),
    "b_v": (0, 0),
    "b_o": (0,),
    "b1": (0,),
    "b2": (0,),
    "w_up": (0, 0),
}


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
    toks = ac.tokenize(sentence)
    return tuple(toks[: table.MAX_TOKENS]), len(toks) > table.MAX_TOKENS


def tokens(ex: Any) -> tuple[list[str], bool]:
    return tokens_of(ex.sentence)


def run_first(ex: Any) -> None:
    return None  # the toy's tokens and X are made here, at once


def token_ids(ex: Any) -> None:
    return None  # its words are seeded vectors, not ids of a vocabulary


def describe(ex: Any) -> description.Description:
    return description.of_toy(ex)


def settings_of(key: str, layer: int) -> dict[str, object]:
    """Nothing: the toy fixes no setting (each is a control)."""
    return {}


def fixed(ex: Any) -> tuple[ac.LayerWeights, ac.ModelConfig]:
    """The toy layer as transformer_layer runs it (layer norm without gain: nothing the explorer does not
    edit), with the example's weights."""
    n = max(1, len(tokens(ex)[0]))
    weights, config, *_ = ac.transformer.toy_layer(
        np.zeros((n, ex.d_model)), ex.w_q, ex.w_k, ex.w_v, ex.w_o, ex.w1, ex.w2, norm_first=ex.norm_first,
        use_rope=bool(ex.rope),
    )  # fmt: skip
    return weights, config


def layer_only_shapes(ex: Any) -> dict[str, tuple[int, ...]]:
    return dict(LAYER_ONLY_EMPTY)


def empty_layer_only() -> dict[str, NDArray]:
    """The toy model's biases and W_up: empty arrays."""
    return {name: np.zeros(shape) for name, shape in LAYER_ONLY_EMPTY.items()}


def defaults(ex: Any, tokens: list[str], draws: dict[str, int] | None = None) -> dict[str, NDArray]:
    """Seeding scheme 1 at the example's shapes, each matrix at its draw (0: the first): a copy of each, the
    caller's to keep or change."""
    sizes = (ex.d_model, ex.n_heads, ex.d_k, ex.seed, ex.d_ff)
    drawn = _seeded(*(int(v) for v in sizes), tuple(tokens), tuple(sorted((draws or {}).items())))
    return {**{name: np.array(m, copy=True) for name, m in drawn.items()}, **empty_layer_only()}


@cache.shared(max_bytes=SEEDED_BYTES)
def _seeded(
    d_model: int, n_heads: int, d_k: int, seed: int, d_ff: int, tokens: tuple[str, ...], draws: tuple
) -> dict[str, NDArray]:
    """Every class's student resets to the teacher's view on each move (explorer.ui.state.classroom): the
    same draws, computed once per process rather than once per run."""
    sizes = SimpleNamespace(d_model=d_model, n_heads=n_heads, d_k=d_k, seed=seed, d_ff=d_ff)
    return seeding.matrices(sizes, list(tokens), dict(draws))


reference = defaults  # links and files are written against the same seeded draws


def model_input(ex: Any, sentence: str) -> F64 | None:
    return None  # the toy's X is E + P, made from the settings: no model computes it


def run_block(
    ex: Any, x: F64, mask: NDArray[np.bool_] | None, scale: float, bias: F64 | None
) -> tuple[ac.EncoderTrace | None, ac.AttentionTrace, str | None, str]:
    """(the block's trace or None, the attention trace, the block's error or None, what attention reads).

    When the block fails (a value overflowed in the FFN, say) the attention alone is still shown; a
    ValueError escapes only when the attention itself cannot be computed.
    """
    heads = (ex.w_q, ex.w_k, ex.w_v, ex.w_o)
    options = {"mask": mask, "scale": scale, "bias": bias, "use_rope": ex.rope}
    reads = "LN(X)" if ex.norm_first else "X"
    try:  # the block computes the attention once; every page reads that trace
        encoder = ac.encoder_layer(x, *heads, ex.w1, ex.w2, norm_first=ex.norm_first, **options)
        return encoder, encoder.attention, None, reads
    except ValueError as err:
        trace = ac.multi_head_attention(ac.layer_norm(x) if ex.norm_first else x, *heads, **options)
        return None, trace, str(err), reads
