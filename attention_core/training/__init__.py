"""Training a tiny attention-only transformer in the engine: forward, backward, Adam, data, head scores.

numpy and the standard library only, float64, pure functions; randomness comes in as a seed or an
``np.random.Generator``. The model: token embeddings plus learned positions, ``n_layers`` layers of multi-head
causal attention added to the residual stream (optionally read through layer or RMS norm), an unembedding,
next-token cross-entropy. The interface other tools train it through::

    cfg = training.TinyConfig(n_layers=2, n_heads=4, d_model=64, vocab=32, n_ctx=32)
    params = training.init(cfg, seed=0)                         # dict: name -> float64 array
    loss, grads = training.loss_and_grads(cfg, params, tokens)  # tokens: (batch, n_ctx) ints < vocab

- ``model``: the configuration, the parameters, the traced forward run and the backward pass.
- ``adam``: the optimiser.
- ``data``: sequences whose random first half comes back at a varied offset, and the repeated runs that
  measure each head.
- ``loop``: the training loop, a callback after every step.
"""

from __future__ import annotations

from .adam import AdamState, adam_init, adam_step
from .data import RepeatBatch, repeat_targets, repeated_halves, repeated_runs
from .loop import TrainStep, head_scores, repeat_loss, train
from .model import NORMS, TinyConfig, TinyTrace, init, loss_and_grads, param_shapes, run

__all__ = [
    "NORMS",
    "AdamState",
    "RepeatBatch",
    "TinyConfig",
    "TinyTrace",
    "TrainStep",
    "adam_init",
    "adam_step",
    "head_scores",
    "init",
    "loss_and_grads",
    "param_shapes",
    "repeat_loss",
    "repeat_targets",
    "repeated_halves",
    "repeated_runs",
    "run",
    "train",
]
