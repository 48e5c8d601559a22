"""attention_core.analysis.pairs: how the attention from one token moves between two texts that differ in a
word, on random weights, the hand-built causal circuit and MiniLM (its rows compared with the engine's run)."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import analysis as an
from attention_core.softmax import softmax

from .models import circuit_model, need

TIRED = "The animal didn't cross the street because it was too tired"
WIDE = "The animal didn't cross the street because it was too wide"


@pytest.fixture(scope="module")
def minilm():
    return need("all-MiniLM-L6-v2")


def test_the_rows_and_what_moved_are_the_queries_rows_and_their_total_variation() -> None:
    rng = np.random.default_rng(3)
    att_a, att_b = (softmax(rng.standard_normal((2, 3, 5, 5))) for _ in range(2))  # (L, H, n, n)
    a, b, moved = an.attention_shift(att_a, att_b, 4)
    np.testing.assert_array_equal(a, att_a[:, :, 4])
    np.testing.assert_array_equal(b, att_b[:, :, 4])
    for layer in range(2):
        for head in range(3):
            want = an.total_variation(att_a[layer, head, 4], att_b[layer, head, 4])
            assert moved[layer, head] == pytest.approx(want, abs=1e-15)
    assert (moved >= 0).all() and (moved <= 1).all()
    same = an.attention_shift(att_a, att_a.copy(), 0)[2]
    np.testing.assert_array_equal(same, 0.0)


def test_bad_shapes_and_queries_are_named() -> None:
    att = np.full((1, 1, 3, 3), 1 / 3)
    with pytest.raises(ValueError, match=r"one shape, got \(1, 1, 3, 3\) and \(1, 1, 4, 4\)"):
        an.attention_shift(att, np.full((1, 1, 4, 4), 0.25), 0)
    with pytest.raises(ValueError, match=r"query must be a position in 0 \.\. 2, got 3"):
        an.attention_shift(att, att, 3)
    with pytest.raises(ValueError, match=r"\(L, H, n, n\)"):
        an.attention_shift(att[0], att[0], 0)


def test_a_causal_models_query_before_the_change_does_not_move() -> None:
    model = circuit_model("circuit (pairs tests)")
    got = an.pair_shift(model, "x a y b", "x a y a", 2)  # the last word changes: query 2 cannot see it
    assert got.differ == (3,)
    np.testing.assert_array_equal(got.moved, 0.0)
    np.testing.assert_array_equal(got.difference, 0.0)
    after = an.pair_shift(model, "x a y b", "x b y b", 2)  # the word at position 1 changes: it sees it
    assert after.moved.max() > 0


def test_minilm_rows_are_the_engines_and_the_change_moves_the_pronouns_attention(minilm) -> None:
    run_a, run_b = minilm.run(TIRED), minilm.run(WIDE)
    it = run_a.tokens.index("it")
    got = an.pair_shift(minilm, TIRED, WIDE, it)
    assert got.differ == (run_a.tokens.index("tired"),) and got.query == it
    np.testing.assert_allclose(got.a, run_a.attentions[:, :, it], atol=0)
    np.testing.assert_allclose(got.b, run_b.attentions[:, :, it], atol=0)
    np.testing.assert_allclose(got.a.sum(axis=-1), 1.0, atol=1e-5)
    want = 0.5 * np.abs(run_b.attentions[:, :, it].astype(np.float64) - run_a.attentions[:, :, it]).sum(-1)
    np.testing.assert_allclose(got.moved, want, atol=1e-12)
    # Every token of an encoder sees the changed word: the attention from "it" moves in every layer.
    assert (got.moved.max(axis=1) > 0.01).all()


def test_pairs_that_cannot_be_compared_get_a_message(minilm) -> None:
    with pytest.raises(ValueError, match=r"the first is 4 tokens \('\[CLS\]' \| 'a' \| 'cat' \| '\[SEP\]'\)"):
        an.pair_shift(minilm, "a cat", "a big cat", 1)
    with pytest.raises(ValueError, match="the same tokens"):
        an.pair_shift(minilm, "A cat", "a cat", 1)  # uncased: the same tokens
