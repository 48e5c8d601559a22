"""The "which heads matter" ranking (/ablation, "Rank the heads") on both real models, before and after it ran
its masks together: one full traced run per mask (what it did before, still the reference) against
pretrained.Model.ablate (each variant from its first changed layer on, the variants of a layer as one batch).

Sentences of about 5, 11, 32 and 64 tokens; median of --runs (the results cache is cleared before each, so a
ranking is measured from a sentence the server has not run). SmolLM2 ranks its 30 layers, then the 9 heads of
the 3 layers that mattered most (57 runs); MiniLM ranks its 72 heads.

Usage:
  OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks rank_heads [--runs 3] [--models smollm2,minilm]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attention_core import analysis, pretrained  # noqa: E402
from explorer.compute import model_compute  # noqa: E402
from explorer.model import models  # noqa: E402

SENTENCES = {
    5: "The capital of France is",
    11: "The cat sat on the mat because it was warm and tired.",
    32: " ".join(["the quiet cat sat on a warm mat while rain fell"] * 3),
    64: " ".join(["the quiet cat sat on a warm mat while rain fell over the old town"] * 4),
}
TARGET_S = 3.0


def one_run_per_mask(key: str, text: str) -> list[analysis.RankingStep]:
    """The ranking as it was: each mask a full traced run (Model.run), one at a time."""
    m = models.model(key)
    base = m.run(text)
    decoder = models.choice(key).decoder
    p = analysis.next_token_probs(base.logits[-1]) if decoder else None
    e = None if decoder else analysis.sentence_embedding(base.hidden_states[-1])

    def each(mask: np.ndarray) -> float:
        run = m.run(text, mask)
        if decoder:
            return analysis.total_variation(p, run.next_token_probs())
        return 1.0 - analysis.cosine(e, analysis.sentence_embedding(run.hidden_states[-1]))

    def effects(masks: np.ndarray) -> np.ndarray:
        return np.array([each(mask) for mask in masks])

    L, H = models.shape(key)
    return list(analysis.rank_heads(effects, L, H, layers_first=decoder, top_layers=3))


def timed(fn, key: str, text: str) -> tuple[float, analysis.RankingStep, float]:  # noqa: ANN001
    """(wall seconds, the last step, CPU seconds of the whole process: every thread's work)."""
    pretrained.clear_cache()
    t0, c0 = time.perf_counter(), time.process_time()
    steps = fn(key, text)
    return time.perf_counter() - t0, steps[-1], time.process_time() - c0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--models", default="smollm2,minilm")
    a = ap.parse_args()
    print(f"rank_heads: {os.uname().nodename}, {os.cpu_count()} CPUs, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', '-')}, load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(
        "| model | tokens | runs | one run per mask s (CPU s) | batched s (CPU s) | speed-up | same top 5 |"
    )
    print("|---|---:|---:|---:|---:|---:|---|")
    for key in a.models.split(","):
        models.model(key)  # loaded before timing
        for text in SENTENCES.values():
            n = len(model_compute.run(key, text).token_ids)
            before = [timed(one_run_per_mask, key, text) for _ in range(a.runs)]
            after = [timed(lambda k, t: list(model_compute.ranking(k, t)), key, text) for _ in range(a.runs)]
            b, f = statistics.median(x[0] for x in before), statistics.median(x[0] for x in after)
            bc, fc = statistics.median(x[2] for x in before), statistics.median(x[2] for x in after)
            top = lambda step: [(l, h) for l, h, _ in analysis.ranked(step.head_effects)[:5]]  # noqa: E731
            same = top(before[0][1]) == top(after[0][1])
            print(
                f"| {key} | {n} | {after[0][1].total} | {b:.2f} ({bc:.2f}) | {f:.2f} ({fc:.2f}) | {b / f:.0f}x | {'yes' if same else 'no'} |",
                flush=True,
            )
    print(f"target: SmolLM2 within {TARGET_S:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
