"""attention_core.analysis.induction: induction and previous-token scores, losses, against known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_core import analysis as an
from attention_core import run_transformer

from . import handbuilt as hb
from .models import need

SEQ = [3, 1, 4, 0, 5, 2]  # n = 6 distinct tokens of the hand-built model's 8
N = len(SEQ)


@pytest.fixture(scope="module")
def hand_run() -> an.InductionRun:
    return an.run_induction(hb.model(), SEQ)


def test_hand_built_heads_score_what_they_were_built_to(hand_run: an.InductionRun) -> None:
    r = hand_run
    assert r.induction.shape == r.previous.shape == (2, 2)
    np.testing.assert_array_equal(r.token_ids, SEQ + SEQ)
    # layer 1 head 1 attends to the previous token; layer 2 head 1 is the induction head (to n e^-30)
    assert r.previous[0, 0] == pytest.approx(1.0, abs=1e-9)
    assert r.induction[1, 0] == pytest.approx(1.0, abs=1e-9)
    assert r.induction[0, 0] == pytest.approx(0.0, abs=1e-9)  # the stripe is not the previous token (n > 2)
    # the second head of each layer has W_Q = 0: uniform weights, 1 / (i + 1) on every key
    for layer in (0, 1):
        assert r.induction[layer, 1] == pytest.approx(hb.uniform_score(range(N, 2 * N)), rel=1e-12)
        assert r.previous[layer, 1] == pytest.approx(hb.uniform_score(range(1, 2 * N)), rel=1e-12)


def test_scores_equal_the_stripes_read_one_by_one(hand_run: an.InductionRun) -> None:
    A = hand_run.attentions
    assert A.shape == (2, 2, 2 * N, 2 * N)
    for layer in range(2):
        for head in range(2):
            stripe = [A[layer, head, N + j, j + 1] for j in range(N)]
            previous = [A[layer, head, i, i - 1] for i in range(1, 2 * N)]
            assert hand_run.induction[layer, head] == pytest.approx(sum(stripe) / N, rel=1e-12)
            assert hand_run.previous[layer, head] == pytest.approx(sum(previous) / (2 * N - 1), rel=1e-12)


def test_the_second_copy_is_predicted_by_the_induction_head(hand_run: an.InductionRun) -> None:
    *_, last = hb.lens_known(N)
    losses = hand_run.losses
    assert losses.shape == (2 * N - 1,)
    # positions n + 1 .. 2n - 1 copy the token that followed last time
    np.testing.assert_allclose(losses[N:], -math.log(last), rtol=1e-9)
    assert losses[: N - 1].min() > 10 * losses[N:].max()


def test_pure_scores_on_hand_made_weights() -> None:
    n = 3
    stripe = np.zeros((1, 2, 6, 6))
    stripe[0, 0, np.arange(6), np.arange(6)] = 1.0  # head 1: itself
    stripe[0, 1, :, 0] = 1.0  # head 2: the first token ...
    stripe[0, 1, [3, 4, 5], [1, 2, 3]] = [0.5, 0.25, 1.0]  # ... except on the stripe
    stripe[0, 1, [3, 4], 0] = [0.5, 0.75]
    np.testing.assert_allclose(an.induction_stripe(stripe, n), [[0.0, (0.5 + 0.25 + 1.0) / 3]])
    # head 2's previous token: only for query 1 (key 0, weight 1), out of queries 1..5
    np.testing.assert_allclose(an.previous_token_scores(stripe), [[0.0, 1 / 5]])


def test_losses_equal_an_independent_log_softmax() -> None:
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((5, 7)) * 4
    ids = np.array([2, 6, 0, 0, 3])
    want = [math.log(np.exp(logits[i]).sum()) - logits[i, ids[i + 1]] for i in range(4)]
    np.testing.assert_allclose(an.next_token_losses(logits, ids), want, rtol=1e-12)
    np.testing.assert_allclose(an.next_token_losses(logits.astype(np.float32), ids), want, rtol=1e-5)


def test_random_tokens_are_distinct_seeded_and_in_range() -> None:
    a = an.random_tokens(0, 50, 17, 49152)
    assert a.dtype == np.int64 and len(set(a.tolist())) == 50
    assert a.min() >= 17 and a.max() < 49152
    np.testing.assert_array_equal(a, an.random_tokens(0, 50, 17, 49152))
    assert not np.array_equal(a, an.random_tokens(1, 50, 17, 49152))
    # numpy's PCG64 stream: links carry the seed, so the tokens of seed 0 must not change
    assert a[:8].tolist() == [3710, 1408, 41597, 41770, 35836, 42124, 4402, 25107]
    np.testing.assert_array_equal(np.sort(an.random_tokens(5, 8, 0, 8)), np.arange(8))


def test_bad_arguments_are_refused_with_a_message() -> None:
    m = hb.model()
    with pytest.raises(ValueError, match="at most 8 ids in 0..7"):
        an.induction_scores(m, [1, 9])
    with pytest.raises(ValueError, match="at most 8 ids"):
        an.induction_scores(m, list(range(8)) + [1])  # 2 x 9 positions: past the 16 the model has
    with pytest.raises(ValueError, match="non-empty list of token ids"):
        an.induction_scores(m, [])
    with pytest.raises(ValueError, match="n must be at most high - low = 8"):
        an.random_tokens(0, 9, 0, 8)
    with pytest.raises(ValueError, match="must cover 2 n = 6 tokens"):
        an.induction_stripe(np.zeros((1, 1, 4, 4)), 3)
    with pytest.raises(ValueError, match="m >= 2"):
        an.next_token_losses(np.zeros((1, 4)), [0])


def test_minilm_is_refused_for_induction() -> None:
    m = need("all-MiniLM-L6-v2")
    with pytest.raises(ValueError, match="is an encoder: induction heads are measured on a decoder"):
        an.induction_scores(m, [2000, 2001])


# Obtained once on SmolLM2-135M with random_tokens(0, 50, 17, 49152) repeated twice: every head's weights
# recomputed from the run's q and k (after RoPE) in float64 as softmax(q k^T / 8) under the causal mask,
# the stripe and the previous-token diagonal averaged in Python loops (as the test below does again), and
# the losses from a float64 log-softmax of the logits. 1-based (layer, head): score.
SMOLLM2_INDUCTION = {(19, 7): 0.9350, (18, 5): 0.8016, (18, 4): 0.7939, (19, 8): 0.6681, (18, 6): 0.6544}
SMOLLM2_PREVIOUS = {(17, 1): 0.9145, (12, 2): 0.8310}
SMOLLM2_MEAN_LOSS = (14.1259, 2.2537)  # nats: the first copy's tokens 1..49, the second copy's 0..49


def test_smollm2_induction_heads_are_the_recorded_and_the_independent_ones() -> None:
    m = need("SmolLM2-135M")
    ids = an.random_tokens(0, 50, 17, 49152)
    run = an.run_induction(m, ids)
    assert run.induction.shape == (30, 9)
    top = np.argsort(-run.induction.ravel(), kind="stable")[:5]
    assert [(int(i) // 9 + 1, int(i) % 9 + 1) for i in top] == list(SMOLLM2_INDUCTION)
    for (layer, head), score in SMOLLM2_INDUCTION.items():
        assert run.induction[layer - 1, head - 1] == pytest.approx(score, abs=1e-4)
    for (layer, head), score in SMOLLM2_PREVIOUS.items():
        assert run.previous[layer - 1, head - 1] == pytest.approx(score, abs=1e-4)
    assert run.losses[:49].mean() == pytest.approx(SMOLLM2_MEAN_LOSS[0], abs=1e-3)
    assert run.losses[49:].mean() == pytest.approx(SMOLLM2_MEAN_LOSS[1], abs=1e-3)
    # again, independently: the best head's weights from its q and k, the stripe read one by one
    _, layers, _, _ = run_transformer(run.token_ids, m.weights, m.config)
    att = layers[18].attention
    q, k = att.q[6].astype(np.float64), att.k[6].astype(np.float64)
    S = q @ k.T / 8.0
    S[np.triu_indices(100, 1)] = -np.inf
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    assert run.induction[18, 6] == pytest.approx(np.mean([A[i, i - 49] for i in range(50, 100)]), abs=1e-6)
