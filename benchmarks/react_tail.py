"""Where a page's draw time goes after Enter, in Chromium: each Plotly.react call's synchronous part and when its
promise resolves, and whether Plotly redrew a chart to push its margins. A redraw in place resolves at once; a
redraw that rebuilds the plot (as every one did while chart.js gave Plotly a new config each time) does much
of its work in promise continuations, after every chart's synchronous call has returned.

    .venv/bin/python -m benchmarks react_tail --pages scores,heads,encoder --presses 3

Starts the app (streamlit run app.py on --port), opens each page at the default example (1920x1080), presses
Enter with a new word --presses times, and prints per press: the first call's start, the last call's return,
the last promise resolved (ms from the first call), and the auto-margin redraws
(gd._fullLayout._redrawFromAutoMarginCount). Results: benchmarks/out/react_tail.md.
"""

from __future__ import annotations

import argparse
import statistics

from _common import browser_options, machine, save
from browser import CHROMIUM_ARGS, MARKS, start_server, wait_idle

HOOK_JS = """
window.__reacts = [];
Object.defineProperty(window, 'Plotly', { configurable: true, get() { return undefined; }, set(P) {
  const react = P.react;
  P.react = function (gd, ...rest) {
    const entry = {start: performance.now()};
    const p = react.call(this, gd, ...rest);
    entry.returned = performance.now();
    window.__reacts.push(entry);
    Promise.resolve(p).then(() => {
      entry.resolved = performance.now();
      entry.redraws = (gd._fullLayout && gd._fullLayout._redrawFromAutoMarginCount) || 0;
    });
    return p;
  };
  Object.defineProperty(window, 'Plotly', {value: P, writable: true, configurable: true});
}});
"""
SENTENCE = "The {} sat on the mat because it was warm."


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", default="scores,heads,encoder")
    ap.add_argument("--presses", type=int, default=3)
    browser_options(ap, 8663)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    server = start_server(args.port)
    rows = ["| page | charts drawn | last call returned, ms | last promise resolved, ms | auto-margin redraws |",
            "|---|---:|---:|---:|---:|"]  # fmt: skip
    data = {}
    words = iter(MARKS)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
            ctx.add_init_script(HOOK_JS)
            for name in args.pages.split(","):
                page = ctx.new_page()
                page.goto(f"http://localhost:{args.port}/{name}")
                wait_idle(page)
                box = page.locator('[data-testid="stTextInput"] input[aria-label="Sentence"]')
                presses = []
                for _ in range(args.presses):
                    page.evaluate("() => { window.__reacts = []; }")
                    box.fill(SENTENCE.format(next(words)))
                    box.press("Enter")
                    page.wait_for_timeout(1500)
                    wait_idle(page)
                    r = page.evaluate("() => window.__reacts.filter((e) => e.resolved !== undefined)")
                    t0 = min(e["start"] for e in r)
                    presses.append((len(r), max(e["returned"] for e in r) - t0,
                                    max(e["resolved"] for e in r) - t0, sum(e["redraws"] for e in r)))  # fmt: skip
                page.close()
                data[name] = presses
                med = [statistics.median(p[i] for p in presses) for i in range(4)]
                rows.append(f"| /{name} | {med[0]:.0f} | {med[1]:.0f} | {med[2]:.0f} | {med[3]:.0f} |")
                print(rows[-1], flush=True)
            browser.close()
    finally:
        server.terminate()
    text = (f"# Plotly.react after Enter (median of {args.presses} presses, ms from the first call)\n\n"
            f"{machine()}\n\n" + "\n".join(rows) + "\n")  # fmt: skip
    print(text)
    save("react_tail.md", text, data)


if __name__ == "__main__":
    main()
