"""The bridge (issue 17), first part: one attention layer of a real encoder as the toy engine's matrices.

Not yet on any page: the explorer's Example holds no biases and its size limits (d_model 64, 8 heads) are
far below a real layer (MiniLM: d_model 384, 12 heads), so loading a layer into the explorer's pages waits
for those to grow. What is here is the part they will read: layer L of MiniLM on a sentence, written as the
inputs of ``attention_core.multi_head_attention``, giving the engine's own weights for that layer.

The biases ride in an extra input column that is always 1 (the "bias trick"): X gets a last column of ones
and each W_Q, W_K, W_V a last row holding its bias, so x W = x_real W_real + b exactly. No Streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class LoadedLayer:
    """One attention layer of a real model on one sentence, in the toy engine's shapes (float64).

    n = tokens, d = d_model, H = heads, k = d_k. x: (n, d + 1) the layer's attention input (after the norm
    the model applies before attention, if any) with a last column of ones; w_q, w_k, w_v: (H, d + 1, k),
    the last row the bias; w_o: (H k, d + 1), the last column 0 (the output's ones column stays out of the
    residual); b_o: (d,), so the layer's attention output is (concat @ w_o)[:, :d] + b_o; scale: the score scale (1/sqrt(k)).
    """

    model: str
    layer: int
    tokens: tuple[str, ...]
    x: F64
    w_q: F64
    w_k: F64
    w_v: F64
    w_o: F64
    b_o: F64
    scale: float


def _with_bias(w: NDArray[np.floating], b: NDArray[np.floating] | None) -> F64:
    """(H, d, k) weights and (H, k) biases (or None) -> (H, d + 1, k), the bias as the last row."""
    w = np.asarray(w, dtype=np.float64)
    bias = np.zeros((w.shape[0], 1, w.shape[2])) if b is None else np.asarray(b, dtype=np.float64)[:, None, :]
    return np.concatenate([w, bias], axis=1)  # (H, d + 1, k)


def load_layer(model: Any, text: str, layer: int) -> LoadedLayer:
    """Layer ``layer`` (0-based) of ``model`` (an attention_core.pretrained Model) on ``text``.

    Only encoders without RoPE and with one key/value head per query head (MiniLM) for now: a ValueError
    names what is missing for any other model, and for a layer out of range.
    """
    c = model.config
    if getattr(c, "causal", False) or c.n_kv_heads != c.n_heads or str(c.positions) == "rope":
        raise ValueError(f"{c.name}: only an encoder's layer (MiniLM) can be opened in the explorer so far")
    lw = model.layer_weights(layer)  # ValueError for a layer out of range
    trace = model.run(text)
    att_in = np.asarray(trace.layers[layer].attn_input, dtype=np.float64)  # (n, d)
    x = np.concatenate([att_in, np.ones((att_in.shape[0], 1))], axis=1)  # (n, d + 1)
    b_o = np.zeros(c.d_model) if lw.b_o is None else np.asarray(lw.b_o, dtype=np.float64)
    return LoadedLayer(
        model=c.name,
        layer=int(layer),
        tokens=tuple(trace.tokens),
        x=x,
        w_q=_with_bias(lw.w_q, lw.b_q),
        w_k=_with_bias(lw.w_k, lw.b_k),
        w_v=_with_bias(lw.w_v, lw.b_v),
        w_o=np.concatenate([np.asarray(lw.w_o, dtype=np.float64), np.zeros((c.n_heads * c.d_k, 1))], axis=1),
        b_o=b_o,
        scale=float(trace.layers[layer].attention.scale),
    )
