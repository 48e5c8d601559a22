"""/model in Chromium (targets): the grid of every layer x head drawn at 11 tokens (<= 1.5 s from
opening the page) and updated after a sentence change (<= 1 s from Enter until every panel shows the new
sentence), on both models, median of --runs.

"Opened" is measured two ways. By a link: the browser loads the whole app at /model?model=...&sentence=...
(Streamlit's frontend, its component code and plotly.js, then the page's run). From the navigation: the app is
open on another page (the first, Sentence, with the model and a sentence the grid has not shown yet, so nothing comes
from a cache) and the student clicks "Every layer and head" in the sidebar.

    .venv/bin/python -m benchmarks model_grid --runs 5

Starts the app on --port (streamlit run app.py) and drives the system Chromium with Playwright. "Drawn": the
grid's plot holds all its traces and its last layer's rows name the sentence's tokens; "updated": the same
for the new sentence after Enter in the sentence box. Results: benchmarks/out/model_grid.md.
"""

from __future__ import annotations

import argparse
import statistics
import time
from urllib.parse import urlencode

from _common import browser_options, machine, save, sentence_of
from browser import start_server, wait_idle

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]  # fmt: skip
OPEN_WORDS = ("apple", "river", "music", "garden", "window", "summer", "paper")
NEW_WORDS = ("forest", "planet", "silver", "letter", "market", "winter", "doctor")
SHOWS = """([token, layers]) => {
  const gd = document.querySelector('.st-key-model-grid .js-plotly-plot');
  if (!gd || !gd._fullData || gd._fullData.length !== 2 || !gd.querySelector('.heatmaplayer image')) return false;
  const last = `layer ${layers} · query `;  // the last layer's rows name the sentence's tokens
  return Array.from(gd._fullData[0].y || []).some((y) => String(y).startsWith(last) && String(y).endsWith(token));
}"""


NAV_WORDS = ("candle", "bridge", "pillow", "rocket", "castle", "tiger", "violin")


def from_navigation(page, base: str, key: str, layers: int, word: str) -> float:  # noqa: ANN001
    """Seconds from a click on "Every layer and head" in the sidebar (the app open on its first page) to the grid
    drawn for a sentence it has not shown before."""
    text = sentence_of(11 if key == "smollm2" else 9) + f" {word}"
    page.goto(f"{base}/?{urlencode({'model': key, 'sentence': text})}")
    wait_idle(page)
    link = page.locator('.st-key-nav a[href="model"]')  # the frame's menu (explorer.ui.frame.navigation)
    t0 = time.perf_counter()
    link.click()
    page.wait_for_function(SHOWS, arg=[word, layers], timeout=120_000, polling=20)
    return time.perf_counter() - t0


def measure(
    page, base: str, key: str, layers: int, runs: int
) -> tuple[list[float], list[float], list[float]]:  # noqa: ANN001
    first = sentence_of(11 if key == "smollm2" else 9)  # 11 tokens: MiniLM adds [CLS] and [SEP]
    opened, updated, navigated = [], [], []
    for r in range(runs):
        a, b = OPEN_WORDS[r % len(OPEN_WORDS)], NEW_WORDS[r % len(NEW_WORDS)]  # one token each, both models
        text = first + f" {a}"
        t0 = time.perf_counter()
        page.goto(f"{base}/model?{urlencode({'model': key, 'sentence': text})}")
        page.wait_for_function(SHOWS, arg=[a, layers], timeout=120_000, polling=20)
        opened.append(time.perf_counter() - t0)
        box = page.locator('[data-testid="stTextInput"] input[aria-label="Sentence"]')
        new = first + f" {b}"
        box.fill(new)
        t0 = time.perf_counter()
        box.press("Enter")
        page.wait_for_function(SHOWS, arg=[b, layers], timeout=120_000, polling=20)
        updated.append(time.perf_counter() - t0)
        navigated.append(from_navigation(page, base, key, layers, NAV_WORDS[r % len(NAV_WORDS)]))
    return opened, updated, navigated


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    browser_options(ap, 8661)
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
            page.wait_for_function(SHOWS, arg=["[SEP]", 6], timeout=180_000)
            for key, layers in (("minilm", 6), ("smollm2", 30)):
                opened, updated, nav = measure(page, base, key, layers, args.runs)
                rows.append(
                    (key, *(statistics.median(v) for v in (opened, nav, updated)), opened, nav, updated)
                )
            browser.close()
    finally:
        server.terminate()
    lines = [
        f"# /model in Chromium: the grid drawn and updated (median of {args.runs})", "", machine(), "",
        "| model | opened by a link until drawn, s | opened from the navigation until drawn, s (target <= 1.5) "
        "| Enter until updated, s (target <= 1) |", "|---|---:|---:|---:|",
    ]  # fmt: skip
    for key, o, nv, u, *_ in rows:
        lines.append(f"| {key} | {o:.2f} | {nv:.2f} | {u:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    save(
        "model_grid.md",
        text,
        [{"model": k, "opened": o, "navigated": nv, "updated": u} for k, *_, o, nv, u in rows],
    )


if __name__ == "__main__":
    main()
