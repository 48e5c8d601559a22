"""A quiet student beside visitors who flood the server with heavy real-model work (explorer.compute.heavy).

One `streamlit run server.py` (the models loaded first). The quiet student takes turns between /scores (a new
toy sentence: never waits for a model) and /next-token on SmolLM2 (a new sentence of 8 words: one model run),
with a think time between actions: first alone, then beside --flooders visitors who each send new 64-token
SmolLM2 sentences to /next-token as fast as the server answers them, in one run. Printed: the quiet
student's rerun latency per page (p50, p90, max) alone and beside the flood, their ratio (targets: /scores
p90 at most 1.5x, /next-token at most 2x), the flooders' reruns and errors (a message in the page is not an
error; an exception or an error box is), and the server's peak RSS. Then --crowd sessions each send 3 new
64-token SmolLM2 sentences at once: the peak RSS (target: 2 GB).

With --before <checkout>, the same for that checkout first (a fresh server each), so both see the same machine.
The last line is the ratio targets' verdict for this checkout.

With --kinds, one table instead: for each kind, the quiet student alone, then beside --flooders visitors who
each use one heavy page again and again (induction: a new seed at the longest run; patching: a new pair and
both sweeps; lens: a new 30-word sentence on /logit-lens; rank: "Rank the heads" on a new MiniLM sentence;
upload: the largest layer file, 43 MB, given to "Open an example (JSON)" as a browser gives it; mix: all of
these and new 64-token sentences, one kind per visitor). Per kind: both ratios, the memory peak of the server
and its workers (PSS: weights mapped by every process count once), and the memory --settle seconds after the
visitors left, against the idle server (targets: under 2 GB; within 200 MB), with each process's share at the
peak and then. --before <checkout> measures that checkout's server first, the same way. --serve "--replicas 2 --workers 2"
measures the same through scripts/serve.sh (HAProxy, two replicas, Redis and its queue workers). A session
whose WebSocket the proxy cuts (its replica taken out) is an error, and reconnects as a browser does.

The visitors run in a process of their own (Visitors), the quiet student in this one: as in a class, where
each browser reads only its own pages. Both take their CPU from the server's machine. With --students N, N quiet
students at once, their times pooled: a p90 of about twenty samples per page and minute moves by x1 to x3
between runs of the Redis mix, so more samples tell a change apart from the spread.

Usage:
  OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks flood [--flooders 10] [--duration 30] [--crowd 20]
  OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks flood --crowd 0 --before /tmp/before
  OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks flood --kinds induction,patching,lens,rank,upload,mix \
      --flooders 20 --duration 20 --head-start 10 [--serve "--replicas 2 --workers 2"]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import random
import shlex
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from streamlit.proto.Common_pb2 import UploadedFileInfo
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, WebSocketException

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import class_tail  # noqa: E402 - sibling scripts, found through the path above
import load_test  # noqa: E402
import warm_start  # noqa: E402

WORDS = load_test.WORDS


def words(k: int) -> str:
    return " ".join(random.choices(WORDS, k=k))


class Visitor(load_test.Session):
    """A session that can open a page with the real model picked and send new sentences to it."""

    async def open(self, ws, page: str, model: str | None = None) -> None:  # noqa: ANN001
        self.ws = ws
        query = ("model=" + model + "&" if model else "") + "sentence=" + quote(words(5))
        await self.rerun(page_name="", query=query, check=False)
        self.page_hash = self.pages[page]
        await self.rerun(query=query, check=False)

    async def say(self, text: str) -> float:
        t0 = time.perf_counter()
        await self.rerun(widgets=[self.widget("sentence", string_value=text)], check=False)
        return time.perf_counter() - t0


def dial(url: str):  # noqa: ANN201
    origin = url.replace("ws://", "http://").split("/_stcore")[0]
    return connect(
        url, subprotocols=["streamlit"], origin=origin, max_size=None, open_timeout=60, ping_interval=None
    )


async def quiet(
    url: str, report: load_test.Report, until: float, think: tuple[float, float], students: int = 1
) -> dict[str, list[float]]:
    """The quiet students, each on their own (`student`): every student's times of each page together. More
    students give the p90 more samples (about twenty per page a minute each) at the cost of a little load."""
    each = await asyncio.gather(*(student(url, report, until, think, 2 * k + 1) for k in range(students)))
    return {page: [t for times in each for t in times[page]] for page in ("scores", "next-token")}


async def student(
    url: str, report: load_test.Report, until: float, think: tuple[float, float], sid: int
) -> dict[str, list[float]]:
    """A quiet student (sessions `sid` and `sid` + 1): /scores and /next-token in turn, a new sentence each
    time."""
    times: dict[str, list[float]] = {"scores": [], "next-token": []}
    async with contextlib.AsyncExitStack() as held:
        toy, model = Visitor(sid, url, report, []), Visitor(sid + 1, url, report, [])
        await reopen(held, url, toy, "scores")
        await reopen(held, url, model, "next-token", "smollm2")
        k = 0
        while time.time() < until or k < 4:
            await asyncio.sleep(random.uniform(*think))
            k += 1
            v, page, n = (toy, "scores", 6) if k % 2 else (model, "next-token", 8)
            try:
                times[page].append(await v.say(words(n)))
            except ConnectionClosed as exc:  # the proxy cut the session: an error, then back as a browser is
                v.fail(f"cut: {exc!r}")
                await reopen(held, url, v, page, "smollm2" if v is model else None)
    return times


async def reopen(
    held: contextlib.AsyncExitStack, url: str, v: Visitor, page: str, model: str | None = None
) -> None:
    """Opens `page` for `v` on a new WebSocket (at first, and after the proxy cut its session, as a
    browser reconnects and rebuilds the page from its address, trying again each second: the proxy may have
    no live replica for a moment); each failed try is an error."""
    for _ in range(60):
        try:
            ws = await held.enter_async_context(dial(url))
            if isinstance(v, Uploader):
                v.cookie = sticky_cookie(ws)
                v.widgets.pop("upload", None)  # a new session draws its own uploader
            await v.open(ws, page, model)
            return
        except (WebSocketException, OSError, TimeoutError) as exc:  # cut again, or refused (HTTP 503)
            v.fail(f"reconnect: {exc!r}")
            await asyncio.sleep(1.0)
    raise TimeoutError(f"session {v.sid} could not reconnect in a minute")


async def flooder(url: str, report: load_test.Report, stop: asyncio.Event, sid: int) -> int:
    sent = 0
    async with contextlib.AsyncExitStack() as held:
        v = Visitor(100 + sid, url, report, [])
        await reopen(held, url, v, "next-token", "smollm2")
        while not stop.is_set():
            try:
                await v.say(words(70))  # the model cuts it to 64 tokens (and says so)
            except ConnectionClosed as exc:
                v.fail(f"cut: {exc!r}")
                await reopen(held, url, v, "next-token", "smollm2")
            sent += 1
    return sent


KINDS = ("next", "induction", "patching", "lens", "rank", "upload")  # "mix": one of each in turn


async def press(v: Visitor, key: str, **widgets: object) -> float:
    """Set the widgets (key -> value keyword of WidgetState) and press the button `key` in one rerun."""
    states = [v.widget(k, **value) for k, value in widgets.items()]  # type: ignore[arg-type]
    states.append(v.widget(key, trigger_value=True))
    t0 = time.perf_counter()
    await v.rerun(widgets=states, check=False)
    return time.perf_counter() - t0


async def heavy_visitor(url: str, report: load_test.Report, stop: asyncio.Event, sid: int, kind: str) -> int:
    """A visitor who asks for heavy work of `kind` (the module doc) again and again until `stop`."""
    if kind == "next":
        return await flooder(url, report, stop, sid)
    if kind == "upload":
        return await uploader(url, report, stop, sid)
    sent = 0
    page, model = {"induction": ("induction", "smollm2"), "patching": ("patching", "smollm2"),
                   "lens": ("logit-lens", "smollm2"), "rank": ("ablation", "minilm")}[kind]  # fmt: skip
    async with contextlib.AsyncExitStack() as held:
        v = Visitor(100 + sid, url, report, [])
        await reopen(held, url, v, page, model)
        while not stop.is_set():
            try:
                await heavy_action(v, kind)
            except (KeyError, TimeoutError) as exc:  # a widget not drawn, a rerun that never finished
                report.fail(f"{kind}: {exc!r}")
                await asyncio.sleep(1.0)
            except ConnectionClosed as exc:
                v.fail(f"cut: {exc!r}")
                await reopen(held, url, v, page, model)
            sent += 1
    return sent


async def heavy_action(v: Visitor, kind: str) -> None:
    """One request of heavy work of `kind` (module doc)."""
    if kind == "induction":
        state = [v.widget("rm.ind_seed", int_value=random.randint(0, 9999)), v.widget("rm.ind_len")]
        state[1].double_array_value.data.append(50.0)  # the longest run: 2 x 50 tokens
        await v.rerun(widgets=state, check=False)
    elif kind == "patching":
        clean = words(8)
        corrupt = clean.rsplit(" ", 1)[0] + " " + random.choice(WORDS)
        pair = [v.widget("sentence", string_value=clean), v.widget("rm.patch.corrupt", string_value=corrupt)]
        await v.rerun(widgets=pair, check=False)
        if "patching.run" in v.widgets:
            await press(v, "patching.run")
    elif kind == "lens":
        await v.say(words(30))
    else:
        await v.say(words(12))
        if "ablation.rank" in v.widgets:
            await press(v, "ablation.rank")


class Visitors:
    """`n` visitors, each of one of `kinds` in turn (heavy_visitor), in a process of their own, until `leave`.

    A student's browser does not read the class's pages: in the quiet student's own event loop, the visitors'
    messages (an induction page is a few MB of protobuf) would be read between the student's, and their
    reading counted in the student's wait. Their process still takes its CPU from the server's machine, as
    the quiet student's does (a pessimistic measure: a class's browsers run on their own machines)."""

    def __init__(self, url: str, n: int, kinds: list[str]) -> None:
        self.args = ["--visitors-at", url, "--flooders", str(n), "--kinds", ",".join(kinds)]
        self.proc: asyncio.subprocess.Process | None = None

    async def __aenter__(self) -> Visitors:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, str(Path(__file__).resolve()), *self.args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        return self

    async def leave(self) -> load_test.Report:
        """The visitors leave at once (a queued request would hold a phase for minutes): their sessions'
        runs stop, and the jobs nobody waits for with them. Their report (reruns, errors)."""
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(b"leave\n")
        await self.proc.stdin.drain()
        self.proc.stdin.close()
        out = await self.proc.stdout.read()
        if await self.proc.wait() != 0 or not out.strip():
            raise RuntimeError(f"the visitors' process ended with {self.proc.returncode}")
        return load_test.Report(**json.loads(out.decode().strip().splitlines()[-1]))

    async def __aexit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


async def visitors_main(a: argparse.Namespace) -> int:
    """The visitors' process (Visitors): each uses its kind's page until a line (or the end) on stdin, then
    its report as one line of JSON on stdout."""
    kinds = a.kinds.split(",")
    report, stop = load_test.Report(a.flooders, 0), asyncio.Event()
    tasks = [asyncio.create_task(heavy_visitor(a.visitors_at, report, stop, i, kinds[i % len(kinds)]))
             for i in range(a.flooders)]  # fmt: skip
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps(dataclasses.asdict(report)), flush=True)
    return 0


LAYER_FILE = Path("/tmp/flood_largest_layer.json")
OPENED = "Opened the example from the file"


def largest_layer_file() -> bytes:
    """The largest file the app writes and opens: SmolLM2's last layer at 64 tokens with every cell a random
    float64 (43 MB; benchmarks/real_files.py), made once and kept in /tmp."""
    if not LAYER_FILE.exists():
        import numpy as np

        sys.path.insert(0, str(ROOT))
        from explorer.model import bridge
        from explorer.model import example as exm
        from explorer.model.example import MATRIX_NAMES, Example
        from explorer.sharing.json_file import to_json

        ex = Example(sentence=" ".join(["word"] * 80)).with_(**bridge.settings_of("smollm2", 29))
        ex = ex.with_(**exm.default_matrices(ex, exm.tokens_for(ex)[0]))
        rng = np.random.default_rng(7)
        mats = {n: getattr(ex, n) for n in MATRIX_NAMES}
        ex = ex.with_(**{n: rng.random(m.shape) < 0.5 if m.dtype == bool else rng.normal(size=m.shape)
                         for n, m in mats.items()})  # fmt: skip
        # Written whole under another name first: the other uploaders read it meanwhile, and an empty file
        # they read while it is written would be refused as not JSON, not parsed.
        part = LAYER_FILE.with_suffix(f".{os.getpid()}.part")
        part.write_text(to_json(ex), encoding="utf-8")
        part.replace(LAYER_FILE)
    return LAYER_FILE.read_bytes()


class Uploader(Visitor):
    """A visitor who opens "Share and export" and gives "Open an example (JSON)" a file, as a browser does:
    the upload URLs asked for over the WebSocket, the file PUT there (with the XSRF token), then the rerun
    that carries the uploader's new state."""

    session_id = ""
    cookie = ""  # the proxy's stickiness cookie, if any: the PUT must reach this session's replica

    def read(self, msgs: list, check: bool) -> None:
        super().read(msgs, check)
        for fm in msgs:
            kind = fm.WhichOneof("type")
            if kind == "new_session" and fm.new_session.initialize.session_id:
                self.session_id = fm.new_session.initialize.session_id
            elif kind == "delta" and fm.delta.WhichOneof("type") == "add_block":
                box = fm.delta.add_block
                if box.WhichOneof("type") == "expandable" and box.expandable.id.endswith("share.panel"):
                    self.widgets["share.panel"] = box.expandable.id
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                el = fm.delta.new_element
                if el.WhichOneof("type") == "file_uploader":
                    self.widgets["upload"] = el.file_uploader.id

    async def upload(self, data: bytes, name: str = "layer.json") -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

        if "upload" not in self.widgets:  # the panel's contents are drawn once it is open
            await self.rerun(widgets=[self.widget("share.panel", bool_value=True)], check=False)
        ask = BackMsg()
        ask.file_urls_request.request_id = f"u{self.sid}-{time.monotonic_ns()}"
        ask.file_urls_request.file_names.append(name)
        ask.file_urls_request.session_id = self.session_id
        await self.ws.send(ask.SerializeToString())
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(await asyncio.wait_for(self.ws.recv(), load_test.RUN_TIMEOUT))
            if fm.WhichOneof("type") == "file_urls_response":
                urls = fm.file_urls_response.file_urls[0]
                break
        token = generate_xsrf_token_string()
        boundary = f"flood{time.monotonic_ns()}"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                "Content-Type: application/json\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()  # fmt: skip
        base = self.url.replace("ws://", "http://").split("/_stcore")[0]
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", "X-Xsrftoken": token,
                   "Cookie": "; ".join(c for c in (f"_streamlit_xsrf={token}", self.cookie) if c)}  # fmt: skip
        request = urllib.request.Request(base + urls.upload_url, data=body, headers=headers, method="PUT")
        await asyncio.to_thread(lambda: urllib.request.urlopen(request, timeout=120).read())
        info = UploadedFileInfo(name=name, size=len(data), file_id=urls.file_id, file_urls=urls)
        state = self.widget("upload")
        state.file_uploader_state_value.uploaded_file_info.append(info)
        said = [fm.delta.new_element.alert.body for fm in await self.rerun(widgets=[state], check=False)
                if fm.WhichOneof("type") == "delta" and fm.delta.new_element.WhichOneof("type") == "alert"]  # fmt: skip
        if not any(OPENED in body for body in said):
            self.fail(f"the file was not opened: {said[:2]}")


