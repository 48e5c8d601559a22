"""/learn's values from the shipped training run: the moments the heads form, the attention at a checkpoint,
and the trained model with its previous-token head switched off (K-composition). Pure: no Streamlit.

The run is read once per process (shared, read-only); each checkpoint's attention and the switch-off
experiment are computed once per process behind byte-bounded caches.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from attention_core import training as tr
from explorer import cache
from explorer.model import learning

SMALL_BYTES = 4 * cache.MB  # a checkpoint's attention is 8 x 32 x 32 floats (64 KB)
FORMED = 0.5  # a head "has formed" once its score passes this: most of its weight on its stripe
SMOOTH = 25  # steps in the moving average of the batch loss (one batch's loss is noisy)


@functools.cache
def shipped() -> learning.LearnRun:
    """The shipped run, read once per process."""
    return learning.load()


@dataclass(frozen=True)
class Moments:
    """When things happen in the run (steps), and which heads do them (0-based layer, head).

    Fields:
        previous_head: the layer-1 head with the highest final previous-token score.
        induction_head: the layer-2 head with the highest final induction score.
        previous_step, induction_step: the first step each passes FORMED.
        drop_step: the step where the smoothed loss falls fastest (the phase change).
        loss_before, loss_after: the smoothed loss 100 steps before drop_step and at the end.
    """

    previous_head: tuple[int, int]
    induction_head: tuple[int, int]
    previous_step: int
    induction_step: int
    drop_step: int
    loss_before: float
    loss_after: float


def smoothed_loss(run: learning.LearnRun) -> np.ndarray:
    """(S,) the run's batch loss averaged over the SMOOTH steps up to each step (fewer at the start)."""
    return smooth(run.loss)


def smooth(loss: np.ndarray) -> np.ndarray:
    """(S,) a batch loss (S,) averaged over the SMOOTH steps up to each step (fewer at the start)."""
    csum = np.concatenate([[0.0], np.cumsum(loss, dtype=np.float64)])  # (S + 1,)
    ends = np.arange(1, loss.size + 1)
    starts = np.maximum(0, ends - SMOOTH)
    return (csum[ends] - csum[starts]) / (ends - starts)


@functools.cache
def moments() -> Moments:
    run = shipped()
    prev_head = (0, int(np.argmax(run.previous[-1, 0])))
    ind_head = (1, int(np.argmax(run.induction[-1, 1])))
    curve = smoothed_loss(run)
    fall = curve[:-SMOOTH] - curve[SMOOTH:]  # (S - SMOOTH,) how much the loss falls over the next window
    drop = int(np.argmax(fall)) + SMOOTH // 2 + 1  # the window's middle, as a step number
    return Moments(
        previous_head=prev_head,
        induction_head=ind_head,
        previous_step=_first_step(run.previous[:, 0, prev_head[1]]),
        induction_step=_first_step(run.induction[:, 1, ind_head[1]]),
        drop_step=drop,
        loss_before=float(curve[max(0, drop - 100 - 1)]),
        loss_after=float(curve[-1]),
    )


def _first_step(score: np.ndarray) -> int:
    """The first step (index into (S + 1,) scores) at which score >= FORMED, or the last step."""
    above = np.flatnonzero(score >= FORMED)
    return int(above[0]) if above.size else int(score.size - 1)


def display_tokens() -> np.ndarray:
    """(n_ctx,) the sequence whose attention /learn draws: the first of the run's measuring runs."""
    runs, _ = learning.measuring_sets(shipped().recipe)
    return runs[0]


@cache.shared(max_bytes=SMALL_BYTES)
def attention_at(index: int) -> np.ndarray:
    """(L, H, T, T) every head's weights on ``display_tokens`` at checkpoint ``index``."""
    run = shipped()
    trace = tr.run(run.recipe.cfg, run.params_at(index), display_tokens())
    return trace.attentions[0]


@dataclass(frozen=True)
class SwitchOff:
    """The trained model (last checkpoint) with one layer-1 head switched off, against all heads on.

    Fields:
        head: (layer, head) switched off, 0-based.
        induction_on, induction_off: (H,) layer 2's induction scores with every head on, with ``head`` off.
        loss_on, loss_off: the copied tokens' loss (nats) likewise.
    """

    head: tuple[int, int]
    induction_on: np.ndarray
    induction_off: np.ndarray
    loss_on: float
    loss_off: float


@cache.shared(max_bytes=SMALL_BYTES)
def switch_off(head: int) -> SwitchOff:
    """The last checkpoint with layer 1's ``head`` off: layer 2's induction scores and the copied loss."""
    run = shipped()
    cfg, params = run.recipe.cfg, run.params_at(len(run.checkpoints) - 1)
    runs, batch = learning.measuring_sets(run.recipe)
    mask = np.ones((cfg.n_layers, cfg.n_heads))
    mask[0, head] = 0.0
    on, _ = tr.head_scores(cfg, params, runs)
    off, _ = tr.head_scores(cfg, params, runs, head_mask=mask)
    return SwitchOff(
        head=(0, head),
        induction_on=on[1],
        induction_off=off[1],
        loss_on=tr.repeat_loss(cfg, params, batch),
        loss_off=tr.repeat_loss(cfg, params, batch, head_mask=mask),
    )


def tour(checkpoints: list[int], m: Moments) -> list[int]:
    """The checkpoints a presenter's clicker steps through, in order: the start, the plateau, the steps where
    each head forms and the loss falls fastest, just after, and the end (each the nearest kept checkpoint)."""
    marks = (0, m.drop_step // 2, m.drop_step - 100, m.previous_step, m.induction_step, m.drop_step,
             m.drop_step + 100, checkpoints[-1])  # fmt: skip
    kept = np.asarray(checkpoints)
    return sorted({int(kept[np.argmin(np.abs(kept - s))]) for s in marks})


def neighbour(stops: list[int], at: int, later: bool) -> int | None:
    """The next (later) or previous stop of the tour from step ``at`` (which may lie between stops), or None."""
    if later:
        return next((s for s in stops if s > at), None)
    return next((s for s in reversed(stops) if s < at), None)
