"""explorer.model.bridge: a real layer as the toy engine's matrices gives the engine's own attention for that layer."""

from __future__ import annotations

import os

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attention_core as ac
from attention_core import pretrained
from explorer.model import bridge

TEXT = "The cat sat on the mat because it was warm."


def need(name: str) -> pretrained.Model:
    try:
        return pretrained.load(name)
    except pretrained.ModelNotInstalledError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have the real models installed: {exc}")
        pytest.skip(str(exc))


@pytest.mark.parametrize("layer", range(6))
def test_a_minilm_layer_in_the_toy_engine_gives_the_engines_attention(layer: int) -> None:
    m = need("all-MiniLM-L6-v2")
    lay = bridge.load_layer(m, TEXT, layer)
    trace = m.run(TEXT)
    n, d, H, k = trace.n_tokens, m.config.d_model, m.config.n_heads, m.config.d_k
    assert lay.x.shape == (n, d + 1) and lay.w_q.shape == (H, d + 1, k) and lay.w_o.shape == (H * k, d + 1)
    assert_allclose(lay.x[:, -1], 1.0)  # the column that carries the biases
    toy = ac.multi_head_attention(lay.x, lay.w_q, lay.w_k, lay.w_v, lay.w_o, scale=lay.scale)
    assert_allclose(toy.weights, trace.attentions[layer], rtol=1e-4, atol=1e-6)
    real = trace.layers[layer].attention
    assert_allclose(toy.output[:, :d] + lay.b_o, real.output, rtol=1e-3, atol=1e-4)
    assert lay.tokens == tuple(trace.tokens) and lay.model == "all-MiniLM-L6-v2"


def test_other_models_and_layers_give_a_message() -> None:
    m = need("all-MiniLM-L6-v2")
    with pytest.raises(ValueError, match="layer must be in 0 .. 5"):
        bridge.load_layer(m, TEXT, 6)
    s = need("SmolLM2-135M")
    with pytest.raises(ValueError, match="only an encoder's layer"):
        bridge.load_layer(s, TEXT, 0)
    assert np.isfinite(bridge.load_layer(m, TEXT, 0).x).all()
