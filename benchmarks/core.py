"""Benchmark of attention_core.multi_head_attention (w_o given, every intermediate returned).

Prints, for each (n, d_model, heads):
  - numpy ms: the median wall time of multi_head_attention on all the CPUs this process may use, and in
    brackets the best time (on a busy machine the best is the steadier figure);
  - trace MiB: the memory of the returned trace (the nbytes of its arrays, an array shared by two fields once);
  - torch ms: the same for torch.nn.MultiheadAttention(d_model, heads, bias=False, batch_first=True,
    dtype=float64) called with need_weights=True, average_attn_weights=False, on the same weights, with
    torch.set_num_threads set to the same number of CPUs (its output is checked against ours);
  - the same two engines pinned to one CPU, timed in CPU time (process_time): the work each one does, a
    figure that a busy machine disturbs much less than wall time;
  - where the time goes at (512, 512, 8): each step of the two engines alone, and exp alone.
Each engine runs in its own process (torch's OpenMP threads and numpy's OpenBLAS threads would otherwise
spin against each other), in alternating rounds, so that a busy machine slows both alike; the table gives the
median over the rounds. PyTorch is optional: without it only the numpy columns are printed.

Usage: .venv/bin/python -m benchmarks core [--rounds 3] [--budget 1.5] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attention_core import multi_head_attention, score_variance_experiment, softmax_saturation  # noqa: E402

CONFIGS = [(8, 4, 2), (64, 64, 4), (512, 512, 8), (1024, 256, 8)]


def n_threads() -> int:
    """The CPUs this process may use: numpy's BLAS uses them all, and torch is set to the same number."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def timings_ms(fn: Callable[[], object], budget_s: float, clock: Callable[[], float]) -> list[float]:
    """Times of fn() in ms on ``clock``, after two warm-up calls, over 5 to 300 runs."""
    fn()
    fn()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < 5 or (time.perf_counter() - start < budget_s and len(times) < 300):
        t0 = clock()
        fn()
        times.append((clock() - t0) * 1e3)
    return times


def median_ms(fn: Callable[[], object], budget_s: float, clock: Callable[[], float]) -> float:
    return statistics.median(timings_ms(fn, budget_s, clock))