async def uploader(url: str, report: load_test.Report, stop: asyncio.Event, sid: int) -> int:
    """A visitor who opens the largest layer file again and again (module doc)."""
    data, sent = await asyncio.to_thread(largest_layer_file), 0
    async with contextlib.AsyncExitStack() as held:
        v = Uploader(100 + sid, url, report, [])
        await reopen(held, url, v, "scores")
        while not stop.is_set():
            try:
                await v.upload(data)
            except ConnectionClosed as exc:
                v.fail(f"cut: {exc!r}")
                await reopen(held, url, v, "scores")
            except (KeyError, TimeoutError, OSError) as exc:  # the uploader not drawn, the PUT refused
                report.fail(f"upload: {exc!r}")
                await asyncio.sleep(1.0)
            sent += 1
    return sent


def sticky_cookie(ws) -> str:  # noqa: ANN001 - a websockets connection
    """The proxy's stickiness cookie set on the WebSocket's handshake ("r1=..."), or "" without a proxy."""
    for key, value in ws.response.headers.raw_items():
        if key.lower() == "set-cookie":
            return value.split(";", 1)[0]
    return ""


def pss_mb(pid: int) -> float:
    """A process's proportional share of the memory it holds (shared pages, such as SmolLM2's memory-mapped
    weights in every process, split among the processes holding them), MB."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return 0.0


def tree_detail(pid: int) -> str:
    """Each process under `pid` that holds more than 20 MB (PSS): its program and MB, largest first."""
    return ", ".join(f"{name} {mb:.0f}" for mb, name in sorted(tree_pss(pid), reverse=True) if mb > 20)


def cpu_all(pid: int) -> float:
    """CPU seconds of a process so far, with those of its children it waited for (an RQ worker's job
    processes): /proc/<pid>/stat, fields 14 to 17."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def tree_cpu(pid: int, visitors: int) -> dict[str, float]:
    """CPU seconds so far of the processes under `pid`, summed by program (cpu_all: a job process's seconds
    move to its worker's once it ended, so differences of sums are right), and of the visitors' side: this
    process (the quiet student) and the visitors' (`visitors`, running: its seconds are its own)."""
    out = {"visitors": cpu_all(os.getpid()) + cpu_all(visitors)}
    for seconds, name in tree_pss(pid, cpu_all):
        out[name.split()[0]] = out.get(name.split()[0], 0.0) + seconds  # ("redis-server 127.0.0.1:port")
    return out


