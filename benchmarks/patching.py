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

Usage: .venv/bin/python -m benchmarks patching [--runs 3]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import blas_benchmark, blas_report  # noqa: E402

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
import json, sys
sys.path[:0] = [{root!r}, {root!r} + "/benchmarks"]
from _common import time_runs
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
    result, times = time_runs(once, {runs}, pretrained.clear_cache)
    out.append(dict(name=name, site=site, tokens=n, target=target, shape=list(result.shape), **times))
print(json.dumps(out))
"""


def report(rows: list[tuple[str, str, list[dict]]], runs: int) -> str:
    heading = f"Activation patching and occlusion on SmolLM2-135M, {os.cpu_count()} CPUs, median of {runs}"
    return blas_report(heading, rows, digits=2, targets=True)


def main() -> int:
    return blas_benchmark(__doc__, "patching.md", CHILD, CASES, report, runs=3, timeout=3600)


if __name__ == "__main__":
    raise SystemExit(main())
