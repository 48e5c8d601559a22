"""explorer/compute/pipeline.py: one traced run of an Example equals the core's calls on the same inputs."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attention_core as ac
from explorer.compute import pipeline
from explorer.model.example import Example, conform


def _ex(**settings: object) -> Example:
    return conform(Example(**settings))


def _core(ex: Example, mask: np.ndarray | None, scale: float, bias: np.ndarray | None, x: np.ndarray):
    # The attention every page shows is the encoder block's own: over LN(X) in pre-norm.
    mha = ac.multi_head_attention(
        ac.layer_norm(x) if ex.norm_first else x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, mask=mask, scale=scale,
        bias=bias, use_rope=ex.rope,
    )  # fmt: skip
    enc = ac.encoder_layer(
        x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, ex.w1, ex.w2, mask=mask, norm_first=ex.norm_first,
        scale=scale, bias=bias, use_rope=ex.rope,
    )  # fmt: skip
    return mha, enc


def _assert_same_trace(got: ac.AttentionTrace, want: ac.AttentionTrace) -> None:
    for field in ("q", "k", "v", "scores", "scaled", "masked", "weights", "head_outputs", "concat", "output"):
        assert_allclose(getattr(got, field), getattr(want, field), rtol=1e-12, atol=1e-14, err_msg=field)


def test_default_example_equals_core() -> None:
    ex = _ex()
    res = pipeline.run(ex)
    tokens = ac.tokenize(ex.sentence)
    assert res.tokens == tokens and res.labels == ac.token_labels(tokens) and not res.truncated
    assert res.error is None and res.encoder_error is None
    emb = ac.embed(tokens, ex.d_model, seed=ex.seed)
    pe = ac.positional_encoding(len(tokens), ex.d_model)
    assert_allclose(res.emb, emb, rtol=0, atol=0)
    assert_allclose(res.pe, pe, rtol=0, atol=0)
    assert_allclose(res.x, emb + pe, rtol=0, atol=0)
    assert res.scale == pytest.approx(1 / np.sqrt(ex.d_k)) and res.mask is None and res.bias is None
    mha, enc = _core(ex, None, 1 / np.sqrt(ex.d_k), None, emb + pe)
    _assert_same_trace(res.attention, mha)
    assert_allclose(res.encoder.output, enc.output, rtol=1e-12, atol=1e-14)
    assert_allclose(res.attention.weights.sum(axis=-1), 1.0, rtol=1e-12)


@pytest.mark.parametrize(
    "settings",
    [
        {"mask_kind": "causal", "n_heads": 3, "d_k": 2},
        {"mask_kind": "window", "window": 2, "alibi": True},
        {"mask_kind": "padding", "sentence": "I like tea [PAD] [PAD]"},
        {"scale_mode": "none", "rope": True, "pe_kind": "sinusoidal_split", "pe_base": 100.0},
        {"scale_mode": "custom", "scale_custom": 0.05, "pe_kind": "none", "norm_first": True},
        {"pe_scale": True, "d_model": 6, "seed": 7, "sentence": "the cat sat on the mat"},
    ],
)
def test_settings_reach_the_core(settings: dict) -> None:
    ex = _ex(**settings)
    res = pipeline.run(ex)
    assert res.error is None, res.error
    tokens = ac.tokenize(ex.sentence)
    n = len(tokens)
    emb = ac.embed(tokens, ex.d_model, seed=ex.seed) * (np.sqrt(ex.d_model) if ex.pe_scale else 1.0)
    pe = ac.positional_encoding(n, ex.d_model, kind=ex.pe_kind, base=ex.pe_base)
    mask = {
        "none": None,
        "causal": ac.causal_mask(n),
        "window": ac.sliding_window_mask(n, ex.window),
        "padding": ac.padding_mask(np.array([t == "[PAD]" for t in tokens])),
    }[ex.mask_kind]
    scale = {"sqrt": 1 / np.sqrt(ex.d_k), "none": 1.0, "custom": ex.scale_custom}[ex.scale_mode]
    bias = ac.alibi_bias(n, ex.n_heads) if ex.alibi else None
    assert res.scale == pytest.approx(scale)
    assert (res.mask is None) == (mask is None) and (mask is None or np.array_equal(res.mask, mask))
    assert (res.bias is None) == (bias is None)
    assert_allclose(res.x, emb + pe, rtol=1e-12, atol=1e-15)
    mha, enc = _core(ex, mask, scale, bias, emb + pe)
    _assert_same_trace(res.attention, mha)
    assert_allclose(res.encoder.output, enc.output, rtol=1e-10, atol=1e-12)


def test_padding_keys_get_no_weight() -> None:
    res = pipeline.run(_ex(mask_kind="padding", sentence="I like tea [PAD] [PAD]"))
    assert res.tokens[-2:] == ["[PAD]", "[PAD]"]
    assert_allclose(res.attention.weights[..., -2:], 0.0)


def test_table_and_learned_sources_use_the_edited_matrices() -> None:
    ex = _ex(emb_source="table", pe_kind="learned")
    emb = ex.emb.copy()
    emb[1, 2] = 3.5
    pe = ex.pe_table.copy()
    pe[0, 0] = -2.0
    res = pipeline.run(ex.with_(emb=emb, pe_table=pe))
    assert_allclose(res.emb, emb)
    assert_allclose(res.pe, pe)
    assert_allclose(res.x, emb + pe)


def test_custom_mask_used_as_given() -> None:
    ex = _ex(mask_kind="custom", sentence="a b c")
    custom = np.array([[True, False, True], [False, True, False], [True, True, True]])
    res = pipeline.run(ex.with_(custom_mask=custom))
    assert np.array_equal(res.mask, custom)
    assert_allclose(res.attention.weights[:, ~custom], 0.0)


def test_edited_weight_changes_every_later_step() -> None:
    ex = _ex()
    base = pipeline.run(ex)
    w_q = ex.w_q.copy()
    w_q[0, 0, 0] += 1.0
    res = pipeline.run(ex.with_(w_q=w_q))
    assert not np.allclose(res.attention.q[0], base.attention.q[0])
    assert_allclose(res.attention.q[1], base.attention.q[1])  # head 2 does not move
    assert not np.allclose(res.attention.weights[0], base.attention.weights[0])
    assert not np.allclose(res.attention.output, base.attention.output)


def test_empty_sentence_gives_a_message_not_an_error() -> None:
    res = pipeline.run(_ex(sentence="   "))
    assert res.n == 0 and res.attention is None and res.error and "type" in res.error.lower()


def test_long_sentence_is_cut_to_64_tokens() -> None:
    res = pipeline.run(_ex(sentence=" ".join(f"w{i}" for i in range(80))))
    assert res.truncated and res.n == 64 and res.attention.weights.shape == (2, 64, 64)


def test_bad_matrix_gives_a_readable_error() -> None:
    ex = _ex()
    w_q = ex.w_q.copy()
    w_q[0, 0, 0] = np.nan
    res = pipeline.run(ex.with_(w_q=w_q))
    assert res.attention is None and res.error and "w_q" in res.error.lower()


def test_contributions_sum_to_the_head_output() -> None:
    res = pipeline.run(_ex(sentence="the cat sat on the mat"))
    for h in range(2):
        for i in range(res.n):
            parts = res.contributions(h, i)
            assert parts.shape == (res.n, 4)
            assert_allclose(parts.sum(axis=0), res.attention.head_outputs[h, i], rtol=1e-12, atol=1e-14)
    assert_allclose(res.pe_gram, res.pe @ res.pe.T)


def test_scale_stats_match_a_direct_computation() -> None:
    res = pipeline.run(_ex(d_k=8))
    stats = pipeline.scale_stats(res.attention.scores, 8)
    s = res.attention.scores
    assert_allclose(stats.var_raw, s.var(axis=(1, 2)))
    assert_allclose(stats.var_scaled, (s / np.sqrt(8)).var(axis=(1, 2)))
    assert_allclose(stats.var_raw / stats.var_scaled, 8.0)
    w = ac.softmax(s, axis=-1)
    assert_allclose(stats.max_raw, w.max(axis=-1).mean(axis=-1))
    assert stats.max_entropy == pytest.approx(np.log(res.n))
    assert np.all(stats.ent_scaled >= stats.ent_raw - 1e-12)  # scaling down flattens the softmax


@pytest.mark.parametrize("kind", ["sinusoidal", "sinusoidal_split"])
def test_pe_curves_pass_through_the_encodings(kind: str) -> None:
    t, curves = pipeline.pe_curves(kind, 6, 10000.0, 5, steps=4)
    assert t.shape == (17,) and curves.shape == (17, 6)
    on_positions = curves[::4]  # t = 0, 1, 2, 3, 4
    assert_allclose(on_positions, ac.positional_encoding(5, 6, kind=kind), atol=1e-12)


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_stages_in_reading_order(norm_first: bool) -> None:
    res = pipeline.run(_ex(norm_first=norm_first))
    stages = pipeline.encoder_stages(res.encoder, norm_first)
    assert len(stages) == 8
    assert_allclose(stages[0][1], res.x)
    assert_allclose(stages[-1][1], res.encoder.output)
    assert [hidden for _, _, hidden in stages].count(True) == 1


@pytest.mark.parametrize("norm_first", [False, True])
def test_the_pages_and_the_encoder_block_read_one_attention_trace(norm_first: bool) -> None:
    """Attention is computed once, inside the encoder block: in pre-norm it reads LN(X), and says so."""
    res = pipeline.run(_ex(norm_first=norm_first, mask_kind="causal"))
    assert res.attention is res.encoder.attention
    assert res.attention_input == ("LN(X)" if norm_first else "X")
    x_in = ac.layer_norm(res.x) if norm_first else res.x
    assert_allclose(res.encoder.attn_input, x_in, rtol=0, atol=0)
    q = np.einsum("nd,hdk->hnk", x_in, _ex(norm_first=norm_first).w_q)  # (n_heads, n, d_k)
    assert_allclose(res.attention.q, q, rtol=1e-12, atol=1e-14)


def test_a_failing_block_still_shows_the_attention(monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise ValueError("the block cannot be computed")

    monkeypatch.setattr(ac, "encoder_layer", fails)
    ex = _ex(norm_first=True)
    res = pipeline.run(ex)
    assert res.error is None and res.encoder is None and res.encoder_error == "the block cannot be computed"
    want = ac.multi_head_attention(ac.layer_norm(res.x), ex.w_q, ex.w_k, ex.w_v, ex.w_o, scale=res.scale)
    _assert_same_trace(res.attention, want)
