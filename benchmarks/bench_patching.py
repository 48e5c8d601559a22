"""Benchmark of activation patching and occlusion on SmolLM2-135M (attention_core.analysis.patching).

Prints, in a fresh Python process per BLAS setting (numpy's BLAS on every CPU, the default, and on one,
OPENBLAS_NUM_THREADS=1), the median and the best of --runs runs, wall seconds and (in brackets) the CPU
seconds of the process, with the models' results cache cleared before each run (so the clean and corrupt
runs that patching reuses are part of the time):
  - the residual sweep of a 6-token pair ("The Eiffel Tower is in" / "The Colosseum is in", " Paris" against
    " Rome"): 30 layers x 6 positions, each a run of the layers from the patched one on;
  - the head sweep of the same pair: 30 layers x 9 heads;
  - occlusion of a 12-token sentence ("The Eiffel Tower is a famous landmark in the city of", " Paris"):
    12 runs of 11 tokens;
  - both sweeps of a 14-token pair ("When Mary and John went to the store, John gave a drink to" / "..., Mary
    gave ...", " Mary" against " John"), for a sense of how the cost grows with the length.

Targets (2 CPUs): the residual sweep <= 5 s, the head sweep <= 5 s, occlusion <= 3 s. On a machine shared
with other work the CPU time is the steadier figure: the wall time is what a visitor waits.

Usage: .venv/bin/python benchmarks/bench_patching.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, load, save  # noqa: E402

# (name, clean, corrupt, answer, wrong, site, expected tokens); site "occlusion" reads clean and answer only
CASES = [
    ("residual sweep", "The Eiffel Tower is in", "The Colosseum is in", " Paris", " Rome", "resid", 6, 5.0),
    ("head sweep", "The Eiffel Tower is in", "The Colosseum is in", " Paris", " Rome", "head", 6, 5.0),
    ("occlusion", "The Eiffel Tower is a famous landmark in the city of", "", " Paris", "", "occlusion", 12, 3.0),
    ("residual sweep", "When Mary and John went to the store, John gave a drink to",
     "When Mary and John went to the store, Mary gave a drink to", " Mary", " John", "resid", 14, None),
    ("head sweep", "When Mary and John went to the store, John gave a drink to",
     "When Mary and John went to the store, Mary gave a drink to", " Mary", " John", "head", 14, None),
]  # fmt: skip

CHILD = """
import json, statistics, sys, time
sys.path.insert(0, {root!r})
from attention_core import pretrained
from attention_core.analysis import occlusion, patch
m = pretrained.load("SmolLM2-135M")
out = []
for name, clean, corrupt, answer, wrong, site, n, target in {cases!r}:
    assert m.run(clean).n_tokens == n, (clean, m.run(clean).tokens)
    def once():
        if site == "occlusion":
            return occlusion(m, clean, answer)
        return patch(m, clean, corrupt, answer, wrong, site)
    once()  # warm-up
    walls, cpus = [], []
    for _ in range({runs}):
        pretrained.clear_cache()
        c, w = time.process_time(), time.perf_counter()
        result = once()
        walls.append(time.perf_counter() - w); cpus.append(time.process_time() - c)
    out.append(dict(name=name, site=site, tokens=n, target=target, shape=list(result.shape),
                    wall=statistics.median(walls), cpu=statistics.median(cpus), best=min(walls), best_cpu=min(cpus)))
print(json.dumps(out))
"""


def measure(runs: int, one_thread: bool) -> list[dict]:
    env = dict(os.environ)
    if one_thread:
        env["OPENBLAS_NUM_THREADS"] = "1"
    code = CHILD.format(root=str(ROOT), cases=CASES, runs=runs)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=3600)
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(rows: list[tuple[str, str, list[dict]]], runs: int) -> str:
    lines = [
        f"Activation patching and occlusion on SmolLM2-135M, {os.cpu_count()} CPUs, median of {runs}",
        "",
        "| what | tokens | result | BLAS threads | wall s (CPU s) | best wall s (CPU s) | target |",
        "|---|---:|---|---|---|---|---|",
    ]
    for threads, _, results in rows:
        for r in results:
            target = "" if r["target"] is None else f"<= {r['target']:g} s"
            shape = " x ".join(map(str, r["shape"]))
            lines.append(
                f"| {r['name']} | {r['tokens']} | {shape} | {threads} | {r['wall']:.2f} ({r['cpu']:.2f}) "
                f"| {r['best']:.2f} ({r['best_cpu']:.2f}) | {target} |"
            )
    lines.append("")
    lines += [f"BLAS threads {threads}: {loads}" for threads, loads, _ in rows]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for one in (False, True):
        before = load()
        results = measure(args.runs, one)
        rows.append(("1" if one else "all", f"{before} before, {load()} after", results))
        print(rows[-1], flush=True)
    data = {"rows": [{"threads": t, "load": w, "results": r} for t, w, r in rows], "runs": args.runs}
    save("bench_patching.md", report(rows, args.runs), data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