def cpu_shares(before: dict[str, float], after: dict[str, float], seconds: float) -> str:
    """Each program's share of one CPU between two tree_cpu readings `seconds` apart, largest first."""
    used = {n: after[n] - before.get(n, 0.0) for n in after}
    return ", ".join(
        f"{n} {u / seconds:.0%}" for n, u in sorted(used.items(), key=lambda x: -x[1]) if u > 0.5
    )


def tree_pss(pid: int, measure: Callable[[int], float] | None = None) -> list[tuple[float, str]]:
    """Each process under `pid`: its PSS in MB (pss_mb, or what `measure` says of it) and its program's name."""
    measure = measure or pss_mb
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                words = [w.decode(errors="replace") for w in f.read().split(b"\0") if w]
            name = next((w.rsplit(".", 1)[-1] for w in words if w.startswith("explorer.")), "")
            name = name or (
                "streamlit" if "streamlit" in words else os.path.basename(words[0]) if words else "?"
            )
            found.append((measure(p), name))
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except (OSError, ValueError, IndexError):
            continue
    return found


def tree_rss_mb(pid: int) -> float:
    """The memory of a process and every process under it (the worker pool), MB: the sum of their
    proportional shares (pss_mb), so weights mapped in each process count once."""
    return sum(mb for mb, _ in tree_pss(pid))


