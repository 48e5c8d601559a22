"""A real model's traced run as pages read it (ModelTrace), its layers' whole traces and its logits computed
again when asked for (from the kept hidden states, by the same arithmetic: the same numbers), and the two
byte-bounded caches that keep runs and those parts apart (a long sentence's layers evict other layers, never
the class's runs)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray

from ..encoder import EncoderTrace
from ..masks import causal_mask
from ..transformer import EmbeddingTrace, transformer_layer
from ._cache import ByteLRU

Floats = NDArray[np.floating]

# Runs kept per process, all models together (what pages read, see the module doc): 40 SmolLM2 runs of 10
# tokens, or 5 of 64 tokens; MiniLM at 64 tokens holds 2.4 MB.
CACHE_BYTES = 48 * 2**20
# Layers' whole traces and logits at every position, computed on demand: a SmolLM2 layer of 64 tokens holds
# 3.8 MB, its logits 12.6 MB.
PARTS_BYTES = 24 * 2**20

RESULTS: ByteLRU[ModelTrace] = ByteLRU(CACHE_BYTES)
PARTS: ByteLRU[object] = ByteLRU(PARTS_BYTES)


@dataclass(frozen=True, eq=False)
class ModelTrace:
    """One traced run of a real model on a text. n = number of tokens, L = n_layers, H = n_heads (query heads),
    d = d_model. Arrays are read-only, in the model's dtype (float32).

    Fields:
        model: the model's name.
        text: the text that was run (cut to MAX_CHARS characters).
        token_ids: list[int], the model tokenizer's ids ([CLS] ... [SEP] for MiniLM; no BOS for SmolLM2).
        tokens: list[str], one display string per token ("##ing", " Paris": a leading space is a space).
        embeddings: EmbeddingTrace, the input of layer 0 step by step.
        attentions: (L, H, n, n) the softmax weights of every layer and head; rows are queries.
        hidden_states: (L + 1, n, d) the embeddings, then each layer's output; for a decoder the last one is
            after the final norm (what the output layer reads).
        next_logits: (vocab_size,) the scores of the token after the text (logits[-1]) for a decoder, None
            for the encoder.
        head_mask: (L, H) float64, the weights applied to each head's output (all 1 when none was given).
        kv_head: (H,) which key/value head each query head shares (0 .. n_kv_heads - 1).
        truncated: True when the text was longer than MAX_TOKENS tokens (or MAX_CHARS characters) and cut.
        n_text_tokens: how many tokens the (character-bounded) text had before the cut.
        message: a sentence for the page when the text was cut, else None.

    Computed when asked for (module doc), the same numbers as in the run:
        layers: one EncoderTrace per layer: x, attn_input (after the pre-attention norm), attention (an
            AttentionTrace: q, k, v per query head after RoPE, scores, scaled, masked, weights,
            head_outputs, concat, output, kv_head), sum1, norm1, ffn_hidden_pre, ffn_up, ffn_hidden,
            ffn_out, sum2, norm2, output.
        logits: (n, vocab_size) the next-token scores after each position (decoder), None for the encoder.
    """

    model: str
    text: str
    token_ids: list[int]
    tokens: list[str]
    embeddings: EmbeddingTrace
    attentions: Floats
    hidden_states: Floats
    next_logits: Floats | None
    head_mask: NDArray[np.float64]
    kv_head: tuple[int, ...]
    truncated: bool
    n_text_tokens: int
    message: str | None
    recompute: _Recompute = field(repr=False)

    @property
    def n_tokens(self) -> int:
        return len(self.token_ids)

    @property
    def layers(self) -> LayerTraces:
        """Every layer's whole trace, each computed when first read (then kept in PARTS a while)."""
        return LayerTraces(self)

    @property
    def logits(self) -> Floats | None:
        """(n, vocab_size) the scores after every position (decoder), None for the encoder."""
        return self.recompute.logits(self.hidden_states)

    def sentence_embedding(self) -> NDArray[np.float64]:
        """(d,) float64: the mean over tokens of the last hidden state, scaled to unit length (the
        sentence-transformers pooling of all-MiniLM-L6-v2; for a decoder it is only a summary)."""
        mean = self.hidden_states[-1].astype(np.float64).mean(axis=0)  # (d,)
        return mean / np.linalg.norm(mean)

    def next_token_probs(self) -> NDArray[np.float64]:
        """(vocab_size,) float64: softmax of the last position's logits, the next token's distribution."""
        if self.next_logits is None:
            raise ValueError(f"{self.model} is an encoder: it does not predict a next token")
        z = self.next_logits.astype(np.float64)
        p = np.exp(z - z.max())
        return p / p.sum()


