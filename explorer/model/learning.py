"""The shipped training run of /learn: its recipe, described once, and the file of checkpoints it leaves.

A two-layer attention-only transformer (``attention_core.training``) trained from a fixed seed on random
tokens whose first stretch comes back at a varied offset. What is kept: the parameters at each checkpoint
(float16, enough to draw attention and switch heads off), a SHA-256 of each checkpoint's float64 parameters
(so training again from the seed can be checked bit for bit), and after every step the batch's loss, the
loss on the copied tokens of a fixed evaluation batch and every head's induction and previous-token score on
fixed repeated runs. ``scripts/make_learn_run.py`` writes the file; ``load`` reads it. Pure: no Streamlit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from attention_core import training as tr

RUN_FILE = Path(__file__).resolve().parents[1] / "assets" / "learn_run.npz"


@dataclass(frozen=True)
class Recipe:
    """How the shipped run was trained (every default is the shipped run's)."""

    cfg: tr.TinyConfig = field(
        default_factory=tr.TinyConfig
    )  # 2 layers x 4 heads, d_model 64, V 32, n_ctx 32
    seed: int = (
        0  # init(cfg, seed); batches from default_rng([1, seed]); measuring sets from [2, seed], [3, seed]
    )
    lr: float = 5e-3  # Adam's learning rate (betas 0.9, 0.999)
    batch: int = 32  # sequences per step
    steps: int = 2500
    # where the parameters are kept: every 25 steps through the plateau and the phase change, then sparser
    checkpoints: tuple[int, ...] = (*range(0, 625, 25), 700, 800, 1000, 1250, 1500, 2000, 2500)
    score_runs: int = 8  # repeated runs the head scores are measured on (n_ctx / 2 tokens, twice)
    eval_batch: int = 16  # sequences the copied tokens' loss is measured on


@dataclass(frozen=True, eq=False)
class LearnRun:
    """A training run as kept. C = checkpoints, S = steps, L = layers, H = heads.

    Fields:
        recipe: how it was trained.
        checkpoints: (C,) int64 the step of each checkpoint (0 = before training).
        params: name -> (C, *shape) float16, the parameters at each checkpoint.
        digests: (C,) the SHA-256 (hex) of each checkpoint's float64 parameters, in ``param_shapes`` order.
        loss: (S,) float64 each step's batch loss (before its update); loss[s - 1] is step s's.
        repeat_loss: (S + 1,) float64 the copied tokens' loss on the evaluation batch, after s steps.
        induction, previous: (S + 1, L, H) float64 every head's scores after s steps.
    """

    recipe: Recipe
    checkpoints: np.ndarray
    params: dict[str, np.ndarray]
    digests: tuple[str, ...]
    loss: np.ndarray
    repeat_loss: np.ndarray
    induction: np.ndarray
    previous: np.ndarray

    def params_at(self, i: int) -> dict[str, np.ndarray]:
        """Checkpoint i's parameters as float64 (from the kept float16)."""
        return {name: arr[i].astype(np.float64) for name, arr in self.params.items()}


def digest(params: dict[str, np.ndarray]) -> str:
    """SHA-256 of the parameters' float64 bytes, in sorted name order."""
    h = hashlib.sha256()
    for name in sorted(params):
        h.update(np.ascontiguousarray(params[name], dtype=np.float64).tobytes())
    return h.hexdigest()


def measuring_sets(recipe: Recipe) -> tuple[np.ndarray, tr.RepeatBatch]:
    """The fixed repeated runs (score_runs, n_ctx) and evaluation batch every step is measured on."""
    cfg = recipe.cfg
    runs = tr.repeated_runs(
        np.random.default_rng([2, recipe.seed]), recipe.score_runs, cfg.n_ctx // 2, cfg.vocab
    )
    batch = tr.repeated_halves(
        np.random.default_rng([3, recipe.seed]), recipe.eval_batch, cfg.n_ctx, cfg.vocab
    )
    return runs, batch


def train_run(
    recipe: Recipe, until: int | None = None, progress: Callable[[int], None] | None = None
) -> LearnRun:
    """Train from the recipe's seed for ``until`` steps (default: all), keeping what ``LearnRun`` holds."""
    cfg, total = recipe.cfg, recipe.steps if until is None else until
    runs, eval_batch = measuring_sets(recipe)
    params = tr.init(cfg, recipe.seed)
    kept: list[dict[str, np.ndarray]] = []
    digests: list[str] = []
    loss: list[float] = []
    repeat_loss, induction, previous = [], [], []

    def measure(p: dict[str, np.ndarray], step: int) -> None:
        ind, prev = tr.head_scores(cfg, p, runs)
        induction.append(ind)
        previous.append(prev)
        repeat_loss.append(tr.repeat_loss(cfg, p, eval_batch))
        if step in recipe.checkpoints:
            kept.append({k: v.astype(np.float16) for k, v in p.items()})
            digests.append(digest(p))

    def callback(s: tr.TrainStep) -> None:
        loss.append(s.loss)
        measure(s.params, s.step)
        if progress is not None:
            progress(s.step)

    measure(params, 0)
    tr.train(
        cfg,
        params,
        total,
        np.random.default_rng([1, recipe.seed]),
        lr=recipe.lr,
        batch=recipe.batch,
        callback=callback,
    )
    steps = np.array([c for c in recipe.checkpoints if c <= total], dtype=np.int64)
    return LearnRun(
        recipe=recipe,
        checkpoints=steps,
        params={k: np.stack([p[k] for p in kept]) for k in kept[0]},
        digests=tuple(digests),
        loss=np.array(loss),
        repeat_loss=np.array(repeat_loss),
        induction=np.array(induction),
        previous=np.array(previous),
    )


def save(run: LearnRun, path: Path = RUN_FILE) -> None:
    """Write the run as one compressed .npz (the recipe as JSON beside the arrays)."""
    recipe = asdict(run.recipe)
    arrays = {f"params/{k}": v for k, v in run.params.items()}
    np.savez_compressed(
        path,
        recipe=np.array(json.dumps(recipe)),
        checkpoints=run.checkpoints,
        digests=np.array(run.digests),
        loss=run.loss,
        repeat_loss=run.repeat_loss,
        induction=run.induction,
        previous=run.previous,
        **arrays,
    )


def load(path: Path = RUN_FILE) -> LearnRun:
    """Read a run written by ``save`` (no pickles)."""
    with np.load(path, allow_pickle=False) as f:
        raw = json.loads(str(f["recipe"]))
        recipe = Recipe(
            **{**raw, "cfg": tr.TinyConfig(**raw["cfg"]), "checkpoints": tuple(raw["checkpoints"])}
        )
        params = {k.removeprefix("params/"): f[k] for k in f.files if k.startswith("params/")}
        return LearnRun(
            recipe=recipe,
            checkpoints=f["checkpoints"],
            params={k: params[k] for k in tr.param_shapes(recipe.cfg)},
            digests=tuple(str(d) for d in f["digests"]),
            loss=f["loss"],
            repeat_loss=f["repeat_loss"],
            induction=f["induction"],
            previous=f["previous"],
        )
