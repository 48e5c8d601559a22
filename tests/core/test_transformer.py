"""attention_core.transformer: the real models' layer is the toy engine's layer, grown (GQA, biases, norms)."""

from __future__ import annotations

import dataclasses
import threading

import numpy as np
import pytest

from attention_core import (
    EmbeddingWeights,
    LayerWeights,
    ModelConfig,
    ModelWeights,
    causal_mask,
    encoder_layer,
    output_logits,
    rms_norm,
    rope,
    run_layers,
    run_transformer,
    silu,
)
from attention_core.pretrained._cache import ByteLRU
from attention_core.transformer import check_head_mask, transformer_layer


def _config(**kw: object) -> ModelConfig:
    base = dict(
        name="toy", n_layers=1, n_heads=4, n_kv_heads=4, d_model=8, d_k=2, d_ff=16, vocab_size=10,
        max_positions=32, norm="layer_norm", norm_first=False, eps=1e-5, activation="relu",
        positions="learned", rope_base=None, causal=False, tied_embeddings=False, has_logits=False,
        dtype="float64",
    )  # fmt: skip
    return ModelConfig(**{**base, **kw})


def _weights(rng: np.random.Generator, c: ModelConfig, **kw: object) -> LayerWeights:
    width = (c.n_heads + 2 * c.n_kv_heads) * c.d_k
    base = dict(
        w_qkv=rng.standard_normal((c.d_model, width)) / 3, b_qkv=None,
        w_o=rng.standard_normal((c.n_heads * c.d_k, c.d_model)) / 3, b_o=None,
        w1=rng.standard_normal((c.d_model, c.d_ff)) / 3, b1=None, w_up=None,
        w2=rng.standard_normal((c.d_ff, c.d_model)) / 3, b2=None,
        attn_norm_gain=None, attn_norm_bias=None, norm1_gain=None, norm1_bias=None,
        norm2_gain=None, norm2_bias=None, n_heads=c.n_heads, n_kv_heads=c.n_kv_heads, d_k=c.d_k,
    )  # fmt: skip
    return LayerWeights(**{**base, **kw})


