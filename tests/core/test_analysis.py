"""attention_core.analysis: head labels, rollout, next-token and ablation measures on hand-computed inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core import analysis as an

from .conftest import fast


def _rows(*rows: list[float]) -> np.ndarray:
    return np.array(rows, dtype=float)


# ------------------------------------------------------------------------------------------ word ids


def test_word_ids_wordpiece_joins_hash_pieces_and_keeps_specials_apart() -> None:
    tokens = ["[CLS]", "me", "gust", "##a", "est", "##udi", "##ar", "[SEP]"]
    assert an.word_ids(tokens, "wordpiece").tolist() == [0, 1, 2, 2, 3, 3, 3, 4]


def test_word_ids_bytelevel_starts_a_word_at_a_space_or_punctuation() -> None:
    tokens = ["One", ",", " two", "Ġthree", "teen", "!"]
    assert an.word_ids(tokens, "bytelevel").tolist() == [0, 1, 2, 3, 3, 4]


def test_word_ids_rejects_an_unknown_scheme() -> None:
    with pytest.raises(ValueError, match="scheme"):
        an.word_ids(["a"], "sentencepiece")


def test_same_word_targets_join_pieces_and_repeats_but_not_itself_or_specials() -> None:
    tokens = ["[CLS]", "the", "play", "##ing", "the", "[SEP]"]
    target = an.rule_targets("same_word", tokens, an.word_ids(tokens, "wordpiece"))
    expected = np.zeros((6, 6), dtype=bool)
    expected[1, 4] = expected[4, 1] = True  # "the" ... "the"
    expected[2, 3] = expected[3, 2] = True  # play ##ing
    np.testing.assert_array_equal(target, expected)


# ------------------------------------------------------------------------------------------ labels


def _encoder_heads() -> tuple[np.ndarray, list[str]]:
    """Five hand-made heads over [CLS] a b c [SEP]: previous, next, uniform, [SEP], itself."""
    tokens = ["[CLS]", "a", "b", "c", "[SEP]"]
    n = 5
    prev = np.zeros((n, n))
    prev[0, 0] = 1.0
    prev[np.arange(1, n), np.arange(n - 1)] = 1.0
    nxt = np.zeros((n, n))
    nxt[np.arange(n - 1), np.arange(1, n)] = 1.0
    nxt[n - 1, n - 1] = 1.0
    uniform = np.full((n, n), 1 / n)
    sep = np.zeros((n, n))
    sep[:, 4] = 0.9
    sep[:, 0] = 0.1
    return np.stack([prev, nxt, uniform, sep, np.eye(n)])[None], tokens


def test_labels_of_hand_made_encoder_heads() -> None:
    A, tokens = _encoder_heads()
    result = an.label_heads(A, tokens, causal=False)
    assert result.labels[0].tolist() == ["previous token", "next token", "broad", "[SEP]", "itself"]
    assert result.rules[0].tolist() == ["previous", "next", "broad", "sep", "self"]
    # previous: rows 1..4 put 1 on key i-1; row 0 has no previous token and does not count
    assert result.scores[0, 0] == pytest.approx(1.0)
    # [SEP]: rows 0..3 put 0.9 on it (row 4 is [SEP] itself and does not count)
    assert result.scores[0, 3] == pytest.approx(0.9)
    assert result.rule_scores["first"][0, 3] == pytest.approx(0.1)  # [CLS] is the first token
    # a uniform head: entropy / log(5) = 1 on every row
    assert result.broadness[0, 2] == pytest.approx(1.0)
    assert result.scores[0, 2] == pytest.approx(1.0)
    # one rule names attention to the first token, whatever it is: [CLS] here, an ordinary word in a decoder
    cls_head = np.full((1, 1, 5, 5), 0.025)
    cls_head[..., 0] = 0.9
    assert an.label_heads(cls_head, tokens, causal=False).labels[0, 0] == "first token"


def test_causal_first_token_sink_and_broad_and_no_next_token() -> None:
    tokens = ["The", " cat", " sat", " on"]
    n = 4
    sink = np.zeros((n, n))
    sink[:, 0] = 0.8
    sink[np.arange(n), np.arange(n)] += 0.2
    sink[0, 0] = 1.0
    uniform = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    result = an.label_heads(np.stack([sink, uniform])[None], tokens, causal=True, scheme="bytelevel")
    assert result.labels[0].tolist() == ["first token", "broad"]
    assert result.scores[0, 0] == pytest.approx(0.8)  # rows 1..3, each 0.8 on the first token
    # a uniform causal head scores mean(1/2, 1/3, 1/4) on the first token: below the 0.5 threshold
    assert result.rule_scores["first"][0, 1] == pytest.approx((1 / 2 + 1 / 3 + 1 / 4) / 3)
    assert np.isnan(result.rule_scores["next"]).all()  # a decoder never sees the next token


def test_min_lift_keeps_a_short_sentence_from_labelling_a_near_uniform_head() -> None:
    # two tokens, causal: row 1 sees keys 0 and 1; 0.6 on the first is above 0.5 but not twice uniform (0.5)
    A = _rows([1.0, 0.0], [0.6, 0.4])[None, None]
    result = an.label_heads(A, ["a", " b"], causal=True, scheme="bytelevel")
    assert result.rule_scores["first"][0, 0] == pytest.approx(0.6)
    assert result.rules[0, 0] != "first"


def test_same_word_head_and_mixed_head() -> None:
    tokens = ["[CLS]", "the", "cat", "the", "[SEP]"]
    same = np.full((5, 5), 0.05)
    same[1] = [0.05, 0.05, 0.05, 0.8, 0.05]
    same[3] = [0.05, 0.8, 0.05, 0.05, 0.05]
    # half on [CLS], half on the token itself: no rule reaches 0.5 with lift, rows not broad
    mixed = 0.45 * np.eye(5) + 0.45 * np.eye(5)[[0] * 5] + 0.1 / 5
    mixed[0] = [0.3, 0.6, 0.05, 0.03, 0.02]
    result = an.label_heads(np.stack([same, mixed])[None], tokens, causal=False)
    assert result.rules[0, 0] == "same_word"
    assert result.scores[0, 0] == pytest.approx(0.8)  # only rows 1 and 3 have a same word
    assert result.labels[0, 1] == "mixed"
    assert result.broadness[0, 1] < an.BROAD_THRESHOLD


def test_every_rule_is_data_with_a_documented_threshold() -> None:
    names = [r.name for r in an.HEAD_RULES]
    assert names == ["previous", "next", "self", "same_word", "sep", "first"]
    for rule in an.HEAD_RULES:
        assert 0 < rule.threshold <= 1 and rule.min_lift >= 1 and rule.keys and rule.label


def test_label_heads_rejects_a_shape_that_does_not_match_the_tokens() -> None:
    with pytest.raises(ValueError, match="n = 3 tokens"):
        an.label_heads(np.ones((1, 1, 2, 2)) / 2, ["a", "b", "c"], causal=False)


# ----------------------------------------------------------------------------------------- rollout


def test_rollout_of_a_hand_example() -> None:
    A1 = _rows([1.0, 0.0], [0.5, 0.5])
    A2 = _rows([0.5, 0.5], [0.0, 1.0])
    R = an.attention_rollout(np.stack([A1, A2])[:, None])
    # A'1 = 0.5 A1 + 0.5 I = [[1, 0], [.25, .75]]; A'2 = [[.75, .25], [0, 1]]; R2 = A'2 @ A'1
    np.testing.assert_allclose(R[0], [[1.0, 0.0], [0.25, 0.75]])
    np.testing.assert_allclose(R[1], [[0.8125, 0.1875], [0.25, 0.75]])


def test_rollout_averages_heads_with_weights_and_a_removed_layer_passes_the_residual() -> None:
    A = np.stack([np.eye(2), _rows([0.0, 1.0], [1.0, 0.0])])  # two heads
    R = an.attention_rollout(A[None], residual=0.0)
    np.testing.assert_allclose(R[0], np.full((2, 2), 0.5))
    R = an.attention_rollout(A[None], residual=0.0, head_weights=[[0.0, 1.0]])
    np.testing.assert_allclose(R[0], [[0.0, 1.0], [1.0, 0.0]])
    R = an.attention_rollout(A[None], head_weights=[[0.0, 0.0]])
    np.testing.assert_allclose(R[0], np.eye(2))


@fast
@given(seed=st.integers(0, 2**32 - 1), residual=st.floats(0.0, 1.0))
def test_rollout_rows_sum_to_one(seed: int, residual: float) -> None:
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((3, 2, 4, 4))
    A = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
    R = an.attention_rollout(A, residual)
    np.testing.assert_allclose(R.sum(axis=-1), 1.0)
    assert (R >= 0).all()


def test_rollout_rejects_bad_residual_and_weights() -> None:
    A = np.ones((1, 2, 2, 2)) / 2
    with pytest.raises(ValueError, match="residual"):
        an.attention_rollout(A, 1.5)
    with pytest.raises(ValueError, match="head_weights"):
        an.attention_rollout(A, head_weights=[[1.0, -1.0]])


# ------------------------------------------------------------------------------------- next token


def test_temperature_softmax_by_hand() -> None:
    logits = np.array([0.0, math.log(2.0)])
    np.testing.assert_allclose(an.next_token_probs(logits), [1 / 3, 2 / 3])
    np.testing.assert_allclose(an.next_token_probs(logits, 0.5), [1 / 5, 4 / 5])
    np.testing.assert_allclose(an.next_token_probs(logits, 1e6), [0.5, 0.5], atol=1e-6)
    with pytest.raises(ValueError, match="temperature"):
        an.next_token_probs(logits, 0.0)


def test_top_next_tokens_order_and_ties() -> None:
    ids, p = an.top_next_tokens([1.0, 3.0, 3.0, 0.0], k=3)
    assert ids.tolist() == [1, 2, 0]
    np.testing.assert_allclose(p.sum(), 1 - math.exp(0) / (math.e + 2 * math.e**3 + 1))
    ids, _ = an.top_next_tokens([1.0, 2.0], k=10)
    assert ids.tolist() == [1, 0]


def test_compare_next_tokens_lists_both_tops_and_the_moved_probability() -> None:
    before = np.log([0.7, 0.2, 0.05, 0.05])
    after = np.log([0.1, 0.2, 0.6, 0.1])
    shift = an.compare_next_tokens(before, after, k=1)
    assert shift.ids.tolist() == [0, 2]
    np.testing.assert_allclose(shift.before, [0.7, 0.05])
    np.testing.assert_allclose(shift.after, [0.1, 0.6])
    assert shift.total_variation == pytest.approx(0.5 * (0.6 + 0.0 + 0.55 + 0.05))


def test_sentence_embedding_cosine_and_hidden_shift_by_hand() -> None:
    e = an.sentence_embedding(_rows([3.0, 0.0], [1.0, 4.0]))
    np.testing.assert_allclose(e, [1 / math.sqrt(2), 1 / math.sqrt(2)])
    assert an.cosine([1.0, 0.0], [1.0, 1.0]) == pytest.approx(1 / math.sqrt(2))
    assert an.cosine([0.0, 0.0], [1.0, 1.0]) == 0.0
    before = np.array([[[3.0, 4.0], [1.0, 0.0]], [[1.0, 0.0], [0.0, 2.0]]])  # (2, 2, 2)
    after = before.copy()
    after[1, 0] = [1.0, 1.0]  # moved by 1 where the norm is 1
    after[1, 1] = [0.0, 3.0]  # moved by 1 where the norm is 2
    np.testing.assert_allclose(an.hidden_state_shift(before, after), [0.0, (1.0 + 0.5) / 2])


# --------------------------------------------------------------------------------- masks, ranking


def test_layer_off_and_only_head_copy_the_mask() -> None:
    mask = np.ones((2, 3))
    np.testing.assert_array_equal(an.layer_off(mask, 1), [[1, 1, 1], [0, 0, 0]])
    np.testing.assert_array_equal(an.only_head(mask, 0, 2), [[0, 0, 1], [1, 1, 1]])
    assert mask.all()
    with pytest.raises(ValueError, match="head must be 0..2"):
        an.only_head(mask, 0, 3)


def test_rank_heads_one_at_a_time_yields_progress_per_layer_and_the_right_order() -> None:
    weight = np.array([[0.1, 0.5], [0.3, 0.0]])
    steps = list(an.rank_heads(lambda m: ((1 - m) * weight).sum(axis=(1, 2)), 2, 2))
    assert [s.done for s in steps] == [2, 4] and {s.total for s in steps} == {4}
    assert np.isnan(steps[0].head_effects).sum() == 2  # layer 2 not measured yet
    np.testing.assert_allclose(steps[-1].head_effects, weight)
    assert [(lay, h) for lay, h, _ in an.ranked(steps[-1].head_effects)] == [(0, 1), (1, 0), (0, 0), (1, 1)]


def test_rank_heads_layers_first_opens_only_the_layers_that_matter() -> None:
    weight = np.array([[0.0, 0.1], [0.9, 0.2], [0.05, 0.05]])
    batches: list[np.ndarray] = []

    def effects(masks: np.ndarray) -> np.ndarray:
        batches.append(masks)
        return ((1 - masks) * weight).sum(axis=(1, 2))

    steps = list(an.rank_heads(effects, 3, 2, layers_first=True, top_layers=1))
    assert [len(b) for b in batches] == [3, 2] and steps[-1].done == steps[-1].total == 5
    np.testing.assert_array_equal(batches[0][1], [[1, 1], [0, 0], [1, 1]])  # layer 2 off whole
    np.testing.assert_array_equal(batches[1][1], [[1, 1], [1, 0], [1, 1]])  # then layer 2's head 2 alone
    np.testing.assert_allclose(steps[-1].layer_effects, [0.1, 1.1, 0.1])
    assert an.ranked(steps[-1].head_effects) == [(1, 0, 0.9), (1, 1, 0.2)]


# ------------------------------------------------------------------------------------------- GQA


def test_kv_sharing_of_smollm2() -> None:
    assert an.kv_head_of(9, 3).tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert an.kv_groups(9, 3) == ((0, 1, 2), (3, 4, 5), (6, 7, 8))
    assert an.kv_head_of(12, 12).tolist() == list(range(12))
    with pytest.raises(ValueError, match="divide"):
        an.kv_head_of(9, 2)


def test_a_decoders_attention_sink_is_first_token_even_when_the_first_word_comes_again() -> None:
    """SmolLM2 on "The animal … the street …": a sink head (every row on token 0, "The") was labelled "same word",
    because "the" is the same word as "The" and that rule came first at equal scores."""
    tokens = ["The", " cat", " saw", " the", " dog"]
    n = len(tokens)
    sink = np.zeros((n, n))
    sink[:, 0] = 1.0  # every query on the first token
    got = an.label_heads(sink[None, None], tokens, causal=True, scheme="bytelevel")
    assert got.rules[0, 0] == "first"
    assert np.isnan(got.rule_scores["same_word"][0, 0])  # no key left for "same word": only "The" repeats
