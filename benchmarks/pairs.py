"""Benchmark of the two-sentence measures on all-MiniLM-L6-v2: minimal pairs and occlusion of the similarity.

Prints, in a fresh Python process per BLAS setting (numpy's BLAS on every CPU, the default, and on one,
OPENBLAS_NUM_THREADS=1), the median and the best of --runs runs, wall seconds and (in brackets) the CPU
seconds of the process, with the models' results cache cleared before each run (both sentences' runs are
part of the time):
  - analysis.pair_shift of "The animal didn't cross the street because it was too tired" / "... wide" (15
    tokens), the attention from "it": two runs of the model;
  - the same for a pair of 64 tokens (the app's limit);
  - analysis.occlusion_similarity of "A man is playing a guitar." against "Someone plays music on a guitar."
    (9 tokens: 7 runs of 8 tokens, one batch), of a 32-token sentence and of a 64-token one (62 runs of 63
    tokens).

/minimal-pairs runs pair_shift on every new pair or word; /ablation (MiniLM) runs occlusion_similarity on
every new pair of sentences of up to explorer.model.pairs.MAX_OCCLUSION_TOKENS tokens: both should stay well
under a second of CPU.

Usage: .venv/bin/python -m benchmarks pairs [--runs 5]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import blas_benchmark, blas_report  # noqa: E402

TIRED = "The animal didn't cross the street because it was too tired"
LONG = " ".join(["the animal was tired"] * 14) + " and so it was too"  # + a word: 64 tokens with [CLS], [SEP]
HALF = " ".join(["the animal was tired"] * 6) + " and so it was too"  # + a word: 32 tokens
# (name, first, second, the word compared or "" for occlusion, expected tokens)
CASES = [
    ("pair_shift", TIRED, TIRED.replace("tired", "wide"), "it", 15),
    ("pair_shift", LONG + " tired", LONG + " wide", "it", 64),
    ("occlusion_similarity", "A man is playing a guitar.", "Someone plays music on a guitar.", "", 9),
    ("occlusion_similarity", HALF + " tired", "The animal is tired.", "", 32),
    ("occlusion_similarity", LONG + " tired", "The animal is tired.", "", 64),
]

CHILD = """
import json, sys
sys.path[:0] = [{root!r}, {root!r} + "/benchmarks"]
from _common import time_runs
from attention_core import pretrained
from attention_core.analysis import occlusion_similarity, pair_shift
m = pretrained.load("all-MiniLM-L6-v2")
out = []
for name, first, second, word, n in {cases!r}:
    tokens = m.run(first).tokens
    assert len(tokens) == n, (first, len(tokens))
    def once():
        if name == "pair_shift":
            return pair_shift(m, first, second, tokens.index(word)).moved
        return occlusion_similarity(m, first, second)
    result, times = time_runs(once, {runs}, pretrained.clear_cache)
    out.append(dict(name=name, tokens=n, shape=list(result.shape), **times))
print(json.dumps(out))
"""


def report(rows: list[tuple[str, str, list[dict]]], runs: int) -> str:
    heading = f"Minimal pairs and occlusion of the similarity on all-MiniLM-L6-v2, {os.cpu_count()} CPUs, median of {runs}"
    return blas_report(heading, rows, digits=3)


def main() -> int:
    return blas_benchmark(__doc__, "pairs.md", CHILD, CASES, report, runs=5, timeout=1800)


if __name__ == "__main__":
    raise SystemExit(main())
