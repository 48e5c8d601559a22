"""The classroom load harness: N sessions against one server over Streamlit's own WebSocket protocol.

What tests/load/test_load.py checks and benchmarks/load_test.py prints (its docstring says what each session
does and what is reported); the benchmarks' other server probes (flood, layer_memory, serve_replicas,
warm_start, models.py) reuse its sessions, its server start and its memory readings.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, quote, urlencode

import pyarrow as pa
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect

from explorer.ui.boot import CLASS_GONE

ROOT = Path(__file__).resolve().parents[2]
MARK = re.compile(r"s(\d{3})x")  # each session's sentence starts with its own marker, s007x
WORDS = (
    "the",
    "cat",
    "sat",
    "on",
    "a",
    "warm",
    "mat",
    "because",
    "it",
    "was",
    "tired",
    "and",
    "dog",
    "watched",
    "her",
    "from",
    "door",
)
RUN_TIMEOUT = 120.0  # seconds for one rerun before it counts as an error


@dataclass
class Report:
    sessions: int
    duration_s: float
    sessions_held: int = 0
    reruns: int = 0
    sentence_changes: int = 0
    matrix_edits: int = 0
    charts_checked: int = 0  # charts whose labels were checked for this session's sentence (and no other)
    edits_checked: int = 0  # edits seen back in the data editor
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    latency_ms: dict[str, float] = field(default_factory=dict)
    by_kind_ms: dict[str, dict[str, float]] = field(default_factory=dict)  # open, page, sentence, edit
    kinds: dict[str, list[float]] = field(default_factory=dict, repr=False)  # each kind's latencies (s)
    alone_ms: dict[str, float] = field(default_factory=dict)  # one session on its own (the warm-up)
    rss_mb: dict[str, float] = field(default_factory=dict)
    waves: list[dict[str, float]] = field(default_factory=list)  # RSS peak and after each wave
    hostile_reruns: int = 0  # reruns the hostile visitor got through (0: none ran)
    hostile_ms: dict[str, float] = field(default_factory=dict)  # its own rerun latency

    def fail(self, text: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(text)


# ---------------------------------------------------------------- the server


def rss_mb(pid: int, field_name: str = "VmRSS") -> float:
    """Resident memory of a process (MB) from /proc/<pid>/status (VmRSS now, VmHWM its peak)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def settled_rss_mb(pid: int, within_mb: float = 1.0, timeout: float = 5.0) -> float:
    """Resident memory (MB) once two readings 0.25 s apart differ by `within_mb` or less (the last run's
    memory settled), or the last reading after `timeout` seconds."""
    deadline, last = time.monotonic() + timeout, rss_mb(pid)
    while True:
        await asyncio.sleep(0.25)
        now = rss_mb(pid)
        if abs(now - last) <= within_mb or time.monotonic() > deadline:
            return now
        last = now


def said_gone(log: Path | None) -> int:
    """How many times the server's log says its class has gone (explorer.ui.boot.CLASS_GONE)."""
    if log is None or not log.exists():
        return 0
    return log.read_text(errors="replace").count(CLASS_GONE)


async def class_gone(log: Path | None, seen: int, longest: float) -> bool:
    """Until the server's log says its class has gone once more than `seen` times (its sessions dropped, their
    caches emptied, the memory trimmed), or `longest` seconds (a server that does not say it: an older
    checkout, or one started elsewhere, with no log here). Whether it said so."""
    deadline = time.monotonic() + longest
    while time.monotonic() < deadline:
        if said_gone(log) > seen:
            return True
        await asyncio.sleep(0.2)
    return False


CHART = "attention_explorer.chart"  # the app's chart element (explorer/chart), a components v2 element


def chart_labels(spec: dict) -> list[str]:
    """The token labels of a Plotly figure (axis tick text), where a session's sentence shows."""
    layout = spec.get("layout", {})
    return [str(t) for k, ax in layout.items() if k[:5] in ("xaxis", "yaxis") for t in ax.get("ticktext", [])]


