"""The first SmolLM2 page after a server starts: from the moment /_stcore/health answers "ok" to the page's
top-10 next tokens drawn, with the models loaded on first use (`streamlit run app.py`) and loaded as the server
starts (`streamlit run server.py`, explorer/warm.py).

Each run starts a fresh server (OPENBLAS_NUM_THREADS as set here), polls /_stcore/health every 20 ms, and the
moment it answers opens /next-token?model=smollm2&sentence=... : over Streamlit's WebSocket protocol (the
server's part: the run that draws the chart "next.bars" has finished), and with --browser also in headless
Chromium (a new tab until the chart is on the screen: the frontend's own start included). Also printed: the
process start to health, and SmolLM2's load alone in a fresh interpreter.

Usage:
  OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks warm_start --runs 3 [--browser]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import load_test  # noqa: E402 - a sibling script, found through the path above

QUERY = "model=smollm2&sentence=" + quote("The capital of France is")
CHART = "next.bars"
TARGET_S = 3.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(entry: str, port: int, log: Path, root: Path = ROOT) -> tuple[subprocess.Popen, float, float]:
    """A fresh server of the checkout `root`; (process, its start time, the time /_stcore/health first
    answered ok)."""
    cmd = [sys.executable, "-m", "streamlit", "run", entry, "--server.headless=true", f"--server.port={port}",
           "--server.address=127.0.0.1", "--server.fileWatcherType=none", "--browser.gatherUsageStats=false"]  # fmt: skip
    t0 = time.perf_counter()
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, stdout=out, stderr=subprocess.STDOUT)
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                if r.read().strip() == b"ok":
                    return proc, t0, time.perf_counter()
        except OSError:
            pass
        if proc.poll() is not None or time.perf_counter() - t0 > 120:
            raise RuntimeError(f"{entry} did not start: {log.read_text(errors='replace')[-1500:]}")
        time.sleep(0.02)


def has_chart(msgs: list[ForwardMsg]) -> bool:
    for fm in msgs:
        if fm.WhichOneof("type") != "delta" or fm.delta.WhichOneof("type") != "new_element":
            continue
        el = fm.delta.new_element
        if el.WhichOneof("type") == "bidi_component" and el.bidi_component.id.endswith(CHART):
            return True
    return False


async def first_page_ws(port: int) -> float:
    """Seconds until the run that draws the top-10 chart has finished (reruns while a model downloads)."""
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    report = load_test.Report(sessions=1, duration_s=0)
    s = load_test.Session(0, url, report, [])
    t0 = time.perf_counter()
    async with connect(
        url, subprotocols=["streamlit"], origin=f"http://127.0.0.1:{port}", max_size=None
    ) as ws:
        s.ws = ws
        await s.rerun(page_name="", query=QUERY, check=False)
        s.page_hash = s.pages["next-token"]
        while not has_chart(await s.rerun(query=QUERY, check=False)):
            if time.perf_counter() - t0 > 120:
                raise RuntimeError("no chart within 120 s")
            await asyncio.sleep(0.2)
    return time.perf_counter() - t0


def first_page_browser(port: int, chromium) -> float:  # noqa: ANN001 - a Playwright BrowserType's browser
    ctx = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    t0 = time.perf_counter()
    page.goto(f"http://127.0.0.1:{port}/next-token?{QUERY}")
    page.wait_for_selector(f".st-key-{CHART.replace('.', '-')} .js-plotly-plot", timeout=120_000)
    took = time.perf_counter() - t0
    ctx.close()
    return took


def load_alone() -> float:
    code = ("import time; t = time.perf_counter(); from attention_core import pretrained; "
            "pretrained.load('SmolLM2-135M'); print(time.perf_counter() - t)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--entries", default="app.py,server.py")
    ap.add_argument(
        "--before", type=Path, help="also an earlier checkout's app.py (git worktree add --detach DIR REV)"
    )
    ap.add_argument("--browser", action="store_true", help="also in headless Chromium (/usr/bin/chromium)")
    a = ap.parse_args()
    print(f"warm_start: {os.uname().nodename}, {os.cpu_count()} CPUs, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', '-')}, load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    loads = [load_alone() for _ in range(a.runs)]
    print(
        f"SmolLM2 load alone (fresh interpreter): median {statistics.median(loads):.2f} s ({', '.join(f'{x:.2f}' for x in loads)})"
    )
    browser = pw = None
    if a.browser:
        from playwright.sync_api import sync_playwright

        pw = sync_playwright().start()
        browser = pw.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
    log = Path(tempfile.gettempdir()) / "warm_start_server.log"
    print(
        "| entry | start to health s | health to page (WebSocket) s | health to page (Chromium) s | the next visitor's page (WebSocket) s |"
    )
    print("|---|---:|---:|---:|---:|")
    worst = 0.0
    entries = [(e, ROOT) for e in a.entries.split(",")] + ([("app.py", a.before)] if a.before else [])
    for entry, root in entries:
        rows = []
        for _ in range(a.runs):
            port = free_port()
            proc, t0, healthy = start(entry, port, log, root)
            try:
                if browser is not None:
                    took_b = first_page_browser(port, browser)
                    took_w = float("nan")
                else:
                    took_w, took_b = asyncio.run(first_page_ws(port)), float("nan")
                again = asyncio.run(first_page_ws(port))  # a second visitor: everything warm
                rows.append((healthy - t0, took_w, took_b, again))
            finally:
                proc.terminate()
                proc.wait(timeout=30)
        med = [statistics.median(r[i] for r in rows) for i in range(4)]
        label = entry if root == ROOT else f"{entry} of {root}"
        print(f"| {label} | {med[0]:.2f} | {med[1]:.2f} | {med[2]:.2f} | {med[3]:.2f} |  runs: "
              + "; ".join(f"{h:.2f}/{w:.2f}/{b:.2f}/{a:.2f}" for h, w, b, a in rows))  # fmt: skip
        if entry == "server.py":
            worst = max(med[1] if browser is None else med[2], worst)
    if pw is not None:
        browser.close()
        pw.stop()
    print(
        f"target: first SmolLM2 page within {TARGET_S:.0f} s of health (server.py): {'met' if worst <= TARGET_S else 'not met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