class _Recompute:
    """What a kept run needs to compute its layers' traces and its logits again: the model, the run's cache
    key and its head mask (None: every head kept). Holds no array of its own (and no __dict__, so that a
    cache measuring a trace does not walk into the model's weights)."""

    __slots__ = ("key", "mask", "model")

    def __init__(self, model: Any, key: str, mask: NDArray[np.float64] | None) -> None:
        self.model, self.key, self.mask = model, key, mask

    def layer(self, hidden_states: Floats, i: int) -> EncoderTrace:
        """Layer i's trace: the layer run again on its input, hidden_states[i] (what the run gave it)."""
        key = f"{self.key}:layer {i}"
        found = PARTS.get(key)
        if found is None:
            m, c = self.model, self.model.config
            mask = causal_mask(hidden_states.shape[1]) if c.causal else None
            heads = None if self.mask is None else self.mask[i]
            found = transformer_layer(hidden_states[i], m.weights.layers[i], c, mask, heads)
            PARTS.put(key, found, held_bytes(found, m._weight_ids))
        return found  # type: ignore[return-value]

    def logits(self, hidden_states: Floats) -> Floats | None:
        """(n, vocab_size), from the last hidden states (already after the final norm), or None."""
        if not self.model.config.has_logits:
            return None
        key = f"{self.key}:logits"
        found = PARTS.get(key)
        if found is None:
            found = _ro(hidden_states[-1] @ self.model.output_head())
            PARTS.put(key, found, found.nbytes)
        return found  # type: ignore[return-value]


class LayerTraces(Sequence[EncoderTrace]):
    """A run's layers as a read-only sequence of EncoderTrace, each computed when read (_Recompute)."""

    def __init__(self, trace: ModelTrace) -> None:
        self._trace = trace

    def __len__(self) -> int:
        return self._trace.hidden_states.shape[0] - 1

    @overload
    def __getitem__(self, i: int) -> EncoderTrace: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[EncoderTrace, ...]: ...
    def __getitem__(self, i: int | slice) -> EncoderTrace | tuple[EncoderTrace, ...]:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        n = len(self)
        if not -n <= int(i) < n:
            raise IndexError(f"{self._trace.model} has layers 0 to {n - 1}, not {i}")
        return self._trace.recompute.layer(self._trace.hidden_states, int(i) % n)


def _arrays(obj: object) -> Iterable[np.ndarray]:
    """Every array a trace holds (recursing into its dataclasses and tuples)."""
    if isinstance(obj, np.ndarray):
        yield obj
    elif isinstance(obj, tuple):
        for item in obj:
            yield from _arrays(item)
    elif hasattr(obj, "__dataclass_fields__"):
        for value in vars(obj).values():
            if isinstance(value, np.ndarray):
                yield value
            elif isinstance(value, tuple) or hasattr(value, "__dataclass_fields__"):
                yield from _arrays(value)


def _root(arr: np.ndarray) -> np.ndarray:
    """The array that owns arr's memory (following .base through views)."""
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


def held_bytes(trace: object, exclude: set[int]) -> int:
    """Bytes of memory the trace's arrays hold, each buffer once, leaving out buffers in ``exclude`` (the ids of
    the model's weights, which traces only point at)."""
    seen: set[int] = set()
    total = 0
    for arr in _arrays(trace):
        root = _root(arr)
        if id(root) in exclude or id(root) in seen:
            continue
        seen.add(id(root))
        total += root.nbytes
    return total


def _ro(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr
