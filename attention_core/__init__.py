"""attention_core: the numerical engine of the Attention Explorer.

numpy and the standard library only, float64 throughout. Every step of transformer self-attention is a small
pure function; the traced entry points (``multi_head_attention``, ``encoder_layer``) return frozen dataclasses
holding every intermediate matrix, which is all the app draws. Rows are queries, columns are keys; masks are
boolean, True = may attend. Bad input raises ``ValueError`` with a message meant to be shown to students.
"""

from __future__ import annotations

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
    encoder_layer,
    feed_forward,
    feed_forward_trace,
    layer_norm,
)
from .masks import causal_mask, combine_masks, padding_mask, sliding_window_mask
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

__all__ = [
    "POSITIONAL_KINDS",
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
