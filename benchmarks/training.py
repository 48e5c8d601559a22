"""One training step of the tiny transformer (attention_core.training) on one core, and where its time goes.

A step is a batch drawn (``repeated_halves``), the loss and every gradient (``loss_and_grads``) and an Adam
step, at the shipped run's size: 2 layers x 4 heads, d_model 64, vocabulary 32, context 32, batch 32. BLAS
runs on one thread (OPENBLAS_NUM_THREADS=1, set before numpy loads); the figure is process CPU time, which
other work on a shared machine inflates far less than wall time. The target is 40 ms a step.

Usage: OPENBLAS_NUM_THREADS=1 python -m benchmarks training [--steps 200] [--rounds 5]
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # takes effect only if numpy is not loaded yet (then: pass it in)

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from _common import load, machine, save  # noqa: E402

from attention_core import training as tr  # noqa: E402

TARGET_MS = 40.0


def _per_step(fn, steps: int) -> tuple[float, float]:  # noqa: ANN001
    """(CPU ms, wall ms) per call of fn over `steps` calls."""
    c, w = time.process_time(), time.perf_counter()
    for _ in range(steps):
        fn()
    return (time.process_time() - c) * 1000.0 / steps, (time.perf_counter() - w) * 1000.0 / steps


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=200, help="steps per round")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    cfg = tr.TinyConfig()
    params = tr.init(cfg, 0)
    state = tr.adam_init(params)
    rng = np.random.default_rng(0)
    tokens = tr.repeated_halves(rng, 32, cfg.n_ctx, cfg.vocab).tokens
    _, grads = tr.loss_and_grads(cfg, params, tokens)
    loads = [load()]
    parts = {
        "whole step (batch, loss and grads, Adam)": lambda: tr.train(cfg, params, 1, rng, lr=5e-3),
        "batch drawn": lambda: tr.repeated_halves(rng, 32, cfg.n_ctx, cfg.vocab),
        "forward only (traced run)": lambda: tr.run(cfg, params, tokens),
        "loss and grads": lambda: tr.loss_and_grads(cfg, params, tokens),
        "Adam step": lambda: tr.adam_step(params, grads, state, lr=5e-3),
    }
    rows = []
    for name, fn in parts.items():
        _per_step(fn, 10)  # warm-up
        rounds = [_per_step(fn, args.steps) for _ in range(args.rounds)]
        cpu, wall = [r[0] for r in rounds], [r[1] for r in rounds]
        rows.append(
            {
                "what": name,
                "cpu_ms": statistics.median(cpu),
                "best_cpu_ms": min(cpu),
                "wall_ms": statistics.median(wall),
            }
        )
    loads.append(load())
    lines = [
        "# One training step of the tiny transformer, BLAS on one thread",
        "",
        f"{machine()}; numpy {np.__version__}; {args.rounds} rounds of {args.steps} steps; {loads[0]} before, {loads[1]} after",
        "",
        "| what | CPU ms (median of rounds) | best CPU ms | wall ms |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {r['what']} | {r['cpu_ms']:.2f} | {r['best_cpu_ms']:.2f} | {r['wall_ms']:.2f} |" for r in rows
    ]
    step = rows[0]["cpu_ms"]
    lines += [
        "",
        f"A step: {step:.1f} CPU ms, target <= {TARGET_MS:g} ms: {'met' if step <= TARGET_MS else 'NOT met'}",
    ]
    save("training.md", "\n".join(lines), {"rows": rows, "loads": loads, "steps": args.steps})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
