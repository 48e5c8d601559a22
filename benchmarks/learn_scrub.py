"""/learn in Chromium: scrubbing the training-step slider to a checkpoint until every head's attention at
that checkpoint is drawn (target <= 300 ms), median and worst of --presses, and the server's compute alone.

The app runs on --port (streamlit run app.py); the system Chromium at 1280x800 presses the slider's arrow
keys, each press one checkpoint on (from step 0 to the last, then back), and waits for the attention grid's
title to name the new step and its plot to be redrawn. The compute alone (one checkpoint's attention from its
float16 weights) is timed in this process, CPU ms. Results: benchmarks/out/learn_scrub.md.

    .venv/bin/python -m benchmarks learn_scrub --presses 20
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import browser_options, load, machine, save
from browser import start_server, wait_idle

TARGET_MS = 300.0
TITLE = "() => { const el = document.querySelector('.st-key-learn-patterns .js-plotly-plot'); return el ? el.layout.title.text : ''; }"


def compute_ms() -> float:
    """CPU ms of one checkpoint's attention (uncached), the median of every checkpoint."""
    from explorer.compute import learning as lc

    times = []
    for i in range(len(lc.shipped().checkpoints)):
        t = time.process_time()
        lc.attention_at.__wrapped__(i)
        times.append((time.process_time() - t) * 1000.0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    browser_options(ap, 8596)
    ap.add_argument("--presses", type=int, default=20)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    loads = [load()]
    server = start_server(args.port)
    times: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"http://localhost:{args.port}/learn")
        wait_idle(page)
        thumb = page.locator(".st-key-learn-step input[type=range]")
        thumb.focus()
        thumb.press("Home")
        page.wait_for_function(f"() => ({TITLE})().includes('step 0,')", timeout=120_000, polling=20)
        wait_idle(page)
        key = "ArrowRight"
        for i in range(args.presses):
            before = page.evaluate(TITLE)
            t0 = time.perf_counter()
            thumb.press(key)
            page.wait_for_function(
                f"(b) => {{ const t = ({TITLE})(); return t && t !== b; }}",
                arg=before,
                polling=10,
                timeout=60_000,
            )
            times.append((time.perf_counter() - t0) * 1000.0)
            wait_idle(page)
            if i == args.presses // 2:
                key = "ArrowLeft"
        browser.close()
    server.terminate()
    loads.append(load())
    cpu = compute_ms()
    med, worst = statistics.median(times), max(times)
    lines = [
        "# /learn: scrubbing to a checkpoint until its attention grid is redrawn",
        "",
        f"{machine()}; {args.presses} presses; {loads[0]} before, {loads[1]} after",
        "",
        f"- key press to the grid redrawn for the new step: median {med:.0f} ms, worst {worst:.0f} ms "
        f"(target <= {TARGET_MS:.0f} ms: {'met' if med <= TARGET_MS else 'NOT met'} at the median)",
        f"- the server's compute alone (one checkpoint's attention from its float16 weights): {cpu:.1f} CPU ms",
        "- every press: " + ", ".join(f"{t:.0f}" for t in times),
    ]
    save("learn_scrub.md", "\n".join(lines), {"ms": times, "compute_cpu_ms": cpu, "loads": loads})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
