"""Presenting at 1920x1080: how tall each step of the real-model pages is, and how far down its lowest chart.

    .venv/bin/python -m benchmarks present_heights [--port 8672] [--chromium /usr/bin/chromium]

Starts the app on --port and opens, in Chromium at 1920x1080 with ?present=1, every step of the page table's
real-model pages (each model a page takes) and every explorer step with a real layer open (MiniLM layer 3,
SmolLM2 layer 4): the main column's height (one screen is 1,080 px) and the lowest chart's bottom edge as
drawn (a chart scrolling in its own box: the box's edge). Run it on an older commit for the figures before.
tests/e2e/test_present_real_screen.py asserts every step is at most 1,084 px.
"""

from __future__ import annotations

import argparse
import sys

from _common import ROOT, browser_options, load, machine, save
from axe_audit import CHROMIUM_ARGS, settle, start

sys.path.insert(0, str(ROOT))

from explorer.ui import page_table  # noqa: E402 - after the path above

ENCODERS = {"next-token", "logit-lens", "induction"}  # pages that show SmolLM2 whatever is picked
LAYERS = {"minilm": "2", "smollm2": "3"}
GEOMETRY = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const low = [...document.querySelectorAll('.js-plotly-plot')].map((el) => {
    let b = el.getBoundingClientRect().bottom;
    for (let p = el.parentElement; p && p !== main; p = p.parentElement) {
      const s = getComputedStyle(p).overflowY;
      if ((s === 'auto' || s === 'scroll') && p.scrollHeight > p.clientHeight + 1) {
        b = Math.min(b, p.getBoundingClientRect().bottom); break;
      }
    }
    return b;
  });
  return [main.scrollHeight, low.length ? Math.round(Math.max(...low)) : null];
}"""


def addresses() -> list[tuple[str, str]]:
    """(label, address with its query) of every step measured."""
    out = []
    for s in page_table.steps():
        page = page_table.by_path(s.url_path)
        if page.real_model and s.url_path not in ("patching", "minimal-pairs"):  # (sweeps: a button first)
            for model in ("smollm2",) if s.url_path in ENCODERS else ("minilm", "smollm2"):
                out.append(
                    (f"/{s.url_path} {s.name} {model}", f"{s.url_path}?present=1&step={s.name}&model={model}")
                )
        elif not page.real_model:
            for model, layer in LAYERS.items():
                out.append((f"/{s.url_path} {s.name} {model} layer", f"{s.url_path}?present=1&step={s.name}"
                            f"&real={model}&real_layer={layer}"))  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    browser_options(ap, 8672)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    proc = start(args.port)
    rows: dict[str, list[int | None]] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
            for label, address in addresses():
                page.goto(f"http://127.0.0.1:{args.port}/{address}")
                settle(page)
                rows[label] = page.evaluate(GEOMETRY)
                print(label, rows[label], flush=True)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    lines = [f"# Presenting at 1920x1080: each step's height ({machine()}; {load()})", "",
             "| step | page height px | lowest chart's bottom px |", "|---|---|---|"]  # fmt: skip
    lines += [f"| {k} | {h:,} | {b if b is not None else '-'} |" for k, (h, b) in rows.items()]
    over = [k for k, (h, _) in rows.items() if h > 1084]
    lines += ["", f"{len(rows)} steps, {len(over)} taller than one screen: {', '.join(over) or 'none'}"]
    save("present_heights.md", "\n".join(lines), rows)


if __name__ == "__main__":
    main()