def make_weights(n: int, d_model: int, heads: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    d_head = d_model // heads
    scale = 1.0 / np.sqrt(d_model)
    return {
        "x": rng.standard_normal((n, d_model)),
        "w_q": rng.standard_normal((heads, d_model, d_head)) * scale,
        "w_k": rng.standard_normal((heads, d_model, d_head)) * scale,
        "w_v": rng.standard_normal((heads, d_model, d_head)) * scale,
        "w_o": rng.standard_normal((heads * d_head, d_model)) * scale,
    }


def torch_runner(arrays: dict[str, np.ndarray], heads: int) -> tuple[Callable[[], object], np.ndarray]:
    """A closure running torch's MultiheadAttention on the same weights, and its output."""
    import torch

    torch.set_num_threads(n_threads())
    d_model = arrays["x"].shape[1]
    mha = torch.nn.MultiheadAttention(d_model, heads, bias=False, batch_first=True, dtype=torch.float64)

    def per_head_t(w: np.ndarray) -> np.ndarray:
        return w.transpose(1, 0, 2).reshape(d_model, -1).T  # (h, d_model, d) -> (h*d, d_model)

    in_proj = np.concatenate([per_head_t(arrays[k]) for k in ("w_q", "w_k", "w_v")])  # (3 d_model, d_model)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(in_proj))
        mha.out_proj.weight.copy_(torch.from_numpy(arrays["w_o"].T.copy()))
    x = torch.from_numpy(arrays["x"])[None]  # (1, n, d_model)

    def run() -> object:
        with torch.inference_mode():
            return mha(x, x, x, need_weights=True, average_attn_weights=False)

    out, _ = run()
    return run, out[0].numpy()


def worker(engine: str, budget: float) -> None:
    """Time one engine on every configuration and print one JSON line per configuration."""
    clock = time.process_time if n_threads() == 1 else time.perf_counter
    for n, d_model, heads in CONFIGS:
        arrays = make_weights(n, d_model, heads)
        row: dict[str, object] = {"config": [n, d_model, heads]}
        if engine == "numpy":
            times = timings_ms(lambda a=arrays: multi_head_attention(**a), budget, clock)
            row["bytes"] = multi_head_attention(**arrays).nbytes
        else:
            run, torch_out = torch_runner(arrays, heads)
            np.testing.assert_allclose(multi_head_attention(**arrays).output, torch_out, rtol=1e-9, atol=1e-9)
            times = timings_ms(run, budget, clock)
        row["ms"], row["best"] = statistics.median(times), min(times)
        print(json.dumps(row), flush=True)


BREAKDOWN = (512, 512, 8)
STEPS = ("projections", "scores", "softmax", "weights @ v", "W_O", "exp alone")


def breakdown_worker(engine: str, budget: float) -> None:
    """Print one JSON line: the median wall ms of each step of attention at BREAKDOWN, on every CPU.

    numpy: the engine's own steps (attention_core internals, checked inputs): the stacked projection, q k^T,
    scale + softmax over row blocks, weights @ v, concat @ W_O; torch: the calls nn.MultiheadAttention makes
    (in_proj linear, bmm, softmax, bmm, out_proj linear). "exp alone": exp over the (heads, n, n) scores.
    """
    from attention_core import attention as core

    n, d_model, heads = BREAKDOWN
    a = make_weights(n, d_model, heads)
    d_k = d_model // heads
    scale = 1.0 / np.sqrt(d_k)
    steps: dict[str, Callable[[], object]]
    if engine == "numpy":
        q, k, v, _, _ = core._project(a["x"], a["w_q"], a["w_k"], a["w_v"], False)
        scores = np.matmul(q, k.transpose(0, 2, 1))
        bound = core._score_bound(q, k, scale, None)
        weights = core._normalise(scores, scale, None, None, bound)[2]
        concat = np.matmul(weights, v).transpose(1, 0, 2).reshape(n, d_model)
        steps = {
            "projections": lambda: core._project(a["x"], a["w_q"], a["w_k"], a["w_v"], False),
            "scores": lambda: np.matmul(q, k.transpose(0, 2, 1)),
            "softmax": lambda: core._normalise(scores, scale, None, None, bound),
            "weights @ v": lambda: np.matmul(weights, v),
            "W_O": lambda: core._project_out(concat, a["w_o"]),
            "exp alone": lambda: np.exp(scores),
        }
    else:
        import torch
        import torch.nn.functional as F  # noqa: N812 - the usual name

        torch.set_num_threads(n_threads())
        x = torch.from_numpy(a["x"])
        w_in = torch.from_numpy(
            np.random.default_rng(1).standard_normal((3 * d_model, d_model)) / d_model**0.5
        )
        w_out = torch.from_numpy(a["w_o"].T.copy())
        qkv = F.linear(x, w_in)
        tq, tk, tv = (t.reshape(n, heads, d_k).transpose(0, 1) for t in qkv.chunk(3, dim=-1))
        t_scores = torch.bmm(tq * scale, tk.transpose(1, 2))
        t_weights = torch.softmax(t_scores, dim=-1)
        t_concat = torch.bmm(t_weights, tv).transpose(0, 1).reshape(n, d_model)
        steps = {
            "projections": lambda: F.linear(x, w_in),
            "scores": lambda: torch.bmm(tq * scale, tk.transpose(1, 2)),
            "softmax": lambda: torch.softmax(t_scores, dim=-1),
            "weights @ v": lambda: torch.bmm(t_weights, tv),
            "W_O": lambda: F.linear(t_concat, w_out),
            "exp alone": lambda: torch.exp(t_scores),
        }
    row = {name: median_ms(fn, budget / 3, time.perf_counter) for name, fn in steps.items()}
    print(json.dumps(row), flush=True)


def run_breakdown(engine: str, budget: float) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--breakdown-worker", engine, "--budget", str(budget)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads([line for line in out.splitlines() if line.startswith("{")][-1])


def run_worker(engine: str, budget: float, one_cpu: bool) -> dict[tuple[int, ...], dict]:
    """Run ``worker`` in a fresh process, on every CPU or pinned to the first one."""
    cmd = [sys.executable, __file__, "--worker", engine, "--budget", str(budget)]
    cpus = sorted(os.sched_getaffinity(0))[:1] if one_cpu else None
    out = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,
    ).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {tuple(r["config"]): r for r in rows}


def main(rounds: int, budget: float) -> None:
    try:
        import torch

        engines, torch_version = ["numpy", "torch"], f"torch {torch.__version__}"
    except ImportError:
        engines, torch_version = ["numpy"], "torch not installed: numpy columns only"
    print(
        f"numpy {np.__version__}, {torch_version}, {platform.python_implementation()} "
        f"{platform.python_version()}, {n_threads()} CPUs, {platform.machine()}; {rounds} alternating "
        "round(s), each engine in its own process; medians over the rounds; load average "
        + " ".join(f"{x:.1f}" for x in os.getloadavg())
    )
    runs = [(engine, one_cpu) for one_cpu in (False, True) for engine in engines]
    results: dict[tuple[str, bool], list[dict]] = {run: [] for run in runs}
    for _ in range(rounds):
        for engine, one_cpu in runs:
            results[engine, one_cpu].append(run_worker(engine, budget, one_cpu))

    def med(engine: str, one_cpu: bool, config: tuple[int, ...], key: str = "ms") -> float:
        return statistics.median(r[config][key] for r in results[engine, one_cpu])

    header = (
        f"{'n':>5} {'d_model':>7} {'heads':>5} | {'numpy ms':>9} {'(best)':>10} {'trace MiB':>9} | "
        f"{'torch ms':>9} {'(best)':>10} {'torch/numpy':>11} | {'1-CPU numpy':>11} {'1-CPU torch':>11} (CPU ms)"
    )
    print(header)
    print("-" * len(header))
    for config in CONFIGS:
        ms, best, one = (
            med("numpy", False, config),
            med("numpy", False, config, "best"),
            med("numpy", True, config),
        )
        mib = results["numpy", False][0][config]["bytes"] / 2**20
        torch_cols, torch_one = f"{'-':>9} {'-':>10} {'-':>11}", f"{'-':>11}"
        if "torch" in engines:
            torch_ms, torch_best = med("torch", False, config), med("torch", False, config, "best")
            torch_cols = f"{torch_ms:9.3f} {f'({torch_best:.2f})':>10} {torch_ms / ms:10.3g}x"
            torch_one = f"{med('torch', True, config):11.3f}"
        n, d_model, heads = config
        print(
            f"{n:>5} {d_model:>7} {heads:>5} | {ms:9.3f} {f'({best:.2f})':>10} {mib:9.2f} | {torch_cols} | "
            f"{one:11.3f} {torch_one}"
        )
    n, d_model, heads = BREAKDOWN
    print(f"\nWhere the time goes at n {n}, d_model {d_model}, {heads} heads (median wall ms, every CPU):")
    parts = {engine: [run_breakdown(engine, budget) for _ in range(rounds)] for engine in engines}
    print(f"{'step':>12} | " + " | ".join(f"{e:>8}" for e in engines))
    for step in STEPS:
        cells = " | ".join(f"{statistics.median(r[step] for r in parts[e]):8.2f}" for e in engines)
        print(f"{step:>12} | {cells}")
    print(
        "(numpy's float64 exp is vectorised only with AVX-512; on an AVX2 CPU it runs one value at a time, "
        "torch's is vectorised: compare 'exp alone'.)"
    )
    d_ks = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    lesson = median_ms(
        lambda: (score_variance_experiment(d_ks, 2000, 0), softmax_saturation(d_ks, 16, 2000, 0)),
        budget,
        time.perf_counter,
    )
    print(
        f"why-scale lesson (score_variance_experiment + softmax_saturation, 10 d_k, 2000 samples): {lesson:.1f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of numpy and torch")
    parser.add_argument("--budget", type=float, default=1.5, help="seconds of timing per configuration")
    parser.add_argument("--quick", action="store_true", help="one round, 0.3 s per configuration")
    parser.add_argument("--worker", choices=["numpy", "torch"], help=argparse.SUPPRESS)
    parser.add_argument("--breakdown-worker", choices=["numpy", "torch"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.budget)
    elif args.breakdown_worker:
        breakdown_worker(args.breakdown_worker, args.budget)
    elif args.quick:
        main(1, 0.3)
    else:
        main(args.rounds, args.budget)
