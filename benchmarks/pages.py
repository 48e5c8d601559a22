"""Server side: each page's full rerun under AppTest, at the default example and at 8 .. 64 tokens.

For every page and size, an AppTest of app.py is opened on the page and warmed up (2 runs), then timed:
- "rerun": the script reruns with nothing changed (what any click on an unrelated widget costs; the core
  call and the figures come from their caches);
- "changed": the seed changes before each run, so every matrix, the traced run and every figure are new
  (what a change of the sentence or of a model setting costs).
Each figure is the median over --runs runs (default 10) in ms, the whole app.py frame included (sidebar,
sentence box, navigation): "wall" is the time AppTest.run() takes, "cpu" the CPU time of the script thread
(on a busy machine other processes inflate the wall time, not the CPU time). "AppTest alone" is the wall
time of an empty script: the harness's own share. The scripts are compiled once, as the server does
(AppTest compiles them anew for every run: --compile-every-run measures that way).

Targets: < 100 ms at the default example, < 500 ms at 64 tokens (d_model 64, 8 heads).

Usage: .venv/bin/python -m benchmarks pages [--runs 10] [--pages heads,scores] [--sizes default,n64]
       [--modes rerun,changed] [--out pages.md]
"""

from __future__ import annotations

import argparse
import sys
import time

from _common import (
    PAGES,
    SIZES,
    app_on,
    cache_scripts,
    load,
    machine,
    median_ms,
    quiet,
    save,
    track_script_cpu,
)

TARGET_MS = {"default": 100.0, "n64": 500.0}


def harness_ms(runs: int) -> float:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string("import streamlit as st\nst.write('x')\n")
    return median_ms(at.run, runs)[0]


def measure(page_file: str, size: str, mode: str, runs: int) -> tuple[float, float]:
    """(median wall ms, median CPU ms) of one page's rerun at one size."""
    at = app_on(page_file, size)
    seed = [1000]

    def step() -> None:
        if mode == "changed":
            seed[0] += 1
            at.session_state["cfg.seed"] = seed[0]
        at.run()

    wall, cpu = median_ms(step, runs)
    if at.exception:
        raise RuntimeError(f"{page_file} at {size}: {at.exception[0].message}")
    return wall, cpu


def table(results: dict, pages: list, sizes: list, mode: str) -> str:
    head = "| page | " + " | ".join(f"{s} wall / cpu" for s in sizes) + " |\n|---|" + "---:|" * len(sizes)
    rows = [head]
    for name, _, _ in pages:
        cells = []
        for s in sizes:
            wall, cpu = results[mode][name][s]
            flag = " ✗" if s in TARGET_MS and wall >= TARGET_MS[s] else ""
            cells.append(f"{wall:.0f} / {cpu:.0f}{flag}")
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--pages", default=",".join(p[0] for p in PAGES))
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--modes", default="rerun,changed")
    ap.add_argument("--out", default="pages.md", help="file name under benchmarks/out/")
    ap.add_argument("--compile-every-run", action="store_true", help="AppTest's default: no script cache")
    args = ap.parse_args()
    quiet()
    track_script_cpu()
    if not args.compile_every_run:
        cache_scripts()
    pages = [p for p in PAGES if p[0] in args.pages.split(",")]
    sizes = [s for s in SIZES if s in args.sizes.split(",")]
    modes = args.modes.split(",")
    t_start = time.perf_counter()
    load_before = load()
    results: dict = {m: {p[0]: {} for p in pages} for m in modes}
    for name, page_file, _ in pages:
        for size in sizes:
            for mode in modes:
                wall, cpu = measure(page_file, size, mode, args.runs)
                results[mode][name][size] = (wall, cpu)
                print(
                    f"  {name:12s} {size:8s} {mode:8s} {wall:8.1f} ms wall {cpu:8.1f} ms cpu", file=sys.stderr
                )
    report = [
        f"# Page reruns under AppTest (median of {args.runs} runs after 2 warm-up runs, ms)\n",
        f"{machine()}; {load_before} at the start, {load()} at the end.",
        f"AppTest alone (an empty script): {harness_ms(args.runs):.1f} ms; scripts compiled "
        + ("every run (AppTest's default)." if args.compile_every_run else "once, as the server does."),
        "Sizes: default = the default example; nK = K tokens, d_model 64, 8 heads, d_k 8, d_ff 256.",
        "Targets: wall < 100 ms at default, < 500 ms at n64 (✗ = missed).\n",
    ]
    for mode in modes:
        report.append(f"## {mode}\n")
        report.append(table(results, pages, sizes, mode))
    report.append(f"(measured in {time.perf_counter() - t_start:.0f} s)")
    text = "\n".join(report)
    save(args.out, text, results)


if __name__ == "__main__":
    main()
