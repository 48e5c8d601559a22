"""all-MiniLM-L6-v2 in numpy: reference numbers, computed with the reference implementation on the
same weights (sentence-transformers, float32)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from attention_core import pretrained, run_transformer

from .models import need

NAME = "all-MiniLM-L6-v2"
CAT = "The cat sat on the mat because it was warm."


@pytest.fixture(scope="module")
def m() -> pretrained.Model:
    return need(NAME)


def test_tokens_and_ids(m: pretrained.Model) -> None:
    t = m.run(CAT)
    assert t.tokens == [
        "[CLS]",
        "the",
        "cat",
        "sat",
        "on",
        "the",
        "mat",
        "because",
        "it",
        "was",
        "warm",
        ".",
        "[SEP]",
    ]
    assert t.token_ids == [101, 1996, 4937, 2938, 2006, 1996, 13523, 2138, 2009, 2001, 4010, 1012, 102]


def test_wordpiece_splits_spanish(m: pretrained.Model) -> None:
    t = m.run("Me gusta estudiar inteligencia artificial")
    assert t.tokens[1:-1] == [
        "me",
        "gust",
        "##a",
        "est",
        "##udi",
        "##ar",
        "intel",
        "##igen",
        "##cia",
        "artificial",
    ]


def test_layer_3_head_6_row_of_it(m: pretrained.Model) -> None:
    t = m.run(CAT)
    row = t.attentions[2, 5, t.tokens.index("it")]  # layer 3, head 6 (1-based)
    expected = [
        0.4110,
        0.0704,
        0.1289,
        0.0119,
        0.0066,
        0.0153,
        0.1996,
        0.0040,
        0.0372,
        0.0097,
        0.0989,
        0.0033,
    ]
    np.testing.assert_allclose(row, [*expected, 0.0032], atol=1e-4)
    np.testing.assert_array_equal(t.layers[2].weights[5], t.attentions[2, 5])


def test_sentence_embedding_and_cosines(m: pretrained.Model) -> None:
    e = m.run(CAT).sentence_embedding()
    np.testing.assert_allclose(e[:4], [0.11828, 0.00915, -0.00309, 0.11086], atol=1e-5)
    assert np.linalg.norm(e) == pytest.approx(1.0)
    close = float(e @ m.run("A cat was sitting on the rug.").sentence_embedding())
    far = float(e @ m.run("The stock market fell sharply today.").sentence_embedding())
    assert close == pytest.approx(0.6810, abs=2e-4)
    assert far == pytest.approx(0.0567, abs=2e-4)


def test_shapes_config_and_stages(m: pretrained.Model) -> None:
    c = m.config
    assert (c.n_layers, c.n_heads, c.n_kv_heads, c.d_model, c.d_k, c.d_ff, c.vocab_size) == (
        6, 12, 12, 384, 32, 1536, 30522,
    )  # fmt: skip
    assert (c.norm, c.norm_first, c.activation, c.positions, c.causal) == (
        "layer_norm", False, "gelu", "learned", False,
    )  # fmt: skip
    t = m.run(CAT)
    n = 13
    assert t.attentions.shape == (6, 12, n, n) and t.attentions.dtype == np.float32
    assert t.hidden_states.shape == (7, n, 384)
    assert t.logits is None and not t.truncated and t.message is None
    np.testing.assert_allclose(t.attentions.sum(axis=-1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(t.hidden_states[0], t.embeddings.output)
    for i, layer in enumerate(t.layers):
        np.testing.assert_array_equal(t.hidden_states[i + 1], layer.output)
        assert layer.attn_input is layer.x or np.array_equal(layer.attn_input, layer.x)  # post-norm
        assert layer.q.shape == layer.k.shape == layer.v.shape == (12, n, 32)
        assert layer.ffn_hidden.shape == (n, 1536) and layer.ffn_up is None
        assert layer.attention.kv_head is None
    # The stages add up: the first residual sum, then post-norm layer norm with gain and bias.
    layer = t.layers[0]
    np.testing.assert_allclose(layer.sum1, layer.x + layer.attention.output, rtol=1e-6)
    w = m.layer_weights(0)
    np.testing.assert_allclose(layer.attention.output, layer.concat @ w.w_o + w.b_o, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(layer.q[3], layer.x @ w.w_q[3] + w.b_q[3], rtol=1e-4, atol=1e-4)


def test_results_are_read_only_and_cached(m: pretrained.Model) -> None:
    t = m.run(CAT)
    for arr in (t.attentions, t.hidden_states, t.layers[0].q, t.layers[0].ffn_hidden, t.embeddings.token):
        assert not arr.flags.writeable
    w = m.layer_weights(1)
    assert not w.w_qkv.flags.writeable and not w.w_q.flags.writeable and not w.w1.flags.writeable
    before = pretrained.cache_info()["hits"]
    again = m.run(CAT)
    assert pretrained.cache_info()["hits"] == before + 1
    assert again.attentions is t.attentions
    again.tokens.append("changed")  # the token lists are the caller's copies
    assert m.run(CAT).tokens[-1] == "[SEP]"
    assert pretrained.load(NAME) is m


def test_long_text_is_cut_with_a_message(m: pretrained.Model) -> None:
    text = "the cat sat on a warm mat because it was tired and " * 10
    t = m.run(text)
    assert t.n_tokens == pretrained.MAX_TOKENS >= 64
    assert t.tokens[0] == "[CLS]" and t.tokens[-1] == "[SEP]"
    assert t.truncated and t.n_text_tokens == 122
    assert "122 tokens" in t.message and "first 64" in t.message


@pytest.mark.parametrize("text", ["", "   \n "])
def test_empty_text_is_refused(m: pretrained.Model, text: str) -> None:
    with pytest.raises(ValueError, match="the text is empty"):
        m.run(text)


def test_bad_head_masks_are_refused(m: pretrained.Model) -> None:
    with pytest.raises(
        ValueError, match=r"head_mask has shape \(12, 6\) but all-MiniLM-L6-v2 needs \(6, 12\)"
    ):
        m.run(CAT, np.ones((12, 6)))
    bad = np.ones((6, 12))
    bad[2, 3] = np.nan
    with pytest.raises(ValueError, match="head_mask contains 1 non-finite value"):
        m.run(CAT, bad)
    with pytest.raises(ValueError, match="between -10 and 10"):
        m.run(CAT, np.full((6, 12), 50.0))


def test_removing_a_head_equals_zeroing_its_slice_of_w_o(m: pretrained.Model) -> None:
    layer, head, d = 2, 5, m.config.d_k
    mask = np.ones((6, 12))
    mask[layer, head] = 0.0
    t = m.run(CAT, mask)
    w = m.weights.layers[layer]
    w_o = np.array(w.w_o)
    w_o[head * d : (head + 1) * d] = 0.0  # the rows of W_O that read this head's output
    layers = list(m.weights.layers)
    layers[layer] = dataclasses.replace(w, w_o=w_o)
    edited = dataclasses.replace(m.weights, layers=tuple(layers))
    _, ref, _, _ = run_transformer(np.array(t.token_ids), edited, m.config)
    np.testing.assert_allclose(t.hidden_states[-1], ref[-1].output, rtol=1e-5, atol=1e-6)
    plain = m.run(CAT)
    assert not np.allclose(t.hidden_states[-1], plain.hidden_states[-1], atol=1e-3)  # it did change
    np.testing.assert_array_equal(t.attentions[: layer + 1], plain.attentions[: layer + 1])
    assert t.head_mask[layer, head] == 0.0 and plain.head_mask.sum() == 72
    # Half a head is half its output.
    half = mask.copy()
    half[layer, head] = 0.5
    th = m.run(CAT, half).layers[layer]
    np.testing.assert_allclose(
        th.concat[:, head * d : (head + 1) * d], 0.5 * th.head_outputs[head], rtol=1e-6
    )


def test_the_cache_counts_the_result_not_the_weights(m: pretrained.Model) -> None:
    pretrained.clear_cache()
    t = m.run(CAT)
    held = pretrained.cache_info()["bytes"]
    assert 1e5 < held < 1e7  # a 13-token trace (the 86 MB of weights it points at are not counted)
    assert held >= t.attentions.nbytes + t.hidden_states.nbytes
    m.run(CAT, np.ones((6, 12)))  # all ones is no mask: the same entry
    assert pretrained.cache_info()["entries"] == 1 and pretrained.cache_info()["hits"] >= 1


def test_weights_are_read_only_views_of_one_shared_memory_map(m: pretrained.Model) -> None:
    # Mapped, not copied: every process (web, workers, replicas) reads the same pages of the file, held once
    # by the machine; and nothing can change them.
    import mmap

    roots = set()
    for arr in (m.weights.embeddings.token, m.weights.layers[0].w_o, m.weights.layers[5].w1):
        assert not arr.flags.writeable
        base = arr
        while isinstance(base, np.ndarray):
            assert not base.flags.writeable
            base = base.base
        assert isinstance(base, mmap.mmap)
        assert memoryview(base).readonly
        roots.add(id(base))
    assert len(roots) == 1


def test_mapped_safetensors_reads_what_safetensors_reads(tmp_path) -> None:
    from safetensors.numpy import save_file

    from attention_core.pretrained._files import mapped_safetensors

    rng = np.random.default_rng(0)
    want = {
        "a": rng.standard_normal((3, 5)).astype(np.float32),
        "b": np.arange(7, dtype=np.int64),
        "c": rng.standard_normal(2),
    }
    save_file(want, str(tmp_path / "t.safetensors"))
    got = mapped_safetensors(tmp_path / "t.safetensors")
    assert set(got) == set(want)
    for name, arr in want.items():
        assert got[name].dtype == arr.dtype
        np.testing.assert_array_equal(got[name], arr)
        assert not got[name].flags.writeable
