"""Shared by the benchmarks: the pages (read from the app's page table), the sizes, a sentence of n tokens, an AppTest on one page.

Sizes: "default" is the app's default example (its sentence, d_model 8, 2 heads, d_k 4); "n8" .. "n64" are
8, 16, 32, 64 tokens at d_model 64, 8 heads, d_k 8 (= d_model / heads) and d_ff 256 (= 4 d_model), the
ratios of the paper, so every page (the encoder's too) is measured at its largest usual size.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))


def _pages(real_model: bool) -> list[tuple[str, str, str]]:
    """(short name, page script, url path) of the listed pages of the app's page table (explorer.ui.page_table):
    the explorer's steps, or the real-model pages. The short name is the url path ("sentence" for the first)."""
    from explorer.ui import page_table

    return [
        (p.url_path or "sentence", p.script, p.url_path)
        for p in page_table.listed()
        if p.real_model == real_model
    ]


def __getattr__(name: str) -> list[tuple[str, str, str]]:
    """PAGES (the explorer's steps, in the menu's order) and MODEL_PAGES (the real-model pages), read when
    first asked for: a benchmark may put another checkout first on sys.path before."""
    if name in ("PAGES", "MODEL_PAGES"):
        return _pages(real_model=name == "MODEL_PAGES")
    raise AttributeError(name)


SIZES: list[str] = ["default", "n8", "n16", "n32", "n64"]

WORDS = (
    "the", "cat", "sat", "on", "a", "warm", "mat", "because", "it", "was", "tired", "and", "the", "dog",
    "watched", "her", "from", "the", "door", "while", "rain", "fell", "over", "the", "quiet", "town",
)  # fmt: skip


def sentence_of(n: int) -> str:
    """A sentence of exactly n tokens (words only, cycling through WORDS: repeats stay distinct labels)."""
    return " ".join(WORDS[i % len(WORDS)] for i in range(n))


def settings_of(size: str) -> dict[str, object]:
    """Session-state values (widget keys of explorer.ui.state) for a size; {} is the default example."""
    if size == "default":
        return {}
    n = int(size[1:])
    return {
        "sentence": sentence_of(n),
        "cfg.d_model": 64,
        "cfg.n_heads": 8,
        "cfg.d_k": 8,
        "encoder.d_ff": 256,
    }


def cache_scripts() -> None:
    """Compile app.py and the pages once, as the server does (its ScriptCache lives as long as it runs);
    AppTest makes a new cache for every run, so each run would also pay the compilation (about 15 ms)."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    shared = ScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared


def app_on(page_file: str, size: str, timeout: float = 120.0):  # noqa: ANN201 - AppTest
    """An AppTest of app.py at `size`, switched to `page_file` and run once (not yet warm)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    for key, value in settings_of(size).items():
        at.session_state[key] = value
    at.run()
    if page_file != "app_pages/sentence.py":
        at.switch_page(page_file).run()
    if at.exception:
        raise RuntimeError(f"{page_file} at {size}: {at.exception[0].message}")
    return at


_SCRIPT_CPU: list[float] = []


