"""The training loop and what is measured along the way: each head's scores and the loss on repeated tokens."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validate import FloatArray, as_int
from ..analysis.induction import induction_stripe, previous_token_scores
from .adam import AdamState, adam_init, adam_step
from .data import RepeatBatch, repeat_targets, repeated_halves
from .model import TinyConfig, loss_and_grads, run

__all__ = ["TrainStep", "head_scores", "repeat_loss", "train"]


@dataclass(frozen=True, eq=False)
class TrainStep:
    """What the loop hands its callback after each step.

    Fields:
        step: steps taken so far (1 after the first).
        loss: the mean loss of this step's batch, before the update, in nats.
        params: the parameters after the update (name -> float64 array; do not change them).
        state: Adam's state after the update.
    """

    step: int
    loss: float
    params: dict[str, FloatArray]
    state: AdamState


def train(
    cfg: TinyConfig,
    params: dict[str, FloatArray],
    steps: int,
    rng: np.random.Generator,
    lr: float | Callable[[int], float] = 1e-3,
    batch: int = 32,
    callback: Callable[[TrainStep], bool | None] | None = None,
    state: AdamState | None = None,
    min_len: int | None = None,
    short_share: float = 0.0,
) -> tuple[dict[str, FloatArray], AdamState]:
    """``steps`` Adam steps on fresh ``repeated_halves`` batches of n_ctx tokens drawn from ``rng``.

    Each step: tokens = repeated_halves(rng, batch, n_ctx, vocab, min_len, short_share).tokens; loss, grads =
    loss_and_grads(...); params, state = adam_step(...); then callback(TrainStep); a callback returning
    False stops the loop there. The same configuration, parameters and generator state give the same
    numbers, bit for bit, wherever numpy's matrix products sum in the same order.

    Args:
        cfg: the model; params: its parameters (not changed); steps: >= 0.
        rng: the generator every batch is drawn from (advanced by the loop).
        lr: Adam's learning rate, or a function of the step (1 for the first) giving it (a schedule).
        batch: sequences per step.
        callback: called after every step, or None.
        state: Adam's state to resume from, or None (a fresh start).
        min_len: the shortest repeated stretch of the batches (``repeated_halves``), or None (its default).
        short_share: the share of sequences with a stretch shorter than that (``repeated_halves``).

    Returns:
        The parameters and Adam's state after the last step taken.
    """
    n_steps, n_batch = as_int("steps", steps, 0), as_int("batch", batch, 1)
    state = adam_init(params) if state is None else state
    rate = lr if callable(lr) else (lambda _step: lr)
    for _ in range(n_steps):
        tokens = repeated_halves(
            rng, n_batch, cfg.n_ctx, cfg.vocab, min_len, short_share
        ).tokens  # (batch, n_ctx)
        loss, grads = loss_and_grads(cfg, params, tokens)
        params, state = adam_step(params, grads, state, lr=rate(state.step + 1))
        if callback is not None and callback(TrainStep(state.step, loss, params, state)) is False:
            break
    return params, state


def head_scores(
    cfg: TinyConfig, params: dict[str, FloatArray], runs: ArrayLike, head_mask: ArrayLike | None = None
) -> tuple[FloatArray, FloatArray]:
    """Every head's induction and previous-token score, on the batch-mean attention of repeated runs.

    With A_lh the mean over the runs of head (l, h)'s weights on n tokens repeated (2n in all):
    induction[l, h] = (1/n) sum_{i=n}^{2n-1} A_lh[i, i - n + 1]; previous[l, h] = (1/(2n - 1))
    sum_{i=1}^{2n-1} A_lh[i, i - 1] (``attention_core.analysis.induction``).

    Args:
        cfg, params: the model.
        runs: (C, 2n) each row n tokens then the same n (``repeated_runs``), 2n <= n_ctx.
        head_mask: (L, h) head weights for the run (1 keeps, 0 switches off), or None.

    Returns:
        induction (L, h) and previous (L, h), float64 in 0 .. 1.
    """
    trace = run(cfg, params, runs, head_mask)
    mean = trace.attentions.mean(axis=0)  # (L, h, 2n, 2n)
    n = trace.tokens.shape[1] // 2
    return induction_stripe(mean, n), previous_token_scores(mean)


def repeat_loss(
    cfg: TinyConfig, params: dict[str, FloatArray], batch: RepeatBatch, head_mask: ArrayLike | None = None
) -> float:
    """The mean loss, in nats, where the next token can be copied from the first copy (``repeat_targets``).

    Args:
        cfg, params: the model; batch: sequences of n_ctx tokens from ``repeated_halves``.
        head_mask: (L, h) head weights for the run, or None.
    """
    losses = run(cfg, params, batch.tokens, head_mask).losses  # (B, T - 1)
    return float(losses[repeat_targets(batch)].mean())
