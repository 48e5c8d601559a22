""" "Train it yourself" on /learn: a visitor's training run as a job that hands the page what it has so far
(the loss at every step, the heads' scores every MEASURE_EVERY steps) while it trains. Pure: no Streamlit.

The run is the shipped run's recipe with the visitor's seed, learning rate, heads per layer and steps
(``learning.live_recipe`` bounds them); it is measured on the same kind of fixed repeated runs and evaluation
batch, drawn from its own seed. Thirty students pressing Train on one shared link join one job.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core import training as tr
from explorer.compute import jobs
from explorer.i18n import N_
from explorer.model import learning

STEP = N_("Training: step {step} of {total}")  # the job's progress (jobs.said: worded on the page)
MEASURE_EVERY = 10  # steps between two measurements of every head (a measurement costs about a step)
STEP_S = 0.025  # a step's expected seconds on one worker (benchmarks: training), for the job's place in line
FORMED = 0.5  # an induction head "has formed" once its score passes this (as on the shipped run)


@dataclass(frozen=True, eq=False)
class LiveRun:
    """A visitor's run so far. S = steps taken, K = measurements, L = layers, H = heads.

    Fields:
        seed, lr, heads, steps: what was asked (steps: the run's length; S of them taken so far).
        loss: (S,) float32 each step's batch loss (before its update), in nats.
        measured: (K,) int64 the steps after which the heads were measured (0, every MEASURE_EVERY, the last).
        repeat_loss: (K,) float32 the copied tokens' loss on the evaluation batch at those steps.
        induction, previous: (K, L, H) float32 every head's scores at those steps.
        finished: whether every step was taken.
    """

    seed: int
    lr: float
    heads: int
    steps: int
    loss: np.ndarray
    measured: np.ndarray
    repeat_loss: np.ndarray
    induction: np.ndarray
    previous: np.ndarray
    finished: bool

    @property
    def taken(self) -> int:
        return int(self.loss.size)

    @property
    def formed_at(self) -> int | None:
        """The first measured step at which a last-layer head's induction score passes FORMED (None: not yet)."""
        above = np.flatnonzero(self.induction[:, -1].max(axis=1) >= FORMED)
        return int(self.measured[above[0]]) if above.size else None


def train_live(recipe: learning.Recipe, progress: jobs.Progress | None = None) -> LiveRun:
    """Train from the recipe's seed, measuring every MEASURE_EVERY steps and, after each measurement, reporting
    the run so far to ``progress`` (which stops the run by raising jobs.Stopped)."""
    cfg, total = recipe.cfg, recipe.steps
    runs, eval_batch = learning.measuring_sets(recipe)
    loss: list[float] = []
    measured: list[int] = []
    repeat_loss, induction, previous = [], [], []

    def so_far(finished: bool) -> LiveRun:
        return LiveRun(
            seed=recipe.seed, lr=recipe.lr, heads=cfg.n_heads, steps=total,
            loss=np.array(loss, dtype=np.float32), measured=np.array(measured, dtype=np.int64),
            repeat_loss=np.array(repeat_loss, dtype=np.float32),
            induction=np.array(induction, dtype=np.float32).reshape(-1, cfg.n_layers, cfg.n_heads),
            previous=np.array(previous, dtype=np.float32).reshape(-1, cfg.n_layers, cfg.n_heads),
            finished=finished,
        )  # fmt: skip

    def measure(params: dict[str, np.ndarray], step: int) -> None:
        ind, prev = tr.head_scores(cfg, params, runs)
        measured.append(step)
        induction.append(ind)
        previous.append(prev)
        repeat_loss.append(tr.repeat_loss(cfg, params, eval_batch))
        if progress is not None:
            progress(step / total, jobs.said(STEP, step=step, total=total), partial=so_far(False))

    def callback(s: tr.TrainStep) -> None:
        loss.append(s.loss)
        if s.step % MEASURE_EVERY == 0 or s.step == total:
            measure(s.params, s.step)

    params = tr.init(cfg, recipe.seed)
    measure(params, 0)
    learning.train_steps(recipe, params, total, callback)
    return so_far(True)


def train_job(seed: int, lr: float, heads: int, steps: int, progress: jobs.Progress) -> LiveRun:
    """The job: a visitor's run, bounded by ``learning.live_recipe`` (a ValueError says what is allowed)."""
    return train_live(learning.live_recipe(seed, lr, heads, steps), progress)


def job(seed: int, lr: float, heads: int, steps: int) -> jobs.Spec:
    """The job of a visitor's run (its key: the settings, so the same settings join one run)."""
    return jobs.spec(train_job, int(seed), float(lr), int(heads), int(steps), cost=STEP_S * int(steps))
