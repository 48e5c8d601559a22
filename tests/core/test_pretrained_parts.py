"""A run keeps what pages read (attention weights, hidden states, the next token's logits); a layer's whole
trace and the logits at every position are computed again when read. Every number equals the reference,
transformer.run_transformer on the same tokens, to the last bit."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import pretrained
from attention_core.pretrained._trace import held_bytes
from attention_core.transformer import run_transformer

TEXTS = {
    "SmolLM2-135M": "The capital of France is Paris, and the capital of Italy is",
    "all-MiniLM-L6-v2": "The cat sat on the mat because it was warm.",
}
LAYER_FIELDS = ("x", "attn_input", "sum1", "norm1", "ffn_hidden_pre", "ffn_hidden", "ffn_out", "sum2",
                "output", "q", "k", "v", "scores", "scaled", "masked", "weights", "head_outputs", "concat")  # fmt: skip


def model(name: str) -> pretrained.Model:
    try:
        return pretrained.load(name)
    except pretrained.ModelNotInstalledError as exc:
        pytest.skip(str(exc))


def half_mask(m: pretrained.Model) -> np.ndarray:
    mask = np.ones((m.config.n_layers, m.config.n_heads))
    mask[1, 2], mask[3, 0] = 0.0, 0.5
    return mask


@pytest.mark.parametrize("name", list(TEXTS))
@pytest.mark.parametrize("masked", [False, True])
def test_what_a_run_keeps_and_computes_again_equals_the_whole_run(name: str, masked: bool) -> None:
    m = model(name)
    mask = half_mask(m) if masked else None
    pretrained.clear_cache()
    t = m.run(TEXTS[name], mask)
    embeddings, layers, final, logits = run_transformer(np.asarray(t.token_ids), m.weights, m.config, mask)
    assert np.array_equal(t.attentions, np.stack([layer.attention.weights for layer in layers]))
    outputs = [embeddings.output] + [layer.output for layer in layers]
    if final is not None:
        outputs[-1] = final
    assert np.array_equal(t.hidden_states, np.stack(outputs))
    assert np.array_equal(t.embeddings.output, embeddings.output)
    if logits is None:
        assert t.logits is None and t.next_logits is None
    else:
        assert np.array_equal(t.next_logits, logits[-1]) and np.array_equal(t.logits, logits)
    assert len(t.layers) == len(layers) == m.config.n_layers
    for i, ref in enumerate(layers):
        again = t.layers[i]
        for field in LAYER_FIELDS:
            assert np.array_equal(getattr(again, field), getattr(ref, field)), (i, field)
            assert not getattr(again, field).flags.writeable


def test_a_layer_read_twice_is_computed_once_and_indexes_as_a_tuple() -> None:
    m = model("all-MiniLM-L6-v2")
    pretrained.clear_cache()
    t = m.run(TEXTS["all-MiniLM-L6-v2"])
    assert t.layers[2] is t.layers[2] and t.layers[-1] is t.layers[5]
    assert [layer.output.shape for layer in t.layers[1:3]] == [t.hidden_states[2].shape] * 2
    with pytest.raises(IndexError):
        t.layers[6]
    assert pretrained.cache_info()["parts_bytes"] > 0


def test_a_long_sentence_is_kept_small_and_does_not_push_a_class_out() -> None:
    m = model("SmolLM2-135M")
    pretrained.clear_cache()
    class_texts = [f"Student {i} writes that the cat sat on mat number {i}." for i in range(20)]
    for text in class_texts:
        m.run(text)
    held = pretrained.cache_info()["bytes"]
    long_text = " ".join(f"word{i}" for i in range(80))  # cut to 64 tokens
    t = m.run(long_text)
    assert t.n_tokens == pretrained.MAX_TOKENS and m.has_run(long_text)  # kept: computed once
    grew = pretrained.cache_info()["bytes"] - held
    whole = sum(held_bytes(layer, m._weight_ids) for layer in t.layers) + t.logits.nbytes
    assert grew < whole / 10  # what pages read, not the whole trace (129 MiB at 64 tokens)
    assert grew < pretrained.CACHE_BYTES / 4
    assert all(m.has_run(text) for text in class_texts)  # nobody's run was pushed out
