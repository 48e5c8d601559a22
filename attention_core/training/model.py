"""The tiny attention-only transformer: its configuration, parameters, traced forward run and backward pass.

B = batch, T = tokens per sequence (at most n_ctx), d = d_model, h = n_heads, d_h = d_head = d / h,
V = vocab, L = n_layers. The forward pass, for tokens t (B, T):

    x_0 = E[t] + P[:T]                                         (B, T, d) the residual stream
    x_(l+1) = x_l + MHA_l(N_l(x_l))                             each layer adds its heads' output
    logits = N_f(x_L) W_U                                       (B, T, V)
    loss = mean over b, i < T - 1 of -log softmax(logits[b, i])[t[b, i + 1]]

with MHA the causal multi-head attention of the engine (``kernel._attend``: softmax(q k^T / sqrt(d_h),
causal) v per head, concatenated, times W_O) and N the identity, layer norm or RMS norm (``TinyConfig.norm``).
Parameter names and shapes: ``param_shapes``. Rows are queries, columns are keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import BoolArray, FloatArray, as_int, shape_str
from ..kernel import _attend
from ..masks import causal_mask

__all__ = ["NORMS", "TinyConfig", "TinyTrace", "init", "loss_and_grads", "param_shapes", "run"]

NORMS = ("none", "layer", "rms")  # what each layer (and the unembedding) reads the residual stream through
_EPS = 1e-5  # the norms' epsilon: sqrt(mean + eps)

Params = dict[str, FloatArray]


@dataclass(frozen=True)
class TinyConfig:
    """The tiny model, described once (every default is the shipped run's)."""

    n_layers: int = 2  # attention layers; two let a layer-2 head read what a layer-1 head wrote
    n_heads: int = 4  # heads per layer
    d_model: int = 64  # width of the residual stream; each head has d_head = d_model / n_heads
    vocab: int = 32  # token ids 0 .. vocab - 1
    n_ctx: int = 32  # the longest sequence: one learned position vector per position
    norm: str = "none"  # "none", "layer" or "rms": applied before each attention and before the unembedding

    def __post_init__(self) -> None:
        for name, low in (("n_layers", 1), ("n_heads", 1), ("d_model", 1), ("vocab", 2), ("n_ctx", 2)):
            as_int(name, getattr(self, name), low)
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model = {self.d_model} must be a multiple of n_heads = {self.n_heads}: each head gets "
                "d_model / n_heads dimensions"
            )
        if self.norm not in NORMS:
            raise ValueError(f"norm must be one of {', '.join(NORMS)}, got {self.norm!r}")

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads


def param_shapes(cfg: TinyConfig) -> dict[str, tuple[int, ...]]:
    """Every parameter's name and shape, in a fixed order (the optimiser and the files follow it).

    embed (V, d); pos (n_ctx, d); per layer l: layers.l.w_q, .w_k, .w_v (h, d, d_h), .w_o (h d_h, d) (head 0's
    rows first, as in ``multi_head_attention``), with a norm .norm_gain (d,) and, for layer norm, .norm_bias
    (d,); final_gain, final_bias likewise; unembed (d, V).
    """
    d, h, dh = cfg.d_model, cfg.n_heads, cfg.d_head
    shapes: dict[str, tuple[int, ...]] = {"embed": (cfg.vocab, d), "pos": (cfg.n_ctx, d)}
    for layer in range(cfg.n_layers):
        p = f"layers.{layer}."
        shapes.update(
            {p + "w_q": (h, d, dh), p + "w_k": (h, d, dh), p + "w_v": (h, d, dh), p + "w_o": (h * dh, d)}
        )
        shapes.update(_norm_shapes(cfg, p + "norm_"))
    shapes.update(_norm_shapes(cfg, "final_"))
    shapes["unembed"] = (d, cfg.vocab)
    return shapes


def _norm_shapes(cfg: TinyConfig, prefix: str) -> dict[str, tuple[int, ...]]:
    if cfg.norm == "none":
        return {}
    names = ("gain", "bias") if cfg.norm == "layer" else ("gain",)
    return {prefix + n: (cfg.d_model,) for n in names}


