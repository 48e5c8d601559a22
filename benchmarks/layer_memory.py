"""Memory of one server while many sessions each hold a different real layer open in the explorer.

Starts `streamlit run app.py`, loads both real models with one warm-up session (the idle figure: models
loaded, no session), then opens, all at once and kept open:

  - one session per layer of each model, opened from a link (`?real=minilm&real_layer=L`, 6 + 30 sessions);
  - --crafted more sessions (default 30), each a SmolLM2 layer from a link with a sentence of its own, that
    then edits one cell of W_Q on /projections (the data editor's own message, as the browser sends it).

Every session checks what load_test.Session checks (no exception or error box, only its own sentence).
Reported: the server's RSS idle (models loaded), the peak while every session is open, and the RSS once the
sessions are closed and the server has dropped them (--ttl seconds after the last one closed, then --settle
more: the server lets closed sessions go every 5 s). The target: peak under 1.5 GB, and back within 200 MB of
the idle figure.

Usage:
  OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks layer_memory
  OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks layer_memory --crafted 10 --json out/layer_memory.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_test import Report, RssSampler, Session, rss_mb, start_server, stop_server  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


MODELS = {"minilm": 6, "smollm2": 30}  # link name -> layers


class LayerSession(Session):
    """A visitor who opens a real layer from a link, optionally edits W_Q[0, 0] of head 1, and stays."""

    def __init__(self, sid: int, url: str, report: Report, query: str, edit: bool) -> None:
        super().__init__(sid, url, report, [])
        self.query, self.edit = query, edit

    async def hold(self, opened: asyncio.Event, release: asyncio.Event) -> bool:
        from websockets.asyncio.client import connect

        async with connect(
            self.url,
            subprotocols=["streamlit"],
            origin=self.url.replace("ws://", "http://").split("/_stcore")[0],
            max_size=None,
            open_timeout=120,
            ping_interval=None,
        ) as ws:
            self.ws = ws
            self.sentence = self.new_sentence(0)
            await self.rerun(page_name="", query=f"{self.query}&sentence={quote(self.sentence)}")
            if self.edit:
                self.page_hash = self.pages["projections"]
                await self.rerun(widgets=[self.widget("sentence", string_value=self.sentence)])
                value = round(self.sid + 0.5, 3)
                edit = {"edited_rows": {"0": {"c0": value}}, "added_rows": [], "deleted_rows": []}
                self.editor_value = value
                await self.rerun(
                    widgets=[
                        self.widget("sentence", string_value=self.sentence),
                        self.widget("w_q", string_value=json.dumps(edit)),
                    ]
                )
            opened.set()
            await release.wait()
            return True


async def scenario(port: int, crafted: int, ttl: int, settle: float) -> dict[str, object]:
    log = Path(tempfile.mkstemp(suffix=".log")[1])
    proc = start_server(port, ttl, log)
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    report = Report(sessions=0, duration_s=0)
    try:
        warm = [LayerSession(0, url, report, f"real={m}&real_layer=0", False) for m in MODELS]
        for s in warm:  # both models loaded before the idle figure
            done, release = asyncio.Event(), asyncio.Event()
            release.set()
            await s.hold(done, release)
        await asyncio.sleep(ttl + settle)
        idle = rss_mb(proc.pid)
        queries = [(f"real={m}&real_layer={layer}", False) for m, n in MODELS.items() for layer in range(n)]
        queries += [(f"real=smollm2&real_layer={i % MODELS['smollm2']}", True) for i in range(crafted)]
        release = asyncio.Event()
        opened = [asyncio.Event() for _ in queries]
        sessions = [LayerSession(i + 1, url, report, q, e) for i, (q, e) in enumerate(queries)]
        t0 = time.perf_counter()
        with RssSampler(proc.pid) as sampler:
            tasks = [asyncio.create_task(s.hold(o, release)) for s, o in zip(sessions, opened, strict=True)]
            waits = [asyncio.create_task(o.wait()) for o in opened]
            # every session open (or one failed: its task ends with the error, counted below)
            pending = set(waits)
            while pending and not any(t.done() for t in tasks):
                _, pending = await asyncio.wait(pending, timeout=1)
            all_open = rss_mb(proc.pid)
            opened_s = time.perf_counter() - t0
            release.set()
            held = await asyncio.gather(*tasks, return_exceptions=True)
        peak = sampler.peak
        await asyncio.sleep(ttl + settle)
        after = rss_mb(proc.pid)
    finally:
        out = stop_server(proc, log)
    errors = [str(h)[:200] for h in held if isinstance(h, BaseException)] + report.error_samples[:5]
    return {
        "sessions": len(queries),
        "held": sum(h is True for h in held),
        "errors": errors,
        "traceback_in_log": "Traceback" in out,
        "open_s": round(opened_s, 1),
        "idle_mb": round(idle),
        "all_open_mb": round(all_open),
        "peak_mb": round(peak),
        "after_mb": round(after),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crafted", type=int, default=30, help="SmolLM2 sessions that edit a cell (default 30)")
    ap.add_argument("--ttl", type=int, default=10, help="server.disconnectedSessionTTL (s)")
    ap.add_argument(
        "--settle",
        type=float,
        default=45.0,
        help="seconds after the TTL before reading RSS (the server lets closed sessions go and returns their "
        "memory every 5 s: explorer.ui.boot.bound_memory)",
    )
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    r = asyncio.run(scenario(args.port or free_port(), args.crafted, args.ttl, args.settle))
    print(
        f"sessions {r['held']}/{r['sessions']} held, opened in {r['open_s']} s; errors: {r['errors'] or 'none'}\n"
        f"RSS idle (models loaded) {r['idle_mb']} MB | all open {r['all_open_mb']} MB | peak {r['peak_mb']} MB"
        f" | after close {r['after_mb']} MB ({r['after_mb'] - r['idle_mb']:+d} MB against idle)"
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(r, indent=2))
    return 0 if r["held"] == r["sessions"] and not r["errors"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