def start_server(
    port: int,
    ttl: int,
    log: Path,
    root: Path = ROOT,
    entry: str = "server.py",
    extra: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> subprocess.Popen:
    """`streamlit run <entry>` in `root` (another checkout to compare with), once it answers its health check:
    server.py by default, a server tuned for a class as deployed (explorer.ui.warm.lifespan). extra: more
    command-line options; env: the server's environment (default: this one, with heavy work in the server's
    own worker pool, as served, not inline as the page tests run it)."""
    if env is None:
        env = served_env()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        entry,
        "--server.headless=true",
        f"--server.port={port}",
        "--server.fileWatcherType=none",
        f"--server.disconnectedSessionTTL={ttl}",
        "--browser.gatherUsageStats=false",
        *extra,
    ]
    with log.open("wb") as out:  # a file, not a pipe: a full pipe would stall the server
        proc = subprocess.Popen(cmd, cwd=root, stdout=out, stderr=subprocess.STDOUT, env=env)
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text(errors='replace')[-2000:]}")
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r,
        ):
            if r.read().strip() == b"ok":
                return proc
        time.sleep(0.3)
    proc.kill()
    raise RuntimeError("the server did not answer /_stcore/health within 60 s")


def served_env(preload: bool = True) -> dict[str, str]:
    """This process's environment with heavy work in the server's own worker pool, as served; preload=False:
    the server and its workers load no real model as they start (a class on the toy pages needs none)."""
    env = {k: v for k, v in os.environ.items() if k != "ATTENTION_EXPLORER_JOBS"}
    if not preload:
        env |= {"ATTENTION_EXPLORER_WARM": "0", "ATTENTION_EXPLORER_WORKER_WARM": "0"}
    return env


