"""A loaded model: its config, read-only weights and tokenizer; ``run`` gives a traced, cached result.

What a run keeps is what pages read: the tokens, every head's attention weights, the hidden states, the
embeddings and the next token's logits (a SmolLM2 run of 64 tokens: 9.6 MB; of 10 tokens: 1.1 MB). A layer's
whole trace (q, k, v, scores, the feed-forward's hidden units) and the logits at every position are computed
again when asked for, from the kept hidden states, by the same arithmetic on the same input (so the same
numbers), and kept apart in PARTS: a long sentence's layers evict other layers, never the class's runs. The
whole trace of a 64-token SmolLM2 run is larger than the results cache, so it is never kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..masks import causal_mask
from ..norms import _layer_norm, _rms_norm
from ..transformer import (
    LayerWeights,
    ModelConfig,
    ModelWeights,
    check_head_mask,
    embed_tokens,
    resume_transformer,
    transformer_layer,
)
from ._trace import RESULTS, ModelTrace, _arrays, _Recompute, _ro, _root, held_bytes

Floats = NDArray[np.floating]

MAX_TOKENS = 64  # the app's token limit: longer texts are cut (with a message in the result)
MAX_CHARS = 10_000  # text beyond this many characters is cut before tokenizing (bounds the tokenizer's work)


class Tokenizer:
    """What a model needs from its tokenizer: ids and display strings, a cut that keeps the end marker.

    Args:
        encode: text -> token ids (special tokens included).
        display: ids -> one readable string per token.
        keep_last: number of trailing special tokens a cut keeps ([SEP]: 1; none for SmolLM2).
    """

    def __init__(
        self, encode: Callable[[str], list[int]], display: Callable[[list[int]], list[str]], keep_last: int
    ) -> None:
        self.encode = encode
        self.display = display
        self.keep_last = keep_last

    def cut(self, ids: list[int], limit: int) -> list[int]:
        if len(ids) <= limit:
            return ids
        return ids[: limit - self.keep_last] + ids[len(ids) - self.keep_last :]


class Model:
    """A real transformer, loaded once per process. Use ``pretrained.load(name)``.

    Attributes:
        name: the model's name.
        config: ModelConfig (n_layers, n_heads, n_kv_heads, d_model, d_k, d_ff, vocab_size, norm, activation,
            positions, ...).
        weights: ModelWeights, read-only (``layer_weights(i)`` for one layer).
        tokenizer: Tokenizer.
        source: where the weights come from: package, version, file, license.
    """

    def __init__(
        self, config: ModelConfig, weights: ModelWeights, tokenizer: Tokenizer, source: dict[str, str]
    ) -> None:
        self.name = config.name
        self.config = config
        self.weights = weights
        self.tokenizer = tokenizer
        self.source = source
        self._weight_ids = {id(_root(a)) for a in _arrays(weights)}

    def __repr__(self) -> str:
        c = self.config
        return f"<Model {c.name}: {c.n_layers} layers, {c.n_heads} heads, d_model {c.d_model}, {c.dtype}>"

    @property
    def nbytes(self) -> int:
        """Bytes of the weights held in memory."""
        return self.weights.nbytes

    def layer_weights(self, i: int) -> LayerWeights:
        """The read-only weights of layer i (0-based): w_q, w_k, w_v, w_o, biases, FFN, norms."""
        if not 0 <= int(i) < self.config.n_layers:
            raise ValueError(f"layer must be in 0 .. {self.config.n_layers - 1}, got {i}")
        return self.weights.layers[int(i)]

    def output_head(self) -> Floats:
        """(d_model, vocab_size) what turns the last hidden states into logits (the tied embeddings or the
        model's own output matrix)."""
        w = self.weights
        return w.embeddings.token.T if w.lm_head is None else w.lm_head

    def token_strings(self, ids: list[int]) -> list[str]:
        """Display strings of token ids."""
        return self.tokenizer.display(list(ids))

    def tokenize(self, text: str) -> tuple[str, list[int], int, bool]:
        """(text as run, ids cut to MAX_TOKENS, number of tokens before the cut, whether anything was cut)."""
        if not isinstance(text, str):
            raise ValueError(f"text must be a string, got {type(text).__name__}")
        cut_chars = len(text) > MAX_CHARS
        text = text[:MAX_CHARS]
        if not text.strip():
            raise ValueError("the text is empty: type a sentence for the model to read")
        ids = self.tokenizer.encode(text)
        cut = self.tokenizer.cut(ids, MAX_TOKENS)
        return text, cut, len(ids), cut_chars or len(cut) < len(ids)

    def run(self, text: str, head_mask: ArrayLike | None = None) -> ModelTrace:
        """Tokenize ``text`` and run every layer, traced (see ModelTrace); what pages read of the run is cached
        per (model, text, head_mask) in a byte-bounded LRU (CACHE_BYTES), so calling it again is free.

        Args:
            text: the input, non-empty; cut to MAX_TOKENS tokens (a message says so in the result).
            head_mask: (n_layers, n_heads): 1 keeps a head, 0 removes its output, values in between scale
                it (|value| <= 10); or None.

        Returns:
            ModelTrace (the token lists are the caller's own copies; the arrays are read-only).
        """
        mask = check_head_mask(head_mask, self.config)
        text_run, ids, n_total, truncated = self.tokenize(text)
        key = _digest(self.name, text_run, mask)
        trace = RESULTS.get(key)
        if trace is None:
            trace = self._run(text_run, ids, n_total, truncated, mask, key)
            RESULTS.put(key, trace, held_bytes(trace, self._weight_ids))
        return dataclasses.replace(trace, token_ids=list(trace.token_ids), tokens=list(trace.tokens))

    def adopt(self, text: str, head_mask: ArrayLike | None, trace: ModelTrace) -> ModelTrace:
        """Keep ``trace``, run(text, head_mask) made by another process on the same weights (sent without its
        ``recompute``), as if run here: cached, read-only, its layers computed here when asked for. Returns
        it as run() would."""
        mask = check_head_mask(head_mask, self.config)
        key = _digest(self.name, self.tokenize(text)[0], mask)
        for arr in _arrays(trace):
            arr.flags.writeable = False
        kept = dataclasses.replace(trace, recompute=_Recompute(self, key, mask))
        RESULTS.put(key, kept, held_bytes(kept, self._weight_ids))
        return dataclasses.replace(kept, token_ids=list(kept.token_ids), tokens=list(kept.tokens))

    @staticmethod
    def detach(trace: ModelTrace) -> ModelTrace:
        """``trace`` without what ties it to this process (its recompute: the model): what adopt() takes."""
        return dataclasses.replace(trace, recompute=None)  # type: ignore[arg-type]

    def has_run(self, text: str, head_mask: ArrayLike | None = None) -> bool:
        """Whether run(text, head_mask) would come from the results cache (without running anything): a
        caller may then skip waiting for its turn at heavy work."""
        mask = check_head_mask(head_mask, self.config)
        try:
            text_run = self.tokenize(text)[0]
        except ValueError:
            return False
        return _digest(self.name, text_run, mask) in RESULTS

    def _run(
        self,
        text: str,
        ids: list[int],
        n_total: int,
        truncated: bool,
        mask: NDArray[np.float64] | None,
        key: str,
    ) -> ModelTrace:
        # transformer.run_transformer's arithmetic, keeping of each layer only its attention weights and its
        # output: one layer's whole trace is alive at a time (all of them, for a 64-token SmolLM2 run, are
        # over a hundred MiB).
        c, w = self.config, self.weights
        embeddings = embed_tokens(np.asarray(ids, dtype=np.int64), w.embeddings, c)
        causal = causal_mask(embeddings.output.shape[0]) if c.causal else None  # (n, n)
        x, weights, outputs = embeddings.output, [], [embeddings.output]
        for i, lw in enumerate(w.layers):  # layer after layer: each needs the one before
            layer = transformer_layer(x, lw, c, causal, None if mask is None else mask[i])
            weights.append(layer.attention.weights)
            x = layer.output
            outputs.append(x)
        if w.final_norm_gain is not None:  # what the output layer reads
            outputs[-1] = _norm(c, x, w.final_norm_gain)
        hidden = np.stack(outputs)  # (L + 1, n, d)
        if not np.isfinite(hidden[-1]).all():
            raise ValueError("the model's output overflowed: use head_mask values closer to 0 and 1")
        full_mask = np.ones((c.n_layers, c.n_heads)) if mask is None else np.array(mask)
        recompute = _Recompute(self, key, mask)
        next_logits = None
        if c.has_logits:  # every position's logits, as run_transformer computes them; the last row is kept
            next_logits = _ro((outputs[-1] @ self.output_head())[-1].copy())
        message = _cut_message(c.name, text, n_total) if truncated else None
        return ModelTrace(
            model=c.name,
            text=text,
            token_ids=list(ids),
            tokens=self.tokenizer.display(list(ids)),
            embeddings=embeddings,
            attentions=_ro(np.stack(weights)),  # (L, H, n, n)
            hidden_states=_ro(hidden),
            next_logits=next_logits,
            head_mask=_ro(full_mask),
            kv_head=c.kv_head,
            truncated=truncated,
            n_text_tokens=n_total,
            message=message,
            recompute=recompute,
        )

    def ablate(
        self, text: str, head_masks: ArrayLike, *, last_only: bool = False
    ) -> tuple[NDArray[np.floating], NDArray[np.floating] | None]:
        """``text`` run with each of b head masks, all at once, untraced: what a ranking of heads measures.

        Each variant starts from the untouched run's residual stream at the first layer its mask changes
        (transformer.resume_transformer), so removing a head of layer l costs the layers from l on, and the
        variants run through each layer together.

        Args:
            text: the input (as for run).
            head_masks: (b, n_layers, n_heads), each as run's head_mask.
            last_only: the last layer at the last position only (all a decoder's next token needs).

        Returns:
            (final, next_logits): final (b, n, d_model) each variant's last hidden states (hidden_states[-1]
            of its run; (b, 1, d_model), the last position's, with last_only); next_logits (b, vocab_size) the logits of the token after the text (None for an
            encoder).
        """
        base = self.run(text)
        final = resume_transformer(base.hidden_states, self.weights, self.config, head_masks, last_only)
        if not np.isfinite(final).all():
            raise ValueError("the model's output overflowed: use head_mask values closer to 0 and 1")
        if not self.config.has_logits:
            return final, None
        return final, _ro(final[:, -1, :] @ self.output_head())  # (b, vocab_size)

    def top_next(self, trace: ModelTrace, k: int = 5) -> list[tuple[int, str, float, float]]:
        """The k most likely next tokens after the trace's text: (id, display string, probability, logit)."""
        probs = trace.next_token_probs()
        best = np.argsort(-probs, kind="stable")[:k]
        shown = self.token_strings([int(i) for i in best])
        assert trace.next_logits is not None
        return [
            (int(i), s, float(probs[i]), float(trace.next_logits[i]))
            for i, s in zip(best, shown, strict=True)
        ]


def _cut_message(name: str, text: str, n_total: int) -> str:
    """The sentence a page shows when the text was cut."""
    chars = f" in its first {MAX_CHARS:,} characters" if len(text) == MAX_CHARS else ""
    return (
        f"The text has {n_total} tokens{chars}; {name} reads only the first {MAX_TOKENS} (this app's limit)."
    )


def _norm(c: ModelConfig, x: Floats, gain: Floats) -> Floats:
    """The model's final norm (transformer.run_transformer's): RMSNorm or LayerNorm with its gain, no bias."""
    return _rms_norm(x, c.eps, gain) if c.norm == "rms_norm" else _layer_norm(x, c.eps, gain, None)


def _digest(name: str, text: str, mask: NDArray[np.float64] | None) -> str:
    """The cache key: blake2b of the model's name, the text and the head mask's float64 bytes."""
    h = hashlib.blake2b(digest_size=16)
    for part in (name.encode(), text.encode("utf-8", "surrogatepass")):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    if mask is not None:
        h.update(np.ascontiguousarray(mask, dtype=np.float64).tobytes())
    return h.hexdigest()
