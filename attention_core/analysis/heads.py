"""What a trained model's attention does, measured: head labels, attention rollout, grouped-query heads.

The ablation comparisons and the ranking of heads live in ``ablation`` (re-exported here).

Pure numpy over the arrays a traced run returns: ``attentions`` (n_layers, n_heads, n, n) with rows as queries
and columns as keys, ``hidden_states`` (n_layers + 1, n, d_model), ``logits`` (n, vocab). Nothing here loads
a model; the "which heads matter" ranking takes the model run as a function. Everything is float64.

Head labels. Each label is a rule stated as data (``HEAD_RULES``): the keys a query's attention is measured
on, the least average weight it must put there (``threshold``) and how many times more than a uniform head
would put there (``min_lift``). A head's score for a rule is the mean, over the queries for which the rule
picks some but not all of the keys the query may see, of the weight that query puts on the rule's keys. The
label is the passing rule with the highest score; when none passes, "broad" if the rows are spread out (mean
entropy over log(keys seen) at least ``BROAD_THRESHOLD``), else "mixed".

Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"): per layer the heads'
weights are averaged, the residual connection is accounted for as A' = r I + (1 - r) A (r = 0.5 in the
paper), rows are renormalised to sum to 1, and the layers are multiplied: R_1 = A'_1, R_l = A'_l R_(l-1).
Row i of R_l says how much of position i's state after layer l traces back to each input token, assuming
every path mixes like attention does (it ignores W_V, W_O, the FFN and the norms: a model, not a proof).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validate import FloatArray, IntArray, as_float_array, as_int, as_real, shape_str
from .ablation import (
    NextTokenShift,
    RankingStep,
    compare_next_tokens,
    cosine,
    hidden_state_shift,
    layer_off,
    next_token_probs,
    only_head,
    rank_heads,
    ranked,
    sentence_embedding,
    top_next_tokens,
    total_variation,
)

__all__ = [
    "BROAD_THRESHOLD",
    "HEAD_RULES",
    "HeadLabels",
    "HeadRule",
    "NextTokenShift",
    "RankingStep",
    "attention_rollout",
    "compare_next_tokens",
    "cosine",
    "hidden_state_shift",
    "kv_groups",
    "kv_head_of",
    "label_heads",
    "layer_off",
    "next_token_probs",
    "only_head",
    "rank_heads",
    "ranked",
    "rule_targets",
    "sentence_embedding",
    "top_next_tokens",
    "total_variation",
    "word_ids",
]

# ------------------------------------------------------------------------------------------ head labels


@dataclass(frozen=True)
class HeadRule:
    """One head label and the rule behind it.

    Fields:
        name: the rule's key ("previous").
        label: what the app shows ("previous token").
        keys: the keys it measures, in words, for the page that states the rule.
        threshold: the least mean weight on those keys (over the rows it applies to) to earn the label.
        min_lift: the score must also be at least this many times what a uniform head would score (the mean
            share of the allowed keys that the rule picks), so short sentences do not label every head.
    """

    name: str
    label: str
    keys: str
    threshold: float
    min_lift: float


# Order breaks ties: the first rule listed wins at equal scores.
HEAD_RULES: tuple[HeadRule, ...] = (
    HeadRule("previous", "previous token", "the token just before the query (key i-1)", 0.5, 2.0),
    HeadRule("next", "next token", "the token just after the query (key i+1)", 0.5, 2.0),
    HeadRule("self", "itself", "the query's own token (key i)", 0.5, 2.0),
    HeadRule(
        "same_word",
        "same word",
        "the other pieces of the query's word and other occurrences of the same word (not an ordinary first "
        "token: weight there is an attention sink)",
        0.5,
        2.0,
    ),
    HeadRule("sep", "[SEP]", "the [SEP] token (from every other query)", 0.5, 2.0),
    HeadRule(
        "first",
        "first token",
        "the first token, from every other query: [CLS] in an encoder; in a decoder an ordinary word whose "
        "weight works as an attention sink (a place to put weight that changes nothing)",
        0.5,
        2.0,
    ),
)
# No rule passed: "broad" when the mean over rows of entropy / log(keys the row may see) is at least this.
BROAD_THRESHOLD = 0.75
_SPECIAL = {"[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]", "<s>", "</s>"}
_WORD_START = (" ", "Ġ", "▁", "␣")  # byte-level BPE and sentencepiece show a leading space in these ways


@dataclass(frozen=True, eq=False)
class HeadLabels:
    """The label of every head and the measurements behind it. L = n_layers, H = n_heads.

    Fields:
        labels: (L, H) str, the label shown ("previous token", ..., "broad", "mixed").
        rules: (L, H) str, the rule's name ("previous", ..., "broad", "mixed").
        scores: (L, H) the winning rule's score (for "broad" and "mixed": the broadness).
        rule_scores: name -> (L, H) score of every rule; NaN where the rule applies to no row.
        broadness: (L, H) mean over rows of entropy / log(number of keys the row may see), 0..1.
    """

    labels: np.ndarray
    rules: np.ndarray
    scores: FloatArray
    rule_scores: dict[str, FloatArray]
    broadness: FloatArray


def word_ids(tokens: Sequence[str], scheme: str) -> IntArray:
    """Which word each token belongs to: tokens with the same id are pieces of one word occurrence.

    "wordpiece" (BERT): a token starting with "##" continues the word before it. "bytelevel" (GPT-2, Llama
    BPE): a token continues the word before it when it starts with a letter or digit without a leading-space
    marker (" ", "Ġ", "▁", "␣") and the token before it ends with one. Special tokens ([CLS], [SEP]) and the
    first token always start a word.

    Args:
        tokens: n display strings, as the model's tokenizer split the text.
        scheme: "wordpiece" or "bytelevel".

    Returns:
        (n,) int64, 0 for the first word, increasing by one at each new word.
    """
    if scheme not in ("wordpiece", "bytelevel"):
        raise ValueError(f"scheme must be 'wordpiece' or 'bytelevel', got {scheme!r}")
    starts = [True] * len(tokens)
    for i in range(1, len(tokens)):
        tok, prev = tokens[i], tokens[i - 1]
        if tok in _SPECIAL or prev in _SPECIAL:
            continue
        if scheme == "wordpiece":
            starts[i] = not tok.startswith("##")
        else:
            glued = tok[:1].isalnum() and prev[-1:].isalnum() and not tok.startswith(_WORD_START)
            starts[i] = not glued
    return np.cumsum(starts, dtype=np.int64) - 1


def _word_text(tokens: Sequence[str], ids: IntArray) -> list[str]:
    """The lower-cased text of each token's word, markers removed ("##", leading-space signs)."""
    pieces: dict[int, str] = {}
    for tok, w in zip(tokens, ids.tolist(), strict=True):
        clean = tok[2:] if tok.startswith("##") else tok.lstrip("".join(_WORD_START))
        pieces[w] = pieces.get(w, "") + clean
    return [unicodedata.normalize("NFKC", pieces[w]).lower() for w in ids.tolist()]


