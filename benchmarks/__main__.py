"""The benchmarks' one entry point.

    python -m benchmarks list                  # every benchmark and what it measures
    python -m benchmarks NAME [its options]    # run one: benchmarks/NAME.py
    python -m benchmarks --no-save NAME ...    # the same, without writing a results file

A benchmark is a module of this folder with a `__main__` block (helpers start with "_"; the Streamlit apps
some benchmarks serve have no such block); its docstring's first line is what `list` prints. Adding one is
adding its file. Every run prints, before and after the benchmark's own output, the commit, the machine and
the load average (the machine is shared: figures are read beside it), and writes all of it to a dated
results file, benchmarks/results/<date>-<NAME>.md, which is committed when its figures are quoted.
"""

from __future__ import annotations

import ast
import contextlib
import datetime as dt
import io
import os
import platform
import resource
import runpy
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"


def benchmarks() -> dict[str, str]:
    """NAME -> the first line of its docstring, for every benchmark in this folder."""
    out = {}
    for path in sorted(HERE.glob("*.py")):
        if path.name.startswith("_"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(_is_main_block(node) for node in tree.body):
            out[path.stem] = (ast.get_docstring(tree) or "").strip().split("\n")[0]
    return out


def _is_main_block(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    )


def load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average unknown"


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + (
        " (with uncommitted changes)" if git("status", "--porcelain", "--untracked-files=no") else ""
    )


def machine() -> str:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    return f"{platform.machine()}, {cpus} CPUs, Python {platform.python_version()}"


def results_path(name: str, today: dt.date) -> Path:
    """benchmarks/results/<date>-<name>.md, or -2, -3 ... when that day already has one."""
    path, n = RESULTS / f"{today:%Y-%m-%d}-{name}.md", 1
    while path.exists():
        n += 1
        path = RESULTS / f"{today:%Y-%m-%d}-{name}-{n}.md"
    return path


class _Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, stream: io.TextIOBase, copy: io.StringIO) -> None:
        self.stream, self.copy = stream, copy

    def write(self, s: str) -> int:
        self.copy.write(s)
        return self.stream.write(s)

    def flush(self) -> None:
        self.stream.flush()

    def fileno(self) -> int:  # a child process started with the inherited stdout writes to the terminal
        return self.stream.fileno()

    def isatty(self) -> bool:
        return self.stream.isatty()


def run(name: str, args: list[str], save: bool = True) -> int:
    """Run benchmarks/<name>.py as `python benchmarks/<name>.py ARGS` would, framed by the commit, the
    machine, the load average and the time taken; saved as a dated results file unless save is False or
    the run failed."""
    path = HERE / f"{name}.py"
    command = " ".join(["python -m benchmarks", name, *args])
    copy = io.StringIO()
    started = dt.datetime.now(dt.UTC)
    head = [
        f"$ {command}",
        f"{started:%Y-%m-%d %H:%M} UTC, commit {commit()}, {machine()}",
        f"before: {load()}",
    ]
    print("\n".join(head), flush=True)
    wall, cpu = time.perf_counter(), _cpu_seconds()
    old_argv, old_path = sys.argv, list(sys.path)
    sys.argv = [str(path), *args]
    sys.path[:0] = [str(HERE), str(ROOT)]  # as a script: its own folder first (`from _common import ...`)
    code = 0
    try:
        with contextlib.redirect_stdout(_Tee(sys.stdout, copy)):
            runpy.run_path(str(path), run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code not in (None, 0) and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    finally:
        sys.argv, sys.path[:] = old_argv, old_path
    tail = (
        f"after: {load()}; {time.perf_counter() - wall:.1f} s wall, "
        f"{_cpu_seconds() - cpu:.1f} s CPU (this process and the children it waited for)"
    )
    print(tail)
    if save and code == 0 and not {"-h", "--help"} & set(args):
        RESULTS.mkdir(exist_ok=True)
        out = results_path(name, started.date())
        text = "\n".join(
            [f"# {name}", "", "```", *head, "```", "", copy.getvalue().rstrip(), "", "```", tail, "```"]
        )
        out.write_text(text + "\n", encoding="utf-8")
        print(f"results: {out.relative_to(ROOT)}")
    return code


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv: list[str]) -> int:
    save = "--no-save" not in argv[:1]
    argv = argv[1:] if not save else argv
    known = benchmarks()
    if not argv or argv[0] in {"-h", "--help"}:
        print(__doc__)
        return 0 if argv else 2
    if argv[0] == "list":
        width = max(map(len, known))
        print("\n".join(f"{name:<{width}}  {what}" for name, what in known.items()))
        return 0
    if argv[0] not in known:
        print(f"no benchmark {argv[0]!r}: `python -m benchmarks list` names them", file=sys.stderr)
        return 2
    return run(argv[0], argv[1:], save)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