def stop_server(proc: subprocess.Popen, log: Path) -> str:
    """Stop the server (by its PID); return what it logged (a traceback anywhere is an error)."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return log.read_text(errors="replace")


# ---------------------------------------------------------------- one session


class Session:
    """One visitor, speaking Streamlit's protocol as the browser does."""

    def __init__(self, sid: int, url: str, report: Report, latencies: list[float]) -> None:
        self.sid, self.url, self.report, self.latencies = sid, url, report, latencies
        self.marker = f"s{sid:03d}x"
        self.ws = None
        self.widgets: dict[str, str] = {}  # user key -> widget id
        self.pages: dict[str, str] = {}  # url path -> page script hash
        self.page_hash = ""
        self.sentence = ""
        self.editor_value: float | None = None

    def fail(self, what: str) -> None:
        self.report.fail(f"session {self.sid}: {what}")

    async def rerun(
        self, *, page_name: str | None = None, query: str = "", widgets=(), check=True, what: str = "other"
    ) -> list:
        """Send one rerun_script and read until script_finished; returns the ForwardMsgs."""
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = query
        if page_name is not None:
            cs.page_name = page_name
        else:
            cs.page_script_hash = self.page_hash
        for ws in widgets:
            cs.widget_states.widgets.append(ws)
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        out: list[ForwardMsg] = []
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), RUN_TIMEOUT)
            fm = ForwardMsg()
            fm.ParseFromString(raw)
            out.append(fm)
            kind = fm.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = fm.new_session.page_script_hash
            elif kind == "navigation":
                self.pages = {p.url_pathname: p.page_script_hash for p in fm.navigation.app_pages}
                self.page_hash = fm.navigation.page_script_hash
            elif kind == "script_finished":
                if fm.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY:
                    break
                if fm.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    self.fail(f"script finished with status {fm.script_finished}")
                    break
        self.latencies.append(time.perf_counter() - t0)
        self.report.kinds.setdefault(what, []).append(self.latencies[-1])
        self.report.reruns += 1
        self.read(out, check)
        return out

    def read(self, msgs: list, check: bool) -> None:
        """Widget ids, and the checks: no exception or error box, only this session's sentence anywhere."""
        seen: list[str] = []
        for fm in msgs:
            kind = fm.WhichOneof("type")
            if kind == "page_info_changed":
                query = parse_qs(fm.page_info_changed.query_string).get("sentence", [""])[0]
                seen.append(query)
                if check and query != self.sentence:
                    self.fail(f"address bar shows {query[:60]!r}, not {self.sentence[:60]!r}")
            if kind != "delta" or fm.delta.WhichOneof("type") != "new_element":
                continue
            el = fm.delta.new_element
            etype = el.WhichOneof("type")
            if etype == "exception":
                self.fail(f"exception: {el.exception.type}: {el.exception.message[:200]}")
            elif etype == "alert" and el.alert.format == 1:  # an st.error box
                self.fail(f"error box: {el.alert.body[:200]}")
            elif etype == "text_input":
                key = el.text_input.id.split("-", 2)[-1]
                self.widgets[key] = el.text_input.id
                own = el.text_input.value if el.text_input.set_value else self.sentence
                if check and key == "sentence" and own != self.sentence:
                    self.fail(f"sentence box shows {el.text_input.value[:60]!r}, not {self.sentence[:60]!r}")
            elif etype == "number_input":
                self.widgets[el.number_input.id.split("-", 2)[-1]] = el.number_input.id
            elif etype in ("slider", "button", "selectbox", "checkbox", "radio"):  # by key, for benchmarks
                wid = getattr(el, etype).id
                if wid.count("-") >= 2:
                    self.widgets[wid.split("-", 2)[-1]] = wid
            elif etype == "bidi_component" and el.bidi_component.component_name == CHART:
                seen += chart_labels(json.loads(el.bidi_component.bytes)["f"])  # explorer.ui.chart's payload
                self.report.charts_checked += check
            elif etype == "plotly_chart":
                seen += chart_labels(json.loads(el.plotly_chart.spec))
                self.report.charts_checked += check
            elif etype == "dataframe" and el.dataframe.id:
                key = el.dataframe.id.split("-", 2)[-1]
                if key.startswith("ed.w_q.0."):
                    self.widgets["w_q"] = el.dataframe.id
                    if check and self.editor_value is not None:
                        table = pa.ipc.open_stream(el.dataframe.arrow_data.data).read_all()
                        got = table.column("c0")[0].as_py()
                        self.report.edits_checked += 1
                        if got != self.editor_value:
                            self.fail(f"editor shows {got}, not the edited {self.editor_value}")
        if check:
            text = "\n".join(seen)
            others = {m for m in MARK.findall(text)} - {f"{self.sid:03d}"}
            if others:
                self.fail(f"saw other sessions' sentences: {sorted(others)[:5]}")
            if self.sentence and text and self.marker not in text:
                self.fail("its own sentence is in none of its charts")

    def widget(self, key: str, **value: object) -> WidgetState:
        ws = WidgetState(id=self.widgets[key])
        for k, v in value.items():
            setattr(ws, k, v)
        return ws

    def connect(self):  # noqa: ANN201 - websockets.connect, an async context manager
        """The session's websocket, opened as Streamlit's frontend opens it (no size limit, no pings)."""
        return connect(
            self.url,
            subprotocols=["streamlit"],
            origin=self.url.replace("ws://", "http://").split("/_stcore")[0],
            max_size=None,
            open_timeout=60,
            ping_interval=None,
        )

    def new_sentence(self, k: int) -> str:
        words = random.sample(WORDS, 5)
        return f"{self.marker} round {k} " + " ".join(words) + "."

    async def visit(self, deadline: float, think: tuple[float, float], min_actions: int) -> bool:
        async with self.connect() as ws:
            self.ws = ws
            self.sentence = self.new_sentence(0)
            await self.rerun(page_name="", query="sentence=" + quote(self.sentence), what="open")
            self.page_hash = self.pages["projections"]
            await self.rerun(widgets=[self.widget("sentence", string_value=self.sentence)], what="page")
            k = 0
            while time.time() < deadline or k < min_actions:
                await asyncio.sleep(random.uniform(*think))
                k += 1
                if k % 2:
                    self.sentence = self.new_sentence(k)
                    self.report.sentence_changes += 1
                    await self.rerun(
                        widgets=[self.widget("sentence", string_value=self.sentence)], what="sentence"
                    )
                else:
                    value = round(self.sid + k / 1000, 3)
                    edit = {"edited_rows": {"0": {"c0": value}}, "added_rows": [], "deleted_rows": []}
                    self.editor_value = value
                    self.report.matrix_edits += 1
                    await self.rerun(
                        widgets=[
                            self.widget("sentence", string_value=self.sentence),
                            self.widget("w_q", string_value=json.dumps(edit)),
                        ],
                        what="edit",
                    )
            return True


