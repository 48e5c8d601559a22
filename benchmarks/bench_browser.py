"""In the browser: from pressing Enter in the sentence box to every chart of the page updated.

Starts the app (streamlit run app.py on --port, default 8651), opens each page in headless Chromium
(Playwright, 1920x1080) at the default example and at 8, 16, 32 and 64 tokens (d_model 64, 8 heads, d_k 8,
d_ff 256, set through the URL: the growth per token), and times Enter presses that swap one word of the sentence for another (same number of
tokens, so only the words change). Clocks run in the page (performance.now()):
- "charts": from the Enter keydown to the moment every chart that showed the old word in its tick or legend
  labels shows the new one (a page whose charts do not depend on the sentence counts as soon as its run
  ends); each press brings a word not seen before, so nothing comes from a cache;
- "done": to that and the script run finished (Streamlit's script state back to "not running").
"KB" is what the websocket received per Enter (Streamlit sends a reference instead of a large element the
browser already has); "draws" counts Plotly's draws (Streamlit draws a chart whose figure changed twice, once
hidden before its width is known and once at its width; an unchanged chart not at all). Each figure is the median over --runs presses after one warm-up press.
Then an edit of W_O on /heads (a data editor): from the Enter that commits the cell to the output chart
redrawn, and to the run finished.

Usage: .venv/bin/python benchmarks/bench_browser.py [--runs 5] [--pages heads,scores]
       [--sizes default,n8,n16,n32,n64] [--port 8651] [--chromium /usr/bin/chromium] [--out browser.md]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

from _common import PAGES, ROOT, load, machine, save, sentence_of
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
  for (const name of ['react', 'newPlot']) {
    const orig = P[name];
    P[name] = function (...args) { window.__draws += 1; return orig.apply(this, args); };
  }
  P.__counted = true;
  return true;
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
  const charts = () => Array.from(document.querySelectorAll('[data-testid="stMain"] [data-testid="stPlotlyChart"]'));
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


def start_server(port: int) -> subprocess.Popen:
    cmd = [
        str(ROOT / ".venv" / "bin" / "streamlit"),
        "run",
        "app.py",
        "--server.headless=true",
        f"--server.port={port}",
        "--server.fileWatcherType=none",
        "--browser.gatherUsageStats=false",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"http://localhost:{port}/_stcore/health", timeout=1) as r:
                if r.read().strip() == b"ok":
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError(f"the app did not start on port {port}")


def wait_idle(page, timeout_ms: float = 180_000) -> None:  # noqa: ANN001 - playwright Page
    """Until the script is not running, nothing is stale and every chart of the page has been drawn."""
    page.wait_for_function(
        """() => { const a = document.querySelector('[data-testid="stApp"]');
                   const charts = document.querySelectorAll('[data-testid="stMain"] [data-testid="stPlotlyChart"]');
                   return a && a.getAttribute('data-test-script-state') === 'notRunning'
                     && !document.querySelector('[data-stale="true"]') && charts.length > 0
                     && Array.from(charts).every((c) => c.querySelector('.main-svg')); }""",
        timeout=timeout_ms,
        polling=100,
    )


def measure_page(browser, base: str, path: str, size: str, runs: int) -> dict:  # noqa: ANN001
    steps = sentences(size, runs + 1)
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    received = [0]
    page.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda p: received.__setitem__(0, received[0] + len(p))),
    )
    page.goto(f"{base}/{path}?{urlencode(url_params(size, steps[0][0]))}")
    wait_idle(page)
    page.wait_for_timeout(500)
    wait_idle(page)
    if size != "default":
        shown = page.locator('[data-testid="stSidebar"] input[aria-label="d_model"]').input_value()
        if shown != "64":
            raise RuntimeError(f"the URL did not set d_model 64 (the sidebar shows {shown})")
    box = page.locator('input[aria-label="Sentence"]')
    page.evaluate(COUNT_DRAWS_JS)
    charts, done, kbytes, draws, dependent = [], [], [], [], 0
    for k in range(runs + 1):
        current, new = steps[k], steps[k + 1]
        box.fill(new[0])
        dependent = page.evaluate(WATCH_JS, [current[1], new[1]])
        before = received[0]
        box.press("Enter")
        page.wait_for_function(
            "() => window.__bench && window.__bench.done !== null", timeout=120_000, polling=50
        )
        result = page.evaluate("() => window.__bench")
        wait_idle(page)
        page.wait_for_timeout(300)  # websocket events reach Python while it waits in a Playwright call
        if k > 0 and result["done"] >= 0:  # the first press is the warm-up; -1: the run was not seen
            charts.append(result["charts"])
            done.append(result["done"])
            kbytes.append((received[0] - before) / 1024)
            draws.append(page.evaluate("() => window.__draws"))
    context.close()
    if not done:
        raise RuntimeError(f"/{path} at {size}: no run was seen after any Enter")
    return {
        "charts": statistics.median(charts),
        "done": statistics.median(done),
        "kb": statistics.median(kbytes),
        "draws": statistics.median(draws),
        "dependent": dependent,
        "presses": len(done),
    }


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
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pages", default=",".join(p[0] for p in PAGES))
    ap.add_argument("--sizes", default="default,n8,n16,n32,n64")
    ap.add_argument("--port", type=int, default=8651)
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    ap.add_argument("--out", default="browser.md", help="file name under benchmarks/out/")
    ap.add_argument("--no-edit", action="store_true", help="skip the W_O edit on /heads")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    pages = [p for p in PAGES if p[0] in args.pages.split(",")]
    sizes = args.sizes.split(",")
    load_before = load()
    server = start_server(args.port)
    results: dict = {}
    try:
        with sync_playwright() as pw:
            exe = args.chromium if Path(args.chromium).exists() else None
            browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
            # A fresh server that is first asked for /<page> runs pages/<page>.py on its own (Streamlit's
            # pages/ directory mode) until app.py has called st.navigation once: open "/" first.
            first = browser.new_page()
            first.goto(f"http://localhost:{args.port}/")
            first.wait_for_selector('input[aria-label="Sentence"]', timeout=180_000)
            first.close()
            for name, _, path in pages:
                for size in sizes:
                    r = measure_page(browser, f"http://localhost:{args.port}", path, size, args.runs)
                    results.setdefault(name, {})[size] = r
                    print(
                        f"  {name:12s} {size:8s} charts {r['charts']:7.0f} ms  done {r['done']:7.0f} ms  "
                        f"{r['kb']:7.1f} KB  {r['draws']:3.0f} draws  ({r['dependent']} charts follow the sentence)",
                        file=sys.stderr,
                    )
            edits = {}
            for size in [] if args.no_edit else sizes:
                edits[size] = measure_edit(browser, f"http://localhost:{args.port}", size, args.runs)
                print(
                    f"  W_O edit     {size:8s} chart {edits[size]['chart']:7.0f} ms  done {edits[size]['done']:7.0f} ms"
                    f"  {edits[size]['draws']:3.0f} draws",
                    file=sys.stderr,
                )
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    lines = [
        f"# Enter in the sentence box to every chart updated (median of {args.runs} presses, ms)\n",
        f"{machine()}; headless Chromium 1920x1080; {load_before} at the start, {load()} at the end.",
        "Sizes: default = the default example; nK = K tokens, d_model 64, 8 heads, d_k 8, d_ff 256.",
        "Cells: ms to every chart updated / ms to the run finished / KB received / Plotly draws "
        "(Streamlit draws each chart whose figure changed twice: once hidden, then at its width).\n",
        "| page | " + " | ".join(f"{s}" for s in sizes) + " |",
        "|---|" + "---:|" * len(sizes),
    ]
    for name, _, _ in pages:
        cells = [
            f"{results[name][s]['charts']:.0f} / {results[name][s]['done']:.0f} / {results[name][s]['kb']:.0f}"
            f" / {results[name][s]['draws']:.0f}"
            for s in sizes
        ]
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
