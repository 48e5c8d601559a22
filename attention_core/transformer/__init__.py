"""A whole transformer (BERT-style encoder or Llama-style decoder) from the engine's own small functions.

The real models of ``attention_core.pretrained`` run here, and the toy's layer too: one engine function,
``transformer_layer``. Each layer's trace is an ``EncoderTrace`` holding an ``AttentionTrace``: the pages
that draw the toy layer can draw a real one.

layer.py      transformer_layer: one layer, traced (attention with RoPE and shared key/value heads, norms, FFN)
toy.py        encoder_layer: the toy's layer, its arguments checked and laid out for transformer_layer
embedding.py  embed_tokens: the first layer's input
stack.py      run_transformer, run_layers, output_logits, resume_transformer: a whole model, layer after layer
suffix.py     resume_rows: the rest of a causal run after some positions changed, only the rows that change

Precision: the arrays keep the dtype of the weights: float32 for the real models (their native precision),
float64 when the weights are float64. No step here reads a file (see ``pretrained``). The config and the
weights it runs are declared in ``weights`` (re-exported here).
"""

from __future__ import annotations

from ..weights import EmbeddingWeights, LayerWeights, ModelConfig, ModelWeights
from .embedding import EmbeddingTrace, embed_tokens
from .layer import transformer_layer
from .stack import (
    HEAD_MASK_LIMIT,
    check_head_mask,
    output_logits,
    resume_transformer,
    run_layers,
    run_transformer,
)
from .toy import encoder_layer, toy_layer

__all__ = [
    "HEAD_MASK_LIMIT",
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
    "toy_layer",
    "transformer_layer",
]