def rule_targets(name: str, tokens: Sequence[str], ids: IntArray) -> np.ndarray:
    """The keys a rule measures, per query: target[i, j] True when key j counts for query i.

    Args:
        name: a rule name of ``HEAD_RULES``.
        tokens: n display strings.
        ids: (n,) the word of each token (``word_ids``).

    Returns:
        (n, n) bool, rows are queries, columns are keys.
    """
    n = len(tokens)
    i, j = np.indices((n, n))  # (n, n) query and key index
    toks = np.array(tokens, dtype=object)
    if name in ("previous", "next", "self"):
        return j == i + {"previous": -1, "next": 1, "self": 0}[name]
    if name == "same_word":
        text = np.array(_word_text(tokens, ids), dtype=object)
        special = np.isin(toks, list(_SPECIAL))
        same = (ids[:, None] == ids[None, :]) | (text[:, None] == text[None, :])
        # An ordinary first token is left out as a key: weight on it is an attention sink ("first token"),
        # which would otherwise pass for "same word" wherever the first word comes again ("The … the").
        sink = np.zeros(n, dtype=bool)
        sink[0] = n > 0 and tokens[0] not in _SPECIAL
        return same & (i != j) & ~special[:, None] & ~special[None, :] & ~sink[None, :]
    if name == "first":  # one rule whatever the first token is: [CLS], or a decoder's first word
        return (j == 0) & (i != j)
    if name == "sep":
        return (toks == "[SEP]")[None, :] & (i != j)
    raise ValueError(f"unknown rule {name!r}: expected one of {[r.name for r in HEAD_RULES]}")