def init(cfg: TinyConfig, seed: int) -> Params:
    """Fresh parameters from ``np.random.default_rng(seed)``, drawn in ``param_shapes`` order.

    Weight matrices are normal with standard deviation 1/sqrt(fan-in) (W_O: 1/sqrt(h d_h); the unembedding
    1/d, so the first logits are near 0 and the first loss near log V). Token embeddings have standard
    deviation 1/sqrt(d) (length about 1) and positions 1 (length about sqrt(d)): at first each head's scores
    depend mostly on where tokens stand, so a head can soon attend to the token before (measured: with
    positions as small as tokens, previous-token heads form later and stay blurred). Norm gains are 1,
    biases 0.

    Returns:
        dict name -> float64 array of ``param_shapes(cfg)[name]``.
    """
    rng = np.random.default_rng(as_int("seed", seed, 0))
    d = cfg.d_model
    params: Params = {}
    for name, shape in param_shapes(cfg).items():
        if name.endswith("gain"):
            params[name] = np.ones(shape)
        elif name.endswith("bias"):
            params[name] = np.zeros(shape)
        else:
            std = {"embed": d**-0.5, "pos": 1.0, "unembed": 1.0 / d}.get(name, shape[-2] ** -0.5)
            params[name] = rng.standard_normal(shape) * std
    return params


@dataclass(frozen=True, eq=False)
class TinyTrace:
    """A forward run of the tiny model. B = batch, T = tokens, L = n_layers, h = n_heads, V = vocab.

    Fields:
        tokens: (B, T) int64 the tokens run.
        attentions: (B, L, h, T, T) each head's softmax weights; rows are queries, columns keys (causal).
        logits: (B, T, V) the next-token scores after each position.
        losses: (B, T - 1) -log p(tokens[b, i + 1] | tokens[b, :i + 1]) in nats.
    """

    tokens: NDArray[np.int64]
    attentions: FloatArray
    logits: FloatArray
    losses: FloatArray


def run(
    cfg: TinyConfig, params: ArrayLike | Params, tokens: ArrayLike, head_mask: ArrayLike | None = None
) -> TinyTrace:
    """The traced forward run (see the module's formulas), no gradients.

    Args:
        cfg: the model's configuration.
        params: dict name -> array of ``param_shapes(cfg)``, any float dtype (computed in float64).
        tokens: (B, T) ints in 0 .. vocab - 1, 2 <= T <= n_ctx; a (T,) sequence is one batch row.
        head_mask: (L, h) the weight of each head's output (1 keeps it, 0 switches it off), or None (all 1).

    Returns:
        TinyTrace: attentions (B, L, h, T, T), logits (B, T, V), losses (B, T - 1).
    """
    p = _check_params(cfg, params)
    toks = _check_tokens(cfg, tokens)
    mask = None if head_mask is None else _check_head_mask(cfg, head_mask)
    logits, cache = _forward(cfg, p, toks, mask)
    logp = _log_softmax(logits[:, :-1])  # (B, T - 1, V)
    losses = -np.take_along_axis(logp, toks[:, 1:, None], axis=2)[..., 0]  # (B, T - 1)
    attentions = np.stack([c["weights"] for c in cache["layers"]], axis=1)  # (B, L, h, T, T)
    return TinyTrace(toks, attentions, logits, losses)


def loss_and_grads(cfg: TinyConfig, params: Params, tokens: ArrayLike) -> tuple[float, Params]:
    """The mean next-token cross-entropy and its gradient with respect to every parameter.

    loss = (1 / (B (T - 1))) sum_b sum_{i < T - 1} -log softmax(logits[b, i])[tokens[b, i + 1]].

    Args:
        cfg: the model's configuration.
        params: dict name -> float64 array of ``param_shapes(cfg)``.
        tokens: (B, T) ints in 0 .. vocab - 1, 2 <= T <= n_ctx.

    Returns:
        loss in nats, and grads: dict with the keys and shapes of params, d loss / d param (float64).
    """
    p = _check_params(cfg, params)
    toks = _check_tokens(cfg, tokens)
    logits, cache = _forward(cfg, p, toks, None)
    loss, dlogits = _cross_entropy(logits, toks)
    return loss, _backward(cfg, p, cache, dlogits)


