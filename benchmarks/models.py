"""Benchmark of the real models (attention_core.pretrained): load time, a full traced run, resident memory.

Prints, for each model, measured in a fresh Python process each (a load is once per process):
  - load s: pretrained.load(name) from the installed package (wall, and in brackets the CPU time of the
    process: on a busy machine the CPU time is the steadier figure);
  - run ms: the median of m.run(text) with the results cache cleared before each call (a full trace:
    every layer's every intermediate), MiniLM on a 64-token text, SmolLM2 on a 32-token prompt; wall (CPU);
    best ms: the fastest run, wall (CPU): on a busy machine the closest to what a quiet one gives;
  - where the run's CPU time goes: the matrix products (every x W), the activations (GELU / SwiGLU),
    everything else (norms, attention's element-wise steps, RoPE, stacking the trace);
  - trace MB: the memory one result holds (what the byte-bounded results cache counts).
Each model is measured with numpy's BLAS on every CPU (the default) and on one (OPENBLAS_NUM_THREADS=1): on a
machine shared with other work, BLAS threads that wait for a core cost more than they gain.

Then the memory of a real server: `streamlit run` on a one-page script that loads both models and runs each
once, one session opened over Streamlit's WebSocket protocol, and the server's resident memory (VmRSS after
the run, VmHWM its peak) read from /proc/<pid>/status.

Targets: MiniLM load <= 1 s and a 64-token run <= 60 ms; SmolLM2 load <= 5 s and a 32-token run
<= 500 ms; the server with both loaded and run once <= 1 GiB resident.

Usage: .venv/bin/python -m benchmarks models [--runs 7] [--skip-server]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, WORDS, load, save  # noqa: E402

MODELS = [("all-MiniLM-L6-v2", 64, 1.0, 60.0), ("SmolLM2-135M", 32, 5.0, 500.0)]  # name, tokens, targets

# One model in a fresh process: prints a JSON line.
CHILD = """
import json, statistics, sys, time
sys.path.insert(0, {root!r})
c0, w0 = time.process_time(), time.perf_counter()
from attention_core import pretrained
from attention_core import activations, encoder
from attention_core.transformer import layer as transformer_layer_module, stack as transformer_stack
m = pretrained.load({name!r})
load_wall, load_cpu = time.perf_counter() - w0, time.process_time() - c0
words = {words!r}
k = {n}  # a text of n tokens: words are cut until the tokenizer gives at most n
while len(m.tokenize(" ".join(words[i % len(words)] for i in range(k)))[1]) > {n}:
    k -= 1
text = " ".join(words[i % len(words)] for i in range(k))
spent = {{"matmul": 0.0, "activation": 0.0}}
def timed(fn, key):
    def wrapper(*a, **kw):
        t = time.process_time()
        try:
            return fn(*a, **kw)
        finally:
            spent[key] += time.process_time() - t
    return wrapper
encoder._linear = timed(encoder._linear, "matmul")
transformer_layer_module._linear = transformer_stack._linear = encoder._linear
for name in ("_gelu", "_silu"):
    setattr(encoder, name, timed(getattr(encoder, name), "activation"))
m.run(text); m.run(text + " x")  # warm-up
walls, cpus = [], []
for _ in range({runs}):
    pretrained.clear_cache()
    spent["matmul"] = spent["activation"] = 0.0
    c, w = time.process_time(), time.perf_counter()
    t = m.run(text)
    walls.append(time.perf_counter() - w); cpus.append(time.process_time() - c)
info = pretrained.cache_info()
print(json.dumps({{
    "tokens": t.n_tokens, "load_s": load_wall, "load_cpu_s": load_cpu,
    "run_ms": 1e3 * statistics.median(walls), "run_best_ms": 1e3 * min(walls), "run_cpu_ms": 1e3 * statistics.median(cpus), "run_best_cpu_ms": 1e3 * min(cpus),
    "matmul_ms": 1e3 * spent["matmul"], "activation_ms": 1e3 * spent["activation"],
    "trace_mb": info["bytes"] / 2**20, "weights_mb": m.nbytes / 2**20,
}}))
"""

SERVER_PAGE = """
import sys
sys.path.insert(0, {root!r})
import streamlit as st
from attention_core import pretrained
for name in ("all-MiniLM-L6-v2", "SmolLM2-135M"):
    t = pretrained.load(name).run("The capital of France is a city where the cat sat on the mat.")
    st.write(name, t.n_tokens)
