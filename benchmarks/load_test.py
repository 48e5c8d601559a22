"""A classroom against one server: N concurrent sessions, each changing its sentence and a matrix, for a while.

Starts `streamlit run app.py` (or uses --port of a running one with --pid), then opens N sessions the way a
browser does, over Streamlit's own WebSocket protocol (/_stcore/stream, protobuf BackMsg / ForwardMsg; much
lighter than N browser tabs, so the server, not the client, is what is measured). Each session:

  1. opens the app on its own sentence (?sentence=...), then goes to /projections;
  2. until the time is up, alternately types a new sentence in the sentence box and edits cell (0, 0) of
     head 1's W_Q in its data editor (the editor's on_change, exactly as the grid reports an edit),
     waiting a short think time between actions;
  3. checks every rerun: finished without an exception or an error box, the sentence box holds its own
     sentence, every chart and the address bar show only its own sentence's marker (never another
     session's), and after an edit the editor shows the new value.

With --hostile, one more visitor sends the largest inputs as fast as the server takes them (class Hostile):
it opens a link to the largest example (64 tokens, d_model 64, 8 heads, d_k 64, d_ff 256), then sends a
1.5 MB sentence with every rerun (the box allows 500 characters; the server cuts what the WebSocket
brings) and a new seed each time, with no pause (a seed flood: every matrix, the traced run and every
figure new at the largest size). --compare runs the class without the hostile visitor, then with it,
alternately (--rounds times), and reports the normal sessions' p90 in each and their ratio (the
target: at most 2).

Reported: sessions held (connected to the end), reruns, errors (with the first few), rerun latency
percentiles (send -> script finished), the server's RSS (baseline after a warm-up, peak under load, after
the sessions close, and after the server dropped them: --ttl), read from /proc/<pid>/status.

Usage:
  .venv/bin/python -m benchmarks load_test                       # 30 sessions for 60 s (the full form)
  .venv/bin/python -m benchmarks load_test --waves 2             # ... then a second class: memory must not grow
  .venv/bin/python -m benchmarks load_test --sessions 40 --duration 120 --json out/load.json
  OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks load_test --compare   # quiet vs hostile, p90 ratio
tests/load/test_load.py runs the short form (30 sessions, 10 s) in the test suite; the harness both use
lives in tests/load/harness.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # the repository root: the harness lives in tests/load

from tests.load.harness import (  # noqa: E402 - re-exported: the sibling scripts read them as load_test.X
    MARK,
    ROOT,
    RUN_TIMEOUT,
    WORDS,
    Comparison,
    Hostile,
    Report,
    RssSampler,
    Session,
    compare,
    load,
    percentiles,
    print_comparison,
    print_report,
    rss_mb,
    run_sessions,
    start_server,
    stop_server,
)

__all__ = [
    "MARK",
    "ROOT",
    "RUN_TIMEOUT",
    "WORDS",
    "Comparison",
    "Hostile",
    "Report",
    "RssSampler",
    "Session",
    "compare",
    "load",
    "percentiles",
    "print_comparison",
    "print_report",
    "rss_mb",
    "run_sessions",
    "start_server",
    "stop_server",
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    ap.add_argument("--port", type=int, default=8649)
    ap.add_argument("--pid", type=int, help="measure an already running server on --port (its PID)")
    ap.add_argument("--ttl", type=int, default=10, help="server.disconnectedSessionTTL of the started server")
    ap.add_argument("--think", type=float, nargs=2, default=(0.3, 1.0), help="seconds between actions")
    ap.add_argument("--min-actions", type=int, default=2, help="actions per session even past the time")
    ap.add_argument("--waves", type=int, default=1, help="classes one after the other (memory must not grow)")
    ap.add_argument("--json", type=Path, help="also write the report as JSON here")
    ap.add_argument("--compare", action="store_true", help="the class without and with a hostile visitor")
    ap.add_argument("--rounds", type=int, default=2, help="--compare: rounds of each kind, alternately")
    ap.add_argument("--page", default="encoder", help="--compare: the page the hostile visitor floods")
    a = ap.parse_args()
    if a.compare:
        c = asyncio.run(
            compare(a.sessions, a.duration, a.port, min(a.ttl, 3), tuple(a.think), a.rounds, a.page)
        )
        print(
            f"load test, quiet vs hostile: {os.uname().nodename}, {os.cpu_count()} CPUs, {a.sessions} sessions, "
            f"{a.duration:.0f} s per round, OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '-')}"
        )
        print_comparison(c)
        if a.json:
            a.json.parent.mkdir(parents=True, exist_ok=True)
            a.json.write_text(json.dumps(asdict(c), indent=2))
        held = all(r.sessions_held == r.sessions for r in c.quiet + c.hostile)
        return 1 if c.errors or not held or not c.ratio_p90 <= 2 else 0
    report = asyncio.run(
        load(a.sessions, a.duration, a.port, a.pid, a.ttl, tuple(a.think), a.min_actions, a.waves)
    )
    print(f"load test: {os.uname().nodename}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    print_report(report)
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(asdict(report), indent=2))
    return 1 if report.errors or report.sessions_held < report.sessions else 0


if __name__ == "__main__":
    sys.exit(main())
