"""attention_core.analysis.lens: the logit lens against an independent computation and known answers."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import analysis as an
from attention_core.analysis import lens
from attention_core.analysis.lens import _top_k

from . import handbuilt as hb
from .models import need

SEQ = [3, 1, 4, 0, 5, 2]  # n = 6 distinct tokens of the hand-built model's 8


def _full(model, trace) -> np.ndarray:  # noqa: ANN001
    """The lens written out in float64 for every layer and position at once: h -> h / sqrt(mean h^2 + eps) * g
    -> logits h E^T -> softmax. (L + 1, n, vocab)."""
    E = model.weights.embeddings.token.astype(np.float64)  # (vocab, d)
    g = model.weights.final_norm_gain.astype(np.float64)
    streams = [trace.embeddings.output] + [layer.output for layer in trace.layers]
    h = np.stack(streams).astype(np.float64)  # (L + 1, n, d)
    h = h / np.sqrt(np.mean(h * h, axis=-1, keepdims=True) + model.config.eps) * g
    z = h @ E.T  # (L + 1, n, vocab)
    p = np.exp(z - z.max(axis=-1, keepdims=True))
    return p / p.sum(axis=-1, keepdims=True)


def _independent(model, trace, k: int) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """The top k of ``_full`` by a stable sort (the lower id first at equal probability)."""
    p = _full(model, trace)
    ids = np.argsort(-p, axis=2, kind="stable")[..., :k]
    return ids, np.take_along_axis(p, ids, axis=2)


def _apart(probs: np.ndarray) -> np.ndarray:
    """(..., k) True where a probability differs from both neighbours by more than 1e-9."""
    gap = np.abs(np.diff(probs, axis=-1)) > 1e-9
    edge = np.ones(probs.shape[:-1] + (1,), dtype=bool)
    return np.concatenate([edge, gap], axis=-1) & np.concatenate([gap, edge], axis=-1)


@pytest.fixture(scope="module")
def hand() -> tuple[object, object]:
    m = hb.model()
    return m, m.run(" ".join(map(str, SEQ + SEQ)))


def test_lens_equals_an_independent_computation_on_the_hand_built_model(hand) -> None:  # noqa: ANN001
    m, trace = hand
    ids, probs = an.logit_lens(m, trace, k=4)
    assert ids.shape == probs.shape == (3, 12, 4)
    want_ids, want_probs = _independent(m, trace, 5)
    np.testing.assert_allclose(probs, want_probs[..., :4], rtol=1e-12)
    # Tokens the model scores alike (in theory equal, apart by rounding) may come in either order.
    apart = _apart(want_probs)[..., :4]
    np.testing.assert_array_equal(ids[apart], want_ids[..., :4][apart])


def test_lens_known_answers_on_the_hand_built_model(hand) -> None:  # noqa: ANN001
    m, trace = hand
    ids, probs = an.logit_lens(m, trace, k=2)
    first, after_one, last = hb.lens_known(len(SEQ))
    run = SEQ + SEQ
    # Rows 0 and 1 read only the token itself (tied embeddings): each position predicts its own token.
    np.testing.assert_array_equal(ids[0, :, 0], run)
    np.testing.assert_array_equal(ids[1, :, 0], run)
    np.testing.assert_allclose(probs[0, :, 0], first, rtol=1e-9)
    np.testing.assert_allclose(probs[1, :, 0], after_one, rtol=1e-9)
    # The last row, in the second copy: the token that followed last time (position n + j copies j + 1).
    np.testing.assert_array_equal(ids[2, 6:, 0], SEQ[1:] + SEQ[:1])
    np.testing.assert_allclose(probs[2, 6:, 0], last, rtol=1e-9)


def test_the_last_row_is_the_models_own_prediction(hand) -> None:  # noqa: ANN001
    m, trace = hand
    reading = an.read_lens(m, trace, k=5)
    own = m.top_next(trace, 6)
    own_probs = np.array([t[2] for t in own])
    np.testing.assert_allclose(reading.probs[-1, -1], own_probs[:5], rtol=1e-12)
    apart = _apart(own_probs)[:5]  # float64 logits apart by rounding may come in either order
    np.testing.assert_array_equal(reading.ids[-1, -1][apart], np.array([t[0] for t in own])[:5][apart])
    # The final norm is applied once: the last row reads the model's final hidden state as it is.
    np.testing.assert_array_equal(reading.normed[-1], trace.hidden_states[-1])


def test_token_probs_follow_a_token_through_the_layers(hand) -> None:  # noqa: ANN001
    m, trace = hand
    reading = an.read_lens(m, trace, k=3)
    followed = an.lens_token_probs(m, reading, [1, 7])
    assert followed.shape == (2, 3, 12)
    # Where token 1 is among the top 3, its probability is the grid's.
    where = reading.ids == 1
    np.testing.assert_allclose(followed[0][where.any(axis=2)], reading.probs[where], rtol=1e-12)
    np.testing.assert_allclose(followed[1], _full(m, trace)[..., 7], rtol=1e-12)


def test_top_k_breaks_ties_to_the_lower_id_like_a_stable_sort() -> None:
    rng = np.random.default_rng(5)
    z = rng.standard_normal((9, 1000)).astype(np.float32)
    z[0, [900, 20, 500]] = 7.0  # a three-way tie at the top
    z[1, [3, 4, 5, 6, 7, 8]] = 6.0  # a tie across the k-th place
    z[2] = 1.0  # every entry equal
    for k in (1, 3, 5, 50):
        top, peak = _top_k(z.copy(), k)
        np.testing.assert_array_equal(top, np.argsort(-z, axis=1, kind="stable")[:, :k])
        np.testing.assert_array_equal(peak[:, 0], z.max(axis=1))


def test_bad_arguments_are_refused_with_a_message(hand) -> None:  # noqa: ANN001
    m, trace = hand
    with pytest.raises(ValueError, match="k must be 1..50"):
        an.logit_lens(m, trace, k=51)
    with pytest.raises(ValueError, match="k must be"):
        an.logit_lens(m, trace, k=0)
    with pytest.raises(ValueError, match="token_ids must be a list of token ids 0..7"):
        an.lens_token_probs(m, an.read_lens(m, trace), [8])


def test_minilm_has_no_logit_lens() -> None:
    m = need("all-MiniLM-L6-v2")
    with pytest.raises(ValueError, match="encoder: it has no output layer"):
        an.logit_lens(m, m.run("The cat sat."))


def test_a_trace_of_another_model_is_refused(hand) -> None:  # noqa: ANN001
    m = need("SmolLM2-135M")
    with pytest.raises(ValueError, match="is a run of hand-built induction, not of SmolLM2-135M"):
        an.logit_lens(m, hand[1])


# Obtained once with _independent above (float64, one layer at a time from each layer's output) on
# SmolLM2-135M's run of "The capital of France is", last position: (row, top token id, its string, p).
# Rows where the first token leads the second by at least 0.1.
SMOLLM2_LAST_POSITION = [
    (0, 314, " is", 1.0),
    (2, 30, ".", 0.82041),
    (20, 216, " ", 0.98152),
    (28, 260, " the", 0.67216),
    (30, 7042, " Paris", 0.77253),
]


def test_smollm2_lens_equals_the_recorded_and_the_independent_computation() -> None:
    m = need("SmolLM2-135M")
    trace = m.run("The capital of France is")
    reading = an.read_lens(m, trace, k=5)
    assert reading.ids.shape == (31, 5, 5)
    for row, tid, text, p in SMOLLM2_LAST_POSITION:
        assert int(reading.ids[row, -1, 0]) == tid and m.token_strings([tid]) == [text]
        assert reading.probs[row, -1, 0] == pytest.approx(p, abs=1e-4)
    own = m.top_next(trace, 5)
    assert reading.ids[-1, -1].tolist() == [t[0] for t in own]
    np.testing.assert_allclose(reading.probs[-1, -1], [t[2] for t in own], rtol=1e-6)
    want_ids, want_probs = _independent(m, trace, 5)
    clear = want_probs[..., 0] - want_probs[..., 1] > 1e-3  # float32 logits can swap closer neighbours
    np.testing.assert_array_equal(reading.ids[..., 0][clear], want_ids[..., 0][clear])
    np.testing.assert_allclose(reading.probs, want_probs, atol=2e-5)


def test_reading_the_vocabulary_a_block_at_a_time_equals_reading_it_whole(monkeypatch) -> None:  # noqa: ANN001
    rng = np.random.default_rng(3)
    x = rng.standard_normal((40, 16)).astype(np.float32)
    W = rng.standard_normal((16, 1000)).astype(np.float32)
    W[:, 12] = W[:, 700] = 10.0  # two tokens alike, in two blocks, first for some rows: the lower id first
    monkeypatch.setattr(lens, "BLOCK_BYTES", 4 * 40 * 96)  # blocks of 96 tokens, the last of 40
    monkeypatch.setattr(lens, "_MIN_COLUMNS", 1)
    z = (x @ W).astype(np.float64)  # (40, 1000) the straightforward way: every logit at once
    log_norm = z.max(axis=1) + np.log(np.exp(z - z.max(axis=1, keepdims=True)).sum(axis=1))
    for k in (1, 5, 50):
        ids, probs, got_norm = lens._read_rows(x, W, k)
        want = np.argsort(-z, axis=1, kind="stable")[:, :k]
        np.testing.assert_array_equal(ids, want)
        np.testing.assert_allclose(got_norm, log_norm, rtol=1e-6)
        np.testing.assert_allclose(
            probs, np.exp(np.take_along_axis(z, want, axis=1) - log_norm[:, None]), rtol=1e-5
        )
    assert (ids[:, :2] == [12, 700]).sum() > 10  # the tie is where the reading is decided
