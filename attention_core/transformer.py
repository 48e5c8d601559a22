"""A whole transformer (BERT-style encoder or Llama-style decoder) from the engine's own small functions.

The real models of ``attention_core.pretrained`` run here: the same attention (``kernel._attend``:
scores, scale, mask, softmax), norms (``norms``), feed-forward network (``encoder._ffn``) and RoPE
(``positional._rotate``) as the toy explorer, grown with what real models need: biases on every projection,
layer norm with gain and bias, RMSNorm, exact GELU and SwiGLU, grouped-query attention, learned positions
and token types, tied output embeddings. Each layer's trace is an ``EncoderTrace`` holding an
``AttentionTrace``: the pages that draw the toy layer can draw a real one.

Precision: the arrays keep the dtype of the weights: float32 for the real models (their native precision),
float64 when the weights are float64. No step here reads a file (see ``pretrained``). The config and the
weights it runs are declared in ``weights`` (re-exported here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._parallel import for_row_blocks
from ._validate import as_float_array, as_real, check_result, readonly, shape_str
from .attention import AttentionTrace, _check_w_o, _check_weights, _mask_and_bias, _scale
from .encoder import EncoderTrace, _add, _check_ffn, _ffn, _linear
from .kernel import _attend
from .masks import causal_mask
from .norms import _layer_norm, _rms_norm
from .positional import _rotate
from .weights import EmbeddingWeights, LayerWeights, ModelConfig, ModelWeights, _is_array

__all__ = [
    "EmbeddingTrace",
    "EmbeddingWeights",
    "LayerWeights",
    "ModelConfig",
    "ModelWeights",
    "check_head_mask",
    "embed_tokens",
    "encoder_layer",
    "output_logits",
    "resume_transformer",
    "run_layers",
    "run_transformer",
    "transformer_layer",
]

Floats = NDArray[np.floating]
HEAD_MASK_LIMIT = 10.0  # |head_mask| at most this: scaling a head's output up to 10x is plenty to explore


@dataclass(frozen=True, eq=False)
class EmbeddingTrace:
    """The input of the first layer, step by step (n tokens, read-only).

    Fields:
        token: (n, d_model) the token embedding rows E[token_ids].
        position: (n, d_model) the learned position rows 0 .. n-1, or None (RoPE models).
        token_type: (n, d_model) the segment rows (all row 0), or None.
        sum: (n, d_model) token + position + token_type.
        output: (n, d_model) what layer 0 reads: LN(sum) with gain and bias (BERT), or sum itself.
    """

    token: Floats
    position: Floats | None
    token_type: Floats | None
    sum: Floats
    output: Floats


def _norm(config: ModelConfig, x: Floats, gain: Floats | None, bias: Floats | None) -> Floats:
    """The model's norm of each row of x (n, d_model), with its learned gain and bias; "none" (an
    attention-only model trained without norms) gives x itself."""
    if config.norm == "none":
        return x
    if config.norm == "rms_norm":
        return _rms_norm(x, config.eps, gain)
    return _layer_norm(x, config.eps, gain, bias)


def embed_tokens(token_ids: ArrayLike, weights: EmbeddingWeights, config: ModelConfig) -> EmbeddingTrace:
    """x0 = norm(E[ids] + P[0 .. n-1] + T[0]) for BERT, x0 = E[ids] for Llama: the first layer's input.

    Args:
        token_ids: (n,) ints in 0 .. vocab_size - 1, n <= max_positions.
        weights: EmbeddingWeights.
        config: ModelConfig.

    Returns:
        EmbeddingTrace.
    """
    ids = np.asarray(token_ids)
    if ids.ndim != 1 or ids.size == 0 or ids.dtype.kind not in "iu":
        raise ValueError(f"token_ids must be a non-empty list of token ids, got shape {shape_str(ids.shape)}")
    if ids.min() < 0 or ids.max() >= config.vocab_size or ids.size > config.max_positions:
        raise ValueError(
            f"token_ids must lie in 0 .. {config.vocab_size - 1}, at most {config.max_positions} of them"
        )
    n = ids.size
    token = weights.token[ids]  # (n, d_model)
    position = None if weights.position is None else weights.position[:n]  # (n, d_model)
    token_type = None if weights.token_type is None else np.broadcast_to(weights.token_type[0], token.shape)
    total = token.copy()
    for extra in (position, token_type):
        if extra is not None:
            total += extra
    out = total if weights.norm_gain is None else _norm(config, total, weights.norm_gain, weights.norm_bias)
    arrays = (token, position, token_type, total, out)
    return EmbeddingTrace(*(None if a is None else readonly(a) for a in arrays))


def _split_heads(qkv: Floats, config: ModelConfig) -> tuple[Floats, Floats, Floats]:
    """qkv (..., n, (h + g) d + g d_v) -> q (..., h, n, d), k (..., g, n, d), v (..., g, n, d_v), views
    (d_v = d for every real model; the toy's layer may give its values another width)."""
    lead, n, h, g, d = qkv.shape[:-2], qkv.shape[-2], config.n_heads, config.n_kv_heads, config.d_k
    d_v = (qkv.shape[-1] - (h + g) * d) // g
    q = qkv[..., : h * d].reshape(*lead, n, h, d).swapaxes(-2, -3)  # (..., h, n, d)
    k = qkv[..., h * d : (h + g) * d].reshape(*lead, n, g, d).swapaxes(-2, -3)  # (..., g, n, d)
    v = qkv[..., (h + g) * d :].reshape(*lead, n, g, d_v).swapaxes(-2, -3)  # (..., g, n, d_v)
    return q, k, v


def _per_query_head(arr: Floats | None, config: ModelConfig) -> Floats | None:
    """(..., g, n, d) key/value heads -> (..., h, n, d), each repeated for the query heads sharing it (GQA)."""
    if arr is None or config.n_kv_heads == config.n_heads:
        return arr
    return np.take(arr, np.asarray(config.kv_head), axis=-3)  # (..., h, n, d)


def _heads_of(arr: NDArray | None, lead: tuple[int, ...]) -> NDArray | None:
    """A mask or bias, (n, n) for every head or (h, n, n) one per head, as kernel._attend reads it beside
    (..., h, n, n) heads flattened to one axis: (1, n, n), or (batch * h, n, n)."""
    if arr is None or arr.ndim == 2:
        return None if arr is None else arr[None]
    return np.broadcast_to(arr, (*lead, *arr.shape[-2:])).reshape(-1, *arr.shape[-2:])


def _attend_batch(
    q: Floats,
    k: Floats,
    v: Floats,
    scale: float,
    mask: NDArray[np.bool_] | None,
    bias: Floats | None = None,
) -> tuple[Floats, ...]:
    """kernel._attend over (..., h, n, d) inputs: the leading axes and the heads as one axis of heads."""
    lead, n = q.shape[:-2], q.shape[-2]
    flat = [a.reshape(-1, n, a.shape[-1]) for a in (q, k, v)]  # (batch * h, n, d)
    out = _attend(*flat, scale, _heads_of(bias, lead), _heads_of(mask, lead))
    return tuple(a.reshape(*lead, n, a.shape[-1]) for a in out)  # (..., h, n, n) x 4, (..., h, n, d)


def _attention(
    x: Floats,
    w: LayerWeights,
    config: ModelConfig,
    mask: NDArray[np.bool_] | None,
    head_mask: Floats | None,
    head_replacement: tuple[Floats, NDArray[np.bool_]] | None = None,
    scale: float | None = None,
    bias: Floats | None = None,
) -> AttentionTrace:
    """Multi-head (or grouped-query) self-attention of x (..., n, d_model), traced; head_mask: (..., h) or
    None; head_replacement: (outputs (..., h, n, d), which (..., h) bool) or None; scale, bias: see
    transformer_layer. An overflow of a product raises the ValueError that names it."""
    with np.errstate(over="ignore", invalid="ignore"):
        qkv = _linear(x, w.w_qkv, w.b_qkv)  # (..., n, (h + 2 g) d)
    check_result("q, k, v", qkv, "x W_Q, x W_K, x W_V")
    q, k, v = _split_heads(qkv, config)  # (..., h|g, n, d)
    q_pre = k_pre = None
    if config.rope_base is not None:
        positions = np.arange(x.shape[-2], dtype=np.float64)
        q_pre, k_pre = q, k
        q, k = _rotate(q, positions, config.rope_base), _rotate(k, positions, config.rope_base)
    k, v = _per_query_head(k, config), _per_query_head(v, config)  # (..., h, n, d)
    scale = 1.0 / math.sqrt(config.d_k) if scale is None else float(scale)
    scores, scaled, masked, weights, heads = _attend_batch(q, k, v, scale, mask, bias)
    if head_replacement is not None:
        outputs, which = head_replacement
        heads = np.where(np.asarray(which)[..., None, None], outputs, heads).astype(heads.dtype, copy=False)
    n, h, d = x.shape[-2], config.n_heads, heads.shape[-1]
    concat = heads.swapaxes(-2, -3).reshape(*heads.shape[:-3], n, h * d)  # (..., n, h * d), head 0 first
    if head_mask is not None:  # each head's block scaled: (..., 1, h * d)
        concat = concat * np.repeat(head_mask.astype(concat.dtype), d, axis=-1)[..., None, :]
    output = concat  # without W_O (a toy layer whose heads fill d_model): the concat itself
    if w.w_o is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            output = _linear(concat, w.w_o, w.b_o)  # (n, d_model)
        check_result("output", output, "concat W_O")
    grouped = config.n_kv_heads != config.n_heads
    values = dict(x=x, q=q, k=k, v=v, scores=scores, scaled=scaled, masked=masked, weights=weights)
    values |= dict(head_outputs=heads, concat=concat, output=output, mask=mask, bias=bias, w_o=w.w_o)
    values |= dict(
        q_pre_rope=q_pre, k_pre_rope=_per_query_head(k_pre, config), head_mask=head_mask, b_o=w.b_o
    )
    frozen = {key: readonly(val) if _is_array(val) else val for key, val in values.items()}
    kv_head = config.kv_head if grouped else None
    return AttentionTrace(**frozen, scale=scale, use_rope=q_pre is not None, kv_head=kv_head)


def transformer_layer(
    x: Floats,
    weights: LayerWeights,
    config: ModelConfig,
    mask: NDArray[np.bool_] | None = None,
    head_mask: Floats | None = None,
    head_replacement: tuple[Floats, NDArray[np.bool_]] | None = None,
    *,
    scale: float | None = None,
    bias: Floats | None = None,
) -> EncoderTrace:
    """One transformer layer, traced: every layer the app shows runs here (the toy's, a real model's, one
    trained in the engine). Inputs are trusted (encoder_layer checks a toy layer's first).

    Post-norm (2017, BERT):  sum1 = x + MHA(x);  norm1 = N(sum1);  sum2 = norm1 + FFN(norm1);  out = N(sum2).
    Pre-norm (Llama):        sum1 = x + MHA(N(x));  norm1 = N(sum1);  out = sum2 = sum1 + FFN(norm1).
    N is the model's norm with its own gain (and bias), or none (the toy's layer norm); MHA is
    softmax(q k^T * scale + bias, mask) v per head, then W_O, with biases on every projection where the
    model has them, RoPE on q and k where it uses RoPE, shared key/value heads where n_kv_heads < n_heads;
    FFN is ReLU or GELU(x W1 + b1) W2 + b2, or (silu(x W_gate) * x W_up) W_down (SwiGLU). A product that
    overflows raises a ValueError naming it (edited weights can be huge).

    A batch of sequences runs at once when x has leading axes (..., n, d_model): every array of the trace
    then has them too (the matrix products take all the rows together, see encoder._linear).

    Args:
        x: (n, d_model) the layer's input, in the weights' dtype; or (..., n, d_model) a batch.
        weights: LayerWeights.
        config: ModelConfig.
        mask: (n, n) bool, True = may attend (causal for a decoder), or None.
        head_mask: (n_heads,) the weight of each head's output in concat (0 removes a head), or (..., n_heads)
            one per sequence of a batch; or None.
        head_replacement: (outputs, which) or None. outputs (..., n_heads, n, d_k) is taken instead of a head's
            A V (its output before W_O, at every position) where which (..., n_heads) is True: activation
            patching puts another run's head output there. The trace's head_outputs hold the replaced ones.
        scale: the scores' factor, 1/sqrt(d_k) when None (the toy lets a visitor pick another).
        bias: (n, n) or (n_heads, n, n) added to the scaled scores (ALiBi), or None.

    Returns:
        EncoderTrace (attention: an AttentionTrace; ffn_up, activation and norm set).
    """
    w = weights
    attn_input = _norm(config, x, w.attn_norm_gain, w.attn_norm_bias) if config.norm_first else x
    attention = _attention(attn_input, w, config, mask, head_mask, head_replacement, scale, bias)
    sum1 = _add("sum1", x, attention.output)  # (n, d_model)
    norm1 = _norm(config, sum1, w.norm1_gain, w.norm1_bias)  # (n, d_model)
    ffn = _ffn(norm1, w.w1, w.w2, w.b1, w.b2, config.activation, w.w_up)
    sum2 = _add("sum2", sum1 if config.norm_first else norm1, ffn.output)  # (n, d_model)
    norm2 = None if config.norm_first else _norm(config, sum2, w.norm2_gain, w.norm2_bias)
    stages = dict(x=x, attn_input=attn_input, sum1=sum1, sum2=sum2, norm2=norm2)
    stages["output"] = sum2 if norm2 is None else norm2
    frozen = {key: None if val is None else readonly(val) for key, val in stages.items()}
    return EncoderTrace(
        **frozen,
        attention=attention,
        norm1=ffn.x,
        ffn_hidden_pre=ffn.hidden_pre,
        ffn_hidden=ffn.hidden,
        ffn_out=ffn.output,
        norm_first=config.norm_first,
        eps=config.eps,
        ffn_up=ffn.up,
        activation=config.activation,
        norm=config.norm,
    )


def encoder_layer(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike | None,
    w1: ArrayLike,
    w2: ArrayLike,
    b1: ArrayLike | None = None,
    b2: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    norm_first: bool = False,
    eps: float = 1e-5,
    *,
    scale: float | None = None,
    bias: ArrayLike | None = None,
    use_rope: bool = False,
) -> EncoderTrace:
    """The toy's encoder layer: its arguments checked, then transformer_layer (layer norm without gain,
    ReLU, no biases in attention), float64.

    Post-norm (2017 paper): h = LN(x + MHA(x)); out = LN(h + FFN(h)).
    Pre-norm:               h = x + MHA(LN(x)); out = h + FFN(LN(h)).
    MHA is multi_head_attention(..., mask, scale, bias, use_rope); FFN(h) = max(0, h W1 + b1) W2 + b2;
    LN is layer_norm(., eps).

    Args:
        x: (n, d_model).
        w_q, w_k: (n_heads, d_model, d_k); w_v: (n_heads, d_model, d_v) (2-D means one head).
        w_o: (n_heads * d_v, d_model), or None when n_heads * d_v == d_model (output = concat).
        w1: (d_model, d_ff); w2: (d_ff, d_model); b1: (d_ff,) or None; b2: (d_model,) or None.
        mask: (n, n) or (n_heads, n, n) bool, True = may attend, or None.
        norm_first: False for post-norm, True for pre-norm.
        eps: float > 0, the layer norm epsilon.
        scale, bias, use_rope: as multi_head_attention's (RoPE base 10000).

    Returns:
        EncoderTrace with every stage.
    """
    weights, config, mask_arr, bias_arr, scale_f = toy_layer(
        x, w_q, w_k, w_v, w_o, w1, w2, b1, b2, mask, norm_first, eps, scale, bias, use_rope
    )
    xa = as_float_array("x", x, (2,), "(n, d_model)").copy()  # the trace keeps its own x
    return transformer_layer(xa, weights, config, mask_arr, scale=scale_f, bias=bias_arr)


def toy_layer(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike | None,
    w1: ArrayLike,
    w2: ArrayLike,
    b1: ArrayLike | None = None,
    b2: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    norm_first: bool = False,
    eps: float = 1e-5,
    scale: float | None = None,
    bias: ArrayLike | None = None,
    use_rope: bool = False,
) -> tuple[LayerWeights, ModelConfig, NDArray[np.bool_] | None, Floats | None, float]:
    """encoder_layer's arguments checked (a ValueError names the one that is wrong) and laid out as
    transformer_layer reads them: (weights, config, mask, bias, scale). Shapes: see encoder_layer."""
    xa = as_float_array("x", x, (2,), "(n, d_model)")
    eps = as_real("eps", eps, positive=True)
    w1a, w2a, b1a, b2a = _check_ffn(xa.shape[1], w1, w2, b1, b2)
    wq, wk, wv = _check_weights(xa, w_q, w_k, w_v)
    h, n, d_k, d_v = wq.shape[0], xa.shape[0], wq.shape[2], wv.shape[2]
    w_out = _check_w_o(w_o, h, d_v, xa.shape[1])
    if w_out is None and h * d_v != xa.shape[1]:
        raise ValueError(
            f"w_o is None, so the attention output is the concat of width n_heads * d_v = {h * d_v}, but the "
            f"residual x + attention needs width d_model = {xa.shape[1]}: "
            f"give w_o of shape ({h * d_v}, {xa.shape[1]})"
        )
    mask_arr, bias_arr = _mask_and_bias(mask, bias, h, n, n, f"{n} tokens and {h} heads")
    if not isinstance(use_rope, bool | np.bool_):
        raise ValueError(f"use_rope must be True or False, got {use_rope!r}")
    w_qkv = np.concatenate([w.transpose(1, 0, 2).reshape(xa.shape[1], -1) for w in (wq, wk, wv)], axis=1)
    none = dict(attn_norm_gain=None, attn_norm_bias=None, norm1_gain=None, norm1_bias=None)
    weights = LayerWeights(w_qkv=w_qkv, b_qkv=None, w_o=w_out, b_o=None, w1=w1a, b1=b1a, w_up=None, w2=w2a,  # type: ignore[arg-type]
                           b2=b2a, **none, norm2_gain=None, norm2_bias=None, n_heads=h, n_kv_heads=h, d_k=d_k)  # fmt: skip
    config = ModelConfig(
        name="toy", n_layers=1, n_heads=h, n_kv_heads=h, d_model=xa.shape[1], d_k=d_k, d_ff=w1a.shape[1],
        vocab_size=0, max_positions=n, norm="layer_norm", norm_first=bool(norm_first), eps=eps,
        activation="relu", positions="rope" if use_rope else "none", rope_base=10000.0 if use_rope else None,
        causal=False, tied_embeddings=False, has_logits=False, dtype="float64",
    )  # fmt: skip
    own = lambda a: None if a is None else a.copy()  # noqa: E731 - the trace keeps its own, not the caller's
    return replace(weights, w_o=own(w_out)), config, own(mask_arr), own(bias_arr), _scale(scale, d_k)


def check_head_mask(head_mask: ArrayLike | None, config: ModelConfig) -> Floats | None:
    """head_mask as a float64 (n_layers, n_heads) array of weights in [-10, 10], or None (keep every head).

    Args:
        head_mask: (n_layers, n_heads) numbers: 1 keeps a head, 0 removes its output, values in between scale
            it; or None.
        config: ModelConfig.

    Returns:
        (n_layers, n_heads) float64, read-only, or None when head_mask is None or all ones.
    """
    if head_mask is None:
        return None
    expected = f"({config.n_layers}, {config.n_heads}) = (n_layers, n_heads)"
    arr = as_float_array(
        "head_mask", head_mask, (2,), expected, hint=": give each head a number (1 keeps it)"
    )
    if arr.shape != (config.n_layers, config.n_heads):
        raise ValueError(f"head_mask has shape {shape_str(arr.shape)} but {config.name} needs {expected}")
    if np.abs(arr).max() > HEAD_MASK_LIMIT:
        raise ValueError(f"head_mask values must lie between -{HEAD_MASK_LIMIT:g} and {HEAD_MASK_LIMIT:g}")
    return None if (arr == 1.0).all() else readonly(arr.copy())


def run_transformer(
    token_ids: ArrayLike, weights: ModelWeights, config: ModelConfig, head_mask: ArrayLike | None = None
) -> tuple[EmbeddingTrace, tuple[EncoderTrace, ...], Floats | None, Floats | None]:
    """Every layer of the model on token_ids, traced.

    x0 = embed_tokens(ids); x_{l+1} = transformer_layer(x_l) (with head_mask[l]); for a decoder
    final = RMSNorm(x_L) * gain and logits = final E^T (tied) or final @ lm_head.

    Args:
        token_ids: (n,) ints.
        weights: ModelWeights.
        config: ModelConfig.
        head_mask: (n_layers, n_heads) or None (see check_head_mask).

    Returns:
        (embeddings, layers, final, logits): EmbeddingTrace, one EncoderTrace per layer, final (n, d_model)
        the last layer's output after the final norm or None (no final norm), logits (n, vocab_size) or None.
    """
    mask_weights = check_head_mask(head_mask, config)
    embeddings = embed_tokens(token_ids, weights.embeddings, config)
    n = embeddings.output.shape[0]
    mask = causal_mask(n) if config.causal else None  # (n, n)
    x, layers = embeddings.output, []
    for i, w in enumerate(weights.layers):  # layer after layer: each needs the one before
        layer = transformer_layer(x, w, config, mask, None if mask_weights is None else mask_weights[i])
        layers.append(layer)
        x = layer.output
    final = None if weights.final_norm_gain is None else _norm(config, x, weights.final_norm_gain, None)
    logits = None
    if config.has_logits:
        head = weights.embeddings.token.T if weights.lm_head is None else weights.lm_head  # (d_model, vocab)
        logits = (x if final is None else final) @ head  # (n, vocab_size)
    return embeddings, tuple(layers), None if final is None else readonly(final), _ro(logits)


def run_layers(
    x: Floats, weights: ModelWeights, config: ModelConfig, start: int = 0, stop: int | None = None
) -> Floats:
    """x_{l+1} = transformer_layer(x_l) for l = start .. stop - 1, keeping only the last output.

    The rest of a run from a given layer on: activation patching changes the residual stream entering a
    layer and reuses everything before it. Inputs are trusted (the model's own states).

    Args:
        x: (..., n, d_model) the residual stream entering layer ``start`` (a batch when there are leading
            axes: each sequence runs on its own, all in one set of matrix products).
        weights: ModelWeights.
        config: ModelConfig.
        start: the first layer to run, 0 .. n_layers.
        stop: one past the last layer to run (n_layers when None).

    Returns:
        (..., n, d_model) the output of layer stop - 1 (x itself when start == stop).
    """
    stop = config.n_layers if stop is None else stop
    assert 0 <= start <= stop <= config.n_layers, (start, stop)
    mask = causal_mask(x.shape[-2]) if config.causal else None  # (n, n)
    for w in weights.layers[start:stop]:  # layer after layer: each needs the one before
        x = transformer_layer(x, w, config, mask).output
    return x


def output_logits(
    x: Floats, weights: ModelWeights, config: ModelConfig, token_ids: ArrayLike | None = None
) -> Floats:
    """logits = N(x) E^T (tied) or N(x) @ lm_head, N the final norm (if any): the next-token scores.

    Args:
        x: (..., d_model) the last layer's output at some positions.
        weights: ModelWeights.
        config: ModelConfig (a decoder: has_logits).
        token_ids: (k,) ints: only these tokens' logits (cheaper than the whole vocabulary), or None.

    Returns:
        (..., vocab_size), or (..., k) for the given tokens.
    """
    assert config.has_logits, config.name
    final = x if weights.final_norm_gain is None else _norm(config, x, weights.final_norm_gain, None)
    head = weights.embeddings.token.T if weights.lm_head is None else weights.lm_head  # (d_model, vocab)
    if token_ids is not None:
        head = head[:, np.asarray(token_ids)]  # (d_model, k)
    return final @ head


def _ro(arr: Floats | None) -> Floats | None:
    return None if arr is None else readonly(arr)


def _layer_batch(
    x: Floats, w: LayerWeights, config: ModelConfig, mask: NDArray[np.bool_] | None, head_weights: Floats
) -> Floats:
    """transformer_layer's output for a batch of inputs, untraced: x (b, n, d_model), head_weights (b, h).

    The position-wise steps see the b * n rows as one matrix; attention sees the b * h heads as one stack of
    heads (the same _attend as a traced run), so one batch costs about what one input does at a few tokens.
    """
    b, n, dm = x.shape
    h, g, d = config.n_heads, config.n_kv_heads, config.d_k
    rows = x.reshape(b * n, dm)  # (b n, d_model)
    attn_input = _norm(config, rows, w.attn_norm_gain, w.attn_norm_bias) if config.norm_first else rows
    q, k, v = _split_heads(_linear(attn_input, w.w_qkv, w.b_qkv), config)  # (h|g, b n, d)
    q, k, v = (a.reshape(-1, b, n, d).transpose(1, 0, 2, 3) for a in (q, k, v))  # (b, h|g, n, d)
    if config.rope_base is not None:
        positions = np.arange(n, dtype=np.float64)
        q, k = _rotate(q, positions, config.rope_base), _rotate(k, positions, config.rope_base)
    if g != h:
        k, v = k[:, np.asarray(config.kv_head)], v[:, np.asarray(config.kv_head)]  # (b, h, n, d)
    stack = lambda a: a.reshape(b * h, n, d)  # noqa: E731 - (b h, n, d): every variant's heads, one stack
    heads = _attend(
        stack(q), stack(k), stack(v), 1.0 / math.sqrt(d), None, None if mask is None else mask[None]
    )[4]
    heads = heads.reshape(b, h, n, d) * head_weights.astype(heads.dtype)[:, :, None, None]  # each head scaled
    concat = heads.transpose(0, 2, 1, 3).reshape(b * n, h * d)  # (b n, h d), head 0 first
    sum1 = rows + _linear(concat, w.w_o, w.b_o)
    norm1 = _norm(config, sum1, w.norm1_gain, w.norm1_bias)
    sum2 = (sum1 if config.norm_first else norm1) + _ffn(
        norm1, w.w1, w.w2, w.b1, w.b2, config.activation, w.w_up
    ).output
    out = sum2 if config.norm_first else _norm(config, sum2, w.norm2_gain, w.norm2_bias)
    return out.reshape(b, n, dm)


def resume_transformer(
    hidden_states: ArrayLike, weights: ModelWeights, config: ModelConfig, head_masks: ArrayLike
) -> Floats:
    """The last hidden states of b variants of one run, each with its own head mask, all at once.

    A variant's layers before the first one its mask changes compute exactly what the run computed, so it
    starts there, from the run's own residual stream: x_s = hidden_states[s], x_{l+1} = layer_l(x_l) with
    head_masks[i, l] for l = s .. L-1, then the final norm where the model has one. Variants that start at
    the same layer or earlier run through each layer together (_layer_batch: one batch of b * n rows).

    Args:
        hidden_states: (L + 1, n, d_model) a run's hidden states (ModelTrace.hidden_states): [l] is layer l's
            input, [L] the last layer's output (after the final norm where there is one).
        weights: ModelWeights.
        config: ModelConfig.
        head_masks: (b, L, H) one head mask per variant (see check_head_mask; all ones: the run itself).

    Returns:
        (b, n, d_model) each variant's last hidden states, as hidden_states[L] is for the run.
    """
    states = np.asarray(hidden_states)
    L, H = config.n_layers, config.n_heads
    masks = as_float_array("head_masks", head_masks, (3,), f"(b, {L}, {H})")
    if masks.shape[1:] != (L, H) or states.shape[0] != L + 1:
        raise ValueError(f"head_masks has shape {shape_str(masks.shape)} and hidden_states "
                         f"{shape_str(states.shape)}; {config.name} needs (b, {L}, {H}) and ({L + 1}, n, d_model)")  # fmt: skip
    if masks.size and np.abs(masks).max() > HEAD_MASK_LIMIT:
        raise ValueError(f"head_masks values must lie between -{HEAD_MASK_LIMIT:g} and {HEAD_MASK_LIMIT:g}")
    changed = (masks != 1.0).any(axis=2)  # (b, L)
    starts = np.where(changed.any(axis=1), changed.argmax(axis=1), L)  # (b,) the first layer that differs
    n = states.shape[1]
    mask = causal_mask(n) if config.causal else None  # (n, n)
    x = np.empty((masks.shape[0], *states.shape[1:]), dtype=states.dtype)  # (b, n, d_model)
    for layer in range(int(starts.min(initial=L)), L):  # layer after layer: each needs the one before
        x[starts == layer] = states[layer]  # variants that start here, from the run's own stream
        active = np.flatnonzero(starts <= layer)

        def work(rows: slice, active: NDArray[np.intp] = active, layer: int = layer) -> None:
            part = active[
                rows
            ]  # a block of variants: blocks run in the pool's threads, numpy releases the GIL
            x[part] = _layer_batch(x[part], weights.layers[layer], config, mask, masks[part, layer])

        for_row_blocks(work, active.size, n * (config.d_model + config.d_ff))
    ran = starts < L
    if weights.final_norm_gain is not None and ran.any():
        x[ran] = _norm(config, x[ran], weights.final_norm_gain, None)
    x[~ran] = states[L]
    return readonly(x)