"""


def measure(name: str, n: int, runs: int, one_thread: bool) -> dict:
    env = dict(os.environ)
    if one_thread:
        env["OPENBLAS_NUM_THREADS"] = "1"
    code = CHILD.format(root=str(ROOT), name=name, n=n, runs=runs, words=WORDS)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900)
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


async def _one_session(port: int) -> None:
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from websockets.asyncio.client import connect

    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    async with connect(url, subprotocols=["streamlit"], origin=f"http://127.0.0.1:{port}", max_size=None,
                       open_timeout=60, ping_interval=None) as ws:  # fmt: skip
        msg = BackMsg()
        msg.rerun_script.query_string = ""
        msg.rerun_script.page_script_hash = ""
        await ws.send(msg.SerializeToString())
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(await asyncio.wait_for(ws.recv(), 600))
            if fm.WhichOneof("type") == "script_finished":
                if fm.script_finished != ForwardMsg.FINISHED_SUCCESSFULLY:
                    raise RuntimeError(f"the page finished with status {fm.script_finished}")
                return


def server_memory(port: int) -> dict:
    """Resident memory of `streamlit run` after one session loaded both models and ran each once."""
    import load_test

    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "models_page.py"
        page.write_text(textwrap.dedent(SERVER_PAGE.format(root=str(ROOT))), encoding="utf-8")
        log = Path(tmp) / "server.log"
        cmd = [sys.executable, "-m", "streamlit", "run", str(page), "--server.headless=true",
               f"--server.port={port}", "--server.fileWatcherType=none", "--browser.gatherUsageStats=false"]  # fmt: skip
        with log.open("wb") as out:
            proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_health(port, proc, log)
            before = load_test.rss_mb(proc.pid)
            t0 = time.perf_counter()
            asyncio.run(_one_session(port))
            first = time.perf_counter() - t0
            return {"rss_idle_mb": before, "rss_mb": load_test.rss_mb(proc.pid),
                    "peak_mb": load_test.rss_mb(proc.pid, "VmHWM"), "first_page_s": first}  # fmt: skip
        finally:
            load_test.stop_server(proc, log)


def _wait_health(port: int, proc: subprocess.Popen, log: Path) -> None:
    import urllib.request

    deadline = time.time() + 90
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(log.read_text(errors="replace")[-2000:])
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("the server did not answer /_stcore/health")


def report(rows: list[tuple[str, str, dict]], server: dict | None) -> str:
    lines = [
        f"Real models (attention_core.pretrained), {load()}, {os.cpu_count()} CPUs",
        "",
        "| model | BLAS threads | tokens | load s (CPU) | run ms (CPU) | best ms (CPU) | matmul ms | activation ms "
        "| trace MB | weights MB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, threads, r in rows:
        lines.append(
            f"| {name} | {threads} | {r['tokens']} | {r['load_s']:.2f} ({r['load_cpu_s']:.2f}) "
            f"| {r['run_ms']:.0f} ({r['run_cpu_ms']:.0f}) | {r['run_best_ms']:.0f} ({r['run_best_cpu_ms']:.0f}) "
            f"| {r['matmul_ms']:.0f} "
            f"| {r['activation_ms']:.0f} | {r['trace_mb']:.1f} | {r['weights_mb']:.0f} |"
        )
    lines.append("")
    lines.append(
        "matmul / activation ms: CPU time of the last run spent in the matrix products / the activations."
    )
    if server:
        lines.append(
            f"Streamlit server, both models loaded and run once: resident {server['rss_mb']:.0f} MB "
            f"(peak {server['peak_mb']:.0f} MB; {server['rss_idle_mb']:.0f} MB before the first session; "
            f"first page {server['first_page_s']:.1f} s)"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--skip-server", action="store_true")
    parser.add_argument("--port", type=int, default=8631)
    args = parser.parse_args()
    rows = []
    for name, n, _, _ in MODELS:
        for one in (False, True):
            rows.append((name, "1" if one else "all", measure(name, n, args.runs, one)))
            print(rows[-1], flush=True)
    server = None if args.skip_server else server_memory(args.port)
    data = {"rows": [{"model": a, "threads": b, **r} for a, b, r in rows], "server": server, "load": load()}
    save("models.md", report(rows, server), data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
