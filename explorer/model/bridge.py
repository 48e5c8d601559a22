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

from explorer.compute import cache

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


# ------------------------------------------------------------------ a real layer as the explorer's example
#
# An Example with `real` set ("minilm", "smollm2") and `real_layer` L is layer L of that model: its sizes are
# the model's, its matrices start as the layer's weights (W_Q, W_K, W_V per query head, W_O, W1, W2, their
# biases, SwiGLU's W_up) and X (the `emb` table) as the layer's input for the sentence, computed by the
# model's earlier layers. What the explorer does not hold as matrices, it reads here from the model,
# unedited: the norms' gains, RoPE's base. The explorer runs the layer with the engine's own
# transformer_layer, so an unedited example shows exactly what the model computes (tests/app/test_bridge.py).
#
# SmolLM2 shares each key/value head among 3 query heads (GQA). The explorer gives every query head its own
# copy of its W_K and W_V: the numbers are the same, and an edit to one head's copy changes that head only.

BASE_BYTES = 160 * 2**20  # float64 copies of a few layers (a SmolLM2 layer: about 40 MB)
INPUT_BYTES = 16 * 2**20  # layer inputs X (n, d) per sentence and layer (at most 64 x 576 floats each)


@dataclass(frozen=True, eq=False)
class LayerBase:
    """Layer ``layer`` of model ``key`` in the explorer's shapes (float64, read-only). H = query heads.

    weights: w_q, w_k, w_v (H, d, k), w_o (H k, d), w1 (d, f), w2 (f, d) and the biases b_q, b_k, b_v
    (H, k), b_o (d,), b1 (f,), b2 (d,), and SwiGLU's w_up (d, f) (empty for other layers): what the explorer
    edits.
    fixed: LayerWeights of the model's layer (its norm gains: what the explorer does not edit).
    config: the model's config with one key/value head per query head (the explorer's copies).
    kv_head: (H,) which key/value head of the model each query head's copies come from.
    """

    key: str
    layer: int
    title: str
    weights: dict[str, F64]
    fixed: Any
    config: Any
    kv_head: tuple[int, ...]

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.weights.values()) + int(self.fixed.nbytes)


def _model(key: str) -> Any:
    from explorer.compute import model_compute

    return model_compute.model(key)


def n_layers(key: str) -> int:
    from explorer.model import models

    return int(models.choice(key).shape[0])


def _per_query(w: NDArray[np.floating], kv_head: tuple[int, ...]) -> F64:
    """(g, d, k) key/value heads -> (H, d, k): each query head's own copy (float64)."""
    return np.array(np.asarray(w)[np.asarray(kv_head)], dtype=np.float64)


def _biases(lw: Any, c: Any, kv_head: tuple[int, ...]) -> dict[str, F64]:
    """The layer's biases in the explorer's shapes (zeros where the model has none, as SmolLM2): b_q, b_k, b_v
    (H, k), one key/value head's copy per query head; b_o (d,), b1 (f,), b2 (d,)."""
    h, k, d, f = int(c.n_heads), int(c.d_k), int(c.d_model), int(c.d_ff)
    qkv = lw.b_qkv is not None
    idx = np.asarray(kv_head)
    given = {
        "b_q": lw.b_q if qkv else None,
        "b_k": np.asarray(lw.b_k)[idx] if qkv else None,
        "b_v": np.asarray(lw.b_v)[idx] if qkv else None,
        "b_o": lw.b_o,
        "b1": lw.b1,
        "b2": lw.b2,
    }
    shapes = {"b_q": (h, k), "b_k": (h, k), "b_v": (h, k), "b_o": (d,), "b1": (f,), "b2": (d,)}
    return {n: np.zeros(shapes[n]) if b is None else np.array(b, dtype=np.float64) for n, b in given.items()}


