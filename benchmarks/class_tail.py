"""The class's tail, before and after in the same run: the classroom of load_test.py against two checkouts.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks class_tail --before /tmp/before --rounds 2
    OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks class_tail            # this checkout only

Starts `streamlit run app.py` in each checkout (--before, a `git worktree add --detach <dir> <commit>`, and this
one), warms each with one session, then runs the class (--sessions sessions, --think seconds between actions,
for --duration seconds; every rerun checked as in load_test.py: only its own sentence anywhere) against one
server, then the other, --rounds times, so both see the same machine. Only one server is under load at a time.

Printed per checkout: rerun latency (p50, p90, p99; send to script finished) for the class and per kind of
rerun (opening the app, going to /projections, a new sentence, an edit of W_Q), the server's CPU seconds per
rerun (from /proc: the load-independent cost), and the load average at the start and end. The last line is
the target (p90 ≤ 300 ms) and its verdict for this checkout.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import load_test  # noqa: E402 - a sibling script, found through the path above

P90_TARGET_MS = 300.0
KINDS = ("open", "page", "sentence", "edit")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of a process so far (/proc/<pid>/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Side:
    name: str
    root: Path
    port: int = 0
    latencies: list[float] = field(default_factory=list)
    kinds: dict[str, list[float]] = field(default_factory=dict)
    reruns: int = 0
    errors: int = 0
    held: int = 0
    sessions: int = 0
    cpu_s: float = 0.0
    error_samples: list[str] = field(default_factory=list)


async def one_class(side: Side, pid: int, a: argparse.Namespace) -> None:
    url = f"ws://127.0.0.1:{side.port}/_stcore/stream"
    report = load_test.Report(sessions=a.sessions, duration_s=a.duration)
    cpu0 = cpu_seconds(pid)
    side.latencies += await load_test.run_sessions(url, report, a.duration, tuple(a.think))
    side.cpu_s += cpu_seconds(pid) - cpu0
    for kind, values in report.kinds.items():
        side.kinds.setdefault(kind, []).extend(values)
    side.reruns += report.reruns
    side.errors += report.errors
    side.error_samples += report.error_samples[:3]
    side.held += report.sessions_held
    side.sessions += a.sessions
    await asyncio.sleep(a.ttl + 3)  # the server drops the class's sessions before the next class


async def main_async(a: argparse.Namespace) -> list[Side]:
    sides = [
        Side(f"before {Path(b).name}" if len(a.before) > 1 else "before", Path(b).resolve()) for b in a.before
    ]
    sides.append(Side("after", ROOT))
    procs, logs = {}, {}
    try:
        for side in sides:
            side.port = free_port()
            logs[side.name] = Path(tempfile.gettempdir()) / f"class_tail_{side.port}.log"
            procs[side.name] = load_test.start_server(side.port, a.ttl, logs[side.name], root=side.root)
            warm = load_test.Report(sessions=1, duration_s=0)
            await load_test.run_sessions(
                f"ws://127.0.0.1:{side.port}/_stcore/stream", warm, 3.0, (0.2, 0.4), 4
            )
            side.errors += warm.errors
        await asyncio.sleep(a.ttl + 3)
        for _ in range(a.rounds):
            for side in sides:
                await one_class(side, procs[side.name].pid, a)
    finally:
        for side in sides:
            if side.name in procs:
                text = load_test.stop_server(procs[side.name], logs[side.name])
                if "Traceback" in text:
                    side.errors += 1
                    side.error_samples.append(text[text.index("Traceback") :][:300])
    return sides


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--before",
        action="append",
        default=[],
        help="another checkout (a git worktree) to compare with; repeatable",
    )
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--duration", type=float, default=30.0, help="seconds of one class")
    ap.add_argument("--think", type=float, nargs=2, default=(3.0, 8.0), help="seconds between actions")
    ap.add_argument("--rounds", type=int, default=2, help="classes per checkout, alternately")
    ap.add_argument("--ttl", type=int, default=3, help="server.disconnectedSessionTTL")
    a = ap.parse_args()
    start = os.getloadavg()
    sides = asyncio.run(main_async(a))
    end = os.getloadavg()
    print(
        f"the class: {a.sessions} sessions, {a.duration:.0f} s, think {a.think[0]:g}-{a.think[1]:g} s, "
        f"{a.rounds} rounds alternately; {os.cpu_count()} CPUs, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '-')}"
    )
    print(f"load average (1, 5, 15 min): start {start[0]:.2f} {start[1]:.2f} {start[2]:.2f}, "
          f"end {end[0]:.2f} {end[1]:.2f} {end[2]:.2f}")  # fmt: skip
    print("| checkout | held | reruns | errors | p50 ms | p90 ms | p99 ms | " + " | ".join(f"{k} p90" for k in KINDS)
          + " | server CPU ms per rerun |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|" + "---:|" * len(KINDS) + "---:|")
    for s in sides:
        ms = load_test.percentiles(s.latencies)
        per_kind = [load_test.percentiles(s.kinds.get(k, [])) for k in KINDS]
        print(
            f"| {s.name} | {s.held}/{s.sessions} | {s.reruns} | {s.errors} | {ms['p50']:.0f} | {ms['p90']:.0f} | "
            f"{ms['p99']:.0f} | "
            + " | ".join(f"{k['p90']:.0f}" if k else "-" for k in per_kind)
            + f" | {1000 * s.cpu_s / max(1, s.reruns):.0f} |"
        )
        for e in s.error_samples[:5]:
            print(f"  - {s.name}: {e}")
    after = sides[-1]
    p90 = load_test.percentiles(after.latencies)["p90"]
    ok = p90 <= P90_TARGET_MS and not after.errors and after.held == after.sessions
    print(f"target: a class of {a.sessions} at {a.think[0]:g}-{a.think[1]:g} s think, p90 <= {P90_TARGET_MS:.0f} ms "
          f"on one server; this checkout: p90 {p90:.0f} ms, {after.errors} errors: {'MET' if ok else 'NOT MET'}")  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