def _rule_score(A: FloatArray, target: np.ndarray, allowed: np.ndarray) -> tuple[FloatArray, float]:
    """Mean weight on the target keys over the rows where the rule picks some, not all, allowed keys.

    A: (L, H, n, n); target, allowed: (n, n) bool. Returns the scores (L, H) (NaN when no row qualifies) and
    the score a uniform head would get.
    """
    picked = target & allowed  # (n, n)
    n_picked, n_allowed = picked.sum(axis=1), allowed.sum(axis=1)  # (n,)
    rows = (n_picked > 0) & (n_picked < n_allowed)  # (n,)
    if not rows.any():
        return np.full(A.shape[:2], np.nan), math.nan
    mass = np.einsum("lhij,ij->lhi", A, picked.astype(np.float64))  # (L, H, n)
    uniform = float(np.mean(n_picked[rows] / n_allowed[rows]))
    return mass[:, :, rows].mean(axis=2), uniform


def _broadness(A: FloatArray, allowed: np.ndarray) -> FloatArray:
    """Mean over rows that see >= 2 keys of entropy(row) / log(keys seen): 1 is uniform, 0 one key. (L, H)."""
    seen = allowed.sum(axis=1)  # (n,)
    rows = seen >= 2
    if not rows.any():
        return np.zeros(A.shape[:2])
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(A > 0, A * np.log(np.where(A > 0, A, 1.0)), 0.0)  # (L, H, n, n)
    entropy = -plogp.sum(axis=3)  # (L, H, n)
    return (entropy[:, :, rows] / np.log(seen[rows])).mean(axis=2)


def label_heads(
    attentions: ArrayLike, tokens: Sequence[str], *, causal: bool, scheme: str = "wordpiece"
) -> HeadLabels:
    """Label every head with what it does on this sentence, by the rules of ``HEAD_RULES``.

    score(rule, head) = mean over qualifying query rows i of sum_j A[i, j] * target[i, j]. A head takes the
    passing rule (score >= threshold and score >= min_lift * uniform score) with the highest score; with
    none, "broad" when broadness >= BROAD_THRESHOLD, else "mixed".

    Args:
        attentions: (L, H, n, n) softmax weights, rows are queries.
        tokens: n display strings ("[CLS]", "##ing", " Paris").
        causal: True for a decoder (query i sees keys 0..i), False when every query sees every key.
        scheme: how tokens make words, "wordpiece" or "bytelevel" (see ``word_ids``).

    Returns:
        HeadLabels with (L, H) labels, rule names, scores and every rule's score.
    """
    A = as_float_array("attentions", attentions, (4,), "(n_layers, n_heads, n, n)")
    n = A.shape[2]
    if A.shape[3] != n or len(tokens) != n:
        raise ValueError(
            f"attentions must have shape (n_layers, n_heads, n, n) with n = {len(tokens)} tokens, "
            f"got {shape_str(A.shape)}"
        )
    allowed = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
    ids = word_ids(tokens, scheme)
    rule_scores: dict[str, FloatArray] = {}
    best = np.full(A.shape[:2], -1.0)
    rules = np.full(A.shape[:2], "mixed", dtype=object)
    for rule in HEAD_RULES:
        score, uniform = _rule_score(A, rule_targets(rule.name, tokens, ids), allowed)
        rule_scores[rule.name] = score
        passes = (score >= rule.threshold) & (score >= rule.min_lift * uniform) & (score > best)
        best = np.where(passes, score, best)
        rules[passes] = rule.name
    broadness = _broadness(A, allowed)
    rules[(best < 0) & (broadness >= BROAD_THRESHOLD)] = "broad"
    names = {r.name: r.label for r in HEAD_RULES} | {"broad": "broad", "mixed": "mixed"}
    labels = np.vectorize(names.__getitem__, otypes=[object])(rules)
    return HeadLabels(labels, rules, np.where(best < 0, broadness, best), rule_scores, broadness)