def _base(key: str, layer: int) -> LayerBase:
    import dataclasses

    from attention_core.transformer import LayerWeights

    m = _model(key)
    c = m.config
    if not 0 <= int(layer) < int(c.n_layers):
        raise ValueError(f"{c.name} has layers 1 to {c.n_layers}; there is no layer {int(layer) + 1}")
    lw = m.layer_weights(int(layer))
    kv = tuple(int(i) for i in c.kv_head)
    f64 = lambda a: None if a is None else np.array(a, dtype=np.float64)  # noqa: E731
    weights = {
        "w_q": np.array(lw.w_q, dtype=np.float64),
        "w_k": _per_query(lw.w_k, kv),
        "w_v": _per_query(lw.w_v, kv),
        "w_o": f64(lw.w_o),
        "w1": f64(lw.w1),
        "w2": f64(lw.w2),
        **_biases(lw, c, kv),
        "w_up": np.zeros((0, 0)) if lw.w_up is None else f64(lw.w_up),  # SwiGLU's up projection (SmolLM2)
    }
    for a in weights.values():
        a.setflags(write=False)
    fixed = LayerWeights(
        w_qkv=np.zeros((0, 0)),  # the explorer's own weights and biases go here when it runs
        b_qkv=None,
        w_o=np.zeros((0, 0)),
        b_o=None,
        w1=np.zeros((0, 0)),
        b1=None,
        w_up=None,
        w2=np.zeros((0, 0)),
        b2=None,
        attn_norm_gain=f64(lw.attn_norm_gain),
        attn_norm_bias=f64(lw.attn_norm_bias),
        norm1_gain=f64(lw.norm1_gain),
        norm1_bias=f64(lw.norm1_bias),
        norm2_gain=f64(lw.norm2_gain),
        norm2_bias=f64(lw.norm2_bias),
        n_heads=int(c.n_heads),
        n_kv_heads=int(c.n_heads),
        d_k=int(c.d_k),
    )
    config = dataclasses.replace(c, n_kv_heads=int(c.n_heads), dtype="float64")
    return LayerBase(key, int(layer), str(c.name), weights, fixed, config, kv)


def base(key: str, layer: int) -> LayerBase:
    """Layer ``layer`` (0-based) of model ``key`` ("minilm", "smollm2"), cached across sessions."""
    return _cached_base(str(key), int(layer))


def layer_input(key: str, sentence: str, layer: int) -> tuple[list[str], F64, bool]:
    """(tokens, X (n, d) the layer's input for the sentence, cut): what the model's earlier layers give."""
    tokens, x, cut = _cached_input(str(key), str(sentence), int(layer))
    return list(tokens), x, cut


def tokens_of(key: str, sentence: str) -> tuple[list[str], bool]:
    """The model's tokens of the sentence ([CLS] … [SEP] for MiniLM, byte-level BPE for SmolLM2), cut."""
    tokens, _, cut = _cached_input(str(key), str(sentence), 0)
    return list(tokens), cut


def run(ex: Any, x: F64, mask: NDArray[np.bool_] | None) -> Any:
    """The layer of loaded example ``ex`` on its input x (n, d), with the explorer's (maybe edited) W_Q, W_K,
    W_V, W_O, W1, W2 and biases, and the model's norms and positions: an EncoderTrace (attention inside)."""
    import dataclasses

    from attention_core.transformer import transformer_layer

    b = base(ex.real, ex.real_layer)
    h, d, k = ex.w_q.shape
    parts = [
        np.asarray(w, dtype=np.float64).transpose(1, 0, 2).reshape(d, h * k) for w in (ex.w_q, ex.w_k, ex.w_v)
    ]
    lw = dataclasses.replace(
        b.fixed,
        w_qkv=np.concatenate(parts, axis=1),  # (d, 3 H k): q of every head, then k, then v
        b_qkv=np.concatenate(
            [np.asarray(getattr(ex, n), dtype=np.float64).reshape(-1) for n in ("b_q", "b_k", "b_v")]
        ),
        w_o=np.asarray(ex.w_o, dtype=np.float64),
        b_o=np.asarray(ex.b_o, dtype=np.float64),
        w1=np.asarray(ex.w1, dtype=np.float64),
        b1=np.asarray(ex.b1, dtype=np.float64),
        w2=np.asarray(ex.w2, dtype=np.float64),
        b2=np.asarray(ex.b2, dtype=np.float64),
        w_up=np.asarray(ex.w_up, dtype=np.float64) if ex.w_up.size else None,
    )
    with np.errstate(over="ignore", invalid="ignore"):
        trace = transformer_layer(np.asarray(x, dtype=np.float64), lw, b.config, mask)
    if not np.isfinite(trace.output).all():
        raise ValueError("the layer's output overflowed: the edited weights are too large")
    return trace


