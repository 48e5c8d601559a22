"""An independent reference: PyTorch's attention and encoder layer, where torch is installed (optional)."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import causal_mask, encoder_layer, multi_head_attention, softmax

torch = pytest.importorskip("torch")


def _in_proj(w: np.ndarray) -> np.ndarray:
    """(h, d_model, d) per-head weights -> torch's (h*d, d_model) layout (heads stacked, transposed)."""
    h, d_model, d = w.shape
    return w.transpose(1, 0, 2).reshape(d_model, h * d).T


def _torch_mha(d_model: int, heads: int, p: dict[str, np.ndarray]):
    mha = torch.nn.MultiheadAttention(d_model, heads, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(
            torch.from_numpy(np.concatenate([_in_proj(p[k]) for k in ("w_q", "w_k", "w_v")]))
        )
        mha.out_proj.weight.copy_(torch.from_numpy(p["w_o"].T.copy()))
    return mha


def _params(seed: int, n: int, d_model: int, heads: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    d = d_model // heads
    return {
        "x": rng.standard_normal((n, d_model)),
        "w_q": rng.standard_normal((heads, d_model, d)) / np.sqrt(d_model),
        "w_k": rng.standard_normal((heads, d_model, d)) / np.sqrt(d_model),
        "w_v": rng.standard_normal((heads, d_model, d)) / np.sqrt(d_model),
        "w_o": rng.standard_normal((d_model, d_model)) / np.sqrt(d_model),
    }


@pytest.mark.parametrize(
    ("n", "d_model", "heads", "causal"), [(5, 8, 2, False), (7, 12, 3, True), (200, 32, 4, True)]
)
def test_multi_head_attention_matches_torch(n: int, d_model: int, heads: int, causal: bool) -> None:
    p = _params(n, n, d_model, heads)
    mask = causal_mask(n) if causal else None
    trace = multi_head_attention(**p, mask=mask)
    mha = _torch_mha(d_model, heads, p)
    x = torch.from_numpy(p["x"])[None]
    attn_mask = None if mask is None else torch.from_numpy(~mask)  # torch: True = NOT allowed
    with torch.no_grad():
        out, weights = mha(x, x, x, attn_mask=attn_mask, need_weights=True, average_attn_weights=False)
    np.testing.assert_allclose(trace.output, out[0].numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(trace.weights, weights[0].numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_torch(norm_first: bool) -> None:
    n, d_model, heads, d_ff = 6, 8, 2, 16
    p = _params(1, n, d_model, heads)
    rng = np.random.default_rng(2)
    w1, w2 = rng.standard_normal((d_model, d_ff)) / 3, rng.standard_normal((d_ff, d_model)) / 4
    b1, b2 = rng.standard_normal(d_ff), rng.standard_normal(d_model)
    layer = torch.nn.TransformerEncoderLayer(
        d_model, heads, dim_feedforward=d_ff, dropout=0.0, batch_first=True, norm_first=norm_first,
        dtype=torch.float64,
    )  # fmt: skip
    layer.eval()
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(
            torch.from_numpy(np.concatenate([_in_proj(p[k]) for k in ("w_q", "w_k", "w_v")]))
        )
        layer.self_attn.in_proj_bias.zero_()
        layer.self_attn.out_proj.weight.copy_(torch.from_numpy(p["w_o"].T.copy()))
        layer.self_attn.out_proj.bias.zero_()
        layer.linear1.weight.copy_(torch.from_numpy(w1.T.copy()))
        layer.linear1.bias.copy_(torch.from_numpy(b1))
        layer.linear2.weight.copy_(torch.from_numpy(w2.T.copy()))
        layer.linear2.bias.copy_(torch.from_numpy(b2))
        expected = layer(torch.from_numpy(p["x"])[None])[0].numpy()
    t = encoder_layer(p["x"], p["w_q"], p["w_k"], p["w_v"], p["w_o"], w1, w2, b1, b2, norm_first=norm_first)
    # Both orders match torch: its pre-norm layer has no final norm either (x + FFN(LN(h)) is the output).
    np.testing.assert_allclose(t.output, expected, rtol=1e-9, atol=1e-11)


def test_softmax_matches_torch() -> None:
    x = np.random.default_rng(3).standard_normal((4, 9)) * 30
    np.testing.assert_allclose(softmax(x), torch.softmax(torch.from_numpy(x), dim=-1).numpy(), rtol=1e-12)
