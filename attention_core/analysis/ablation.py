"""What changes when heads are removed: next-token comparisons, sentence similarity, hidden-state shifts, and
the ranking of heads by the effect of removing each one.

Pure numpy over the arrays a traced run returns (``logits`` (n, vocab), ``hidden_states`` (L + 1, n,
d_model)); the ranking takes the model run as a function. Everything is float64.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validate import FloatArray, IntArray, as_float_array, as_int, as_real, shape_str
from ..softmax import softmax

__all__ = [
    "NextTokenShift",
    "RankingStep",
    "compare_next_tokens",
    "cosine",
    "hidden_state_shift",
    "layer_off",
    "next_token_probs",
    "only_head",
    "rank_heads",
    "ranked",
    "sentence_embedding",
    "top_next_tokens",
    "total_variation",
]

# ------------------------------------------------------------------------------- next token, ablation


def next_token_probs(logits: ArrayLike, temperature: float = 1.0) -> FloatArray:
    """p = softmax(logits / T): the next-token distribution at temperature T.

    T < 1 sharpens the distribution (T -> 0 approaches always taking the top token), T > 1 flattens it.

    Args:
        logits: (vocab,) the last position's logits.
        temperature: T > 0.

    Returns:
        (vocab,) float64 probabilities summing to 1.
    """
    z = as_float_array("logits", logits, (1,), "(vocab,)")
    t = as_real("temperature", temperature, positive=True)
    return softmax(z / t)


def top_next_tokens(logits: ArrayLike, k: int = 10, temperature: float = 1.0) -> tuple[IntArray, FloatArray]:
    """The k most likely next tokens at temperature T, most likely first (ties: lower id first).

    Args:
        logits: (vocab,) the last position's logits.
        k: how many, at least 1 (at most vocab).
        temperature: T > 0.

    Returns:
        ids (k,) int64 and their probabilities (k,).
    """
    p = next_token_probs(logits, temperature)
    k = min(as_int("k", k, 1), p.size)
    ids = np.argsort(-p, kind="stable")[:k].astype(np.int64)
    return ids, p[ids]


@dataclass(frozen=True, eq=False)
class NextTokenShift:
    """Next-token probabilities before and after a change to the model.

    Fields:
        ids: (m,) token ids: the top k before, then any of the top k after that were not among them.
        before: (m,) their probabilities in the untouched model.
        after: (m,) their probabilities in the changed model.
        total_variation: half the L1 distance between the two full distributions, 0..1: the share of
            probability that moved.
    """

    ids: IntArray
    before: FloatArray
    after: FloatArray
    total_variation: float


def total_variation(p: ArrayLike, q: ArrayLike) -> float:
    """TV(p, q) = 0.5 * sum_i |p_i - q_i|, the share of probability that moved (0..1).

    Args:
        p: (m,) a distribution.
        q: (m,) another one over the same outcomes.
    """
    a = as_float_array("p", p, (1,), "(m,)")
    b = as_float_array("q", q, (1,), "(m,)")
    if a.shape != b.shape:
        raise ValueError(
            f"p and q must have the same shape, got {shape_str(a.shape)} and {shape_str(b.shape)}"
        )
    return float(0.5 * np.abs(a - b).sum())


def compare_next_tokens(
    logits_before: ArrayLike, logits_after: ArrayLike, k: int = 10, temperature: float = 1.0
) -> NextTokenShift:
    """The top next tokens before and after, with both probabilities, and the total variation.

    Args:
        logits_before: (vocab,) last-position logits of the untouched model.
        logits_after: (vocab,) the same after the change (heads removed).
        k: how many top tokens of each distribution to list.
        temperature: T > 0, applied to both.
    """
    p = next_token_probs(logits_before, temperature)
    q = next_token_probs(logits_after, temperature)
    if p.shape != q.shape:
        raise ValueError(f"logits_before and logits_after differ in shape: {p.shape} and {q.shape}")
    first, _ = top_next_tokens(logits_before, k, temperature)
    second, _ = top_next_tokens(logits_after, k, temperature)
    ids = np.concatenate([first, second[~np.isin(second, first)]])
    return NextTokenShift(ids, p[ids], q[ids], total_variation(p, q))


def sentence_embedding(hidden: ArrayLike) -> FloatArray:
    """The sentence vector of sentence-transformers' MiniLM: the mean over tokens, scaled to unit length.

    e = mean_i h_i / ||mean_i h_i|| (every token counts, [CLS] and [SEP] included, as its pooling does).

    Args:
        hidden: (n, d_model) the last layer's hidden states.

    Returns:
        (d_model,) float64 of length 1 (all zeros when the mean is zero).
    """
    h = as_float_array("hidden", hidden, (2,), "(n, d_model)")
    mean = h.mean(axis=0)  # (d_model,)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean


def cosine(a: ArrayLike, b: ArrayLike) -> float:
    """cos(a, b) = a . b / (||a|| ||b||), in -1..1 (0 when either vector is zero).

    Args:
        a: (d,) a vector.
        b: (d,) another.
    """
    x = as_float_array("a", a, (1,), "(d,)")
    y = as_float_array("b", b, (1,), "(d,)")
    if x.shape != y.shape:
        raise ValueError(
            f"a and b must have the same shape, got {shape_str(x.shape)} and {shape_str(y.shape)}"
        )
    denom = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y / denom) if denom > 0 else 0.0


def hidden_state_shift(before: ArrayLike, after: ArrayLike) -> FloatArray:
    """How far each layer's hidden states moved: mean over tokens of ||h'_i - h_i|| / ||h_i||.

    Args:
        before: (L + 1, n, d_model) hidden states of the untouched model (embeddings first).
        after: (L + 1, n, d_model) the same after the change.

    Returns:
        (L + 1,) relative distances; 0 where nothing moved, 1 means a change as large as the state itself.
    """
    b = as_float_array("before", before, (3,), "(L + 1, n, d_model)")
    a = as_float_array("after", after, (3,), "(L + 1, n, d_model)")
    if a.shape != b.shape:
        raise ValueError(
            f"before and after must have the same shape, got {shape_str(b.shape)} and {shape_str(a.shape)}"
        )
    size = np.linalg.norm(b, axis=2)  # (L + 1, n)
    moved = np.linalg.norm(a - b, axis=2)  # (L + 1, n)
    return (moved / np.where(size > 0, size, 1.0)).mean(axis=1)


# -------------------------------------------------------------------------------- head masks, ranking


def _mask(mask: ArrayLike, layer: int, head: int | None = None) -> FloatArray:
    m = as_float_array("mask", mask, (2,), "(n_layers, n_heads)").copy()
    if not 0 <= as_int("layer", layer, 0) < m.shape[0]:
        raise ValueError(f"layer must be 0..{m.shape[0] - 1}, got {layer}")
    if head is not None and not 0 <= as_int("head", head, 0) < m.shape[1]:
        raise ValueError(f"head must be 0..{m.shape[1] - 1}, got {head}")
    return m


def layer_off(mask: ArrayLike, layer: int) -> FloatArray:
    """A copy of a head mask with every head of ``layer`` removed (0).

    Args:
        mask: (n_layers, n_heads), 1 keeps a head, 0 removes it.
        layer: 0-based layer.
    """
    m = _mask(mask, layer)
    m[layer] = 0.0
    return m


def only_head(mask: ArrayLike, layer: int, head: int) -> FloatArray:
    """A copy of a head mask where ``head`` is the only head kept in ``layer`` (other layers unchanged).

    Args:
        mask: (n_layers, n_heads), 1 keeps a head, 0 removes it.
        layer: 0-based layer.
        head: 0-based head.
    """
    m = _mask(mask, layer, head)
    m[layer] = 0.0
    m[layer, head] = 1.0
    return m


@dataclass(frozen=True, eq=False)
class RankingStep:
    """Progress of ``rank_heads``: how far it got and what it measured so far.

    Fields:
        done: runs finished.
        total: runs planned (known from the start).
        message: what is being measured ("layer 3 of 30", "layer 4, head 7").
        layer_effects: (L,) effect of removing a whole layer, NaN where not measured; None when measuring
            heads only.
        head_effects: (L, H) effect of removing one head, NaN where not measured.
    """

    done: int
    total: int
    message: str
    layer_effects: FloatArray | None
    head_effects: FloatArray


def rank_heads(
    effects: Callable[[FloatArray], FloatArray],
    n_layers: int,
    n_heads: int,
    *,
    layers_first: bool = False,
    top_layers: int = 3,
) -> Iterator[RankingStep]:
    """Remove one head at a time and measure the effect; yields progress after every batch of runs.

    Without ``layers_first`` every head is removed alone (L * H runs, a batch per layer). With it, each
    whole layer is removed first (L runs in one batch), then every head of the ``top_layers`` layers whose
    removal mattered most (a batch of H runs per layer). The last step yielded has done == total and every
    measurement.

    Args:
        effects: head masks (b, L, H) -> (b,) how much the output changed under each (e.g. 1 - cosine, total
            variation); a batch shares its work (pretrained.Model.ablate).
        n_layers: L.
        n_heads: H.
        layers_first: rank layers first, then heads of the top layers only.
        top_layers: how many layers to open up when ``layers_first``.

    Yields:
        RankingStep after each batch (arrays are fresh copies).
    """
    L, H = as_int("n_layers", n_layers, 1), as_int("n_heads", n_heads, 1)
    top = min(as_int("top_layers", top_layers, 1), L)
    heads = np.full((L, H), np.nan)
    layers = np.full(L, np.nan) if layers_first else None
    total = L + top * H if layers_first else L * H
    done = 0

    def measure(masks: FloatArray) -> FloatArray:
        got = np.asarray(effects(masks), dtype=np.float64)
        assert got.shape == (masks.shape[0],), got.shape
        return got

    if layers is not None:
        layers[:] = measure(np.stack([layer_off(np.ones((L, H)), layer) for layer in range(L)]))
        done += L
        yield RankingStep(done, total, f"{L} layers, each switched off whole", layers.copy(), heads.copy())
    chosen = np.argsort(-layers, kind="stable")[:top] if layers is not None else np.arange(L)
    for layer in sorted(chosen.tolist()):
        masks = np.ones((H, L, H))
        masks[np.arange(H), layer, np.arange(H)] = 0.0  # variant h: head h of this layer off
        heads[layer] = measure(masks)
        done += H
        msg = f"layer {layer + 1}: its {H} heads, each switched off alone"
        yield RankingStep(done, total, msg, None if layers is None else layers.copy(), heads.copy())


def ranked(head_effects: ArrayLike) -> list[tuple[int, int, float]]:
    """Measured heads as (layer, head, effect), largest effect first (NaN = not measured, left out).

    Args:
        head_effects: (L, H) effects, NaN where not measured.
    """
    e = as_float_array("head_effects", head_effects, (2,), "(L, H)", finite=False)
    cells = [(int(l), int(h), float(e[l, h])) for l, h in zip(*np.nonzero(~np.isnan(e)), strict=True)]
    return sorted(cells, key=lambda c: (-c[2], c[0], c[1]))
