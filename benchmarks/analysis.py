"""Benchmark of attention_core.analysis's model-wide measures on SmolLM2-135M: the logit lens and induction.

Prints, each measured in a fresh Python process per BLAS setting (numpy's BLAS on every CPU, the default,
and on one: OPENBLAS_NUM_THREADS=1), the median and the best of --runs runs, wall and (in brackets) the
process's CPU time, which other work on a busy machine does not inflate:
  - lens: analysis.read_lens(model, trace, k=5) on a 32-token sentence whose run is already done (the
    trace comes from the model's cache): the logit lens "beyond the model's run"; and what its vocabulary
    product alone costs (31 x 32 rows times the 576 x 49,152 output matrix, float32);
  - run: the model's own traced run of that sentence (cache cleared), for scale;
  - induction: analysis.run_induction(model, random_tokens(seed, 50, ...)), the model run on 2 x 50 random
    tokens and every head scored, a new seed each run (nothing cached).

With --coretype NAME, a third set on one BLAS thread with OPENBLAS_CORETYPE=NAME: OpenBLAS picks its
kernels by the CPU it detects (Haswell's AVX2 ones on this machine's AMD EPYC, which has AVX-512 too);
SkylakeX asks for its AVX-512 kernels. Only on a CPU that has the instructions: elsewhere it crashes.

Targets: the logit lens of a 32-token sentence <= 300 ms beyond the model's run; induction scores for
2 x 50 random tokens <= 1.5 s.

Usage: .venv/bin/python -m benchmarks analysis [--runs 7] [--coretype SkylakeX]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, WORDS, load, save  # noqa: E402

TARGETS = {"lens": 300.0, "induction": 1500.0}  # ms

CHILD = """
import json, statistics, sys, time
sys.path.insert(0, {root!r})
import numpy as np
from attention_core import analysis, pretrained
m = pretrained.load("SmolLM2-135M")
words = {words!r}
k = 32  # a text of 32 tokens: words are cut until the tokenizer gives at most 32
while len(m.tokenize(" ".join(words[i % len(words)] for i in range(k)))[1]) > 32:
    k -= 1
text = " ".join(words[i % len(words)] for i in range(k))

def timed(fn, runs):
    fn()  # warm-up
    walls, cpus = [], []
    for r in range(runs):
        c, w = time.process_time(), time.perf_counter()
        fn(r)
        walls.append(1e3 * (time.perf_counter() - w)); cpus.append(1e3 * (time.process_time() - c))
    return {{"ms": statistics.median(walls), "cpu_ms": statistics.median(cpus), "best_ms": min(walls),
            "best_cpu_ms": min(cpus)}}

def run(r=0):
    pretrained.clear_cache()
    return m.run(text)

trace = m.run(text)
c = m.config
normed = np.ones((c.n_layers + 1, trace.n_tokens, c.d_model), dtype=np.float32)
out = {{"tokens": trace.n_tokens, "run": timed(run, {runs})}}
trace = m.run(text)
out["lens"] = timed(lambda r=0: analysis.read_lens(m, trace, 5), {runs})
out["product"] = timed(lambda r=0: normed.reshape(-1, c.d_model) @ m.weights.embeddings.token.T, {runs})
ids = lambda r: analysis.random_tokens(1000 + r, 50, 17, c.vocab_size)
out["induction"] = timed(lambda r=0: analysis.run_induction(m, ids(r)), {runs})
print(json.dumps(out))
"""


def measure(runs: int, one_thread: bool, coretype: str | None = None) -> dict:
    env = dict(os.environ)
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    if one_thread:
        env["OPENBLAS_NUM_THREADS"] = "1"
    else:
        env.pop("OPENBLAS_NUM_THREADS", None)
    code = CHILD.format(root=str(ROOT), runs=runs, words=WORDS)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=1800)
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(rows: list[tuple[str, dict]], runs: int, before: str) -> str:
    lines = [
        f"attention_core.analysis on SmolLM2-135M, {os.cpu_count()} CPUs, median and best of {runs} runs; "
        f"{before} at the start, {load()} at the end",
        "",
        "| BLAS threads | what | ms (CPU) | best ms (CPU) | target ms |",
        "|---|---|---|---|---|",
    ]
    what = {
        "run": "the model's run, 32 tokens (for scale)",
        "lens": "logit lens, 32 tokens, beyond the run",
        "product": "... of which the vocabulary product",
        "induction": "induction scores, 2 x 50 random tokens",
    }
    for threads, r in rows:
        for key, label in what.items():
            t = r[key]
            lines.append(
                f"| {threads} | {label} | {t['ms']:.0f} ({t['cpu_ms']:.0f}) | {t['best_ms']:.0f} "
                f"({t['best_cpu_ms']:.0f}) | {TARGETS.get(key, '')} |"
            )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--coretype", help="also on one BLAS thread with OPENBLAS_CORETYPE set to this")
    args = parser.parse_args()
    before = load()
    rows = [("all", measure(args.runs, False)), ("1", measure(args.runs, True))]
    if args.coretype:
        rows.append((f"1, {args.coretype}", measure(args.runs, True, args.coretype)))
    save("analysis.md", report(rows, args.runs, before), {threads: r for threads, r in rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
