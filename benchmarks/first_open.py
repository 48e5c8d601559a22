"""A new tab on a warm server (a student scanning the QR code): from the navigation to /scores with its three
charts drawn, in headless Chromium, with a cold browser cache (a fresh profile: the first visit) and a warm one
(a second tab of the same browser), for `streamlit run app.py` (assets as Streamlit serves component files:
"public", no validator, compressed on every request) and `streamlit run server.py` (hashed names, gzipped once,
cached for a year: explorer/ui/chart/serve.py).

Each server is warmed by one visit first. Tabs alternate cold and warm, --runs of each; then --runs tabs of a
browser with its profile on disk ("profile": after two visits, as a student's own browser on the third, with
V8's compiled code of plotly.js kept, which Playwright's in-memory contexts never keep); printed: median and
best seconds, and the bytes the tab took over the network (transferSize summed over its resources). The
"classroom" rows: a cold tab again, on a network as a student's share of a classroom's Wi-Fi (10 Mbit/s, 20 ms
before each answer: Chromium's network emulation), where the bytes count. Also per
server: how long a request takes on a kept-alive connection (as a browser's six connections are used), the
median of 50 asks for /_stcore/health on one connection after its first.

Usage:
  OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks first_open [--runs 5] [--entries app.py,server.py]
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import plotly  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from explorer.ui import chart  # noqa: E402
from tests.e2e.conftest import CHROMIUM_ARGS, start_server  # noqa: E402

TARGET_S = 1.5
VIEWPORT = {"width": 1280, "height": 800}
EVAL = "(s) => { const t = performance.now(); (0, eval)(s); return performance.now() - t; }"
FULL_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"  # the plotly package's whole build
DRAWN = "() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3"
BYTES = "() => performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'))" \
        ".reduce((s, e) => s + (e.transferSize || 0), 0)"  # fmt: skip


# A student's share of a classroom's Wi-Fi (thirty tabs opening at once on one access point): Chromium's own
# network emulation, for the "classroom" rows.
CLASSROOM = {"offline": False, "latency": 20, "downloadThroughput": 10e6 / 8, "uploadThroughput": 5e6 / 8}


def open_scores(ctx, network: dict | None = None) -> tuple[float, int]:  # noqa: ANN001 - a BrowserContext
    page = ctx.new_page()
    if network is not None:
        cdp = ctx.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", network)
    t0 = time.perf_counter()
    page.goto(ctx.url + "/scores")
    page.wait_for_function(DRAWN, timeout=120_000, polling=50)
    took = time.perf_counter() - t0
    got = int(page.evaluate(BYTES))
    page.close()
    return took, got


def kept_alive_ms(url: str, asks: int = 50) -> float:
    """Median milliseconds of a request on one kept-alive connection, after its first."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    times = []
    for i in range(asks + 1):
        t0 = time.perf_counter()
        conn.request("GET", "/_stcore/health")
        conn.getresponse().read()
        if i:
            times.append((time.perf_counter() - t0) * 1000)
    conn.close()
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--entries", default="app.py,server.py")
    ap.add_argument(
        "--eval", action="append", default=[], help="another plotly.js build to time (repeatable)"
    )
    a = ap.parse_args()
    print(f"first_open: {os.uname().nodename}, {os.cpu_count()} CPUs, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', '-')}, load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print("| entry | browser cache | median s | best s | KB over the network |")
    print("|---|---|---:|---:|---:|")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        medians: dict[str, float] = {}
        for entry in a.entries.split(","):
            server = start_server(f"first-open-{entry}", entry=entry)
            try:
                rows: dict[str, list[tuple[float, int]]] = {"cold": [], "warm": [], "cold, classroom": []}
                warm = browser.new_context(viewport=VIEWPORT)
                warm.url = server.url
                open_scores(warm)  # the server's first visit, and this browser's copy of the assets
                kept = kept_alive_ms(server.url)  # after the first visit: app.py's start-up work has run
                for _ in range(a.runs):
                    cold = browser.new_context(viewport=VIEWPORT)
                    cold.url = server.url
                    rows["cold"].append(open_scores(cold))
                    cold.close()
                    rows["warm"].append(open_scores(warm))
                    cold = browser.new_context(viewport=VIEWPORT)
                    cold.url = server.url
                    rows["cold, classroom"].append(open_scores(cold, CLASSROOM))
                    cold.close()
                warm.close()
                # A browser profile on disk, as a student's own browser has: Chromium keeps V8's compiled
                # code of a script it has run twice, which the in-memory contexts above never do.
                with tempfile.TemporaryDirectory(prefix="first-open-") as folder:
                    own = pw.chromium.launch_persistent_context(
                        folder, executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, viewport=VIEWPORT
                    )
                    own.url = server.url
                    for _ in range(2):  # the first visit and the one after which the compiled code is kept
                        open_scores(own)
                    rows["profile"] = [open_scores(own) for _ in range(a.runs)]
                    own.close()
            finally:
                server.stop()
            for kind, got in rows.items():
                times = [t for t, _ in got]
                medians[kind] = statistics.median(times)
                kb = statistics.median(b for _, b in got) / 1024
                print(
                    f"| {entry} | {kind} | {statistics.median(times):.2f} | {min(times):.2f} | {kb:,.0f} |",
                    flush=True,
                )
            print(f"| {entry} | a request on a kept-alive connection | {kept:.1f} ms | | |", flush=True)
        # What a cold tab spends on plotly.js alone: evaluating it with no compiled code kept.
        for build in [chart.PLOTLY_JS, FULL_JS, *map(Path, a.eval)]:  # first: what the chart element serves
            page = browser.new_page()
            page.set_content("<html><body></body></html>")
            source = build.read_text(encoding="utf-8")
            ms = page.evaluate(EVAL, source)
            print(f"evaluating {build.name} ({len(source) / 1e6:.1f} MB) in a fresh page: {ms:.0f} ms")
            page.close()
        browser.close()
    met = all(medians[k] <= TARGET_S for k in ("cold", "warm", "profile"))
    print(f"target: /scores drawn in a new tab within {TARGET_S} s, cold and warm; {entry} (median): cold "
          f"{medians['cold']:.2f} s, warm {medians['warm']:.2f} s, warm with a profile on disk "
          f"{medians['profile']:.2f} s: {'MET' if met else 'NOT MET'}")  # fmt: skip
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