# ----------------------------------------------------------------------------------------- rollout


def attention_rollout(
    attentions: ArrayLike, residual: float = 0.5, head_weights: ArrayLike | None = None
) -> FloatArray:
    """Attention rollout through the layers (Abnar & Zuidema 2020), after each layer.

    Per layer: A = sum_h w_h A_h / sum_h w_h (the mean over heads by default), A' = residual * I +
    (1 - residual) * A, rows of A' renormalised to sum to 1; then R_1 = A'_1 and R_l = A'_l @ R_(l-1).
    A layer whose heads all have weight 0 (all switched off) passes only its residual: A' = I.

    Args:
        attentions: (L, H, n, n) softmax weights, rows are queries.
        residual: the share given to the residual connection, 0..1 (0.5 in the paper).
        head_weights: (L, H) non-negative weights for averaging the heads (a head mask: 1 kept, 0 removed),
            or None for the plain mean.

    Returns:
        (L, n, n): R_l for l = 1..L, rows are positions after layer l, columns the input tokens; rows sum
        to 1.
    """
    A = as_float_array("attentions", attentions, (4,), "(n_layers, n_heads, n, n)")
    r = as_real("residual", residual)
    if not 0.0 <= r <= 1.0:
        raise ValueError(f"residual must be between 0 and 1, got {r}")
    L, H, n, _ = A.shape
    w = (
        np.ones((L, H))
        if head_weights is None
        else as_float_array("head_weights", head_weights, (2,), "(L, H)")
    )
    if w.shape != (L, H) or (w < 0).any():
        raise ValueError(f"head_weights must be non-negative with shape {(L, H)}, got {shape_str(w.shape)}")
    total = w.sum(axis=1)  # (L,)
    mean = np.einsum("lh,lhij->lij", w, A) / np.where(total > 0, total, 1.0)[:, None, None]  # (L, n, n)
    eye = np.eye(n)
    mixed = np.where((total > 0)[:, None, None], r * eye + (1.0 - r) * mean, eye)  # (L, n, n)
    sums = mixed.sum(axis=2, keepdims=True)  # (L, n, 1)
    mixed = mixed / np.where(sums > 0, sums, 1.0)
    out = np.empty((L, n, n))
    out[0] = mixed[0]
    for layer in range(1, L):
        out[layer] = mixed[layer] @ out[layer - 1]
    return out


# ---------------------------------------------------------------------------------- grouped-query


def kv_head_of(n_heads: int, n_kv_heads: int) -> IntArray:
    """The key/value head each query head reads in grouped-query attention: kv(h) = h // (n_heads // n_kv).

    Args:
        n_heads: query heads (9 for SmolLM2-135M).
        n_kv_heads: key/value heads, dividing n_heads (3 for SmolLM2-135M).

    Returns:
        (n_heads,) int64: [0, 0, 0, 1, 1, 1, 2, 2, 2] for 9 and 3.
    """
    h = as_int("n_heads", n_heads, 1)
    kv = as_int("n_kv_heads", n_kv_heads, 1)
    if h % kv:
        raise ValueError(f"n_kv_heads ({kv}) must divide n_heads ({h})")
    return np.arange(h, dtype=np.int64) // (h // kv)


def kv_groups(n_heads: int, n_kv_heads: int) -> tuple[tuple[int, ...], ...]:
    """The query heads sharing each key/value head: ((0, 1, 2), (3, 4, 5), (6, 7, 8)) for 9 and 3.

    Args:
        n_heads: query heads.
        n_kv_heads: key/value heads, dividing n_heads.
    """
    owner = kv_head_of(n_heads, n_kv_heads)
    return tuple(tuple(int(h) for h in np.flatnonzero(owner == g)) for g in range(n_kv_heads))