def track_script_cpu() -> None:
    """Record the CPU time of every script run (in its own thread): a figure that other processes on a
    busy machine do not inflate, unlike the wall time."""
    from streamlit.runtime.scriptrunner import script_runner as sr

    if getattr(sr.ScriptRunner, "_bench_tracked", False):
        return
    original = sr.ScriptRunner._run_script

    def timed(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        t0 = time.thread_time()
        try:
            return original(self, *args, **kwargs)
        finally:
            _SCRIPT_CPU.append((time.thread_time() - t0) * 1000.0)

    sr.ScriptRunner._run_script = timed
    sr.ScriptRunner._bench_tracked = True


def median_ms(fn: Callable[[], object], runs: int, warmup: int = 2) -> tuple[float, float]:
    """(median wall ms, median script CPU ms) of fn() over `runs` runs after `warmup` calls."""
    for _ in range(warmup):
        fn()
    times, cpu = [], []
    for _ in range(runs):
        n_before = len(_SCRIPT_CPU)
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
        cpu.append(sum(_SCRIPT_CPU[n_before:]))
    return statistics.median(times), statistics.median(cpu)


def time_runs(once: Callable[[], object], runs: int, before: Callable[[], object]) -> tuple[object, dict]:
    """once() after one warm-up call, `runs` times, before() ahead of each (the models' results cache
    cleared, so every run computes): its last result, and the median and best wall and CPU seconds."""
    once()
    walls, cpus, result = [], [], None
    for _ in range(runs):
        before()
        c, w = time.process_time(), time.perf_counter()
        result = once()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    times = {"wall": statistics.median(walls), "cpu": statistics.median(cpus)}
    return result, {**times, "best": min(walls), "best_cpu": min(cpus)}


def per_blas_setting(child: str, timeout: float) -> list[tuple[str, str, list[dict]]]:
    """Run `child` (a script whose last line of output is a JSON list) in a fresh Python per BLAS setting:
    numpy's BLAS on every CPU, then on one (OPENBLAS_NUM_THREADS=1). Rows: (threads, the load average
    before and after, the child's list)."""
    import subprocess

    rows = []
    for threads in ("all", "1"):
        env = {**os.environ, **({"OPENBLAS_NUM_THREADS": "1"} if threads == "1" else {})}
        before = load()
        out = subprocess.run(
            [sys.executable, "-c", child], capture_output=True, text=True, env=env, timeout=timeout
        )
        if out.returncode:
            raise RuntimeError(out.stderr[-3000:])
        rows.append(
            (threads, f"{before} before, {load()} after", json.loads(out.stdout.strip().splitlines()[-1]))
        )
        print(rows[-1], flush=True)
    return rows


def blas_benchmark(
    doc: str, out: str, child: str, cases: object, report: Callable, runs: int, timeout: float
) -> int:
    """The command line of a benchmark timed per BLAS setting: --runs, then `child` (formatted with the
    repository root, `cases` and the runs) per setting, `report(rows, runs)` printed and saved as out/`out`."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=runs)
    args = parser.parse_args()
    rows = per_blas_setting(child.format(root=str(ROOT), cases=cases, runs=args.runs), timeout=timeout)
    data = {"rows": [{"threads": t, "load": w, "results": r} for t, w, r in rows], "runs": args.runs}
    save(out, report(rows, args.runs), data)
    return 0


def blas_report(
    heading: str, rows: list[tuple[str, str, list[dict]]], digits: int, targets: bool = False
) -> str:
    """A Markdown table of per_blas_setting's rows: each case's tokens, result shape, median and best wall
    (CPU) seconds per BLAS setting, and its target when `targets`; then the load average of each setting."""
    lines = [
        heading,
        "",
        "| what | tokens | result | BLAS threads | wall s (CPU s) | best wall s (CPU s) |"
        + (" target |" * targets),
        "|---|---:|---|---|---|---|" + ("---|" * targets),
    ]
    for threads, _, results in rows:
        for r in results:
            shape = " x ".join(map(str, r["shape"]))
            line = (
                f"| {r['name']} | {r['tokens']} | {shape} | {threads} | {r['wall']:.{digits}f} ({r['cpu']:.{digits}f}) "
                f"| {r['best']:.{digits}f} ({r['best_cpu']:.{digits}f}) |"
            )
            if targets:
                line += " " + ("" if r["target"] is None else f"<= {r['target']:g} s") + " |"
            lines.append(line)
    lines.append("")
    lines += [f"BLAS threads {threads}: {loads}" for threads, loads, _ in rows]
    return "\n".join(lines)


def load() -> str:
    try:
        return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "load average unknown"


def quiet() -> None:
    """Only errors from Streamlit's loggers (AppTest's main thread warns of a missing ScriptRunContext)."""
    import logging

    import streamlit  # noqa: F401 - creates its loggers

    for name in list(logging.root.manager.loggerDict):
        if name.startswith("streamlit"):
            logging.getLogger(name).setLevel(logging.ERROR)


def machine() -> str:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    import plotly
    import streamlit

    return (
        f"{platform.processor() or platform.machine()}, {cpus} CPUs, Python {platform.python_version()}, "
        f"streamlit {streamlit.__version__}, plotly {plotly.__version__}"
    )


def save(name: str, text: str, data: object) -> None:
    """Print the report, and save it as out/<name> and its numbers as out/<name without suffix>.json."""
    print(text)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / name
    path.write_text(text, encoding="utf-8")
    path.with_suffix(".json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    print(f"\nsaved {path}")


def browser_options(ap: argparse.ArgumentParser, port: int, port_help: str | None = None) -> None:
    """The options every browser benchmark takes: the app's --port, and --chromium (Debian's, or $CHROMIUM)."""
    ap.add_argument("--port", type=int, default=port, help=port_help or "the app's port")
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
