"""The real-model analyses on one core: CPU seconds of the logit lens, "Rank the heads", both patching sweeps
and the standard induction run on SmolLM2-135M, each against its target.

    .venv/bin/python -m benchmarks one_core [--runs 5] [--only lens,rank,resid,head,induction] [--before DIR]

One fresh Python process, pinned to one CPU with numpy's BLAS on one thread (OPENBLAS_NUM_THREADS=1), so the
figure is what one worker process spends on one job. Each analysis runs once to warm up, then --runs times;
the figure is the median CPU time (time.process_time: other work on a shared machine does not inflate it),
the best beside it, and the load average before and after. What each one includes:
  - lens: analysis.read_lens(model, trace, k=5) on a 32-token sentence whose run is already cached (what
    /logit-lens adds to the run every page makes anyway);
  - rank: "Rank the heads" as /ablation runs it on a 64-token sentence (explorer.compute.model_compute.ranking,
    layers first, then the heads of the top three), the sentence's own run cached;
  - resid, head: analysis.patch(...) of a 16-token pair, site "resid" or "head", the models' results cache
    cleared before each (the clean and corrupt runs are part of the time);
  - induction: analysis.run_induction on the standard run (seed 0, 2 x 50 random tokens), nothing cached.

With --before DIR (a checkout of an earlier commit, e.g. made by `git worktree add`), each analysis runs in
that checkout's code too, in turn with this one's (a process each), so both columns see the same load.

Targets: lens <= 0.3 s, rank <= 3 s, each sweep <= 3 s, induction <= 0.5 s.
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

TARGETS = {"lens": 0.3, "rank": 3.0, "resid": 3.0, "head": 3.0, "induction": 0.5}  # CPU s
WHAT = {
    "lens": "logit lens, 32 tokens (run cached)",
    "rank": "Rank the heads, 64 tokens (run cached)",
    "resid": "patching residual sweep, 16 tokens",
    "head": "patching head sweep, 16 tokens",
    "induction": "standard induction run (2 x 50 tokens)",
}
CLEAN = "When Mary and John went to the store that day, John gave a drink to"
CORRUPT = "When Mary and John went to the store that day, Mary gave a drink to"

CHILD = """
import json, os, statistics, sys, time
os.sched_setaffinity(0, {{min(os.sched_getaffinity(0))}})
sys.path[:0] = [{root!r}, {bench!r}]
from _common import sentence_of
sys.path.insert(0, {root!r})  # ahead of the checkout _common puts first
import attention_core
assert attention_core.__file__.startswith({root!r}), attention_core.__file__
from attention_core import analysis, pretrained
from explorer.compute import model_compute
from explorer.model import models
m = models.model("smollm2")
lens_text, rank_text = sentence_of(32), sentence_of(64)
assert m.run(lens_text).n_tokens == 32 and m.run(rank_text).n_tokens == 64
assert m.run({clean!r}).n_tokens == 16 == m.run({corrupt!r}).n_tokens
ordinary = models.choice("smollm2").ordinary_from
standard = analysis.random_tokens(models.INDUCTION_SEED, models.INDUCTION_LENGTH, ordinary, m.config.vocab_size)

def warm(text):
    pretrained.clear_cache()
    m.run(text)

CASES = {{
    "lens": (lambda: analysis.read_lens(m, m.run(lens_text), 5), lambda: warm(lens_text)),
    "rank": (lambda: [*model_compute.ranking("smollm2", rank_text)][-1], lambda: warm(rank_text)),
    "resid": (lambda: analysis.patch(m, {clean!r}, {corrupt!r}, " Mary", " John", "resid"), pretrained.clear_cache),
    "head": (lambda: analysis.patch(m, {clean!r}, {corrupt!r}, " Mary", " John", "head"), pretrained.clear_cache),
    "induction": (lambda: analysis.run_induction(m, standard), pretrained.clear_cache),
}}
out = {{}}
for name in {only!r}:
    once, before = CASES[name]
    before(); once()  # warm-up
    cpus, walls = [], []
    for _ in range({runs}):
        before()
        c, w = time.process_time(), time.perf_counter()
        once()
        cpus.append(time.process_time() - c); walls.append(time.perf_counter() - w)
    out[name] = dict(cpu=statistics.median(cpus), best_cpu=min(cpus), wall=statistics.median(walls))
    print(name, out[name], file=sys.stderr, flush=True)
print(json.dumps(out))
"""


def measure(root: Path, only: list[str], runs: int) -> dict:
    """The child's figures for the code at ``root`` (this checkout's benchmarks read its sentences)."""
    child = CHILD.format(root=str(root), bench=str(ROOT / "benchmarks"), clean=CLEAN, corrupt=CORRUPT,
                         only=only, runs=runs)  # fmt: skip
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, env=env, timeout=3600
    )
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default=",".join(TARGETS))
    ap.add_argument("--before", type=Path, help="a checkout of an earlier commit, measured in turn")
    args = ap.parse_args()
    only = [name for name in args.only.split(",") if name]
    unknown = sorted(set(only) - set(TARGETS))
    if unknown:
        ap.error(f"unknown analyses {unknown}: pick from {','.join(TARGETS)}")
    before_load, got, old = load(), {}, {}
    for name in only:  # in turn, so that both checkouts see about the same load
        if args.before is not None:
            old |= measure(args.before.resolve(), [name], args.runs)
        got |= measure(ROOT, [name], args.runs)
    was = " before CPU s |" if args.before else ""
    lines = [
        f"SmolLM2-135M on one CPU, OPENBLAS_NUM_THREADS=1, median of {args.runs} after a warm-up",
        "",
        f"| analysis |{was} CPU s (median) | best CPU s | wall s | target CPU s |",
        "|---|---:|---:|---:|---:|" + ("---:|" if was else ""),
    ]
    for name, r in got.items():
        then = f" {old[name]['cpu']:.2f} |" if was else ""
        lines.append(
            f"| {WHAT[name]} |{then} {r['cpu']:.2f} | {r['best_cpu']:.2f} | {r['wall']:.2f} | <= {TARGETS[name]:g} |"
        )
    lines += ["", f"{before_load} before, {load()} after"]
    save("one_core.md", "\n".join(lines), {"runs": args.runs, "results": got, "before": old})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
