"""SmolLM2-135M in numpy: reference numbers, computed with the reference implementation on the same
GGUF weights (4-bit Q4_1 layers, 8-bit Q8_0 embedding, dequantized to float32)."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import pretrained

from .models import need

NAME = "SmolLM2-135M"
PARIS = "The capital of France is"


@pytest.fixture(scope="module")
def m() -> pretrained.Model:
    return need(NAME)


def test_ids_and_tokens(m: pretrained.Model) -> None:
    t = m.run(PARIS)
    assert t.token_ids == [504, 3575, 282, 4649, 314]  # no BOS
    assert t.tokens == ["The", " capital", " of", " France", " is"]


def test_next_token_after_the_capital_of_france(m: pretrained.Model) -> None:
    t = m.run(PARIS)
    top = m.top_next(t, 5)
    assert [s for _, s, _, _ in top] == [" Paris", " the", " London", " Le", " New"]
    np.testing.assert_allclose([p for _, _, p, _ in top], [0.773, 0.065, 0.012, 0.010, 0.009], atol=1.5e-3)
    assert top[0][3] == pytest.approx(17.371, abs=2e-3)
    assert t.logits is not None and t.logits.shape == (5, 49152) and t.logits.dtype == np.float32


def test_attention_rows(m: pretrained.Model) -> None:
    t = m.run(PARIS)
    np.testing.assert_allclose(t.attentions[0, 0, -1], [0.2853, 0.2456, 0.0479, 0.1256, 0.2955], atol=1e-4)
    np.testing.assert_allclose(t.attentions[15, 4, -1], [0.7851, 0.0357, 0.0653, 0.0458, 0.0681], atol=1e-4)


def test_counting(m: pretrained.Model) -> None:
    top = m.top_next(m.run("One, two, three, four,"), 3)
    assert [s for _, s, _, _ in top] == [" five", " six", " and"]
    np.testing.assert_allclose([p for _, _, p, _ in top], [0.341, 0.197, 0.136], atol=1.5e-3)


def test_config_and_shapes(m: pretrained.Model) -> None:
    c = m.config
    assert (c.n_layers, c.n_heads, c.n_kv_heads, c.d_model, c.d_k, c.d_ff, c.vocab_size) == (
        30, 9, 3, 576, 64, 1536, 49152,
    )  # fmt: skip
    assert (c.norm, c.norm_first, c.activation, c.positions, c.rope_base, c.causal) == (
        "rms_norm", True, "swiglu", "rope", 100000.0, True,
    )  # fmt: skip
    assert c.tied_embeddings and c.eps == pytest.approx(1e-5)
    assert "Q4_1" in c.weights and "Q8_0" in c.weights
    t = m.run(PARIS)
    assert t.attentions.shape == (30, 9, 5, 5) and t.hidden_states.shape == (31, 5, 576)
    assert t.kv_head == (0, 0, 0, 1, 1, 1, 2, 2, 2)
    layer = t.layers[3]
    assert layer.attention.kv_head == t.kv_head and layer.attention.use_rope
    assert layer.q.shape == layer.k.shape == layer.v.shape == (9, 5, 64)
    np.testing.assert_array_equal(layer.k[3], layer.k[5])  # query heads 3..5 share key/value head 1
    assert not np.array_equal(layer.k[2], layer.k[3])
    # causal: nothing above the diagonal
    assert np.all(np.triu(t.attentions[:, :, :, :], k=1) == 0)
    np.testing.assert_allclose(t.attentions.sum(axis=-1), 1.0, atol=1e-5)
    # the last hidden state is after the final RMSNorm; the logits read it through the tied embedding
    np.testing.assert_allclose(
        t.logits, t.hidden_states[-1] @ m.weights.embeddings.token.T, rtol=1e-5, atol=1e-4
    )
    assert layer.ffn_up is not None and layer.activation == "swiglu" and layer.norm == "rms_norm"


def test_rope_rotates_adjacent_pairs(m: pretrained.Model) -> None:
    from attention_core import rope

    layer = m.run(PARIS).layers[0]
    expected = rope(np.asarray(layer.attention.q_pre_rope, dtype=np.float64), base=100000.0)
    np.testing.assert_allclose(layer.q, expected, rtol=1e-4, atol=1e-4)
    assert layer.attention.q_pre_rope is not None
    w = m.layer_weights(0)
    np.testing.assert_allclose(
        layer.attention.q_pre_rope[4], layer.attn_input @ w.w_q[4], rtol=1e-4, atol=1e-4
    )
    assert w.w_k.shape == (3, 576, 64) and w.w_q.shape == (9, 576, 64) and w.b_q is None


def test_removing_a_head(m: pretrained.Model) -> None:
    mask = np.ones((30, 9))
    mask[0, 0] = 0.0
    t = m.run(PARIS, mask)
    layer = t.layers[0]
    assert np.all(layer.concat[:, :64] == 0) and np.any(layer.head_outputs[0] != 0)
    w = m.layer_weights(0)
    w_o = np.array(w.w_o)
    w_o[:64] = 0.0
    np.testing.assert_allclose(
        layer.attention.output, np.asarray(m.run(PARIS).layers[0].concat) @ w_o, rtol=1e-4, atol=1e-5
    )
    assert m.top_next(t, 1)[0][1] != "" and t.head_mask[0, 0] == 0


def test_long_prompt_is_cut(m: pretrained.Model) -> None:
    t = m.run(("one two three four five six seven eight nine ten " * 10).strip())
    assert t.n_tokens == 64 and t.truncated and t.n_text_tokens == 100
    assert t.message is not None and "100 tokens" in t.message


def test_bytes_of_characters_split_over_tokens_stay_readable(m: pretrained.Model) -> None:
    t = m.run("naïve café 🙂")
    assert "".join(t.tokens).replace("<0xF0><0x9F><0x99><0x82>", "🙂").startswith("naïve café")
    assert all(isinstance(s, str) and s for s in t.tokens)