# --- checks -------------------------------------------------------------------------------------------


def _check_params(cfg: TinyConfig, params: ArrayLike | Params) -> Params:
    if not isinstance(params, dict):
        raise ValueError(
            f"params must be a dict of arrays (training.init gives one), got {type(params).__name__}"
        )
    shapes = param_shapes(cfg)
    if set(params) != set(shapes):
        missing, extra = sorted(set(shapes) - set(params)), sorted(set(params) - set(shapes))
        raise ValueError(f"params do not fit the configuration: missing {missing}, unexpected {extra}")
    out: Params = {}
    for name, shape in shapes.items():
        arr = np.asarray(params[name], dtype=np.float64)
        if arr.shape != shape:
            raise ValueError(
                f"params[{name!r}] has shape {shape_str(arr.shape)} but expected {shape_str(shape)}"
            )
        out[name] = arr
    return out


def _check_tokens(cfg: TinyConfig, tokens: ArrayLike) -> NDArray[np.int64]:
    toks = np.asarray(tokens)
    toks = toks[None] if toks.ndim == 1 else toks  # (B, T)
    if (
        toks.ndim != 2
        or toks.dtype.kind not in "iu"
        or not 2 <= toks.shape[1] <= cfg.n_ctx
        or toks.shape[0] < 1
    ):
        raise ValueError(
            f"tokens must be (batch, T) integers with 2 <= T <= n_ctx = {cfg.n_ctx}, got "
            f"{shape_str(toks.shape)} of {toks.dtype}"
        )
    if toks.min() < 0 or toks.max() >= cfg.vocab:
        raise ValueError(
            f"tokens must lie in 0 .. {cfg.vocab - 1}, got {int(toks.min())} .. {int(toks.max())}"
        )
    return toks.astype(np.int64)


def _check_head_mask(cfg: TinyConfig, head_mask: ArrayLike) -> FloatArray:
    arr = np.asarray(head_mask, dtype=np.float64)
    if arr.shape != (cfg.n_layers, cfg.n_heads) or not np.isfinite(arr).all():
        raise ValueError(
            f"head_mask must be ({cfg.n_layers}, {cfg.n_heads}) finite weights (1 keeps a head, 0 removes it), "
            f"got {shape_str(arr.shape)}"
        )
    return arr


# --- forward ------------------------------------------------------------------------------------------


def _forward(
    cfg: TinyConfig, p: Params, toks: NDArray[np.int64], head_mask: FloatArray | None
) -> tuple[FloatArray, dict]:
    """logits (B, T, V) and what the backward pass reads (the cache)."""
    B, T = toks.shape
    x = p["embed"][toks] + p["pos"][:T]  # (B, T, d) the residual stream
    causal = causal_mask(T)[None]  # (1, T, T), True = may attend
    layers = []
    for layer in range(cfg.n_layers):
        pre = f"layers.{layer}."
        xn, norm_cache = _norm(cfg.norm, x, p.get(pre + "norm_gain"), p.get(pre + "norm_bias"))
        keep = None if head_mask is None else head_mask[layer]
        out, c = _attention(xn, p[pre + "w_q"], p[pre + "w_k"], p[pre + "w_v"], p[pre + "w_o"], causal, keep)
        layers.append({**c, "xn": xn, "norm": norm_cache})
        x = x + out  # (B, T, d)
    xf, final_cache = _norm(cfg.norm, x, p.get("final_gain"), p.get("final_bias"))
    logits = xf @ p["unembed"]  # (B, T, V)
    return logits, {"tokens": toks, "layers": layers, "xf": xf, "final": final_cache}


def _norm(
    kind: str, x: FloatArray, gain: FloatArray | None, bias: FloatArray | None
) -> tuple[FloatArray, tuple[FloatArray, FloatArray] | None]:
    """N(x) per row of the last axis: layer norm (x - mean) r g + b or RMS norm x r g, r = 1/sqrt(ms + eps).

    x: (..., d). Returns N(x) (..., d) and (x_hat (..., d), r (..., 1)) for the backward pass (None: identity).
    """
    if kind == "none":
        return x, None
    centred = x - x.mean(axis=-1, keepdims=True) if kind == "layer" else x  # (..., d)
    r = 1.0 / np.sqrt(np.mean(centred * centred, axis=-1, keepdims=True) + _EPS)  # (..., 1)
    x_hat = centred * r  # (..., d)
    out = x_hat * gain if bias is None else x_hat * gain + bias
    return out, (x_hat, r)


