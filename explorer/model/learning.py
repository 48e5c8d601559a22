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
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from attention_core import training as tr
from explorer.i18n import _, integer

RUN_FILE = Path(__file__).resolve().parents[1] / "assets" / "learn_run.npz"


@dataclass(frozen=True)
class Recipe:
    """How the shipped run was trained (every default is the shipped run's)."""

    cfg: tr.TinyConfig = field(
        default_factory=tr.TinyConfig
    )  # 2 layers x 4 heads, d_model 64, V 32, n_ctx 32
    # init(cfg, seed); batches from default_rng([1, seed]); measuring sets from [2, seed], [3, seed]
    seed: int = 0
    lr: float = 5e-3  # Adam's (peak) learning rate (betas 0.9, 0.999)
    # "none": lr throughout; "cosine": from lr down half a cosine to lr * FLOOR at the last step
    decay: str = "cosine"
    batch: int = 32  # sequences per step
    steps: int = 4000
    min_len: int | None = None  # the shortest repeated stretch (None: repeated_halves's own)
    # the share of sequences whose stretch is shorter (2 .. min_len - 1): only those can sit late enough in
    # the context for the last positions to need a previous-token head; the measured previous-token score
    # averages over every position, so the head must form at all of them
    short_share: float = 0.4
    # where the parameters are kept: every 25 steps through the plateau and the phase change, then sparser
    checkpoints: tuple[int, ...] = (*range(0, 800, 25), 900, 1000, 1250, 1500, 2000, 3000, 4000)
    score_runs: int = 8  # repeated runs the head scores are measured on
    score_len: int = 16  # ... each of score_len distinct tokens, twice
    eval_ctx: int = 32  # the evaluation batch's sequences: eval_ctx tokens with a repeated half
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


DECAYS = ("none", "cosine")
FLOOR = 0.05  # the cosine schedule's last learning rate, as a share of its first


def lr_at(recipe: Recipe, step: int) -> float:
    """The learning rate of step ``step`` (1 .. recipe.steps) under the recipe's schedule."""
    if recipe.decay == "none":
        return recipe.lr
    if recipe.decay != "cosine":
        raise ValueError(f"decay must be one of {', '.join(DECAYS)}, got {recipe.decay!r}")
    done = (step - 1) / max(1, recipe.steps - 1)  # 0 at the first step, 1 at the last
    return recipe.lr * (FLOOR + (1.0 - FLOOR) * 0.5 * (1.0 + np.cos(np.pi * done)))


def train_steps(
    recipe: Recipe, params: dict[str, np.ndarray], steps: int, callback: Callable[[tr.TrainStep], None]
) -> None:
    """The first ``steps`` steps of the recipe from ``params``: batches from default_rng([1, seed]) with
    stretches of min_len or more (a short_share of them shorter), the recipe's learning rate schedule,
    ``callback`` after each step."""
    tr.train(recipe.cfg, params, steps, np.random.default_rng([1, recipe.seed]),
             lr=lambda step: lr_at(recipe, step), batch=recipe.batch, callback=callback,
             min_len=recipe.min_len, short_share=recipe.short_share)  # fmt: skip


def digest(params: dict[str, np.ndarray]) -> str:
    """SHA-256 of the parameters' float64 bytes, in sorted name order."""
    h = hashlib.sha256()
    for name in sorted(params):
        h.update(np.ascontiguousarray(params[name], dtype=np.float64).tobytes())
    return h.hexdigest()


def measuring_sets(recipe: Recipe) -> tuple[np.ndarray, tr.RepeatBatch]:
    """The fixed repeated runs (score_runs, 2 score_len) and evaluation batch (eval_batch, eval_ctx) every step
    is measured on."""
    cfg = recipe.cfg
    runs = tr.repeated_runs(
        np.random.default_rng([2, recipe.seed]), recipe.score_runs, recipe.score_len, cfg.vocab
    )
    batch = tr.repeated_halves(
        np.random.default_rng([3, recipe.seed]), recipe.eval_batch, recipe.eval_ctx, cfg.vocab
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
    train_steps(recipe, params, total, callback)
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


# "Train it yourself": what a visitor may ask for, bounded (each run is a job of up to a minute of a worker's time).
LIVE_SEEDS = 100_000  # seeds 0 .. 99,999
LIVE_LRS = (1e-3, 2e-3, 3e-3, 5e-3, 1e-2, 2e-2)  # Adam's learning rate; past 2e-2 the run tends to diverge
LIVE_HEADS = (1, 2, 4, 8)  # heads per layer: d_model 64 splits evenly into these
LIVE_STEPS = (500, 1000, 1500, 2000)  # at about 20 ms a step on one core: 10 to 40 s of training
# 1e-2: the phase change comes at about step 470 (about 13 s of training), where the shipped 5e-3 takes 570
LIVE_DEFAULTS = {"seed": 0, "lr": 1e-2, "heads": 4, "steps": 1000}


def live_recipe(seed: int, lr: float, heads: int, steps: int) -> Recipe:
    """The recipe of a visitor's run: the shipped model with ``heads`` heads a layer, trained for ``steps``
    from ``seed`` at learning rate ``lr``. Raises ValueError, saying the allowed values, for anything else."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < LIVE_SEEDS:
        raise ValueError(
            _(
                "The seed must be a whole number from 0 to {last}, not {seed!r}.",
                last=integer(LIVE_SEEDS - 1),
                seed=seed,
            )
        )
    if lr not in LIVE_LRS:
        raise ValueError(
            _(
                "The learning rate must be one of {rates}, not {lr!r}.",
                rates=", ".join(f"{x:g}" for x in LIVE_LRS),
                lr=lr,
            )
        )
    if heads not in LIVE_HEADS:
        raise ValueError(
            _(
                "The heads per layer must be one of {options}, not {heads!r}.",
                options=", ".join(map(str, LIVE_HEADS)),
                heads=heads,
            )
        )
    if steps not in LIVE_STEPS:
        raise ValueError(
            _(
                "The training steps must be one of {options}, not {steps!r}.",
                options=", ".join(map(str, LIVE_STEPS)),
                steps=steps,
            )
        )
    return replace(Recipe(), cfg=replace(Recipe().cfg, n_heads=int(heads)), seed=int(seed), lr=float(lr),
                   steps=int(steps), checkpoints=(0,))  # fmt: skip


TARGETS = (0.9, 0.8, 0.3)  # what the shipped run reaches: previous-token >=, induction >=, copied loss <=


def final_figures(run: LearnRun) -> tuple[float, float, float]:
    """Measured again on the last kept checkpoint (its float16 parameters, as the page draws them): layer 1's
    best previous-token score, layer 2's best induction score, and the copied tokens' loss in nats."""
    cfg, params = run.recipe.cfg, run.params_at(len(run.checkpoints) - 1)
    runs, batch = measuring_sets(run.recipe)
    induction, previous = tr.head_scores(cfg, params, runs)
    return float(previous[0].max()), float(induction[1].max()), tr.repeat_loss(cfg, params, batch)
