"""A class that takes part: one teacher and N students (60) on one server follow three steps and answer a question.

    .venv/bin/python -m benchmarks class_answers                      # 60 students, app.py
    .venv/bin/python -m benchmarks class_answers --students 30 --entry server.py
    .venv/bin/python -m benchmarks class_answers --before DIR   # an earlier checkout's server first, in turn

Every tab speaks Streamlit's WebSocket protocol as a browser does (tests/load/harness.py's way, lighter
than 60 browsers): it reads every message the server sends, and re-runs the class bar's fragment on the
fragment's own timer (the auto_rerun message: what the browser's timer does). The teacher opens the app
presenting with a question (ask=7), presses "Start a class"; the students join with ?join=CODE. The teacher
moves three steps (the step bar's links, as a click sends them); each student has followed when its class
bar names the teacher's step and that run has finished. Then the teacher goes on to the softmax step, where
the question is; each student answers at a random moment within --window seconds (its choice and the Send
button, one fragment run, as a click sends them); the teacher's bar must show "N of N answered". Reveal:
each student's bar says right or wrong.

Printed: the follow latency per step (teacher's click to each student's page, p50/p90/max) and the server's
CPU seconds from the click to the last student's page (a figure the machine's other load changes little), the
count's lag behind the last answer (the target: within 1 s), the reveal's latency, the students' own reruns
(what a student sends: fragment polls, answers: p50/p90/p99 from sending to the run's end), errors, and the
server's CPU seconds. With --before DIR (a checkout of an earlier commit, e.g. `git worktree add`), the same
class runs first on DIR's server, then on this one's, and both are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from benchmarks.class_tail import cpu_seconds, free_port  # noqa: E402
from tests.load.harness import start_server, stop_server  # noqa: E402

ASK = 7  # "The cat sat on the mat because it was warm.": "it"
MOVES = (("positional-encoding", ""), ("projections", ""), ("scores", "step=scores"))
TIMEOUT = 180.0  # a loaded machine: the class before a change may take long


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


def line(name: str, values: list[float]) -> str:
    if not values:
        return f"{name}: none"
    ms = [v * 1000 for v in values]
    return (
        f"{name}: n={len(ms)} p50 {statistics.median(ms):.0f} ms, p90 {pct(ms, 90):.0f} ms, "
        f"p99 {pct(ms, 99):.0f} ms, max {max(ms):.0f} ms"
    )


class Tab:
    """One browser tab: every message read as it comes, the fragments' timers kept, widgets found by key."""

    def __init__(self, url: str, name: str, errors: list[str], reruns: list[float]) -> None:
        self.url, self.name, self.errors, self.reruns = url, name, errors, reruns
        self.ws = None
        self.page_hash, self.pages, self.query = "", {}, ""
        self.widgets: dict[str, str] = {}
        self.texts: list[tuple[float, str]] = []  # (when, markdown / progress text) of every element drawn
        self.finished: list[float] = []  # when each run ended
        self.timers: dict[str, float] = {}  # fragment id -> its interval
        self.fragment_of: dict[str, str] = {}  # widget key -> the fragment it was drawn in
        self.options: dict[str, list[str]] = {}  # a radio's key -> its choices as shown
        self.sent_at: float | None = None  # a request of ours not yet finished
        self.tasks: list[asyncio.Task] = []

    async def open(self, query: str) -> None:
        origin = self.url.replace("ws://", "http://").split("/_stcore")[0]
        self.ws = await connect(self.url, subprotocols=["streamlit"], origin=origin, max_size=None,
                                open_timeout=120, ping_interval=None)  # fmt: skip
        self.tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._tick())]
        await self.send(query=query, page_name="")

    async def close(self) -> None:
        for t in self.tasks:
            t.cancel()
        if self.ws is not None:
            await self.ws.close()

    async def send(self, *, query: str | None = None, page_name: str | None = None, page_hash: str | None = None,
                   widgets: tuple[WidgetState, ...] = (), fragment: str = "", auto: bool = False) -> float:  # fmt: skip
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query if query is None else query  # the address bar, as the browser sends it
        if page_name is not None:
            cs.page_name = page_name
        else:
            cs.page_script_hash = page_hash or self.page_hash
        cs.widget_states.widgets.extend(widgets)
        if fragment:
            cs.fragment_id, cs.is_auto_rerun = fragment, auto
        self.sent_at = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        return self.sent_at

    def widget(self, key: str, **value: object) -> WidgetState:
        ws = WidgetState(id=self.widgets[key])
        for k, v in value.items():
            setattr(ws, k, v)
        return ws

    async def _tick(self) -> None:
        """The fragments' timers (what the browser does with an auto_rerun message)."""
        while True:
            await asyncio.sleep(min(self.timers.values(), default=0.5))
            if self.sent_at is None:
                for fid in list(self.timers):
                    await self.send(fragment=fid, auto=True)

    async def _read(self) -> None:
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(await self.ws.recv())
            now, kind = time.perf_counter(), fm.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = fm.new_session.page_script_hash or self.page_hash
            elif kind == "navigation":
                self.pages = {p.url_pathname: p.page_script_hash for p in fm.navigation.app_pages}
                self.page_hash = fm.navigation.page_script_hash
            elif kind == "page_info_changed":
                self.query = fm.page_info_changed.query_string
            elif kind == "auto_rerun":
                self.timers[fm.auto_rerun.fragment_id] = fm.auto_rerun.interval
            elif kind == "stop_auto_rerun":  # fragments no longer drawn
                for fid in fm.stop_auto_rerun.fragment_ids:
                    self.timers.pop(fid, None)
            elif kind == "script_finished":
                self.finished.append(now)
                if self.sent_at is not None:
                    self.reruns.append(now - self.sent_at)
                    self.sent_at = None
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                self._element(fm.delta.new_element, fm.delta.fragment_id, now)

    def _element(self, el, fragment: str, now: float) -> None:  # noqa: ANN001 - a protobuf Element
        etype = el.WhichOneof("type")
        if etype == "markdown":
            self.texts.append((now, el.markdown.body))
        elif etype == "progress":
            self.texts.append((now, el.progress.text))
        elif etype == "alert":
            self.texts.append((now, el.alert.body))
        elif etype == "exception":
            self.errors.append(f"{self.name}: {el.exception.type}: {el.exception.message[:200]}")
        elif etype in ("button", "radio"):
            wid = getattr(el, etype).id
            if wid.count("-") >= 2:
                key = wid.split("-", 2)[-1]
                self.widgets[key], self.fragment_of[key] = wid, fragment
                if etype == "radio":
                    self.options[key] = list(el.radio.options)

    async def code(self, timeout: float = TIMEOUT) -> str:
        """The class's code, as the teacher's dialog shows it (**ABCD-EFGH**, the dash maybe escaped)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for _, body in self.texts:
                if m := re.fullmatch(r"\*\*([A-Z2-9]{4})\\?-([A-Z2-9]{4})\*\*", body.strip()):
                    return m.group(1) + m.group(2)
            await asyncio.sleep(0.02)
        raise TimeoutError(f"{self.name} showed no class code in {timeout:.0f} s")

    def saw(self, text: str, since: float = 0.0) -> float | None:
        return next((t for t, body in self.texts if t >= since and text in body), None)

    async def drawn(self, key: str, timeout: float = TIMEOUT) -> None:
        """Until widget `key` is on the page and the run that drew it has finished."""
        deadline = time.perf_counter() + timeout
        while not (key in self.widgets and self.sent_at is None and self.finished):
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{self.name} did not draw {key!r} in {timeout:.0f} s")
            await asyncio.sleep(0.02)

    async def until(self, text: str, since: float = 0.0, timeout: float = TIMEOUT) -> float:
        """When `text` was drawn (after `since`), once the run that drew it has finished."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            seen = self.saw(text, since)
            done = seen is not None and next((f for f in self.finished if f >= seen), None)
            if done:
                return done
            await asyncio.sleep(0.02)
        last = [body[:80] for _, body in self.texts[-6:]]
        raise TimeoutError(f"{self.name} did not show {text!r} in {timeout:.0f} s; it showed last {last}")