def _attention(
    x: FloatArray,
    w_q: FloatArray,
    w_k: FloatArray,
    w_v: FloatArray,
    w_o: FloatArray,
    mask: BoolArray,
    keep: FloatArray | None,
) -> tuple[FloatArray, dict]:
    """Causal multi-head attention over a batch, every head and sequence in one stacked matmul.

    x: (B, T, d); w_q, w_k, w_v: (h, d, d_h); w_o: (h d_h, d); mask: (1, T, T); keep: (h,) or None.
    Returns the output (B, T, d) and the cache (q, k, v as (B h, T, d_h), weights (B, h, T, T), concat).
    """
    (B, T, d), (h, _, dh) = x.shape, w_q.shape
    w_all = np.concatenate([w.transpose(1, 0, 2) for w in (w_q, w_k, w_v)], axis=2)  # (d, h, 3 d_h)
    qkv = (x.reshape(B * T, d) @ w_all.reshape(d, h * 3 * dh)).reshape(B, T, h, 3 * dh)
    qkv = qkv.transpose(0, 2, 1, 3).reshape(B * h, T, 3 * dh)  # (B h, T, 3 d_h), sequence-major
    q, k, v = qkv[..., :dh], qkv[..., dh : 2 * dh], qkv[..., 2 * dh :]  # (B h, T, d_h) each
    *_, weights, heads = _attend(q, k, v, 1.0 / math.sqrt(dh), None, mask)  # (B h, T, T), (B h, T, d_h)
    heads = heads.reshape(B, h, T, dh)
    if keep is not None:
        heads = heads * keep[None, :, None, None]
    concat = heads.transpose(0, 2, 1, 3).reshape(B * T, h * dh)  # (B T, h d_h), head 0 first
    out = (concat @ w_o).reshape(B, T, d)
    cache = {"q": q, "k": k, "v": v, "weights": weights.reshape(B, h, T, T), "concat": concat, "w_all": w_all}
    return out, cache


def _log_softmax(z: FloatArray) -> FloatArray:
    """z - logsumexp(z) along the last axis, the row max subtracted first. z: (..., V)."""
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _cross_entropy(logits: FloatArray, toks: NDArray[np.int64]) -> tuple[float, FloatArray]:
    """Mean next-token loss and d loss / d logits (B, T, V) (0 at the last position, which predicts nothing).

    d loss / d z[b, i] = (softmax(z[b, i]) - onehot(t[b, i + 1])) / (B (T - 1)).
    """
    B, T, V = logits.shape
    logp = _log_softmax(logits[:, :-1])  # (B, T - 1, V)
    targets = toks[:, 1:, None]  # (B, T - 1, 1)
    loss = -float(np.take_along_axis(logp, targets, axis=2).mean())
    dlogits = np.zeros_like(logits)
    probs = np.exp(logp)  # (B, T - 1, V)
    np.put_along_axis(probs, targets, np.take_along_axis(probs, targets, axis=2) - 1.0, axis=2)
    dlogits[:, :-1] = probs / (B * (T - 1))
    return loss, dlogits


# --- backward -----------------------------------------------------------------------------------------


def _backward(cfg: TinyConfig, p: Params, cache: dict, dlogits: FloatArray) -> Params:
    """Every parameter's gradient, from d loss / d logits (B, T, V) back through the cached forward run."""
    toks = cache["tokens"]
    B, T = toks.shape
    grads: Params = {"unembed": cache["xf"].reshape(B * T, -1).T @ dlogits.reshape(B * T, -1)}  # (d, V)
    dx = _norm_back(cfg.norm, dlogits @ p["unembed"].T, p.get("final_gain"), cache["final"], grads, "final_")
    for layer in reversed(range(cfg.n_layers)):
        pre, c = f"layers.{layer}.", cache["layers"][layer]
        dxn = _attention_back(dx, c, p[pre + "w_o"], grads, pre)  # (B, T, d)
        dx = dx + _norm_back(cfg.norm, dxn, p.get(pre + "norm_gain"), c["norm"], grads, pre + "norm_")
    onehot = (toks.reshape(-1, 1) == np.arange(cfg.vocab)).astype(np.float64)  # (B T, V)
    grads["embed"] = onehot.T @ dx.reshape(B * T, -1)  # (V, d): each token's rows summed
    grads["pos"] = np.zeros_like(p["pos"])
    grads["pos"][:T] = dx.sum(axis=0)  # (T, d)
    return {name: grads[name] for name in param_shapes(cfg)}