def describe(key: str, layer: int) -> str:
    """One line for the explorer's pages: which model and layer they show, and what stays the model's."""
    b = base(key, layer)
    c = b.config
    pos = (
        f"RoPE (base {c.rope_base:g}) rotates q and k"
        if c.rope_base is not None
        else "its learned positions were added to the embeddings before layer 1, so they are already in X"
    )
    norm = "RMSNorm" if c.norm == "rms_norm" else "LayerNorm"
    order = (
        "before attention and the FFN (pre-norm)" if c.norm_first else "after each residual sum (post-norm)"
    )
    ffn = "SwiGLU" if c.activation == "swiglu" else c.activation.upper()
    shared = (
        f" Its {c.n_heads} query heads share {len(set(b.kv_head))} key/value heads; here each query head has "
        "its own copy of W_K and W_V, so an edit changes that head only."
        if len(set(b.kv_head)) < c.n_heads
        else ""
    )
    return (
        f"{b.title}, layer {b.layer + 1} of {c.n_layers}: X is that layer's input for this sentence, and "
        f"W_Q, W_K, W_V, W_O, W1{', W_up' if c.activation == 'swiglu' else ''}, W2 and their biases are its "
        f"trained weights (editable). Its {norm} "
        f"{order} and its {ffn} feed-forward are applied as trained; {pos}.{shared}"
    )


def _sizes(key: str) -> dict[str, int]:
    c = _model(key).config
    return {"d_model": int(c.d_model), "n_heads": int(c.n_heads), "d_k": int(c.d_k), "d_ff": int(c.d_ff)}


def settings_of(key: str, layer: int) -> dict[str, object]:
    """The Example settings a loaded layer fixes: its sizes, X as the embeddings table, no added positions,
    the paper's scale, the model's mask and norm order."""
    c = _model(key).config
    return {
        **_sizes(key),
        "real": key,
        "real_layer": int(layer),
        "emb_source": "table",
        "pe_kind": "none",
        "pe_scale": False,
        "scale_mode": "sqrt",
        "alibi": False,
        "rope": False,  # RoPE, where the model has it, is applied by the layer itself (describe says so)
        "mask_kind": "causal" if c.causal else "none",
        "norm_first": bool(c.norm_first),
    }


@cache.shared(max_bytes=BASE_BYTES)
def _cached_base(key: str, layer: int) -> LayerBase:
    return _base(key, layer)


@cache.shared(max_bytes=INPUT_BYTES)
def _cached_input(key: str, sentence: str, layer: int) -> tuple[tuple[str, ...], F64, bool]:
    m = _model(key)
    if (
        not sentence.strip()
    ):  # no text, no tokens: the page asks for a sentence (the model refuses an empty one)
        return (), np.zeros((0, int(m.config.d_model))), False
    trace = m.run(sentence)
    if not 0 <= layer < len(trace.layers):
        raise ValueError(f"{trace.model} has layers 1 to {len(trace.layers)}; there is no layer {layer + 1}")
    x = np.array(trace.layers[layer].x, dtype=np.float64)  # (n, d)
    x.setflags(write=False)
    return tuple(trace.tokens), x, bool(trace.truncated)
