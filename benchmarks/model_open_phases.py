"""Where the time goes when /model is opened by a link (a whole page load), in Chromium, median of --runs.

    .venv/bin/python -m benchmarks model_open_phases --model smollm2 --runs 5

Marks taken in the page (performance.now(), from the start of the navigation): the websocket opened, the
first and last message of the run, the grid's element in the DOM, chart.js evaluated, plotly.js evaluated,
Plotly.react started and finished. model_grid.py gives the totals; this says which part is whose
(Streamlit's frontend, the server's run, plotly.js, the draw). Results: benchmarks/out/model_open_phases.md.
"""

from __future__ import annotations

import argparse
import statistics
from urllib.parse import urlencode

from _common import browser_options, machine, save, sentence_of
from browser import start_server
from model_grid import FLAGS, OPEN_WORDS, SHOWS

MARKS_JS = """
window.__t = {};
const mark = (k) => { if (!(k in window.__t)) window.__t[k] = performance.now(); };
const WS = window.WebSocket;
window.WebSocket = function (...a) {
  const ws = new WS(...a);
  mark('websocket opened');
  ws.addEventListener('message', () => { mark('first message'); window.__t['last message'] = performance.now(); });
  return ws;
};
window.WebSocket.prototype = WS.prototype;
const hook = (name, label, wrap) => Object.defineProperty(window, name, {
  configurable: true, get() { return undefined; },
  set(v) { mark(label); Object.defineProperty(window, name, {value: wrap(v), writable: true, configurable: true}); },
});
hook('__explorerChart', 'chart.js evaluated', (v) => v);
hook('Plotly', 'plotly.js evaluated', (P) => {
  const react = P.react;
  P.react = function (...a) {
    mark('Plotly.react started');
    const p = react.apply(this, a);
    Promise.resolve(p).then(() => { window.__t['Plotly.react finished'] = performance.now(); });
    return p;
  };
  return P;
});
new MutationObserver(() => { if (document.querySelector('.st-key-model-grid')) mark('grid element in the DOM'); })
  .observe(document, {subtree: true, childList: true});
"""
ORDER = ("websocket opened", "first message", "grid element in the DOM", "chart.js evaluated",
         "plotly.js evaluated", "Plotly.react started", "last message", "Plotly.react finished")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="smollm2", choices=("minilm", "smollm2"))
    ap.add_argument("--runs", type=int, default=5)
    browser_options(ap, 8662)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    layers = 30 if args.model == "smollm2" else 6
    server = start_server(args.port)
    runs: list[dict[str, float]] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=FLAGS)
            ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
            ctx.add_init_script(MARKS_JS)
            page = ctx.new_page()
            base = f"http://localhost:{args.port}"
            page.goto(f"{base}/model?model={args.model}")  # warm: the model loaded, the server's caches
            page.wait_for_function(
                SHOWS, arg=["[SEP]" if args.model == "minilm" else "", layers], timeout=180_000
            )
            for r in range(args.runs):
                word = OPEN_WORDS[r % len(OPEN_WORDS)]
                text = sentence_of(11 if args.model == "smollm2" else 9) + f" {word}"
                page.goto(f"{base}/model?{urlencode({'model': args.model, 'sentence': text})}")
                page.wait_for_function(SHOWS, arg=[word, layers], timeout=120_000, polling=20)
                runs.append(
                    page.evaluate("() => ({...window.__t, 'drawn (seen by the test)': performance.now()})")
                )
            browser.close()
    finally:
        server.terminate()
    names = [k for k in (*ORDER, "drawn (seen by the test)") if all(k in r for r in runs)]
    names.sort(key=lambda k: statistics.median(r[k] for r in runs))
    lines = [f"# Opening /model?model={args.model} by a link: ms from the start of the navigation (median of "
             f"{args.runs})", "", machine(), "", "| mark | ms |", "|---|---:|"]  # fmt: skip
    lines += [f"| {k} | {statistics.median(r[k] for r in runs):.0f} |" for k in names]
    text = "\n".join(lines) + "\n"
    print(text)
    save(f"model_open_phases_{args.model}.md", text, runs)


if __name__ == "__main__":
    main()
