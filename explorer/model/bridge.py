"""A real model's layer as the explorer's example: a `Layer` (explorer.model.layer; the toy is
explorer.model.toy). Its weights are the model's own, trained; X is the layer's input for the sentence.

No Streamlit here.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from explorer import cache
from explorer.i18n import _
from explorer.model import description
from explorer.model import settings_table as table

F64 = NDArray[np.float64]
DRAWN = False  # the layer's own weights: links and files carry the edits only


# ------------------------------------------------------------------ a real layer as the explorer's example
#
# An Example with `real` set ("minilm", "smollm2") and `real_layer` L is layer L of that model: its sizes are
# the model's, its matrices start as the layer's weights (W_Q, W_K, W_V per query head, W_O, W1, W2, their
# biases, SwiGLU's W_up) and X (the `emb` table) as the layer's input for the sentence, computed by the
# model's earlier layers. What the explorer does not hold as matrices, it reads here from the model,
# unedited: the norms' gains, RoPE's base. The explorer runs the layer with the engine's own
# transformer_layer, so an unedited example shows exactly what the model computes (tests/app/pages/test_bridge_pages.py).
#
# SmolLM2 shares each key/value head among 3 query heads (GQA). The explorer gives every query head its own
# copy of its W_K and W_V: the numbers are the same, and an edit to one head's copy changes that head only.
#
# Memory: the trained matrices are the model's own float32 arrays, read-only and shared by every session
# that opens the layer (float32 -> float64 is exact). Only W_K and W_V of a model with shared key/value heads
# are copied (one copy per query head: 2.6 MB a SmolLM2 layer), once per process while anything holds them
# (_COPIES); a session holds a new array only for a matrix it edited (explorer.ui.state, float64), and a run
# with an edit casts the untouched matrices one product at a time (run).

BASE_BYTES = 64 * 2**20  # layers as counted with the model's arrays they share (a SmolLM2 layer: 19 MB)
INPUT_BYTES = 16 * 2**20  # layer inputs X (n, d) per sentence and layer (at most 64 x 576 floats each)


@dataclass(frozen=True, eq=False)
class LayerBase:
    """Layer ``layer`` of model ``key`` in the explorer's shapes (read-only). H = query heads.

    weights: w_q, w_k, w_v (H, d, k), w_o (H k, d), w1 (d, f), w2 (f, d) and the biases b_q, b_k, b_v
    (H, k), b_o (d,), b1 (f,), b2 (d,), and SwiGLU's w_up (d, f) (empty for other layers): what the explorer
    edits; the model's float32 arrays where the shapes agree, else copies.
    fixed: LayerWeights of the model's layer (its norm gains: what the explorer does not edit).
    config: the model's config with one key/value head per query head (the explorer's copies).
    kv_head: (H,) which key/value head of the model each query head's copies come from.
    """

    key: str
    layer: int
    title: str
    weights: dict[str, NDArray[np.floating]]
    fixed: Any
    config: Any
    kv_head: tuple[int, ...]


def _model(key: str) -> Any:
    from explorer.model import models

    return models.model(key)


# (model key, layer, name) -> a per-query-head copy that some session or cache still holds: a session keeps
# its layer's arrays after the layers' cache dropped the layer, and the next session to open that layer gets
# the same arrays, not a second copy.
_COPIES: weakref.WeakValueDictionary[tuple[str, int, str], np.ndarray] = weakref.WeakValueDictionary()
_COPIES_LOCK = threading.Lock()


def _per_query(
    w: NDArray[np.floating], kv_head: tuple[int, ...], at: tuple[str, int, str] | None = None
) -> NDArray[np.floating]:
    """(g, d, k) key/value heads -> (H, d, k): each query head's own copy (read-only; the one already made
    for `at`, (model key, layer, name), while it lives); the model's array itself when every query head has
    its own key/value head."""
    w = np.asarray(w)
    if tuple(kv_head) == tuple(range(w.shape[0])):
        return w
    with _COPIES_LOCK:
        found = None if at is None else _COPIES.get(at)
        if found is None:
            found = w[np.asarray(kv_head)]
            found.setflags(write=False)
            if at is not None:
                _COPIES[at] = found
    return found


def _biases(
    lw: Any, c: Any, kv_head: tuple[int, ...], at: tuple[str, int]
) -> dict[str, NDArray[np.floating]]:
    """The layer's biases in the explorer's shapes (zeros where the model has none, as SmolLM2): b_q, b_k, b_v
    (H, k), one key/value head's copy per query head; b_o (d,), b1 (f,), b2 (d,)."""
    h, k, d, f = int(c.n_heads), int(c.d_k), int(c.d_model), int(c.d_ff)
    qkv = lw.b_qkv is not None
    given = {
        "b_q": lw.b_q if qkv else None,
        "b_k": _per_query(lw.b_k, kv_head, (*at, "b_k")) if qkv else None,
        "b_v": _per_query(lw.b_v, kv_head, (*at, "b_v")) if qkv else None,
        "b_o": lw.b_o,
        "b1": lw.b1,
        "b2": lw.b2,
    }
    shapes = {"b_q": (h, k), "b_k": (h, k), "b_v": (h, k), "b_o": (d,), "b1": (f,), "b2": (d,)}
    return {n: np.zeros(shapes[n]) if b is None else np.asarray(b) for n, b in given.items()}


