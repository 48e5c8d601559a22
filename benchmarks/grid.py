"""Many attention maps on one page (the real-model grid: layers x heads, 72 to 270 maps): three ways to draw them.

Through the app's chart element (explorer.ui.chart), in headless Chromium (1920x1080), from the Enter in the
sentence box of benchmarks/grid_app.py to every chart showing the new sentence (median of --runs presses after a
warm-up; each press a new sentence; one tab per layout, the tabs pressed in turn), for each layout:
- charts: one chart per head (layers x heads charts);
- rows:   one chart per layer, its heads as subplots (explorer.views.figures.head_grid);
- mosaic: one chart, one heatmap: the maps tiled with one empty row and column between them (`mosaic` below).
- model:  one chart, the /model page's own figure (explorer.views.model_figures.model_grid: a heatmap per layer).
"KB" is what the websocket received for the press; "draw" is the time Plotly spent drawing (its react calls).

Usage: .venv/bin/python -m benchmarks grid [--grids 12x12x16,30x9x16] [--modes charts,rows,mosaic]
       [--runs 5] [--port 8671] [--out grid.md]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.views import figures  # noqa: E402
from explorer.views import style as figures_style  # noqa: E402


def mosaic(att: NDArray[np.float64], labels: Sequence[str], *, title: str, side_px: int = 1500) -> go.Figure:
    """Every map of att (layers, heads, n, n) in one heatmap: layer l, head h at rows l(n+1).., columns h(n+1)..,
    an empty (NaN) row and column between maps; one colour scale (0..1). Rows and columns are categories named
    "layer l · query" and "head h · key", so the hover names the layer, head, query and key of every cell
    without a string per cell; layers and heads are written beside the grid, tokens only in the hover."""
    n_layers, n_heads, n, _ = att.shape
    step = n + 1
    z = np.full((n_layers * step - 1, n_heads * step - 1), np.nan)
    for layer in range(n_layers):
        for head in range(n_heads):
            z[layer * step : layer * step + n, head * step : head * step + n] = att[layer, head]
    lab = [figures.esc(s) for s in labels]
    y = [
        f"L{i // step + 1} · {lab[i % step]}"
        if i % step < n
        else f"L{i // step + 1} ·" + " " * (i // step + 1)
        for i in range(len(z))
    ]
    x = [
        f"H{j // step + 1} · {lab[j % step]}"
        if j % step < n
        else f"H{j // step + 1} ·" + " " * (j // step + 1)
        for j in range(z.shape[1])
    ]
    cell = max(2.0, min(24.0, (side_px - 160) / z.shape[1]))
    height = int(min(4000, 140 + cell * len(z)))
    notes = [
        {"text": f"head {h + 1}", "x": h * step + (n - 1) / 2, "y": -1, "xref": "x", "yref": "y", "showarrow": False,
         "yanchor": "bottom"} for h in range(n_heads)
    ] + [
        {"text": f"layer {layer + 1}", "x": -1, "y": layer * step + (n - 1) / 2, "xref": "x", "yref": "y",
         "showarrow": False, "xanchor": "right"} for layer in range(n_layers)
    ]  # fmt: skip
    trace = {
        "type": "heatmap", "z": z, "x": x, "y": y, "zmin": 0.0, "zmax": 1.0, "hoverongaps": False,
        "colorscale": [list(p) for p in figures_style._colorscale("Viridis")],
        "hovertemplate": "%{y} → %{x}<br>weight %{z:.4f}<extra></extra>",
    }  # fmt: skip
    axis = {"showticklabels": False, "showgrid": False, "zeroline": False, "ticks": ""}
    layout = {
        "template": figures.template_of(figures.Style()),
        "title": {"text": figures.esc(title)},
        "height": height,
        "margin": {"l": 80, "r": 10, "t": 90, "b": 10},
        "xaxis": {**axis, "side": "top", "type": "category"},
        "yaxis": {**axis, "autorange": "reversed", "type": "category"},
        "annotations": notes,
    }
    return go.Figure({"data": [trace], "layout": layout}, _validate=False)


# The page's charts are updated once each one's title shows the new sentence's first word.
WATCH_JS = """
(mark) => {
  const w = { t0: null, charts: null, draw: 0 };
  window.__grid = w;
  const P = window.Plotly;
  if (!P.__timed) {
    const orig = P.react;
    P.react = function (...a) { const t = performance.now(); const r = orig.apply(this, a);
      window.__grid.draw += performance.now() - t; return r; };
    P.__timed = true;
  }
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && w.t0 === null) w.t0 = performance.now();
  }, { capture: true, once: true });
  const tick = () => {
    if (w.t0 !== null) {
      const titles = Array.from(document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot'),
        (g) => (g.querySelector('.gtitle') || {}).textContent || '');
      if (titles.length && titles.every((t) => t.endsWith(mark))) { w.charts = performance.now() - w.t0; return; }
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
"""

MARKS = (
    "amber",
    "birch",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "grove",
    "heron",
    "indigo",
    "juniper",
    "kestrel",
)


def start(port: int) -> subprocess.Popen:
    cmd = [str(ROOT / ".venv" / "bin" / "streamlit"), "run", "benchmarks/grid_app.py", "--server.headless=true",
           f"--server.port={port}", "--server.fileWatcherType=none", "--browser.gatherUsageStats=false"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"http://localhost:{port}/_stcore/health", timeout=1) as r:
                if r.read().strip() == b"ok":
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("grid_app did not start")


class GridTab:
    """One tab on grid_app.py in one layout, loaded with the sentence that starts with MARKS[0]."""

    def __init__(self, browser, base: str, mode: str, grid: tuple[int, int, int], rest: str) -> None:  # noqa: ANN001
        layers, heads, n = grid
        self.rest = rest
        self.context = browser.new_context(viewport={"width": 1920, "height": 1080})
        self.page = self.context.new_page()
        self.got = [0]
        self.page.on(
            "websocket",
            lambda ws: ws.on("framereceived", lambda p: self.got.__setitem__(0, self.got[0] + len(p))),
        )
        query = {"mode": mode, "layers": layers, "heads": heads, "n": n, "sentence": f"{MARKS[0]} {rest}"}
        self.page.goto(f"{base}/?{urlencode(query)}")
        self.page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=\"stMain\"] .js-plotly-plot .main-svg').length > 0"
            f" && Array.from(document.querySelectorAll('.gtitle')).every(t => t.textContent.endsWith('{MARKS[0]}'))",
            timeout=600_000,
            polling=500,
        )
        self.page.wait_for_timeout(1000)
        self.charts = self.page.evaluate(
            "() => document.querySelectorAll('[data-testid=\"stMain\"] .js-plotly-plot').length"
        )
        self.box = self.page.locator('input[aria-label="Sentence"]')

    def press(self, k: int) -> tuple[float, float, float]:
        """Enter with the sentence that starts with MARKS[k]: ms to every chart updated, ms in Plotly.react, KB."""
        self.box.fill(f"{MARKS[k]} {self.rest}")
        self.page.evaluate(WATCH_JS, MARKS[k])
        before = self.got[0]
        self.box.press("Enter")
        self.page.wait_for_function("() => window.__grid.charts !== null", timeout=600_000, polling=100)
        self.page.wait_for_timeout(500)
        r = self.page.evaluate("() => window.__grid")
        return r["charts"], r["draw"], (self.got[0] - before) / 1024


def measure(browser, base: str, modes: list[str], grid: tuple[int, int, int], runs: int) -> dict:  # noqa: ANN001
    """Every layout of one grid, each in its own tab; the tabs take turns press by press (each press starting
    with another tab), so all see the same load on the machine. The first press of each is a warm-up."""
    if runs + 2 > len(MARKS):
        raise ValueError(f"at most {len(MARKS) - 2} runs")
    rest = " ".join(["the", "cat", "sat", "on", "the", "mat"] * 11)
    tabs = [(mode, GridTab(browser, base, mode, grid, rest)) for mode in modes]
    out: dict[str, list] = {mode: [] for mode in modes}
    for k in range(1, runs + 2):
        for j in range(len(tabs)):
            mode, tab = tabs[(k + j) % len(tabs)]
            r = tab.press(k)
            if k > 1:
                out[mode].append(r)
    results = {}
    for mode, tab in tabs:
        o = out[mode]
        results[mode] = {
            "charts": tab.charts,
            "ms": statistics.median(x[0] for x in o),
            "draw": statistics.median(x[1] for x in o),
            "kb": statistics.median(x[2] for x in o),
            "all": [round(x[0]) for x in o],
        }
        tab.context.close()
    return results


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import browser_options, load, machine, save

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--grids", default="12x12x16,30x9x16", help="layers x heads x tokens, comma-separated")
    ap.add_argument("--modes", default="charts,rows,mosaic")
    ap.add_argument("--runs", type=int, default=5)
    browser_options(ap, 8671)
    ap.add_argument("--out", default="grid.md")
    args = ap.parse_args()
    from browser import CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    grids = [tuple(int(v) for v in g.split("x")) for g in args.grids.split(",")]
    modes = args.modes.split(",")
    load_before = load()
    server = start(args.port)
    results: dict = {}
    try:
        with sync_playwright() as pw:
            exe = args.chromium if Path(args.chromium).exists() else None
            browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
            for grid in grids:
                by_mode = measure(browser, f"http://localhost:{args.port}", modes, grid, args.runs)
                results["x".join(map(str, grid))] = by_mode
                for mode, r in by_mode.items():
                    print(f"  {grid} {mode:7s} {r['charts']:4d} charts {r['ms']:7.0f} ms  draw {r['draw']:7.0f} ms"
                          f"  {r['kb']:7.1f} KB", file=sys.stderr)  # fmt: skip
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    lines = [
        f"# A grid of attention maps: Enter to every chart updated (median of {args.runs} presses)\n",
        f"{machine()}; headless Chromium 1920x1080; {load_before} at the start, {load()} at the end.",
        "Grid = layers x heads x tokens. Cells: charts on the page / ms to every chart updated / ms in"
        " Plotly.react / KB received.\n",
        "| grid | " + " | ".join(modes) + " |",
        "|---|" + "---:|" * len(modes),
    ]
    for g, by_mode in results.items():
        cells = [f"{r['charts']} / {r['ms']:.0f} / {r['draw']:.0f} / {r['kb']:.0f}" for r in by_mode.values()]
        lines.append(f"| {g} | " + " | ".join(cells) + " |")
    save(args.out, "\n".join(lines), results)


if __name__ == "__main__":
    main()