async def the_class(url: str, n: int, window: float, pids: list[int]) -> dict[str, list[float]]:
    errors: list[str] = []
    own: list[float] = []  # the students' reruns
    teacher = Tab(url, "teacher", errors, [])
    await teacher.open(f"present=1&ask={ASK}")
    await teacher.drawn("present.class")
    await teacher.send(widgets=(teacher.widget("present.class", trigger_value=True),))
    await teacher.until("students joined")
    code = await teacher.code()
    students = [Tab(url, f"student {i}", errors, own) for i in range(n)]
    for s in students:  # a class arriving: one tab every 50 ms
        await s.open(f"join={code}")
        await asyncio.sleep(0.05)
    await asyncio.gather(*(s.until("you follow the teacher") for s in students))
    await teacher.until(f"{n} students joined")
    out: dict[str, list[float]] = {}
    out["follow CPU"] = []
    for page, query in MOVES:
        cpu0 = sum(map(cpu_seconds, pids))
        t0 = await teacher.send(query=query, page_hash=teacher.pages[page])
        await teacher.until("Step", since=t0)
        caption = next(b for t, b in teacher.texts if t >= t0 and b.startswith("**Step")).strip("*")
        done = await asyncio.gather(
            *(s.until(f"The teacher is at {caption.split(' (part ')[0]}", t0) for s in students)
        )
        out["follow CPU"].append(sum(map(cpu_seconds, pids)) - cpu0)
        out[f"follow {page}"] = [d - t0 for d in done]
        await asyncio.sleep(1.0)
    for step in ("masking", "softmax"):
        t0 = await teacher.send(query=f"step={step}", page_hash=teacher.pages["scores"])
        await teacher.until("Step", since=t0)
    t0 = time.perf_counter()
    await asyncio.gather(*(s.until("attend to most", t0 - 30) for s in students))

    answered: list[float] = []

    async def answer(s: Tab) -> None:
        await asyncio.sleep(random.uniform(0, window))
        key = next(k for k in s.widgets if k.startswith("class.answer."))
        while s.sent_at is not None:  # the browser sends a click after the run under way
            await asyncio.sleep(0.005)
        sent = await s.send(widgets=(s.widget(key, string_value=random.choice(s.options[key][:3])),
                                     s.widget("class.send", trigger_value=True)), fragment=s.fragment_of[key])  # fmt: skip
        answered.append(await s.until("You answered", sent))

    await asyncio.gather(*(answer(s) for s in students))
    last = max(answered)
    counted = await teacher.until(f"{n} of {n} answered", last - window - 5)
    out["count after the last answer"] = [max(0.0, counted - last)]
    t0 = await teacher.send(widgets=(teacher.widget("reveal", trigger_value=True),))
    done = await asyncio.gather(*(s.until("answer is", t0) for s in students))
    out["reveal"] = [d - t0 for d in done]
    out["students' own reruns"] = own
    out["errors"] = [float(len(errors))]
    for e in errors[:5]:
        print("error:", e)
    for s in [teacher, *students]:
        await s.close()
    return out