class TreeRss:
    """The peak of tree_rss_mb(pid), sampled every 0.25 s while the block runs, and each process's share of
    it then (`detail`, as tree_detail says it)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self.detail, self._task = pid, 0.0, "", None

    async def _loop(self) -> None:
        while True:
            found = tree_pss(self.pid)
            total = sum(mb for mb, _ in found)
            if total > self.peak:
                self.peak = total
                self.detail = ", ".join(f"{n} {mb:.0f}" for mb, n in sorted(found, reverse=True) if mb > 20)
            await asyncio.sleep(0.25)

    def __enter__(self) -> TreeRss:
        self._task = asyncio.get_running_loop().create_task(self._loop())
        return self

    def __exit__(self, *exc: object) -> None:
        self._task.cancel()


def serve(options: str, port: int, log: Path, root: Path = ROOT) -> subprocess.Popen:
    """`root`'s scripts/serve.sh with `options` (e.g. "--replicas 2 --workers 2") on `port`, once it says it
    serves."""
    cmd = ["bash", "scripts/serve.sh", "--port", str(port), "--address", "127.0.0.1", *shlex.split(options)]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while "serving http" not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.terminate()
            raise RuntimeError(f"scripts/serve.sh did not start: {log.read_text(errors='replace')[-1500:]}")
        time.sleep(0.2)
    while True:  # the proxy is started just before that line: its port answers a moment later
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc
        except OSError:
            if time.monotonic() > deadline:
                proc.terminate()
                raise
        time.sleep(0.2)


async def kinds_sides(a: argparse.Namespace) -> int:
    """kinds_run for --before's checkout first (when given), then for this one: one table each."""
    errors = 0
    for name, root in ([("before", Path(a.before).resolve())] if a.before else []) + [("after", ROOT)]:
        if a.before:
            print(f"{name}: {root}", flush=True)
        errors += await kinds_run(a, root)
    return 1 if errors else 0