def _norm_back(
    kind: str,
    dy: FloatArray,
    gain: FloatArray | None,
    cache: tuple[FloatArray, FloatArray] | None,
    grads: Params,
    prefix: str,
) -> FloatArray:
    """d loss / d x of N(x), given dy = d loss / d N(x) (..., d); stores the gain's and bias's gradients.

    With g = dy * gain: RMS norm dx = r (g - x_hat mean(g x_hat)); layer norm dx = r (g - mean(g) -
    x_hat mean(g x_hat)), means over the last axis.
    """
    if kind == "none" or cache is None or gain is None:
        return dy
    x_hat, r = cache
    d = dy.shape[-1]
    grads[prefix + "gain"] = (dy * x_hat).reshape(-1, d).sum(axis=0)  # (d,)
    g = dy * gain  # (..., d)
    dx = g - x_hat * np.mean(g * x_hat, axis=-1, keepdims=True)
    if kind == "layer":
        grads[prefix + "bias"] = dy.reshape(-1, d).sum(axis=0)  # (d,)
        dx -= np.mean(g, axis=-1, keepdims=True)
    return dx * r


def _attention_back(dout: FloatArray, c: dict, w_o: FloatArray, grads: Params, prefix: str) -> FloatArray:
    """d loss / d x of causal multi-head attention, given dout = d loss / d output (B, T, d).

    With A = softmax(S), S = q k^T / sqrt(d_h) (masked entries have A = 0, so they get no gradient):
    dA = d_heads v^T, dv = A^T d_heads, dS = A * (dA - sum_j dA A) / sqrt(d_h), dq = dS k, dk = dS^T q.
    Stores the gradients of W_Q, W_K, W_V (h, d, d_h) and W_O (h d_h, d).
    """
    B, T, d = dout.shape
    weights = c["weights"]  # (B, h, T, T)
    h, dh = weights.shape[1], c["q"].shape[-1]
    dflat = dout.reshape(B * T, d)
    grads[prefix + "w_o"] = c["concat"].T @ dflat  # (h d_h, d)
    dheads = (dflat @ w_o.T).reshape(B, T, h, dh).transpose(0, 2, 1, 3).reshape(B * h, T, dh)
    A = weights.reshape(B * h, T, T)
    dA = np.matmul(dheads, c["v"].transpose(0, 2, 1))  # (B h, T, T)
    dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) * (1.0 / math.sqrt(dh))  # (B h, T, T)
    dq = np.matmul(dS, c["k"])  # (B h, T, d_h)
    dk = np.matmul(dS.transpose(0, 2, 1), c["q"])  # (B h, T, d_h)
    dv = np.matmul(A.transpose(0, 2, 1), dheads)  # (B h, T, d_h)
    dqkv = np.concatenate([dq, dk, dv], axis=2).reshape(B, h, T, 3 * dh).transpose(0, 2, 1, 3)
    dqkv = dqkv.reshape(B * T, h * 3 * dh)  # (B T, h 3 d_h), the layout of the stacked projection
    xn = c["xn"].reshape(B * T, d)
    dw_all = (xn.T @ dqkv).reshape(d, h, 3 * dh).transpose(1, 0, 2)  # (h, d, 3 d_h)
    for i, name in enumerate(("w_q", "w_k", "w_v")):
        grads[prefix + name] = np.ascontiguousarray(dw_all[..., i * dh : (i + 1) * dh])  # (h, d, d_h)
    return (dqkv @ c["w_all"].reshape(d, h * 3 * dh).T).reshape(B, T, d)
