"""/model in Chromium (issue 17 targets): the grid of every layer x head drawn at 11 tokens (<= 1.5 s from
opening the page) and updated after a sentence change (<= 1 s from Enter until every panel shows the new
sentence), on both models, median of --runs.

    .venv/bin/python benchmarks/bench_model_grid.py --runs 5

Starts the app on --port (streamlit run app.py) and drives the system Chromium with Playwright. "Drawn": the
grid's plot holds all its traces and its last layer's rows name the sentence's tokens; "updated": the same
for the new sentence after Enter in the sentence box. Results: benchmarks/out/model_grid.md.
"""

from __future__ import annotations

import argparse
import statistics
import time
from urllib.parse import urlencode

from _common import machine, save, sentence_of
from bench_browser import start_server

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]  # fmt: skip
OPEN_WORDS = ("apple", "river", "music", "garden", "window", "summer", "paper")
NEW_WORDS = ("forest", "planet", "silver", "letter", "market", "winter", "doctor")
SHOWS = """([token, nTraces]) => {
  const gd = document.querySelector('.st-key-model-grid .js-plotly-plot');
  if (!gd || !gd._fullData || gd._fullData.length !== nTraces || !gd.querySelector('.heatmaplayer image')) return false;
  const last = gd._fullData[nTraces - 2];  // the last layer's heatmap
  return Array.from(last.y || []).some((y) => String(y).endsWith(token));
}"""


def measure(page, base: str, key: str, layers: int, runs: int) -> tuple[list[float], list[float]]:  # noqa: ANN001
    first = sentence_of(11 if key == "smollm2" else 9)  # 11 tokens: MiniLM adds [CLS] and [SEP]
    opened, updated = [], []
    for r in range(runs):
        a, b = OPEN_WORDS[r % len(OPEN_WORDS)], NEW_WORDS[r % len(NEW_WORDS)]  # one token each, both models
        text = first + f" {a}"
        t0 = time.perf_counter()
        page.goto(f"{base}/model?{urlencode({'model': key, 'sentence': text})}")
        page.wait_for_function(SHOWS, arg=[a, layers + 1], timeout=120_000, polling=20)
        opened.append(time.perf_counter() - t0)
        box = page.locator('[data-testid="stTextInput"] input[aria-label="Sentence"]')
        new = first + f" {b}"
        box.fill(new)
        t0 = time.perf_counter()
        box.press("Enter")
        page.wait_for_function(SHOWS, arg=[b, layers + 1], timeout=120_000, polling=20)
        updated.append(time.perf_counter() - t0)
    return opened, updated


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--port", type=int, default=8661)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    server = start_server(args.port)
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=FLAGS)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            base = f"http://localhost:{args.port}"
            page.goto(f"{base}/model?model=minilm")  # warm: models loaded, plotly.js cached
            page.wait_for_function(SHOWS, arg=["[SEP]", 7], timeout=180_000)
            for key, layers in (("minilm", 6), ("smollm2", 30)):
                opened, updated = measure(page, base, key, layers, args.runs)
                rows.append((key, statistics.median(opened), statistics.median(updated), opened, updated))
            browser.close()
    finally:
        server.terminate()
    lines = [
        f"# /model in Chromium: the grid drawn and updated (median of {args.runs})", "", machine(), "",
        "| model | opened until drawn, s (target <= 1.5) | Enter until updated, s (target <= 1) |", "|---|---:|---:|",
    ]  # fmt: skip
    for key, o, u, *_ in rows:
        lines.append(f"| {key} | {o:.2f} | {u:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    save("model_grid.md", text, [{"model": k, "opened": o, "updated": u} for k, _, _, o, u in rows])


if __name__ == "__main__":
    main()
