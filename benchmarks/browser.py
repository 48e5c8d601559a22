"""In the browser: from pressing Enter in the sentence box to every chart of the page updated, against a floor.

Starts the app (streamlit run app.py on --port, default 8651) and the floor (benchmarks/floor_app.py on the next
port), opens each page in headless Chromium (Playwright, 1920x1080) at the default example and at 8, 16, 32 and
64 tokens (d_model 64, 8 heads, d_k 8, d_ff 256, set through the URL: the growth per token), and times Enter
presses that swap one word of the sentence for another (same number of tokens, so only the words change).
Clocks run in the page (performance.now()):
- "charts": from the Enter keydown to the moment every chart that showed the old word in its tick or legend
  labels shows the new one (a page whose charts do not depend on the sentence counts as soon as its run
  ends); each press brings a word not seen before, so nothing comes from a cache;
- "done": to that and the script run finished (Streamlit's script state back to "not running").
"KB" is what the websocket received per Enter (Streamlit sends a reference instead of a large element the
browser already has); "draws" counts Plotly's draws (st.plotly_chart draws a chart whose figure changed twice,
once hidden before its width is known and once at its width; explorer.ui.chart once).
The floor: a bare page redrawing as many heatmaps as the page has charts that follow the sentence, each of as
many rows and columns as the sentence has tokens, with st.plotly_chart (what every page did before
explorer.ui.chart). Its tab and the page's take turns, press by press, so both see the same load on the machine;
each page is reported as a ratio to it. With --before DIR, a third tab on the same page of the app as it is
in DIR (a checkout of an earlier commit, e.g. `git worktree add --detach /tmp/chart-pre 97d4fb9`, the commit
before explorer.ui.chart) takes its turn too, so "before" and "after" are measured in one run against one floor.
Each figure is the median over --runs presses after one warm-up press.
Then an edit of W_O on /heads (a data editor): from the Enter that commits the cell to the output chart
redrawn, and to the run finished.

Usage: .venv/bin/python -m benchmarks browser [--runs 7] [--pages heads,scores]
       [--sizes default,n8,n16,n32,n64] [--port 8651] [--chromium /usr/bin/chromium] [--out browser.md]
       [--no-floor] [--no-edit] [--before DIR]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

from _common import PAGES, ROOT, browser_options, load, machine, save, sentence_of
from playwright.sync_api import TimeoutError as PlaywrightTimeout

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

DEFAULT_SENTENCE = "The cat sat on the mat because it was warm."

# Counts Plotly's draws (Plotly.react / Plotly.newPlot calls) in window.__draws: Streamlit mounts a chart
# whose figure changed anew and draws it twice (once hidden, before its width is known, then at its width);
# a chart whose figure did not change is not drawn at all.
COUNT_DRAWS_JS = """
() => {
  const P = window.Plotly;
  if (!P || P.__counted) return !!P;
  window.__draws = 0;
  window.__drawLog = [];
  for (const name of ['react', 'newPlot']) {
    const orig = P[name];
    P[name] = function (...args) {
      window.__draws += 1;
      const t = performance.now();
      const out = orig.apply(this, args);
      window.__drawLog.push([t, performance.now()]);
      return out;
    };
  }
  P.__counted = true;
  return true;
}
"""

# Before the app loads: the arrival time of every websocket message (window.__ws), for the phases of a press.
WS_TIMES_JS = """
(() => {
  window.__ws = [];
  const WS = window.WebSocket;
  window.WebSocket = class extends WS {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => window.__ws.push(performance.now()));
    }
  };
})();
"""

# The phases of the last press (ms from the Enter): "data", the last message that came before the last draw
# began (the server's run up to the last chart, and the wire); "start", the first draw began; "draw", the time
# inside Plotly's draws; "end", the last draw ended; every chart was seen updated at "charts".
PHASES_JS = """
() => {
  const w = window.__bench, t0 = w.t0, t1 = t0 + w.charts;
  const draws = (window.__drawLog || []).filter(([a, b]) => a >= t0 && a <= t1);
  if (!draws.length) return null;
  const lastStart = Math.max(...draws.map((d) => d[0]));
  const before = (window.__ws || []).filter((t) => t >= t0 && t <= lastStart);
  return {
    data: before.length ? Math.max(...before) - t0 : 0,
    start: Math.min(...draws.map((d) => d[0])) - t0,
    draw: draws.reduce((s, [a, b]) => s + b - a, 0),
    end: Math.max(...draws.map((d) => d[1])) - t0,
  };
}
"""

# Installed in the page: a keydown listener (capture phase) for the Enter press, an observer of the script
# state, and a per-frame check of the charts' labels.
WATCH_JS = """
([oldMark, newMark]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const labels = (el) => Array.from(el.querySelectorAll('[class$="tick"] text, .legendtext'),
                                (t) => t.textContent.trim());
  const ticks = (el) => Array.from(el.querySelectorAll('[class$="tick"] text'), (t) => t.textContent.trim());
  const charts = () => Array.from(document.querySelectorAll('CHARTS_SELECTOR'));
  const dependent = charts().map((el) => labels(el).includes(oldMark));
  // A chart that showed the old word only in its legend may drop the word from it (the stacked chart names
  // only the strongest keys): it is updated once the old word is gone; one with it in its ticks, once the
  // new word is there instead.
  const inTicks = charts().map((el) => ticks(el).includes(oldMark));
  const w = { t0: null, charts: null, done: null, sawRunning: false, finished: false };
  window.__bench = w;
  window.__draws = 0;
  const obs = new MutationObserver(() => {
    const s = app.getAttribute('data-test-script-state');
    if (s === 'running') w.sawRunning = true;
    else if (w.sawRunning) w.finished = true;
  });
  obs.observe(app, { attributes: true, attributeFilter: ['data-test-script-state'] });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && w.t0 === null) w.t0 = performance.now();
  }, { capture: true, once: true });
  const tick = () => {
    if (w.t0 !== null) {
      const now = charts();
      const updated = now.length === dependent.length && now.every((el, i) => {
        if (!dependent[i]) return true;
        const l = labels(el);
        if (!inTicks[i]) return l.length > 0 && !l.includes(oldMark);
        return l.includes(newMark) && !l.includes(oldMark);
      });
      const anyDependent = dependent.some(Boolean);
      // A run too short for React to render "running" is never seen: the new labels prove the run happened.
      const idle = app.getAttribute('data-test-script-state') === 'notRunning';
      const finished = w.finished || (anyDependent && updated && idle);
      if (updated && w.charts === null && (anyDependent || finished)) w.charts = performance.now() - w.t0;
      if (updated && finished && w.done === null) {
        w.done = performance.now() - w.t0;
        obs.disconnect();
        return;
      }
      if (!anyDependent && !w.sawRunning && performance.now() - w.t0 > 5000) {  // nothing to see: give up
        w.charts = w.done = -1;
        obs.disconnect();
        return;
      }
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  return dependent.filter(Boolean).length;
}
"""


# One new word per press: every press is a sentence the server and the browser have not seen (a word seen
# two runs ago would come from Streamlit's message cache and from the result caches).
MARKS = (
    "amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "indigo", "juniper", "kestrel",
    "lotus", "maple", "nectar", "orchid", "pebble", "quartz", "raven", "sable", "tundra", "umber", "violet",
)  # fmt: skip


def sentences(size: str, presses: int) -> list[tuple[str, str]]:
    """(sentence, its marked word): the first is loaded with the page, one more per press; same length."""
    if presses + 1 > len(MARKS):
        raise ValueError(f"at most {len(MARKS) - 1} presses")
    if size == "default":
        return [(DEFAULT_SENTENCE.replace("cat", m), m) for m in MARKS[: presses + 1]]
    rest = sentence_of(int(size[1:])).split(" ", 1)[1]
    return [(f"{m} {rest}", m) for m in MARKS[: presses + 1]]


def url_params(size: str, sentence: str) -> dict[str, str]:
    if size == "default":
        return {"sentence": sentence}
    return {"sentence": sentence, "d_model": "64", "heads": "8", "d_k": "8", "d_ff": "256"}


def start_server(port: int, script: str = "app.py", cwd: Path = ROOT) -> subprocess.Popen:
    cmd = [
        str(ROOT / ".venv" / "bin" / "streamlit"),
        "run",
        script,
        "--server.headless=true",
        f"--server.port={port}",
        "--server.fileWatcherType=none",
        "--browser.gatherUsageStats=false",
    ]
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"http://localhost:{port}/_stcore/health", timeout=1) as r:
                if r.read().strip() == b"ok":
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError(f"{script} did not start on port {port}")


# Every chart on the page: the app's chart element (explorer.ui.chart) or Streamlit's st.plotly_chart (the
# floor, and the app before explorer.ui.chart).
CHARTS = '[data-testid="stMain"] [data-testid="explorerChart"], [data-testid="stMain"] [data-testid="stPlotlyChart"]'


def wait_idle(page, timeout_ms: float = 180_000) -> None:  # noqa: ANN001 - playwright Page
    """Until the script is not running, nothing is stale and every chart of the page has been drawn."""
    page.wait_for_function(
        """(sel) => { const a = document.querySelector('[data-testid="stApp"]');
                   const charts = document.querySelectorAll(sel);
                   return a && a.getAttribute('data-test-script-state') === 'notRunning'
                     && !document.querySelector('[data-stale="true"]') && charts.length > 0
                     && Array.from(charts).every((c) => c.querySelector('.main-svg')); }""",
        arg=CHARTS,
        timeout=timeout_ms,
        polling=100,
    )


class Tab:
    """One browser tab on a page: press Enter with a new sentence and time it (WATCH_JS)."""

    def __init__(self, browser, url: str, check_d_model: bool = False) -> None:  # noqa: ANN001
        self.context = browser.new_context(viewport={"width": 1920, "height": 1080})
        self.context.add_init_script(WS_TIMES_JS)
        self.page = self.context.new_page()
        self.received = [0]
        self.page.on(
            "websocket",
            lambda ws: ws.on(
                "framereceived", lambda p: self.received.__setitem__(0, self.received[0] + len(p))
            ),
        )
        self.page.goto(url)
        wait_idle(self.page)
        self.page.wait_for_timeout(500)
        wait_idle(self.page)
        if check_d_model:
            shown = self.page.locator('[data-testid="stSidebar"] input[aria-label="d_model"]').input_value()
            if shown != "64":
                raise RuntimeError(f"the URL did not set d_model 64 (the sidebar shows {shown})")
        self.box = self.page.locator('input[aria-label="Sentence"]')
        self.page.evaluate(COUNT_DRAWS_JS)

    def press(
        self, current: tuple[str, str], new: tuple[str, str], before_enter: Callable[[], object] | None = None
    ) -> dict:
        """Type `new`'s sentence (the page shows `current`'s), press Enter: ms to every chart updated and to
        the run finished, KB received, Plotly draws, and how many charts showed the old word. before_enter:
        called just before the Enter (main_thread.py starts its profiler there)."""
        self.box.fill(new[0])
        dependent = self.page.evaluate(WATCH_JS.replace("CHARTS_SELECTOR", CHARTS), [current[1], new[1]])
        before = self.received[0]
        if before_enter is not None:
            before_enter()
        self.box.press("Enter")
        self.page.wait_for_function(
            "() => window.__bench && window.__bench.done !== null", timeout=120_000, polling=50
        )
        result = self.page.evaluate("() => window.__bench")
        phases = self.page.evaluate(PHASES_JS) if result["charts"] > 0 else None
        wait_idle(self.page)
        self.page.wait_for_timeout(300)  # websocket events reach Python while it waits in a Playwright call
        return {
            "phases": phases,
            "charts": result["charts"],
            "done": result["done"],
            "kb": (self.received[0] - before) / 1024,
            "draws": self.page.evaluate("() => window.__draws"),
            "dependent": dependent,
        }

    def close(self) -> None:
        self.context.close()


def summary(presses: list[dict]) -> dict:
    seen = [p for p in presses if p["done"] >= 0]  # -1: the run was not seen
    if not seen:
        return {"charts": float("nan"), "done": float("nan"), "kb": 0.0, "draws": 0, "presses": 0}
    phased = [p["phases"] for p in seen if p.get("phases")]
    return {
        "charts": statistics.median(p["charts"] for p in seen),
        "done": statistics.median(p["done"] for p in seen),
        "kb": statistics.median(p["kb"] for p in seen),
        "draws": statistics.median(p["draws"] for p in seen),
        "presses": len(seen),
        "all": [round(p["charts"]) for p in seen],
        "phases": {k: statistics.median(p[k] for p in phased) for k in phased[0]} if phased else None,
    }


def measure_page(  # noqa: PLR0913
    browser,  # noqa: ANN001 - playwright Browser
    base: str,
    floor: str | None,
    path: str,
    size: str,
    runs: int,
    before: str | None = None,
) -> dict:
    """The page's presses, and (with `floor`) the floor's with as many heatmaps as the page has charts that
    follow the sentence, of as many rows and columns as the sentence has tokens, and (with `before`) the same
    page of the earlier app: the tabs take turns, press by press, each press starting with another tab, so
    all see the same load on the machine."""
    steps = sentences(size, runs + 1)
    query = urlencode(url_params(size, steps[0][0]))
    app = Tab(browser, f"{base}/{path}?{query}", size != "default")
    warm = app.press(steps[0], steps[1])  # the warm-up press; tells how many charts follow the sentence
    k = warm["dependent"]
    tabs: list[tuple[str, Tab]] = [("page", app)]
    if floor and k:
        tabs.append(("floor", Tab(browser, f"{floor}/?{urlencode({'sentence': steps[0][0], 'charts': k})}")))
    if before:
        tabs.append(("before", Tab(browser, f"{before}/{path}?{query}", size != "default")))
    for _, tab in tabs[1:]:
        tab.press(steps[0], steps[1])  # their warm-up press
    out: dict[str, list[dict]] = {name: [] for name, _ in tabs}
    for i in range(1, runs + 1):
        for j in range(len(tabs)):
            name, tab = tabs[(i + j) % len(tabs)]
            out[name].append(tab.press(steps[i], steps[i + 1]))
    for _, tab in tabs:
        tab.close()
    if not any(p["done"] >= 0 for p in out["page"]):
        raise RuntimeError(f"/{path} at {size}: no run was seen after any Enter")
    result = {**summary(out["page"]), "dependent": k}
    if "floor" in out:
        result["floor"] = summary(out["floor"])
        result["ratio"] = result["charts"] / result["floor"]["charts"]
    if "before" in out:
        result["before"] = summary(out["before"])
        if "floor" in out:
            result["before"]["ratio"] = result["before"]["charts"] / result["floor"]["charts"]
    return result


# An edit of W_O on /heads: from the Enter that commits the cell to the output chart (the last chart, the only
# one that depends on W_O) redrawn, and the run finished.
EDIT_JS = """
() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const last = () => Array.from(document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')).pop();
  const before = JSON.stringify(last().data[0].z);
  const w = { t0: null, chart: null, done: null };
  window.__bench = w;
  window.__draws = 0;
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && w.t0 === null) w.t0 = performance.now();
  }, { capture: true, once: true });
  const tick = () => {
    if (w.t0 !== null) {
      const gd = last();
      if (w.chart === null && gd && gd.data && JSON.stringify(gd.data[0].z) !== before) w.chart = performance.now() - w.t0;
      if (w.chart !== null && app.getAttribute('data-test-script-state') === 'notRunning') {
        w.done = performance.now() - w.t0;
        return;
      }
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
"""


def type_in_first_cell(page, editor, text: str) -> None:  # noqa: ANN001 - Page, Locator
    """Open the first cell of a data editor (a canvas) with `text` typed in it, not yet committed: click
    inside it (the row label column is about 52 px wide, the header 35 px high), then type."""
    editor.scroll_into_view_if_needed()
    for _ in range(5):
        page.wait_for_timeout(200)  # the grid redraws after scrolling before it takes clicks
        box = editor.bounding_box()
        page.mouse.click(box["x"] + 52 + 30, box["y"] + 35 + 17)
        page.keyboard.type(text[0])  # typing on a selected cell opens its editor
        try:
            page.wait_for_function(
                "() => !!document.activeElement?.classList.contains('gdg-input')", timeout=2000, polling=50
            )
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
            continue
        page.keyboard.press("Control+A")
        page.keyboard.type(text)
        if page.evaluate("() => document.activeElement.value") == text:
            return
        page.keyboard.press("Escape")
    raise RuntimeError("could not open a cell of the data editor")


def measure_edit(browser, base: str, size: str, runs: int) -> dict:  # noqa: ANN001
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.goto(f"{base}/heads?{urlencode(url_params(size, sentences(size, 0)[0][0]))}")
    wait_idle(page)
    page.evaluate(COUNT_DRAWS_JS)
    editor = page.locator('[data-testid="stDataFrame"]').first
    chart, done, draws, missed = [], [], [], 0
    for k in range(3 * runs + 3):
        if len(done) > runs:
            break
        type_in_first_cell(page, editor, f"{0.5 + k / 100:.2f}")
        page.evaluate(EDIT_JS)
        page.keyboard.press("Enter")
        try:  # now and then the grid drops a commit: that press is tried again
            page.wait_for_function("() => window.__bench.done !== null", timeout=15_000, polling=50)
        except PlaywrightTimeout:
            missed += 1
            continue
        result = page.evaluate("() => window.__bench")
        wait_idle(page)
        chart.append(result["chart"])
        done.append(result["done"])
        draws.append(page.evaluate("() => window.__draws"))
    if len(done) < 2:
        raise RuntimeError(f"the W_O edit at {size} was not seen after {missed} presses")
    chart, done, draws = chart[1:], done[1:], draws[1:]  # the first is the warm-up
    context.close()
    return {
        "chart": statistics.median(chart),
        "done": statistics.median(done),
        "draws": statistics.median(draws),
        "missed": missed,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--pages", default=",".join(p[0] for p in PAGES))
    ap.add_argument("--sizes", default="default,n8,n16,n32,n64")
    browser_options(ap, 8651, "the app's port; the floor's is the next one")
    ap.add_argument("--out", default="browser.md", help="file name under benchmarks/out/")
    ap.add_argument("--no-edit", action="store_true", help="skip the W_O edit on /heads")
    ap.add_argument("--no-floor", action="store_true", help="skip the floor (st.plotly_chart heatmaps)")
    ap.add_argument("--before", help="a checkout of an earlier commit: its app measured too (third port)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    pages = [p for p in PAGES if p[0] in args.pages.split(",")]
    sizes = args.sizes.split(",")
    load_before = load()
    base, floor_base = f"http://localhost:{args.port}", f"http://localhost:{args.port + 1}"
    servers = [start_server(args.port)]
    if not args.no_floor:
        servers.append(start_server(args.port + 1, str(Path("benchmarks") / "floor_app.py")))
    before_base = None
    if args.before:
        before_base = f"http://localhost:{args.port + 2}"
        servers.append(start_server(args.port + 2, cwd=Path(args.before).resolve()))
    results: dict = {}
    edits: dict = {}
    try:
        with sync_playwright() as pw:
            exe = args.chromium if Path(args.chromium).exists() else None
            browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
            # A fresh server that is first asked for /<page> runs app_pages/<page>.py on its own (Streamlit's
            # app_pages/ directory mode) until app.py has called st.navigation once: open "/" first.
            for url in [base] + ([before_base] if before_base else []):
                first = browser.new_page()
                first.goto(f"{url}/")
                first.wait_for_selector('input[aria-label="Sentence"]', timeout=180_000)
                first.close()
            for name, _, path in pages:
                for size in sizes:
                    r = measure_page(
                        browser,
                        base,
                        None if args.no_floor else floor_base,
                        path,
                        size,
                        args.runs,
                        before_base,
                    )
                    results.setdefault(name, {})[size] = r
                    floor = (
                        f"  floor {r['floor']['charts']:6.0f} ms  ratio {r['ratio']:4.2f}"
                        if "floor" in r
                        else ""
                    )
                    if "before" in r:
                        floor += f"  before {r['before']['charts']:6.0f} ms"
                        floor += f" ratio {r['before']['ratio']:4.2f}" if "ratio" in r["before"] else ""
                    print(
                        f"  {name:12s} {size:8s} charts {r['charts']:7.0f} ms  done {r['done']:7.0f} ms  "
                        f"{r['kb']:7.1f} KB  {r['draws']:3.0f} draws  ({r['dependent']} charts follow the sentence)"
                        + floor,
                        file=sys.stderr,
                    )
            for size in [] if args.no_edit else sizes:
                edits[size] = measure_edit(browser, base, size, args.runs)
                print(
                    f"  W_O edit     {size:8s} chart {edits[size]['chart']:7.0f} ms  done {edits[size]['done']:7.0f} ms"
                    f"  {edits[size]['draws']:3.0f} draws",
                    file=sys.stderr,
                )
            browser.close()
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
    lines = [
        f"# Enter in the sentence box to every chart updated (median of {args.runs} presses, ms)\n",
        f"{machine()}; headless Chromium 1920x1080; {load_before} at the start, {load()} at the end.",
        "Sizes: default = the default example; nK = K tokens, d_model 64, 8 heads, d_k 8, d_ff 256.",
        "Cells: ms to every chart updated / ms to the run finished / KB received / Plotly draws.",
    ]
    if not args.no_floor:
        lines.append(
            "Then, in brackets: the floor (a bare page redrawing as many heatmaps, of as many rows and columns as"
            " the sentence has tokens, with st.plotly_chart; its presses taken in turn with the page's), ms to"
            " every chart updated, and the page's time as a ratio to it (target: 0.7 or less)."
        )
    lines += ["", "| page | " + " | ".join(f"{s}" for s in sizes) + " |", "|---|" + "---:|" * len(sizes)]
    for name, _, _ in pages:
        cells = []
        for s in sizes:
            r = results[name][s]
            cell = f"{r['charts']:.0f} / {r['done']:.0f} / {r['kb']:.0f} / {r['draws']:.0f}"
            if "floor" in r:
                cell += f" [{r['floor']['charts']:.0f}; {r['ratio']:.2f}x]"
            cells.append(cell)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if args.before and not args.no_floor:
        lines += [
            f"\nBefore ({args.before}) and after, against the floor measured in the same presses: ms to every"
            " chart updated (ratio to the floor); target 0.7 or less.\n",
            "| page | size | charts | before | after | floor | target met |",
            "|---|---|---:|---:|---:|---:|---|",
        ]
        for name, _, _ in pages:
            for s in sizes:
                r = results[name][s]
                if "floor" not in r:
                    continue
                b = r["before"]
                lines.append(
                    f"| {name} | {s} | {r['dependent']} | {b['charts']:.0f} ({b['ratio']:.2f}x) |"
                    f" {r['charts']:.0f} ({r['ratio']:.2f}x) | {r['floor']['charts']:.0f} |"
                    f" {'yes' if r['ratio'] <= 0.7 else 'no'} |"
                )
    lines += [
        "\nWhere the time goes (medians, ms from the Enter): the last message before the last draw began (the"
        " server's run up to the last chart, and the wire) / the first draw began / time inside Plotly's draws /"
        " the last draw ended / every chart seen updated; the page, then [the floor].\n",
        "| page | " + " | ".join(sizes) + " |",
        "|---|" + "---|" * len(sizes),
    ]

    def phases(r: dict) -> str:
        p = r.get("phases")
        if not p:
            return "-"
        return f"{p['data']:.0f} / {p['start']:.0f} / {p['draw']:.0f} / {p['end']:.0f} / {r['charts']:.0f}"

    for name, _, _ in pages:
        cells = []
        for s in sizes:
            r = results[name][s]
            cell = phases(r)
            if "floor" in r:
                cell += f" [{phases(r['floor'])}]"
            cells.append(cell)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if edits:
        lines.append(
            "\nAn edit of W_O on /heads (Enter in the cell to the output chart redrawn / run finished, ms;"
            " Plotly draws):"
        )
        lines += [
            f"- {s}: {e['chart']:.0f} / {e['done']:.0f}; {e['draws']:.0f} draws" for s, e in edits.items()
        ]
    text = "\n".join(lines)
    save(args.out, text, {"enter": results, "edit": edits})


if __name__ == "__main__":
    main()
