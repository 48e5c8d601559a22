"""attention_core: the numerical engine of the Attention Explorer.

numpy and the standard library only, float64 throughout. Every step of transformer self-attention is a small
pure function; the traced entry points (``multi_head_attention``, ``encoder_layer``) return frozen dataclasses
holding every intermediate matrix, which is all the app draws. ``transformer`` assembles the same functions
into whole real models (float32, their native precision); ``training`` trains a tiny attention-only
transformer (backward pass, Adam, float64); ``attention_core.pretrained`` (imported on its own,
the only module that reads files) loads all-MiniLM-L6-v2 and SmolLM2-135M into it. Rows are queries, columns are keys; masks are
boolean, True = may attend. Bad input raises ``ValueError`` with a message meant to be shown to students.
"""

from __future__ import annotations

from .activations import ACTIVATIONS, erf, gelu, silu
from .attention import (
    AttentionTrace,
    multi_head_attention,
    scaled_dot_product_attention,
    weighted_value_contributions,
)
from .embedding import embed, token_seed
from .encoder import (
    EncoderTrace,
    FeedForwardTrace,
    feed_forward,
    feed_forward_trace,
    layer_norm,
)
from .masks import causal_mask, combine_masks, padding_mask, sliding_window_mask
from .norms import rms_norm
from .positional import (
    POSITIONAL_KINDS,
    alibi_bias,
    alibi_slopes,
    notebook_positional_encoding,
    positional_encoding,
    rope,
)
from .scaling import ScoreVariance, SoftmaxSaturation, score_variance_experiment, softmax_saturation
from .softmax import softmax
from .tokens import token_index_labels, token_labels, tokenize
from .transformer import (
    EmbeddingTrace,
    EmbeddingWeights,
    LayerWeights,
    ModelConfig,
    ModelWeights,
    embed_tokens,
    encoder_layer,
    output_logits,
    run_layers,
    run_transformer,
    transformer_layer,
)

__all__ = [
    "ACTIVATIONS",
    "POSITIONAL_KINDS",
    "EmbeddingTrace",
    "EmbeddingWeights",
    "LayerWeights",
    "ModelConfig",
    "ModelWeights",
    "embed_tokens",
    "erf",
    "gelu",
    "output_logits",
    "rms_norm",
    "run_layers",
    "run_transformer",
    "silu",
    "transformer_layer",
    "AttentionTrace",
    "EncoderTrace",
    "FeedForwardTrace",
    "ScoreVariance",
    "SoftmaxSaturation",
    "alibi_bias",
    "alibi_slopes",
    "causal_mask",
    "combine_masks",
    "embed",
    "encoder_layer",
    "feed_forward",
    "feed_forward_trace",
    "layer_norm",
    "multi_head_attention",
    "notebook_positional_encoding",
    "padding_mask",
    "positional_encoding",
    "rope",
    "scaled_dot_product_attention",
    "score_variance_experiment",
    "sliding_window_mask",
    "softmax",
    "softmax_saturation",
    "token_index_labels",
    "token_labels",
    "token_seed",
    "tokenize",
    "weighted_value_contributions",
]
