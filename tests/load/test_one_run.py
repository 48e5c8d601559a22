"""One script at a time per session, whatever Streamlit's settings: a visitor who sends a rerun every 50 ms
of a real model's new sentence to a server started with `--runner.fastReruns=true` (Streamlit's default, which starts a new script thread
for each rerun while the old one still runs) gets no second script thread and no error."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.app.fixtures import need
from tests.load.harness import WORDS, Report, Session, start_server, stop_server
from tests.load.test_load import free_port

FLOOD_S = 3.0
EVERY_S = 0.05


def script_threads(pid: int) -> int:
    """The server's threads that run scripts: every thread is named for the OS as it starts, a script thread
    renamed as its last run ends (explorer.ui.patches.script_threads_named), so that a script thread only
    cleaning up before it exits and the others (the event loop's helpers, a spinner's timer a script run
    started) are not counted."""
    n = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(FileNotFoundError):  # a thread that ended meanwhile
            n += Path(f"/proc/{pid}/task/{task}/comm").read_text().startswith("ScriptRunner")
    return n


async def flood(url: str, pid: int) -> tuple[int, int, list[str], int]:
    """(script threads before, most script threads during, errors seen, reruns finished)."""
    report = Report(sessions=1, duration_s=FLOOD_S)
    s = Session(0, url, report, [])
    errors: list[str] = []
    async with s.connect() as ws:
        s.ws = ws
        query = "model=smollm2&sentence=the+cat+sat"
        await s.rerun(page_name="", query=query, check=False)
        s.page_hash = s.pages["next-token"]  # a real model's run: seconds between two elements of a run
        await s.rerun(query=query, check=False)
        before = script_threads(pid)
        most, finished, done = before, 0, asyncio.Event()

        async def read() -> None:
            nonlocal finished
            while not done.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), 30)
                except TimeoutError:
                    errors.append("no message for 30 s")
                    return
                fm = ForwardMsg()
                fm.ParseFromString(raw)
                kind = fm.WhichOneof("type")
                if kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                    el = fm.delta.new_element
                    if el.WhichOneof("type") == "exception":
                        errors.append(f"{el.exception.type}: {el.exception.message[:200]}")
                elif kind == "script_finished" and fm.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY:
                    finished += 1
                    if last.is_set():
                        done.set()

        last = asyncio.Event()
        reader = asyncio.create_task(read())
        end, k = time.monotonic() + FLOOD_S, 0
        while not last.is_set():
            k += 1
            msg = BackMsg()
            msg.rerun_script.page_script_hash = s.page_hash
            sentence = s.widget("sentence", string_value=" ".join(random.choices(WORDS, k=40)))
            msg.rerun_script.widget_states.widgets.append(sentence)
            if time.monotonic() >= end:
                last.set()  # the last rerun: read until a run finishes after it
            await ws.send(msg.SerializeToString())
            for _ in range(5):  # the thread count, several times between two reruns
                most = max(most, script_threads(pid))
                await asyncio.sleep(EVERY_S / 5)
        await asyncio.wait_for(reader, 60)
    return before, most, errors, finished


def test_reruns_every_50_ms_run_one_script_at_a_time(tmp_path: Path) -> None:
    need("smollm2")
    port, log = free_port(8652), tmp_path / "server.log"
    env = dict(os.environ, ATTENTION_EXPLORER_JOBS="inline")  # each run in its script thread: the worst case
    proc = start_server(port, 30, log, extra=("--runner.fastReruns=true",), env=env)
    try:
        url = f"ws://127.0.0.1:{port}/_stcore/stream"
        with ThreadPoolExecutor(max_workers=1) as pool:
            before, most, errors, finished = pool.submit(asyncio.run, flood(url, proc.pid)).result()
    finally:
        logged = stop_server(proc, log)
    assert errors == [] and "Traceback" not in logged, (errors, logged[-2000:])
    assert finished >= 1
    # One script thread at a time (and, for the instant between taking its last request and renaming itself,
    # the one that has just ended): with fastReruns as asked for on the command line, 10 to 19 ran at once.
    assert before <= 1 and 1 <= most <= 2, f"{most} script threads at once while reruns came every 50 ms"