def one_class(root: Path, args: argparse.Namespace) -> tuple[dict[str, list[float]], float, float, str]:
    """The class on a server of the checkout at `root` (one process, or --replicas through its serve.sh):
    its figures, the server's CPU seconds and the class's wall seconds, and the server's log."""
    port, data = free_port(), Path(tempfile.mkdtemp(prefix="class-bench-"))
    log = data / "server.log"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ATTENTION_EXPLORER_JOBS", "ATTENTION_EXPLORER_CLASSES", "ATTENTION_EXPLORER_REDIS_URL")
    }
    env["ATTENTION_EXPLORER_DATA"] = str(data)
    if args.replicas:
        proc, pids = serve(root, port, args.replicas, log, env)
    else:
        proc = start_server(port, 120, log, root=root, entry=args.entry, env=env)
        pids = [proc.pid]
    try:
        cpu0, t0 = sum(map(cpu_seconds, pids)), time.perf_counter()
        got = asyncio.run(
            the_class(f"ws://127.0.0.1:{port}/_stcore/stream", args.students, args.window, pids)
        )
        cpu, wall = sum(map(cpu_seconds, pids)) - cpu0, time.perf_counter() - t0
    finally:
        text = stop_server(proc, log) if not args.replicas else stop_serve(proc, log)
    return got, cpu, wall, text


