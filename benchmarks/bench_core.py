"""Benchmark of attention_core.multi_head_attention (w_o given, every intermediate returned).

Prints, for each (n, d_model, heads): the median time in ms, the memory of the returned trace (the sum of
the nbytes of its arrays, a shared array counted once) and, when PyTorch is importable, the median time of
torch.nn.MultiheadAttention(d_model, heads, bias=False, batch_first=True, dtype=float64) with
need_weights=True, average_attn_weights=False, on the same weights and the same number of threads (its output
is checked against ours). Each engine runs in its own process, in alternating rounds, so that a busy machine
slows both alike. PyTorch is never a requirement of the app or its tests.

Usage: .venv/bin/python benchmarks/bench_core.py [--rounds 3] [--budget 2.0] [--quick]
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

from attention_core import multi_head_attention  # noqa: E402

CONFIGS = [(8, 4, 2), (64, 64, 4), (512, 512, 8), (1024, 256, 8)]


def n_threads() -> int:
    """The CPUs this process may use: numpy's BLAS uses them all, and torch is set to the same number."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def median_ms(fn: Callable[[], object], budget_s: float) -> float:
    """Median wall time of fn() in ms, after two warm-up calls, over at least 5 and at most 300 runs."""
    fn()
    fn()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < 5 or (time.perf_counter() - start < budget_s and len(times) < 300):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


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
    """Time one engine on every configuration and print one JSON line per configuration.

    Each engine runs in its own process: torch's OpenMP threads and numpy's OpenBLAS threads would otherwise
    spin against each other and slow both down.
    """
    for n, d_model, heads in CONFIGS:
        arrays = make_weights(n, d_model, heads)
        row: dict[str, object] = {"config": [n, d_model, heads]}
        if engine == "numpy":
            trace = multi_head_attention(**arrays)
            row["ms"] = median_ms(lambda a=arrays: multi_head_attention(**a), budget)
            row["bytes"] = trace.nbytes
        else:
            run, torch_out = torch_runner(arrays, heads)
            np.testing.assert_allclose(multi_head_attention(**arrays).output, torch_out, rtol=1e-9, atol=1e-9)
            row["ms"] = median_ms(run, budget)
        print(json.dumps(row), flush=True)


def run_worker(engine: str, budget: float) -> dict[tuple[int, ...], dict]:
    cmd = [sys.executable, __file__, "--worker", engine, "--budget", str(budget)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {tuple(r["config"]): r for r in rows}


def main(rounds: int, budget: float) -> None:
    try:
        import torch

        engines = ["numpy", "torch"]
        torch_version = f"torch {torch.__version__}"
    except ImportError:
        engines = ["numpy"]
        torch_version = "torch not installed: numpy column only"
    print(
        f"numpy {np.__version__}, {torch_version}, {platform.python_implementation()} "
        f"{platform.python_version()}, {n_threads()} threads, {platform.machine()}; "
        f"{rounds} alternating round(s), each engine in its own process, median of the rounds' medians"
    )
    results: dict[str, list[dict[tuple[int, ...], dict]]] = {e: [] for e in engines}
    for _ in range(rounds):
        for engine in engines:
            results[engine].append(run_worker(engine, budget))
    header = (
        f"{'n':>5} {'d_model':>7} {'heads':>5} | {'numpy ms':>9} {'trace MiB':>9} | "
        f"{'torch ms':>9} {'torch/numpy':>11}"
    )
    print(header)
    print("-" * len(header))
    for config in CONFIGS:
        ms = statistics.median(r[config]["ms"] for r in results["numpy"])
        mib = results["numpy"][0][config]["bytes"] / 2**20
        torch_part = f"{'-':>9} {'-':>11}"
        if "torch" in results:
            torch_ms = statistics.median(r[config]["ms"] for r in results["torch"])
            torch_part = f"{torch_ms:9.3f} {torch_ms / ms:10.2f}x"
        n, d_model, heads = config
        print(f"{n:>5} {d_model:>7} {heads:>5} | {ms:9.3f} {mib:9.2f} | {torch_part}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of numpy and torch")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds of timing per configuration")
    parser.add_argument("--quick", action="store_true", help="one round, 0.3 s per configuration")
    parser.add_argument("--worker", choices=["numpy", "torch"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.budget)
    elif args.quick:
        main(1, 0.3)
    else:
        main(args.rounds, args.budget)