def _base(key: str, layer: int) -> LayerBase:
    import dataclasses

    from attention_core.transformer import LayerWeights

    m = _model(key)
    c = m.config
    if not 0 <= int(layer) < int(c.n_layers):
        raise ValueError(_("{model} has layers 1 to {n}; there is no layer {layer}", model=c.name, n=c.n_layers,
                           layer=int(layer) + 1))  # fmt: skip
    lw = m.layer_weights(int(layer))
    kv = tuple(int(i) for i in c.kv_head)
    weights = {
        "w_q": np.asarray(lw.w_q),
        "w_k": _per_query(lw.w_k, kv, (key, int(layer), "w_k")),
        "w_v": _per_query(lw.w_v, kv, (key, int(layer), "w_v")),
        "w_o": np.asarray(lw.w_o),
        "w1": np.asarray(lw.w1),
        "w2": np.asarray(lw.w2),
        **_biases(lw, c, kv, (key, int(layer))),
        "w_up": np.zeros((0, 0)) if lw.w_up is None else np.asarray(lw.w_up),  # SwiGLU's up projection
    }
    for a in weights.values():
        a.setflags(write=False)
    f64 = lambda a: None if a is None else np.asarray(a)  # noqa: E731 - the norms' gains, as the model holds them
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
    """The model's tokens of the sentence ([CLS] … [SEP] for MiniLM, byte-level BPE for SmolLM2), cut,
    written as every page writes tokens (a leading space as ␣: explorer.model.description.show_token)."""
    tokens, _, cut = _cached_input(str(key), str(sentence), 0)
    return list(tokens), cut


# ------------------------------------------------------------------ the layer's answers (explorer.model.layer)


def describe(ex: Any) -> description.Description:
    """Layer `real_layer` (0-based) of real model `real` as the explorer holds it."""
    b = base(ex.real, ex.real_layer)
    biases = any(b.weights[name].any() for name in ("b_q", "b_k", "b_v", "b_o", "b1", "b2"))
    return description.of_config(ex.real, ex.real_layer, b.config, len(set(b.kv_head)), b.title, biases)


def fixed(ex: Any) -> tuple[Any, Any]:
    """(the layer's norms' gains as LayerWeights, the config it runs with: one key/value head per query head)."""
    b = base(ex.real, ex.real_layer)
    return b.fixed, b.config


def tokens(ex: Any) -> tuple[list[str], bool]:
    return tokens_of(ex.real, ex.sentence[: table.MAX_SENTENCE_CHARS])


def run_first(ex: Any) -> tuple[str, str] | None:
    """The model's run of the sentence, which the tokens and X read (_cached_input): up to a second of CPU."""
    sentence = ex.sentence[: table.MAX_SENTENCE_CHARS]
    return (str(ex.real), sentence) if sentence.strip() else None


def token_ids(ex: Any) -> None:
    return None  # the model's own ids are not shown


def layer_only_shapes(ex: Any) -> dict[str, tuple[int, ...]]:
    """Biases (zeros where the model has none) and, for a SwiGLU layer, W_up."""
    d, h, k, f = ex.d_model, ex.n_heads, ex.d_k, ex.d_ff
    swiglu = base(ex.real, ex.real_layer).config.activation == "swiglu"
    return {
        "b_q": (h, k),
        "b_k": (h, k),
        "b_v": (h, k),
        "b_o": (d,),
        "b1": (f,),
        "b2": (d,),
        "w_up": (d, f) if swiglu else (0, 0),
    }