def serve(
    root: Path, port: int, replicas: int, log: Path, env: dict[str, str]
) -> tuple[subprocess.Popen, list[int]]:
    """`scripts/serve.sh --replicas N` of the checkout at `root` (HAProxy in front, Redis with it where that
    checkout starts one) on `port`, once it serves; the replicas' process ids."""
    cmd = ["bash", "scripts/serve.sh", "--replicas", str(replicas), "--port", str(port), "--address",
           "127.0.0.1", "--no-restart", "--log", str(log.with_name("haproxy.log"))]  # fmt: skip
    out = log.open("w")
    proc = subprocess.Popen(cmd, cwd=root, stdout=out, stderr=subprocess.STDOUT,
                            env={**env, "PYTHON": sys.executable})  # fmt: skip
    deadline = time.monotonic() + 300
    while "serving http://" not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"serve.sh did not serve: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.3)
    pids = [int(p) for p in re.findall(r"^replica r\d+ pid (\d+)", log.read_text(), re.M)]
    settled = time.monotonic() + 180  # the replicas load the real models as they start: the class waits
    while time.monotonic() < settled:
        was = sum(map(cpu_seconds, pids))
        time.sleep(2.0)
        if sum(map(cpu_seconds, pids)) - was < 0.2:
            break
    return proc, pids


def stop_serve(proc: subprocess.Popen, log: Path) -> str:
    """serve.sh stops everything it started on SIGTERM; what its replicas logged."""
    proc.terminate()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
    return log.read_text(errors="replace")


def report(title: str, got: dict[str, list[float]], cpu: float, wall: float, text: str) -> None:
    print(title)
    for name, values in got.items():
        if name == "errors":
            print(f"errors: {int(values[0])}; tracebacks in the server's log: {text.count('Traceback')}")
        elif name == "count after the last answer":
            print(f"the teacher's count complete {values[0] * 1000:.0f} ms after the last answer was stored "
                  f"(target: within 1000 ms)")  # fmt: skip
        elif name == "follow CPU":
            print("the server's CPU seconds per move, click to the last student's page: "
                  + ", ".join(f"{v:.2f}" for v in values))  # fmt: skip
        else:
            print(line(name, values))
    follows = [v for k, vs in got.items() if k.startswith("follow ") and k != "follow CPU" for v in vs]
    print(line("follow, every step", follows) + " (target: p90 within 1000 ms)")
    print(f"server CPU {cpu:.1f} s over {wall:.1f} s of class")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--students", type=int, default=60)
    ap.add_argument("--window", type=float, default=10.0, help="the students answer within this many seconds")
    ap.add_argument("--entry", default="app.py", help="app.py, or server.py (the server as deployed)")
    ap.add_argument("--before", type=Path, help="a checkout of an earlier commit, measured first")
    ap.add_argument("--replicas", type=int, default=0,
                    help="serve with scripts/serve.sh --replicas N (HAProxy, and Redis) instead of one process")  # fmt: skip
    args = ap.parse_args()
    where = f"{args.replicas} replicas (scripts/serve.sh)" if args.replicas else f"one process ({args.entry})"
    what = f"{args.students} students and a teacher on one server, {where}, the answers within {args.window:.0f} s"
    if args.before is not None:
        report(f"before ({args.before}): {what}", *one_class(args.before.resolve(), args))
        print("(load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + ")\n")
    report(f"{'after: ' if args.before else ''}{what}", *one_class(ROOT, args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