async def kinds_run(a: argparse.Namespace, root: Path = ROOT) -> int:
    """The quiet student alone, then beside --flooders visitors of each kind; one table (`root`'s server)."""
    kinds = [k.strip() for k in a.kinds.split(",") if k.strip()]
    port = warm_start.free_port()
    if a.serve:
        proc = serve(a.serve, port, Path("/tmp/flood_kinds_serve.log"), root)
    else:
        proc, _, _ = warm_start.start("server.py", port, Path("/tmp/flood_kinds_server.log"), root=root)
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    load0, rows, errors = os.getloadavg(), [], 0
    try:
        await quiet(url, load_test.Report(1, 0), time.time() + 2, (0.1, 0.2))  # models loaded, pages compiled
        idle = tree_rss_mb(proc.pid)
        print(f"idle, MB: {tree_detail(proc.pid)}", flush=True)
        for kind in kinds:
            # The student alone right before each phase: a shared machine's load moves within minutes.
            alone = await quiet(
                url, load_test.Report(1, a.duration), time.time() + a.duration, tuple(a.think), a.students
            )
            mine = list(KINDS) if kind == "mix" else [kind]
            quiet_report = load_test.Report(1, a.duration)
            with TreeRss(proc.pid) as rss:
                async with Visitors(url, a.flooders, mine) as visitors:
                    assert visitors.proc is not None
                    await asyncio.sleep(a.head_start)
                    cpu0, t0 = tree_cpu(proc.pid, visitors.proc.pid), time.monotonic()
                    beside = await quiet(
                        url, quiet_report, time.time() + a.duration, tuple(a.think), a.students
                    )
                    cpu = cpu_shares(cpu0, tree_cpu(proc.pid, visitors.proc.pid), time.monotonic() - t0)
                    flood_report = await visitors.leave()
                sent = flood_report.reruns
            print(f"{kind}: at the peak ({rss.peak:.0f} MB), MB: {rss.detail}", flush=True)
            print(f"{kind}: CPU while the student was beside them, of one CPU: {cpu}", flush=True)
            await asyncio.sleep(a.settle)  # every visitor gone: what the server gives back meanwhile
            after = tree_rss_mb(proc.pid)
            print(
                f"{kind}: {a.settle:.0f} s after the visitors left, MB: {tree_detail(proc.pid)}", flush=True
            )
            ratios = [summary(beside[p])["p90"] / summary(alone[p])["p90"] for p in ("scores", "next-token")]
            ratios += [summary(alone[p])["p90"] for p in ("scores", "next-token")]
            errors += flood_report.errors + quiet_report.errors
            rows.append((kind, ratios, rss.peak, after, sent, flood_report.errors + quiet_report.errors,
                         flood_report.error_samples[:1] + quiet_report.error_samples[:1], os.getloadavg()[0]))  # fmt: skip
            print(f"{kind}: done, load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    where = f"scripts/serve.sh {a.serve}" if a.serve else "streamlit run server.py (the local pool)"
    print(f"flood --kinds: {where}; {os.cpu_count()} CPUs, {a.flooders} visitors of each kind, {a.duration:.0f} s "
          f"each phase, {a.students} quiet student(s) alone for as long right before each; server with its workers idle "
          f"{idle:.0f} MB (PSS)")  # fmt: skip
    print(f"| visitors each ... | /scores p90 | /next-token p90 | alone: /scores, /next-token p90 | memory peak "
          f"(server + workers, PSS) | {a.settle:.0f} s after they left, over idle | reruns | errors | load |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind, (rs, rn, s_ms, n_ms), peak, after, sent, errs, samples, load in rows:
        print(f"| {a.flooders} x {kind} | x{rs:.2f} | x{rn:.2f} | {s_ms:.0f}, {n_ms:.0f} ms | {peak:.0f} MB | "
              f"{after - idle:+.0f} MB | {sent} | {errs} {samples} | {load:.1f} |")  # fmt: skip
    load1 = os.getloadavg()
    print(f"load average (1, 5, 15 min): start {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"end {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} (a shared machine: compare ratios within one run)")  # fmt: skip
    return 1 if errors else 0


async def crowd(url: str, report: load_test.Report, n: int) -> None:
    async def one(sid: int) -> None:
        async with dial(url) as ws:
            v = Visitor(200 + sid, url, report, [])
            await v.open(ws, "next-token", "smollm2")
            for _ in range(3):
                await v.say(words(70))

    await asyncio.gather(*(one(i) for i in range(n)))


def summary(values: list[float]) -> dict[str, float]:
    return load_test.percentiles(values)


async def one_checkout(a: argparse.Namespace, root: Path, name: str) -> tuple[bool, int]:
    """The quiet student alone, then beside the flood, then the crowd, on a fresh server of `root`; prints the
    tables; returns (both ratio targets met, errors)."""
    port = warm_start.free_port()
    proc, _, _ = warm_start.start("server.py", port, Path(f"/tmp/flood_server_{name}.log"), root=root)
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    cpu0 = class_tail.cpu_seconds(proc.pid)
    try:
        warm = load_test.Report(1, 0)
        await quiet(url, warm, time.time() + 2, (0.1, 0.2))  # models loaded, pages compiled
        alone_report = load_test.Report(1, a.duration)
        alone = await quiet(url, alone_report, time.time() + a.duration, tuple(a.think), a.students)
        quiet_report = load_test.Report(1, a.duration)
        sampler = load_test.RssSampler(proc.pid)
        with sampler:
            async with Visitors(url, a.flooders, ["next"]) as visitors:
                await asyncio.sleep(a.head_start)  # the flood under way: each flooder has had its turns
                beside = await quiet(url, quiet_report, time.time() + a.duration, tuple(a.think), a.students)
                flood_report = await visitors.leave()
            sent = flood_report.reruns
        flood_peak = sampler.peak
        print(f"## {name}: {root}, server CPU {class_tail.cpu_seconds(proc.pid) - cpu0:.1f} s so far")
        met = print_flood(
            a, alone, beside, sent, flood_report, alone_report.errors + quiet_report.errors, flood_peak
        )
        errors = flood_report.errors + alone_report.errors + quiet_report.errors
        if a.crowd:
            crowd_report = load_test.Report(a.crowd, 0)
            load_test.RUN_TIMEOUT = 900.0  # the crowd's last sentence waits for every one before it
            t0 = time.perf_counter()
            with load_test.RssSampler(proc.pid) as crowd_sampler:
                await crowd(url, crowd_report, a.crowd)
            took = time.perf_counter() - t0
            errors += crowd_report.errors
            print(f"{a.crowd} sessions x 3 new 64-token SmolLM2 sentences at once: all answered in {took:.0f} s, "
                  f"peak RSS {crowd_sampler.peak:.0f} MB, {crowd_report.errors} errors (target 2 GB: "
                  f"{'met' if crowd_sampler.peak <= 2048 else 'not met'})")  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return met, errors


async def main_async(a: argparse.Namespace) -> int:
    sides = ([("before", Path(a.before).resolve())] if a.before else []) + [("after", ROOT)]
    load0 = os.getloadavg()
    results = [await one_checkout(a, root, name) for name, root in sides]
    load1 = os.getloadavg()
    print(f"load average (1, 5, 15 min): start {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"end {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")  # fmt: skip
    met, errors = results[-1]
    print(f"target: with {a.flooders} visitors flooding heavy work, the quiet student's /scores p90 <= 1.5x and "
          f"/next-token p90 <= 2x alone, no flooder error; this checkout: {'MET' if met and not errors else 'NOT MET'}")  # fmt: skip
    return 0 if met and not errors else 1


def print_flood(a, alone, beside, sent, flood_report, quiet_errors, peak) -> bool:  # noqa: ANN001
    print(f"flood: {os.uname().nodename}, {os.cpu_count()} CPUs, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', '-')}, {a.flooders} flooders, {a.duration:.0f} s each phase, "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print("| page | alone p50 / p90 / max ms | beside the flood p50 / p90 / max ms | p90 ratio | target |")
    print("|---|---:|---:|---:|---:|")
    met = True
    for page, limit in (("scores", 1.5), ("next-token", 2.0)):
        s, b = summary(alone[page]), summary(beside[page])
        ratio = b["p90"] / s["p90"]
        met = met and ratio <= limit
        print(f"| /{page} | {s['p50']:.0f} / {s['p90']:.0f} / {s['max']:.0f} | {b['p50']:.0f} / {b['p90']:.0f} / "
              f"{b['max']:.0f} | {ratio:.2f} | {'met' if ratio <= limit else 'not met'} (≤ {limit}) |")  # fmt: skip
    print(f"flooders: {sent} reruns, {flood_report.errors} errors {flood_report.error_samples[:2]}; quiet student: "
          f"{quiet_errors} errors; server peak RSS during the flood {peak:.0f} MB", flush=True)  # fmt: skip
    return met


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flooders", type=int, default=10)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--think", type=float, nargs=2, default=(1.0, 2.0))
    ap.add_argument("--students", type=int, default=1, choices=range(1, 41), metavar="1..40",
                    help="quiet students measured together (their times pooled)")  # fmt: skip
    ap.add_argument("--crowd", type=int, default=20, help="sessions of the memory scenario (0: none)")
    ap.add_argument("--before", help="another checkout (a git worktree) measured first, the same way")
    ap.add_argument(
        "--head-start", type=float, default=20.0, help="seconds of flood before the quiet student"
    )
    ap.add_argument(
        "--kinds", default="", help="induction,patching,lens,rank,upload,mix: one table of them (module doc)"
    )
    ap.add_argument("--serve", default="", help='with --kinds: through scripts/serve.sh with these options, '
                    'e.g. "--replicas 2 --workers 2" (Redis), instead of one server.py')  # fmt: skip
    ap.add_argument("--settle", type=float, default=30.0, help="with --kinds: seconds after the visitors left "
                    "before the memory is read again")  # fmt: skip
    ap.add_argument("--visitors-at", help=argparse.SUPPRESS)  # the visitors' own process (Visitors)
    a = ap.parse_args()
    if a.visitors_at:
        return asyncio.run(visitors_main(a))
    return asyncio.run(kinds_sides(a) if a.kinds else main_async(a))


if __name__ == "__main__":
    sys.exit(main())
