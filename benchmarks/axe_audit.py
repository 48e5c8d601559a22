"""axe-core (the WCAG rule engine of browsers' own audits) over every page of the page table, in three modes.

    .venv/bin/python -m benchmarks axe_audit [--port 8671] [--chromium /usr/bin/chromium]

Starts the app on --port, opens each listed page by its address in Chromium and runs axe (the copy that
axe-playwright-python bundles: nothing is fetched) in light 1280x800, dark 1280x800 (the system's scheme,
which the app follows) and presenting 1920x1080 (?present=1). Prints, per mode, the elements in violation
by rule and impact (an element counts once per rule), and saves benchmarks/out/axe_audit.md and .json.
tests/e2e/test_accessibility.py asserts the serious and critical count is zero.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import urllib.request
from collections import Counter

from _common import ROOT, browser_options, load, machine, save

sys.path.insert(0, str(ROOT))

from explorer.ui import page_table  # noqa: E402 - after the path above

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
MODES = {  # name: (viewport, colour scheme, query)
    "light": ({"width": 1280, "height": 800}, "light", ""),
    "dark": ({"width": 1280, "height": 800}, "dark", ""),
    "presenting": ({"width": 1920, "height": 1080}, "light", "?present=1"),
}
SETTLED = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const charts = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="explorerChart"]')];
  return !!app && app.dataset.testScriptState === 'notRunning'
    && app.dataset.testConnectionState === 'CONNECTED'
    && !document.querySelector('[data-testid="stSkeleton"]') && !document.querySelector('[data-stale="true"]')
    && charts.every((c) => c.querySelector('.main-svg'));
}"""


def start(port: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
           f"--server.port={port}", "--server.fileWatcherType=none", "--browser.gatherUsageStats=false"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                if r.read().strip() == b"ok":
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError(f"the app did not start on port {port}")


def settle(page) -> None:  # noqa: ANN001 - a Playwright Page
    """Until the run is over and every chart drawn, twice, half a second apart (a rerun can follow a run)."""
    for _ in range(2):
        page.wait_for_timeout(500)
        page.wait_for_function(SETTLED, timeout=180_000, polling=150)


def audit(page, axe) -> dict[str, tuple[str, int]]:  # noqa: ANN001
    """{rule: (impact, elements)} of the page as it stands."""
    found = axe.run(page).response["violations"]
    return {v["id"]: (v["impact"], len(v["nodes"])) for v in found}


def main() -> None:
    ap = argparse.ArgumentParser()
    browser_options(ap, 8671)
    args = ap.parse_args()
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import sync_playwright

    axe = Axe()
    proc = start(args.port)
    base = f"http://127.0.0.1:{args.port}"
    results: dict[str, dict[str, dict[str, tuple[str, int]]]] = {m: {} for m in MODES}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            for mode, (viewport, scheme, query) in MODES.items():
                ctx = browser.new_context(viewport=viewport, color_scheme=scheme)
                page = ctx.new_page()
                for p in page_table.listed():
                    page.goto(f"{base}/{p.url_path}{query}")
                    settle(page)
                    results[mode]["/" + p.url_path] = audit(page, axe)
                    print(mode, "/" + p.url_path, results[mode]["/" + p.url_path], flush=True)
                ctx.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    save("axe_audit.md", report(results), results)


def report(results: dict[str, dict[str, dict[str, tuple[str, int]]]]) -> str:
    lines = [f"# axe-core over {len(page_table.listed())} pages ({machine()}; {load()})", ""]
    lines += ["| mode | serious + critical elements | by rule (impact: elements) |", "|---|---|---|"]
    for mode, pages in results.items():
        rules: Counter[tuple[str, str]] = Counter()
        for found in pages.values():
            for rule, (impact, n) in found.items():
                rules[(rule, impact)] += n
        bad = sum(n for (_, impact), n in rules.items() if impact in ("serious", "critical"))
        detail = ", ".join(f"{r} ({i}): {n}" for (r, i), n in rules.most_common()) or "none"
        lines.append(f"| {mode} | {bad} | {detail} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
