"""attention_core.training: gradients against central finite differences, Adam by hand, data, head scores."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_core import training as tr
from attention_core.training.model import _EPS

SMALL = {"n_layers": 2, "n_heads": 2, "d_model": 8, "vocab": 7, "n_ctx": 6}


def _numeric_grad(
    cfg: tr.TinyConfig, params: dict, tokens: np.ndarray, name: str, entries: list, h: float = 1e-5
) -> np.ndarray:
    """d loss / d params[name] at the given entries (index tuples), by central differences."""
    out = np.zeros(len(entries))
    for i, idx in enumerate(entries):
        values = []
        for sign in (1.0, -1.0):
            shifted = {k: v.copy() for k, v in params.items()}
            shifted[name][idx] += sign * h
            values.append(tr.loss_and_grads(cfg, shifted, tokens)[0])
        out[i] = (values[0] - values[1]) / (2 * h)
    return out


@pytest.mark.parametrize("norm", tr.NORMS)
def test_every_gradient_matches_central_differences(norm: str) -> None:
    cfg = tr.TinyConfig(**SMALL, norm=norm)
    rng = np.random.default_rng(3)
    # norm gains and biases away from 1 and 0 (init's positions already make the attention unequal; much
    # larger weights saturate it, and a loss of hundreds leaves finite differences only rounding error)
    params = {k: v if v.ndim > 1 else 1.0 + rng.standard_normal(v.shape) for k, v in tr.init(cfg, 1).items()}
    params["embed"] *= 2.0  # tokens as strong as positions, so the scores depend on both
    if norm == "layer":
        for key in [k for k in params if k.endswith("bias")]:
            params[key] = rng.standard_normal(params[key].shape)
    tokens = rng.integers(
        0, cfg.vocab, size=(3, 5)
    )  # T = 5 < n_ctx: the last position vector gets no gradient
    loss, grads = tr.loss_and_grads(cfg, params, tokens)
    assert set(grads) == set(params) == set(tr.param_shapes(cfg))
    assert math.isfinite(loss)
    for name, shape in tr.param_shapes(cfg).items():
        assert grads[name].shape == shape
        # 12 entries of each parameter (drawn at random), so the
        # check stays fast
        flat = rng.choice(int(np.prod(shape)), size=min(12, int(np.prod(shape))), replace=False)
        entries = [np.unravel_index(i, shape) for i in sorted(flat)]
        numeric = _numeric_grad(cfg, params, tokens, name, entries)
        analytic = np.array([grads[name][idx] for idx in entries])
        err = np.linalg.norm(analytic - numeric) / np.linalg.norm(analytic + numeric)
        assert err <= 1e-6, f"{name}: relative error {err:.2e}"
    np.testing.assert_array_equal(grads["pos"][5], 0.0)


def test_norm_parameters_are_those_of_the_norm() -> None:
    names = {norm: set(tr.param_shapes(tr.TinyConfig(**SMALL, norm=norm))) for norm in tr.NORMS}
    assert not any("norm" in n or n.startswith("final") for n in names["none"])
    assert names["rms"] - names["none"] == {"layers.0.norm_gain", "layers.1.norm_gain", "final_gain"}
    assert names["layer"] - names["rms"] == {"layers.0.norm_bias", "layers.1.norm_bias", "final_bias"}


def test_loss_is_the_mean_next_token_cross_entropy_of_the_traced_run() -> None:
    cfg = tr.TinyConfig(**SMALL, norm="layer")
    params = tr.init(cfg, 0)
    tokens = np.random.default_rng(0).integers(0, cfg.vocab, size=(4, 6))
    trace = tr.run(cfg, params, tokens)
    z = trace.logits[:, :-1]  # (B, T - 1, V)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    expected = -np.take_along_axis(logp, tokens[:, 1:, None], axis=2)[..., 0]
    np.testing.assert_allclose(trace.losses, expected, rtol=1e-12)
    assert tr.loss_and_grads(cfg, params, tokens)[0] == pytest.approx(expected.mean(), rel=1e-12)
    # a fresh model knows nothing: the loss is near log V
    assert expected.mean() == pytest.approx(math.log(cfg.vocab), abs=0.1)
    A = trace.attentions
    assert A.shape == (4, 2, 2, 6, 6)
    np.testing.assert_allclose(A.sum(axis=-1), 1.0, rtol=1e-12)
    assert np.all(np.triu(A, k=1) == 0.0)  # causal: no query sees a later key


def test_attention_weights_are_those_of_the_engine_for_one_sequence() -> None:
    from attention_core import causal_mask, multi_head_attention

    cfg = tr.TinyConfig(**SMALL)
    p = tr.init(cfg, 4)
    tokens = np.array([[1, 4, 2, 2, 6, 0]])
    x = p["embed"][tokens[0]] + p["pos"]
    trace = multi_head_attention(
        x, p["layers.0.w_q"], p["layers.0.w_k"], p["layers.0.w_v"], p["layers.0.w_o"], causal_mask(6)
    )
    np.testing.assert_allclose(tr.run(cfg, p, tokens).attentions[0, 0], trace.weights, rtol=1e-12)


def test_rms_norm_of_the_engine_is_the_training_norm() -> None:
    from attention_core import layer_norm, rms_norm
    from attention_core.training.model import _norm

    x = np.random.default_rng(1).standard_normal((5, 8))
    g, b = np.full(8, 1.5), np.linspace(-1, 1, 8)
    np.testing.assert_allclose(_norm("rms", x, g, None)[0], rms_norm(x, _EPS, g), rtol=1e-12)
    np.testing.assert_allclose(_norm("layer", x, g, b)[0], layer_norm(x, _EPS, g, b), rtol=1e-12)


def test_adam_two_steps_by_hand() -> None:
    p = {"w": np.array([1.0, -2.0])}
    g1, g2 = {"w": np.array([0.5, -1.0])}, {"w": np.array([-0.25, 2.0])}
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    p1, s1 = tr.adam_step(p, g1, tr.adam_init(p), lr=lr, beta1=b1, beta2=b2, eps=eps)
    # step 1: m = 0.1 g, v = 0.001 g^2; corrected m / sqrt(v) = g / |g| = sign(g): each weight moves by lr
    np.testing.assert_allclose(p1["w"], [1.0 - 0.1, -2.0 + 0.1], rtol=1e-7)
    p2, s2 = tr.adam_step(p1, g2, s1, lr=lr, beta1=b1, beta2=b2, eps=eps)
    m = 0.9 * 0.1 * np.array([0.5, -1.0]) + 0.1 * np.array([-0.25, 2.0])  # [0.02, 0.11]
    v = 0.999 * 0.001 * np.array([0.25, 1.0]) + 0.001 * np.array([0.0625, 4.0])  # [0.00031225, 0.004999]
    step = lr * (m / (1 - 0.9**2)) / (np.sqrt(v / (1 - 0.999**2)) + eps)
    np.testing.assert_allclose(s2.m["w"], m, rtol=1e-12)
    np.testing.assert_allclose(s2.v["w"], v, rtol=1e-12)
    np.testing.assert_allclose(p2["w"], p1["w"] - step, rtol=1e-12)
    assert s2.step == 2
    np.testing.assert_array_equal(p["w"], [1.0, -2.0])  # the arguments are not changed


def test_repeated_halves_repeat_at_varied_offsets() -> None:
    b = tr.repeated_halves(np.random.default_rng(5), 400, 32, 32)
    assert b.tokens.shape == (400, 32) and b.tokens.min() >= 0 and b.tokens.max() < 32
    for row, o, n in zip(b.tokens, b.starts, b.lengths, strict=True):
        assert 12 <= n <= 16 and 0 <= o <= 32 - 2 * n
        np.testing.assert_array_equal(row[o + n : o + 2 * n], row[o : o + n])
    assert len(set(b.starts.tolist())) >= 8  # varied offsets: no positional shortcut
    targets = tr.repeat_targets(b)
    assert targets.shape == (400, 31)
    np.testing.assert_array_equal(targets.sum(axis=1), b.lengths - 1)
    i = int(np.argmax(targets[0]))  # the first prediction of a copied token: of position o + n + 1
    assert i + 1 == b.starts[0] + b.lengths[0] + 1
    again = tr.repeated_halves(np.random.default_rng(5), 400, 32, 32)
    np.testing.assert_array_equal(again.tokens, b.tokens)


def test_a_share_of_short_repeats_reaches_the_last_positions() -> None:
    b = tr.repeated_halves(np.random.default_rng(6), 800, 32, 32, short_share=0.3)
    short = b.lengths < 12
    assert 0.2 <= short.mean() <= 0.4 and b.lengths[short].min() == 2 and b.lengths.max() == 16
    for row, o, n in zip(b.tokens, b.starts, b.lengths, strict=True):
        assert 0 <= o <= 32 - 2 * n
        np.testing.assert_array_equal(row[o + n : o + 2 * n], row[o : o + n])
    # the last key a copied token's query can use (o + n - 1, in the first copy) now reaches past 19
    assert (b.starts + b.lengths - 1).max() >= 27 and (b.starts[~short] + b.lengths[~short] - 1).max() <= 19
    plain = tr.repeated_halves(np.random.default_rng(5), 400, 32, 32, short_share=0.0)
    np.testing.assert_array_equal(
        plain.tokens, tr.repeated_halves(np.random.default_rng(5), 400, 32, 32).tokens
    )
    with pytest.raises(ValueError, match="short_share"):
        tr.repeated_halves(np.random.default_rng(0), 4, 32, 32, short_share=1.5)


def test_repeated_runs_are_distinct_tokens_twice() -> None:
    runs = tr.repeated_runs(np.random.default_rng(0), 5, 6, 9)
    assert runs.shape == (5, 12)
    np.testing.assert_array_equal(runs[:, :6], runs[:, 6:])
    assert all(len(set(r[:6].tolist())) == 6 for r in runs)


def _hand_built() -> tuple[tr.TinyConfig, dict, int]:
    """Layer 1 head 0 attends to the previous token and writes that token's one-hot into its own subspace;
    layer 2 head 0 attends to the key whose previous token is the query's token (K-composition): an
    induction head. Head 1 of each layer has W_Q = 0 (uniform weights). Residual: tokens | positions | prev."""
    V, T, c = 6, 8, 30.0
    cfg = tr.TinyConfig(n_layers=2, n_heads=2, d_model=2 * V + T, vocab=V, n_ctx=T)
    p = {k: np.zeros(s) for k, s in tr.param_shapes(cfg).items()}
    p["embed"][:, :V] = np.eye(V)
    p["pos"][:, V : V + T] = np.eye(T)
    for i in range(T):
        p["layers.0.w_q"][0, V + i, i] = c  # position i looks for ...
        if i + 1 < T:
            p["layers.0.w_k"][0, V + i, i + 1] = c  # ... the key at position i - 1
    p["layers.0.w_v"][0, :V, :V] = np.eye(V)  # the previous token's one-hot ...
    p["layers.0.w_o"][:V, V + T :] = np.eye(V)  # ... into the prev subspace
    p["layers.1.w_q"][0, :V, :V] = c * np.eye(V)  # the query's token ...
    p["layers.1.w_k"][0, V + T :, :V] = c * np.eye(V)  # ... against each key's previous token
    p["unembed"][:V] = np.eye(V)
    return cfg, p, T // 2


def test_scores_of_hand_built_heads_and_k_composition() -> None:
    cfg, p, n = _hand_built()
    runs = tr.repeated_runs(np.random.default_rng(2), 4, n, cfg.vocab)
    induction, previous = tr.head_scores(cfg, p, runs)
    assert previous[0, 0] == pytest.approx(1.0, abs=1e-6)
    # the second copy's first query finds its token's follower at key 1, and equally at key 0, which (having
    # no token before it) attended to itself and so holds its own token as "previous": (n - 1/2) / n
    assert induction[1, 0] == pytest.approx((n - 0.5) / n, abs=1e-6)
    uniform_prev = np.mean([1 / (i + 1) for i in range(1, 2 * n)])
    uniform_ind = np.mean([1 / (i + 1) for i in range(n, 2 * n)])
    assert previous[0, 1] == pytest.approx(uniform_prev, rel=1e-12)
    assert induction[1, 1] == pytest.approx(uniform_ind, rel=1e-12)
    # the previous-token head switched off: the induction head's keys hold no previous token any more
    off = np.ones((2, 2))
    off[0, 0] = 0.0
    induction_off, _ = tr.head_scores(cfg, p, runs, head_mask=off)
    assert induction_off[1, 0] == pytest.approx(uniform_ind, rel=1e-9)


def test_training_lowers_the_loss_and_the_callback_can_stop_it() -> None:
    cfg = tr.TinyConfig(n_layers=1, n_heads=2, d_model=16, vocab=8, n_ctx=8)
    seen: list[tuple[int, float]] = []

    def callback(s: tr.TrainStep) -> bool:
        seen.append((s.step, s.loss))
        return s.step < 60

    params, state = tr.train(
        cfg, tr.init(cfg, 0), 500, np.random.default_rng(0), lr=1e-2, batch=16, callback=callback
    )
    assert state.step == 60 and [s for s, _ in seen] == list(range(1, 61))
    assert np.mean([loss for _, loss in seen[-10:]]) < np.mean([loss for _, loss in seen[:10]]) - 0.1
    again, _ = tr.train(cfg, tr.init(cfg, 0), 60, np.random.default_rng(0), lr=1e-2, batch=16)
    for name in params:  # the same seed and generator: the same numbers, bit for bit
        np.testing.assert_array_equal(again[name], params[name])


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"d_model": 10, "n_heads": 4}, "multiple of n_heads"),
        ({"norm": "batch"}, "norm must be one of"),
        ({"vocab": 1}, "vocab"),
    ],
)
def test_bad_configurations_say_what_is_wrong(kwargs: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        tr.TinyConfig(**kwargs)


def test_bad_tokens_and_params_say_what_is_wrong() -> None:
    cfg = tr.TinyConfig(**SMALL)
    p = tr.init(cfg, 0)
    with pytest.raises(ValueError, match="must lie in 0 .. 6"):
        tr.loss_and_grads(cfg, p, np.array([[1, 7, 2]]))
    with pytest.raises(ValueError, match="2 <= T <= n_ctx = 6"):
        tr.loss_and_grads(cfg, p, np.zeros((2, 7), dtype=int))
    with pytest.raises(ValueError, match="missing"):
        tr.loss_and_grads(cfg, {k: v for k, v in p.items() if k != "pos"}, np.zeros((1, 3), dtype=int))
    with pytest.raises(ValueError, match=r"params\['embed'\] has shape \(7, 4\)"):
        tr.loss_and_grads(cfg, {**p, "embed": np.zeros((7, 4))}, np.zeros((1, 3), dtype=int))