def model_input(ex: Any, sentence: str) -> F64:
    """X: the layer's input for the sentence, computed by the model's earlier layers."""
    return layer_input(ex.real, sentence[: table.MAX_SENTENCE_CHARS], ex.real_layer)[1]


def defaults(ex: Any, tokens: list[str], draws: dict[str, int] | None = None) -> dict[str, NDArray]:
    """The layer itself: its trained weights, and X = its input for the sentence. Nothing is drawn."""
    x = model_input(ex, ex.sentence)
    n = x.shape[0]
    return {
        **base(ex.real, ex.real_layer).weights,  # W_Q, W_K, W_V, W_O, W1, W2 and the biases
        "emb": x,
        "pe_table": np.zeros((n, ex.d_model)),
        "custom_mask": np.tril(np.ones((n, n), dtype=bool)),
    }


reference = defaults  # links and files carry the cells that differ from the layer


def run_block(
    ex: Any, x: F64, mask: NDArray[np.bool_] | None, scale: float, bias: F64 | None
) -> tuple[Any, Any, None, str]:
    """(the layer's trace, its attention, no separate block error, what attention reads): the engine's own
    transformer_layer with the explorer's (maybe edited) weights and the model's norms and positions.
    A ValueError (an overflow from edited weights) escapes: nothing of the layer can be shown then."""
    trace = run(ex, x, mask)
    norm = "RMSNorm" if base(ex.real, ex.real_layer).config.norm == "rms_norm" else "LN"
    return trace, trace.attention, None, f"{norm}(X)" if ex.norm_first else "X"


_WEIGHTS = ("w_q", "w_k", "w_v", "w_o", "w1", "w2", "w_up", "b_q", "b_k", "b_v", "b_o", "b1", "b2")


def run(ex: Any, x: F64, mask: NDArray[np.bool_] | None) -> Any:
    """The layer of loaded example ``ex`` on its input x (n, d), with the explorer's (maybe edited) W_Q, W_K,
    W_V, W_O, W1, W2 and biases, and the model's norms and positions: an EncoderTrace (attention inside)."""
    import dataclasses

    from attention_core.transformer import transformer_layer

    b = base(ex.real, ex.real_layer)
    h, d, k = ex.w_q.shape
    # The model's own precision while its weights are untouched (float32, as the model runs); float64 once
    # an edit is in (an edited matrix is float64). Even then the untouched matrices stay the model's float32
    # arrays: each product casts the one it reads for its own length of time (float32 -> float64 is exact,
    # so the numbers are those of a float64 layer), where a float64 copy of the whole layer per run (32 MB
    # for SmolLM2) stacked up when a class opened its edited layers at once.
    dtype = np.result_type(*(getattr(ex, name) for name in _WEIGHTS))
    held = lambda name: np.asarray(getattr(ex, name))  # noqa: E731
    parts = [held(name).transpose(1, 0, 2).reshape(d, h * k) for name in ("w_q", "w_k", "w_v")]
    lw = dataclasses.replace(
        b.fixed,
        w_qkv=np.concatenate(parts, axis=1),  # (d, 3 H k): q of every head, then k, then v
        b_qkv=np.concatenate([held(name).reshape(-1) for name in ("b_q", "b_k", "b_v")]),
        w_o=held("w_o"),
        b_o=held("b_o"),
        w1=held("w1"),
        b1=held("b1"),
        w2=held("w2"),
        b2=held("b2"),
        w_up=held("w_up") if ex.w_up.size else None,
    )
    config = dataclasses.replace(b.config, dtype=str(np.dtype(dtype)))
    with np.errstate(over="ignore", invalid="ignore"):
        trace = transformer_layer(np.asarray(x, dtype=dtype), lw, config, mask)
    if not np.isfinite(trace.output).all():
        raise ValueError(_("the layer's output overflowed: the edited weights are too large"))
    return trace


def settings_of(key: str, layer: int) -> dict[str, object]:
    """The Example settings a layer fixes (explorer.model.models.layer_settings: from the models table)."""
    from explorer.model import models

    return models.layer_settings(key, layer)


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
    if not 0 <= layer < int(m.config.n_layers):
        raise ValueError(
            _("{model} has layers 1 to {n}; there is no layer {layer}", model=m.config.name, n=m.config.n_layers,
              layer=layer + 1)
        )  # fmt: skip
    trace = m.run(sentence)
    x = np.array(trace.hidden_states[layer], dtype=np.float64)  # (n, d): what layer `layer` reads
    x.setflags(write=False)
    return tuple(description.shown_tokens(trace.tokens)), x, bool(trace.truncated)