HUGE_CHARS = (
    1_500_000  # the hostile sentence: under server.maxWidgetStateSize (2 MB), 3,000 times the box's cap
)
LARGEST = {
    "d_model": 64,
    "heads": 8,
    "d_k": 64,
    "d_ff": 256,
}  # link parameters (explorer.model.settings_table)
LARGEST_KEYS = {"cfg.d_model": 64, "cfg.n_heads": 8, "cfg.d_k": 64, "encoder.d_ff": 256}  # their widgets


class Hostile(Session):
    """One visitor sending the largest inputs as fast as the server takes them.

    Opens a link to the largest example on `page`, then until the time is up sends rerun after rerun with no
    pause, each with a new seed and the same 1.5 MB sentence (the server cuts it to 500 characters), until
    the class has finished (at least one such rerun). Its
    reruns are not counted among the class's; an exception or error box it sees is still an error.
    """

    def __init__(self, url: str, report: Report, latencies: list[float], page: str) -> None:
        super().__init__(999, url, report, latencies)
        self.page = page
        self.stop = asyncio.Event()  # set when the class has finished

    async def visit(self, deadline: float, think: tuple[float, float], min_actions: int) -> bool:
        async with self.connect() as ws:
            self.ws = ws
            words = " ".join(WORDS)
            huge = (words + " ") * (HUGE_CHARS // (len(words) + 1))
            first = " ".join(random.choices(WORDS, k=64))
            await self.rerun(
                page_name="", query="sentence=" + quote(first) + "&" + urlencode(LARGEST), check=False
            )
            self.page_hash = self.pages[self.page]
            await self.rerun(check=False)
            seed = 1000
            while not self.stop.is_set() or seed == 1000:  # as long as the class runs, at least once
                seed += 1
                widgets = [
                    self.widget("sentence", string_value=huge),
                    self.widget("cfg.seed", int_value=seed),
                ]
                widgets += [self.widget(k, int_value=v) for k, v in LARGEST_KEYS.items() if k in self.widgets]
                await self.rerun(widgets=widgets, check=False)
                self.report.hostile_reruns += 1
            return True


async def run_sessions(
    url: str,
    report: Report,
    duration: float,
    think: tuple[float, float],
    min_actions: int = 2,
    hostile: str | None = None,
) -> list[float]:
    """The class's rerun latencies (s); with `hostile` (a page's url path) one Hostile visitor beside it."""
    latencies: list[float] = []
    deadline = time.time() + duration

    gates = [asyncio.Event() for _ in range(report.sessions)]

    # A classroom does not click at the very same millisecond: one in, then 50 ms.
    async def doorman() -> None:
        for gate in gates:
            gate.set()
            await asyncio.sleep(0.05)

    async def one(sid: int) -> bool:
        await gates[sid].wait()
        try:
            return await Session(sid, url, report, latencies).visit(deadline, think, min_actions)
        except Exception as exc:  # noqa: BLE001 - every failure of a session is counted and reported
            report.fail(f"session {sid}: {type(exc).__name__}: {exc}"[:300])
            return False

    own: list[float] = []
    bad = Hostile(url, report, own, hostile or "")

    async def flood() -> None:
        try:
            await bad.visit(deadline, think, 0)
        except Exception as exc:  # noqa: BLE001 - counted and reported
            report.fail(f"hostile: {type(exc).__name__}: {exc}"[:300])

    async def the_class() -> list[bool]:
        try:
            arrivals = asyncio.create_task(doorman())
            try:
                return await asyncio.gather(*(one(i) for i in range(report.sessions)))
            finally:
                arrivals.cancel()
        finally:
            bad.stop.set()

    if hostile is None:
        held = await the_class()
    else:
        held, _ = await asyncio.gather(the_class(), flood())
        report.reruns -= len(own)  # its reruns are not the class's
        report.hostile_ms = percentiles(own)
    report.sessions_held += sum(held)
    return latencies


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ms = sorted(v * 1000 for v in values)
    q = statistics.quantiles(ms, n=100, method="inclusive") if len(ms) > 1 else ms * 99
    return {"p50": q[49], "p90": q[89], "p99": q[98], "max": ms[-1], "mean": statistics.fmean(ms)}


class RssSampler:
    """Samples the server's RSS every `every` seconds in a thread-free asyncio task; keeps the peak."""

    def __init__(self, pid: int, every: float = 0.25) -> None:
        self.pid, self.every, self.peak, self._task = pid, every, 0.0, None

    async def _loop(self) -> None:
        while True:
            self.peak = max(self.peak, rss_mb(self.pid))
            await asyncio.sleep(self.every)

    def __enter__(self) -> RssSampler:
        self._task = asyncio.get_running_loop().create_task(self._loop())
        return self

    def __exit__(self, *exc: object) -> None:
        self._task.cancel()
        self.peak = max(self.peak, rss_mb(self.pid))


async def load(
    sessions: int = 30,
    duration: float = 60.0,
    port: int = 8649,
    pid: int | None = None,
    ttl: int = 10,
    think: tuple[float, float] = (0.3, 1.0),
    min_actions: int = 2,
    waves: int = 1,
    alone: bool = True,
    preload: bool = True,
    warm_s: float = 3.0,
) -> Report:
    """Run the whole test: server (unless `pid` is given), warm-up, the sessions, memory after they close.

    With waves > 1 the class comes back (new sessions, new sentences) after the server dropped the last one:
    a peak that does not grow from wave to wave is memory that is bounded, not leaking. alone: one session's
    reruns on their own are timed first (the report's alone_ms); preload: the server loads the real models
    as it starts, as served (the toy pages need none); warm_s: how long one session warms the server up
    first (imports, caches, first figures), at least four reruns whatever it is.
    """
    report = Report(sessions=sessions, duration_s=duration)
    log = Path(tempfile.gettempdir()) / f"load_test_server_{port}.log"
    proc = None if pid else start_server(port, ttl, log, env=served_env(preload))
    server_pid = pid or proc.pid
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    try:
        warm = Report(sessions=1, duration_s=0)  # imports, caches, first figures
        await run_sessions(url, warm, warm_s, (0.2, 0.4), 4)
        if warm.errors:
            report.fail(f"warm-up: {warm.error_samples}")
        if alone:
            report.alone_ms = percentiles(await run_sessions(url, Report(1, 0), 3.0, (0.2, 0.4), 4))
        report.rss_mb["baseline"] = await settled_rss_mb(server_pid)
        latencies: list[float] = []
        held: list[int] = []
        for _ in range(waves):
            before = report.sessions_held
            with RssSampler(server_pid) as sampler:
                latencies += await run_sessions(url, report, duration, think, min_actions)
            held.append(report.sessions_held - before)
            at_close, seen = rss_mb(server_pid), said_gone(None if pid else log)
            # the server drops disconnected sessions after `ttl` seconds, then empties what they shared
            gone = await class_gone(None if pid else log, seen, ttl + 6)
            report.waves.append(
                {"peak": sampler.peak, "at_close": at_close, "after_ttl": rss_mb(server_pid), "gone": gone}
            )
        report.sessions_held = min(held)  # in the wave that held the fewest
        report.rss_mb["peak"] = max(w["peak"] for w in report.waves)
        report.rss_mb["at_close"] = report.waves[-1]["at_close"]
        report.rss_mb["after_ttl"] = report.waves[-1]["after_ttl"]
        report.latency_ms = percentiles(latencies)
        report.by_kind_ms = {k: percentiles(v) for k, v in report.kinds.items()}
    finally:
        if proc is not None:
            text = stop_server(proc, log)
            if "Traceback" in text:
                report.fail("server log: " + text[text.index("Traceback") :][:500])
    return report


@dataclass
class Comparison:
    """The same class without and with the hostile visitor, alternately on one server."""

    quiet: list[Report] = field(default_factory=list)
    hostile: list[Report] = field(default_factory=list)
    quiet_ms: dict[str, float] = field(default_factory=dict)  # the class's reruns, every quiet round
    hostile_ms: dict[str, float] = field(default_factory=dict)  # the class's reruns beside the hostile one
    ratio_p90: float = float("nan")
    load_avg: list[float] = field(default_factory=list)  # os.getloadavg() at the start and at the end
    server_error: str = ""  # errors of the warm-up, a traceback in the server's log

    @property
    def errors(self) -> int:
        return sum(r.errors for r in self.quiet + self.hostile) + bool(self.server_error)


async def compare(
    sessions: int = 30,
    duration: float = 30.0,
    port: int = 8649,
    ttl: int = 3,
    think: tuple[float, float] = (0.3, 1.0),
    rounds: int = 2,
    page: str = "encoder",
    quiet_rounds: bool = True,
    preload: bool = True,
    warm_s: float = 3.0,
) -> Comparison:
    """Quiet, hostile, quiet, hostile, ... (`rounds` of each) on one server; the class's p90 in each kind.
    quiet_rounds=False: the hostile rounds alone (no ratio: only whether the class is served beside it);
    preload, warm_s: as load()'s (the hostile visitor's warm-up takes as long)."""
    out = Comparison(load_avg=list(os.getloadavg()))
    log = Path(tempfile.gettempdir()) / f"load_test_server_{port}.log"
    proc = start_server(port, ttl, log, env=served_env(preload))
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    quiet: list[float] = []
    loud: list[float] = []
    try:
        warm = Report(sessions=1, duration_s=0)
        await run_sessions(url, warm, warm_s, (0.2, 0.4), 4)
        await run_sessions(url, warm, warm_s, (0.2, 0.4), 2, hostile=page)  # the largest example once
        if warm.errors:
            out.server_error = f"warm-up: {warm.error_samples}"
        kinds = ("quiet", "hostile") if quiet_rounds else ("hostile",)
        for n in range(rounds):
            for kind in kinds:
                r, seen = Report(sessions=sessions, duration_s=duration), said_gone(log)
                lat = await run_sessions(
                    url, r, duration, think, 2, hostile=page if kind == "hostile" else None
                )
                r.latency_ms = percentiles(lat)
                (quiet if kind == "quiet" else loud).extend(lat)
                (out.quiet if kind == "quiet" else out.hostile).append(r)
                if n + 1 < rounds or kind != kinds[-1]:  # the last round: the server stops anyway
                    await class_gone(log, seen, ttl + 3)  # the server drops the sessions before the next
    finally:
        text = stop_server(proc, log)
    if "Traceback" in text:
        out.server_error += text[text.index("Traceback") :][:500]
    out.quiet_ms, out.hostile_ms = percentiles(quiet), percentiles(loud)
    if out.quiet_ms and out.hostile_ms:
        out.ratio_p90 = out.hostile_ms["p90"] / out.quiet_ms["p90"]
    out.load_avg += list(os.getloadavg())
    return out


def print_comparison(c: Comparison) -> None:
    def line(ms: dict[str, float]) -> str:
        return (
            f"p50 {ms['p50']:.0f}  p90 {ms['p90']:.0f}  p99 {ms['p99']:.0f}  max {ms['max']:.0f}"
            if ms
            else "-"
        )

    for i, h in enumerate(c.hostile):
        q = c.quiet[i] if i < len(c.quiet) else None
        if q is not None:
            print(
                f"round {i + 1} quiet    {q.sessions_held}/{q.sessions} held, {q.reruns} reruns, {q.errors} errors"
            )
            print(f"  class (ms)        {line(q.latency_ms)}")
        print(
            f"round {i + 1} hostile  {h.sessions_held}/{h.sessions} held, {h.reruns} reruns, {h.errors} errors"
        )
        print(f"  class (ms)        {line(h.latency_ms)}")
        print(f"  hostile (ms)      {line(h.hostile_ms)}  ({h.hostile_reruns} reruns of its own)")
        for e in ((q.error_samples if q else []) + h.error_samples)[:5]:
            print(f"  - {e}")
    if c.server_error:
        print(f"server log: {c.server_error}")
    print(f"class, all quiet rounds (ms)    {line(c.quiet_ms)}")
    print(f"class, all hostile rounds (ms)  {line(c.hostile_ms)}")
    print(f"p90 with / without the hostile visitor: {c.ratio_p90:.2f} (limit 2)")
    a = c.load_avg
    print(
        f"load average (1, 5, 15 min): start {a[0]:.2f} {a[1]:.2f} {a[2]:.2f}, end {a[3]:.2f} {a[4]:.2f} {a[5]:.2f}"
    )


def print_report(r: Report) -> None:
    lat = r.latency_ms
    print(f"sessions            {r.sessions} concurrent for {r.duration_s:.0f} s")
    print(f"sessions held       {r.sessions_held} / {r.sessions}")
    print(
        f"reruns              {r.reruns} ({r.sentence_changes} sentence changes, {r.matrix_edits} matrix edits)"
    )
    print(f"checked             {r.charts_checked} charts' labels, {r.edits_checked} editor contents")
    print(f"errors              {r.errors}")
    for e in r.error_samples:
        print(f"  - {e}")
    if lat:
        print(
            f"rerun latency (ms)  p50 {lat['p50']:.0f}  p90 {lat['p90']:.0f}  p99 {lat['p99']:.0f}  "
            f"max {lat['max']:.0f}  mean {lat['mean']:.0f}"
        )
    for kind, ms in r.by_kind_ms.items():
        print(
            f"  {kind:<17} {len(r.kinds[kind]):4d} reruns, p50 {ms['p50']:.0f}  p90 {ms['p90']:.0f}  max {ms['max']:.0f}"
        )
    if r.alone_ms:
        print(f"one session alone   p50 {r.alone_ms['p50']:.0f} ms (the same reruns without the class)")
    for i, w in enumerate(r.waves if len(r.waves) > 1 else []):
        print(
            f"  wave {i + 1}: RSS peak {w['peak']:.0f} MB, after the sessions were dropped {w['after_ttl']:.0f} MB"
        )
    m = r.rss_mb
    if m:
        print(
            f"server RSS (MB)     baseline {m.get('baseline', 0):.0f}  peak {m.get('peak', 0):.0f}  "
            f"at close {m.get('at_close', 0):.0f}  after the sessions were dropped {m.get('after_ttl', 0):.0f}"
        )
