"""Minimal pairs: how the attention from one token moves when one word of the sentence changes.

Two texts of the same number of tokens that differ in a word ("The animal didn't cross the street because it
was too tired" / "... too wide"). For every layer and head: the attention row of one query token (the word
whose reading depends on the change, "it") in both texts, their difference, and how much of the weight moved,
the total variation between the two rows, half their L1 distance:

    moved[l, h] = 0.5 * sum_j |A_b[l, h, q, j] - A_a[l, h, q, j]|

0 is the same weights; 1 is none of the weight on the same keys. Keys line up position by position (the two
texts have as many tokens), so the difference at key j compares the same position in both texts.

In a causal model a query attends only to itself and to earlier keys: a change after the query cannot move
its row at all (every weight in it is computed from the same earlier tokens). Minimal pairs whose change comes
after the query therefore need an encoder, where every token sees the whole sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._validate import FloatArray, as_float_array, shape_str

if TYPE_CHECKING:
    from ..pretrained import Model

__all__ = ["PairShift", "attention_shift", "differing", "pair_shift"]


@dataclass(frozen=True, eq=False)
class PairShift:
    """The attention from one query token in two texts of n tokens, every layer and head. L layers, H heads.

    Fields:
        text_a, text_b: the texts as run.
        tokens_a, tokens_b: n display strings each.
        differ: the positions whose tokens differ, ascending.
        query: the query position (0-based, the same in both texts).
        a, b: (L, H, n) float64, the query's attention weights in text a and in text b; rows sum to 1.
        moved: (L, H) float64, 0.5 * sum_j |b - a|: the share of the weight that moved (0..1).
    """

    text_a: str
    text_b: str
    tokens_a: list[str]
    tokens_b: list[str]
    differ: tuple[int, ...]
    query: int
    a: FloatArray
    b: FloatArray
    moved: FloatArray

    @property
    def difference(self) -> FloatArray:
        """(L, H, n) b - a: positive where text b puts more weight on the key."""
        return self.b - self.a

    @property
    def n_tokens(self) -> int:
        return len(self.tokens_a)


def attention_shift(
    attentions_a: FloatArray, attentions_b: FloatArray, query: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The query's attention rows in two runs and how much weight moved between them.

    Args:
        attentions_a: (L, H, n, n) the weights of every layer and head of one run; rows are queries.
        attentions_b: (L, H, n, n) the other run's, of as many tokens.
        query: the query position, 0 <= query < n.

    Returns:
        a (L, H, n), b (L, H, n), moved (L, H) = 0.5 * sum_j |b - a|, all float64.
    """
    att_a = as_float_array("attentions_a", attentions_a, (4,), "(L, H, n, n)")
    att_b = as_float_array("attentions_b", attentions_b, (4,), "(L, H, n, n)")
    if att_a.shape != att_b.shape or att_a.shape[-1] != att_a.shape[-2]:
        raise ValueError(
            "attentions_a and attentions_b must both be (L, H, n, n) of one shape, got "
            f"{shape_str(att_a.shape)} and {shape_str(att_b.shape)}"
        )
    n = att_a.shape[-1]
    if not isinstance(query, int | np.integer) or not 0 <= int(query) < n:
        raise ValueError(f"query must be a position in 0 .. {n - 1}, got {query!r}")
    a = att_a[:, :, int(query), :].copy()  # (L, H, n): a copy, not a view holding every row
    b = att_b[:, :, int(query), :].copy()
    return a, b, 0.5 * np.abs(b - a).sum(axis=-1)


def differing(tokens_a: Sequence[str], tokens_b: Sequence[str]) -> tuple[int, ...]:
    """The positions where two token lists of the same length hold different tokens."""
    return tuple(i for i, (x, y) in enumerate(zip(tokens_a, tokens_b, strict=True)) if x != y)


def _shown(tokens: list[str]) -> str:
    return " | ".join(repr(t) for t in tokens)


def pair_shift(model: Model, text_a: str, text_b: str, query: int) -> PairShift:
    """Run both texts and measure how the attention from ``query`` moves (see the module doc).

    Args:
        model: a loaded model (``pretrained.load("all-MiniLM-L6-v2")``).
        text_a: one text ("... because it was too tired").
        text_b: the same text with a word changed, of as many tokens ("... because it was too wide").
        query: the position of the token whose attention is compared (0-based; [CLS] is 0 in MiniLM).

    Returns:
        PairShift; a ValueError a student can read when the texts differ in length or not at all.
    """
    run_a, run_b = model.run(text_a), model.run(text_b)
    if run_a.n_tokens != run_b.n_tokens:
        raise ValueError(
            f"the two sentences must have the same number of tokens to compare the attention key by key, but "
            f"the first is {run_a.n_tokens} tokens ({_shown(run_a.tokens)}) and the second {run_b.n_tokens} "
            f"({_shown(run_b.tokens)})"
        )
    differ = differing(run_a.tokens, run_b.tokens)
    if not differ:
        raise ValueError(
            f"the two sentences are the same tokens ({_shown(run_a.tokens)}): change a word in the second"
        )
    a, b, moved = attention_shift(run_a.attentions, run_b.attentions, query)
    return PairShift(run_a.text, run_b.text, run_a.tokens, run_b.tokens, differ, int(query), a, b, moved)