@pytest.mark.parametrize("norm_first", [False, True])
def test_the_plain_layer_is_the_toy_encoder_layer(norm_first: bool) -> None:
    rng = np.random.default_rng(0)
    c = _config(norm_first=norm_first)
    w = _weights(rng, c)
    x = rng.standard_normal((5, 8))
    got = transformer_layer(x, w, c)
    ref = encoder_layer(x, w.w_q, w.w_k, w.w_v, w.w_o, w.w1, w.w2, norm_first=norm_first)
    np.testing.assert_allclose(got.output, ref.output, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.weights, ref.attention.weights, rtol=1e-12)
    np.testing.assert_allclose(got.ffn_hidden, ref.ffn_hidden, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("norm_first", [False, True])
def test_an_attention_only_layer_without_norms_adds_its_heads_to_x(norm_first: bool) -> None:
    """norm "none" and d_ff 0 (the tiny model trained in the engine): the output is X + MHA(X)."""
    rng = np.random.default_rng(1)
    c = _config(norm="none", norm_first=norm_first, d_ff=0)
    w = _weights(rng, c)
    x = rng.standard_normal((5, 8))
    got = transformer_layer(x, w, c, causal_mask(5))
    np.testing.assert_array_equal(got.attn_input, x)
    np.testing.assert_allclose(got.output, x + got.attention.output, rtol=1e-15, atol=1e-15)
    assert got.ffn_hidden.shape == (5, 0) and not got.ffn_out.any()


def test_grouped_query_attention_equals_repeated_key_value_heads() -> None:
    rng = np.random.default_rng(1)
    c = _config(n_heads=6, n_kv_heads=2, d_model=12, norm="rms_norm", norm_first=True, activation="swiglu",
                rope_base=100000.0, positions="rope", causal=True)  # fmt: skip
    w = _weights(rng, c, w_up=rng.standard_normal((12, 16)) / 3, attn_norm_gain=rng.standard_normal(12),
                 norm1_gain=rng.standard_normal(12))  # fmt: skip
    x = rng.standard_normal((7, 12))
    got = transformer_layer(x, w, c, causal_mask(7))
    assert got.attention.kv_head == (0, 0, 0, 1, 1, 1)
    # The same layer with each key/value head written out once per query head (no sharing).
    idx = [0, 0, 0, 1, 1, 1]
    full = np.concatenate([w.w_q.transpose(1, 0, 2).reshape(12, -1)]
                          + [a[idx].transpose(1, 0, 2).reshape(12, -1) for a in (w.w_k, w.w_v)], axis=1)  # fmt: skip
    c6 = dataclasses.replace(c, n_kv_heads=6)
    ref = transformer_layer(x, dataclasses.replace(w, w_qkv=full, n_kv_heads=6), c6, causal_mask(7))
    np.testing.assert_allclose(got.output, ref.output, rtol=1e-12, atol=1e-12)
    # Each step as the formulas say: RMSNorm with gain, RoPE on adjacent pairs, causal, SwiGLU.
    attn_in = rms_norm(x, 1e-5, w.attn_norm_gain)
    np.testing.assert_allclose(got.attn_input, attn_in, rtol=1e-12)
    np.testing.assert_allclose(
        got.q, rope(np.einsum("nd,hde->hne", attn_in, w.w_q), base=100000.0), rtol=1e-10
    )
    assert np.all(np.triu(got.weights, 1) == 0)
    np.testing.assert_allclose(got.ffn_hidden, silu(got.norm1 @ w.w1) * (got.norm1 @ w.w_up), rtol=1e-12)
    np.testing.assert_allclose(got.output, got.sum1 + got.ffn_hidden @ w.w2, rtol=1e-12)


def test_biases_and_head_mask() -> None:
    rng = np.random.default_rng(2)
    c = _config()
    w = _weights(rng, c, b_qkv=rng.standard_normal(24), b_o=rng.standard_normal(8))
    x = rng.standard_normal((3, 8))
    t = transformer_layer(x, w, c, head_mask=np.array([1.0, 0.0, 0.5, 1.0]))
    np.testing.assert_allclose(t.q[1], x @ w.w_q[1] + w.b_q[1], rtol=1e-12)
    np.testing.assert_allclose(t.v[2], x @ w.w_v[2] + w.b_v[2], rtol=1e-12)
    np.testing.assert_array_equal(t.concat[:, 2:4], 0.0)
    np.testing.assert_allclose(t.concat[:, 4:6], 0.5 * t.head_outputs[2], rtol=1e-15)
    np.testing.assert_allclose(t.attention.output, t.concat @ w.w_o + w.b_o, rtol=1e-12)
    assert check_head_mask(np.ones((1, 4)), c) is None  # all ones is no mask (one cache entry)


def test_byte_lru_evicts_by_bytes() -> None:
    cache: ByteLRU[str] = ByteLRU(100)
    cache.put("a", "A", 40)
    cache.put("b", "B", 40)
    assert cache.get("a") == "A"  # a is now the most recent
    cache.put("c", "C", 40)  # 120 > 100: the least recently used (b) goes
    assert cache.get("b") is None and cache.get("a") == "A" and cache.get("c") == "C"
    cache.put("huge", "H", 101)  # larger than the bound: not stored, nothing evicted
    assert cache.get("huge") is None and cache.info()["bytes"] == 80

    def writer(k: int) -> None:
        for i in range(200):
            cache.put(f"{k}-{i}", "x", 7)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    info = cache.info()
    assert info["bytes"] <= 100 and info["bytes"] == 7 * info["entries"]


def test_a_batch_of_sequences_is_each_sequence_run_alone() -> None:
    rng = np.random.default_rng(3)
    c = _config(n_heads=6, n_kv_heads=2, d_model=12, norm="rms_norm", norm_first=True, activation="swiglu",
                rope_base=10000.0, positions="rope", causal=True)  # fmt: skip
    w = _weights(rng, c, w_up=rng.standard_normal((12, 16)) / 3, attn_norm_gain=rng.standard_normal(12),
                 norm1_gain=rng.standard_normal(12))  # fmt: skip
    x = rng.standard_normal((2, 3, 5, 12))  # (2, 3) sequences of 5 tokens
    head_mask = rng.uniform(0, 1, (2, 3, 6))
    replacement = rng.standard_normal((6, 5, 2)), rng.uniform(size=(2, 3, 6)) < 0.5
    got = transformer_layer(x, w, c, causal_mask(5), head_mask, replacement)
    for i, j in np.ndindex(2, 3):
        one = transformer_layer(
            x[i, j], w, c, causal_mask(5), head_mask[i, j], (replacement[0], replacement[1][i, j])
        )
        np.testing.assert_allclose(got.output[i, j], one.output, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got.weights[i, j], one.weights, rtol=1e-12, atol=1e-15)
    # The replaced heads hold the given outputs, the others their own A V.
    alone = transformer_layer(x[1, 2], w, c, causal_mask(5))
    kept = ~replacement[1][1, 2]
    np.testing.assert_allclose(got.head_outputs[1, 2][kept], alone.head_outputs[kept], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(got.head_outputs[1, 2][~kept], replacement[0][~kept])


def test_run_layers_and_output_logits_continue_a_run() -> None:
    rng = np.random.default_rng(4)
    c = _config(
        n_layers=3, norm="rms_norm", norm_first=True, causal=True, has_logits=True, tied_embeddings=True
    )
    layers = tuple(_weights(rng, c) for _ in range(3))
    weights = ModelWeights(EmbeddingWeights(rng.standard_normal((10, 8)), rng.standard_normal((32, 8))), layers,
                           final_norm_gain=rng.standard_normal(8))  # fmt: skip
    ids = np.array([1, 4, 2, 7])
    emb, trace, final, logits = run_transformer(ids, weights, c)
    np.testing.assert_allclose(run_layers(trace[1].x, weights, c, 1), trace[-1].output, rtol=1e-12)
    np.testing.assert_array_equal(run_layers(trace[2].x, weights, c, 2, 2), trace[2].x)
    np.testing.assert_allclose(output_logits(trace[-1].output, weights, c), logits, rtol=1e-12)
    np.testing.assert_allclose(
        output_logits(trace[-1].output, weights, c, [7, 3]), logits[:, [7, 3]], rtol=1e-12
    )


@pytest.mark.parametrize("norm_first", [False, True])
def test_the_toy_layer_is_transformer_layer_with_alibi_a_custom_scale_rope_and_a_mask_per_head(
    norm_first: bool,
) -> None:
    # encoder_layer is a name for transformer_layer: its numbers are those of the layer composed by hand
    # from the engine's small functions (attention with every option, layer norm, the ReLU network).
    from attention_core import alibi_bias, feed_forward, layer_norm, multi_head_attention

    rng = np.random.default_rng(3)
    h, n, d, k, f = 2, 5, 8, 4, 6
    x = rng.standard_normal((n, d))
    w_q, w_k, w_v = (rng.standard_normal((h, d, k)) for _ in range(3))
    w_o, w1, w2 = rng.standard_normal((h * k, d)), rng.standard_normal((d, f)), rng.standard_normal((f, d))
    mask = np.stack([np.tril(np.ones((n, n), dtype=bool)), np.ones((n, n), dtype=bool)])  # (h, n, n)
    options = dict(mask=mask, scale=0.3, bias=alibi_bias(n, h), use_rope=True)
    got = encoder_layer(x, w_q, w_k, w_v, w_o, w1, w2, norm_first=norm_first, **options)
    attn_in = layer_norm(x) if norm_first else x
    attn = multi_head_attention(attn_in, w_q, w_k, w_v, w_o, **options)
    sum1 = x + attn.output
    norm1 = layer_norm(sum1)
    sum2 = (sum1 if norm_first else norm1) + feed_forward(norm1, w1, w2)
    want = sum2 if norm_first else layer_norm(sum2)
    for name in ("q", "k", "scaled", "masked", "weights", "head_outputs", "output"):
        np.testing.assert_allclose(getattr(got.attention, name), getattr(attn, name), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.output, want, rtol=1e-12, atol=1e-12)
    assert got.attention.scale == 0.3 and got.attention.use_rope
    np.testing.assert_array_equal(got.attention.bias, alibi_bias(n, h))
