"""A loaded model: its config, read-only weights and tokenizer; ``run`` gives a traced, cached result."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..encoder import EncoderTrace
from ..transformer import (
    EmbeddingTrace,
    LayerWeights,
    ModelConfig,
    ModelWeights,
    check_head_mask,
    resume_transformer,
    run_transformer,
)
from ._cache import ByteLRU

Floats = NDArray[np.floating]

MAX_TOKENS = 64  # the app's token limit: longer texts are cut (with a message in the result)
MAX_CHARS = 10_000  # text beyond this many characters is cut before tokenizing (bounds the tokenizer's work)
# Results kept per process, all models together: a SmolLM2 run of 32 tokens holds 59 MB, MiniLM at 64 tokens 16.
CACHE_BYTES = 128 * 2**20

RESULTS: ByteLRU[ModelTrace] = ByteLRU(CACHE_BYTES)


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
        layers: one EncoderTrace per layer: x, attn_input (after the pre-attention norm), attention (an
            AttentionTrace: q, k, v per query head after RoPE, scores, scaled, masked, weights,
            head_outputs, concat, output, kv_head), sum1, norm1, ffn_hidden_pre, ffn_up, ffn_hidden,
            ffn_out, sum2, norm2, output.
        attentions: (L, H, n, n) the softmax weights of every layer and head; rows are queries.
        hidden_states: (L + 1, n, d) the embeddings, then each layer's output; for a decoder the last one is
            after the final norm (what the output layer reads).
        logits: (n, vocab_size) the next-token scores after each position (decoder), None for the encoder.
        head_mask: (L, H) float64, the weights applied to each head's output (all 1 when none was given).
        kv_head: (H,) which key/value head each query head shares (0 .. n_kv_heads - 1).
        truncated: True when the text was longer than MAX_TOKENS tokens (or MAX_CHARS characters) and cut.
        n_text_tokens: how many tokens the (character-bounded) text had before the cut.
        message: a sentence for the page when the text was cut, else None.
    """

    model: str
    text: str
    token_ids: list[int]
    tokens: list[str]
    embeddings: EmbeddingTrace
    layers: tuple[EncoderTrace, ...]
    attentions: Floats
    hidden_states: Floats
    logits: Floats | None
    head_mask: NDArray[np.float64]
    kv_head: tuple[int, ...]
    truncated: bool
    n_text_tokens: int
    message: str | None

    @property
    def n_tokens(self) -> int:
        return len(self.token_ids)

    def sentence_embedding(self) -> NDArray[np.float64]:
        """(d,) float64: the mean over tokens of the last hidden state, scaled to unit length (the
        sentence-transformers pooling of all-MiniLM-L6-v2; for a decoder it is only a summary)."""
        mean = self.hidden_states[-1].astype(np.float64).mean(axis=0)  # (d,)
        return mean / np.linalg.norm(mean)

    def next_token_probs(self) -> NDArray[np.float64]:
        """(vocab_size,) float64: softmax of the last position's logits, the next token's distribution."""
        if self.logits is None:
            raise ValueError(f"{self.model} is an encoder: it does not predict a next token")
        z = self.logits[-1].astype(np.float64)
        p = np.exp(z - z.max())
        return p / p.sum()


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
        """Tokenize ``text`` and run every layer, traced (see ModelTrace); results are cached per
        (model, text, head_mask) in a byte-bounded LRU (CACHE_BYTES), so calling it again is free.

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
            trace = self._run(text_run, ids, n_total, truncated, mask)
            RESULTS.put(key, trace, held_bytes(trace, self._weight_ids))
        return dataclasses.replace(trace, token_ids=list(trace.token_ids), tokens=list(trace.tokens))

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
        self, text: str, ids: list[int], n_total: int, truncated: bool, mask: NDArray[np.float64] | None
    ) -> ModelTrace:
        c = self.config
        embeddings, layers, final, logits = run_transformer(
            np.asarray(ids, dtype=np.int64), self.weights, c, mask
        )
        attentions = np.stack([layer.attention.weights for layer in layers])  # (L, H, n, n)
        outputs = [embeddings.output] + [layer.output for layer in layers]
        if final is not None:
            outputs[-1] = final
        hidden = np.stack(outputs)  # (L + 1, n, d)
        if not np.isfinite(hidden[-1]).all():
            raise ValueError("the model's output overflowed: use head_mask values closer to 0 and 1")
        full_mask = np.ones((c.n_layers, c.n_heads)) if mask is None else np.array(mask)
        message = _cut_message(c.name, text, n_total) if truncated else None
        return ModelTrace(
            model=c.name,
            text=text,
            token_ids=list(ids),
            tokens=self.tokenizer.display(list(ids)),
            embeddings=embeddings,
            layers=layers,
            attentions=_ro(attentions),
            hidden_states=_ro(hidden),
            logits=logits,
            head_mask=_ro(full_mask),
            kv_head=c.kv_head,
            truncated=truncated,
            n_text_tokens=n_total,
            message=message,
        )

    def ablate(
        self, text: str, head_masks: ArrayLike
    ) -> tuple[NDArray[np.floating], NDArray[np.floating] | None]:
        """``text`` run with each of b head masks, all at once, untraced: what a ranking of heads measures.

        Each variant starts from the untouched run's residual stream at the first layer its mask changes
        (transformer.resume_transformer), so removing a head of layer l costs the layers from l on, and the
        variants run through each layer together.

        Args:
            text: the input (as for run).
            head_masks: (b, n_layers, n_heads), each as run's head_mask.

        Returns:
            (final, next_logits): final (b, n, d_model) each variant's last hidden states (hidden_states[-1]
            of its run); next_logits (b, vocab_size) the logits of the token after the text (None for an
            encoder).
        """
        base = self.run(text)
        final = resume_transformer(base.hidden_states, self.weights, self.config, head_masks)
        if not np.isfinite(final).all():
            raise ValueError("the model's output overflowed: use head_mask values closer to 0 and 1")
        if not self.config.has_logits:
            return final, None
        w = self.weights
        head = w.embeddings.token.T if w.lm_head is None else w.lm_head  # (d_model, vocab)
        return final, _ro(final[:, -1, :] @ head)  # (b, vocab_size)

    def top_next(self, trace: ModelTrace, k: int = 5) -> list[tuple[int, str, float, float]]:
        """The k most likely next tokens after the trace's text: (id, display string, probability, logit)."""
        probs = trace.next_token_probs()
        best = np.argsort(-probs, kind="stable")[:k]
        shown = self.token_strings([int(i) for i in best])
        assert trace.logits is not None
        return [
            (int(i), s, float(probs[i]), float(trace.logits[-1, i])) for i, s in zip(best, shown, strict=True)
        ]


def _cut_message(name: str, text: str, n_total: int) -> str:
    """The sentence a page shows when the text was cut."""
    chars = f" in its first {MAX_CHARS:,} characters" if len(text) == MAX_CHARS else ""
    return (
        f"The text has {n_total} tokens{chars}; {name} reads only the first {MAX_TOKENS} (this app's limit)."
    )


def _ro(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


def _digest(name: str, text: str, mask: NDArray[np.float64] | None) -> str:
    """The cache key: blake2b of the model's name, the text and the head mask's float64 bytes."""
    h = hashlib.blake2b(digest_size=16)
    for part in (name.encode(), text.encode("utf-8", "surrogatepass")):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    if mask is not None:
        h.update(np.ascontiguousarray(mask, dtype=np.float64).tobytes())
    return h.hexdigest()
