"""The house's figures: decision sites, import cycles, session state outside state/, long modules and functions,
README lines, benchmark entry points, fixed sleeps in tests, and the module graph floor by floor.

    python -m benchmarks house                    # this checkout
    python -m benchmarks house --at 65ed69e       # and another commit, beside it (a temporary git worktree)

Every figure is read from the source (nothing is imported from the tree measured), with this checkout's own
rules applied to every tree alike: the decision-site pattern of tests/app/model/test_layer.py, the floors,
import reader and cycle finder of tests/test_floors.py and its limits (modules over 450 lines, functions of 60
lines or more). The definitions of the others are in the functions below.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.app.model.test_layer import DECISION, IMPLEMENTATIONS  # noqa: E402 - after the path above
from tests.app.ui.test_state import state_lines  # noqa: E402
from tests.test_floors import (  # noqa: E402
    FLOORS,
    FUNCTION_LINES,
    MODULE_LINES,
    cycles,
    floor_of,
    graph,
)

SLEEPS = {"sleep", "wait_for_timeout"}  # time.sleep, asyncio.sleep, Playwright's page.wait_for_timeout


def code_of(line: str) -> str:
    return line.split("#")[0]


def app_sources(root: Path) -> list[Path]:
    """The app's code: the frame, the server, the pages, explorer/ and the engine."""
    files = [root / name for name in ("app.py", "server.py") if (root / name).exists()]
    return files + [
        p for d in ("app_pages", "explorer", "attention_core") for p in sorted((root / d).rglob("*.py"))
    ]


def decision_sites(root: Path) -> list[str]:
    """Lines outside the layer implementations that ask "toy or real?" (test_layer's DECISION pattern), read
    where that test reads them: app.py, explorer/ and the pages."""
    paths = [root / "app.py", *(root / "explorer").rglob("*.py"), *(root / "app_pages").glob("*.py")]
    return [
        f"{path.relative_to(root)}:{n}"
        for path in sorted(paths)
        if str(path.relative_to(root)) not in IMPLEMENTATIONS
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DECISION.search(code_of(line))
    ]


def long_parts(root: Path) -> tuple[list[str], list[str]]:
    """(modules over MODULE_LINES lines, functions of FUNCTION_LINES lines or more), as test_floors counts."""
    modules, functions = [], []
    for path in app_sources(root):
        text, name = path.read_text(encoding="utf-8"), str(path.relative_to(root))
        if len(text.splitlines()) > MODULE_LINES:
            modules.append(f"{name} ({len(text.splitlines())})")
        for node in ast.walk(ast.parse(text)):
            is_function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            if is_function and node.end_lineno - node.lineno >= FUNCTION_LINES:  # type: ignore[union-attr,operator]
                functions.append(f"{name}:{node.name} ({node.end_lineno - node.lineno + 1})")  # type: ignore[operator]
    return modules, functions


def fixed_sleeps(root: Path) -> list[str]:
    """Sleeps in tests/ outside any loop: a wait of a fixed length, not a poll's interval (a sleep inside a
    `while`/`for` waits between two looks at a signal)."""
    found = []
    for path in sorted((root / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))

        def visit(node: ast.AST, in_loop: bool, path: Path = path) -> Iterator[str]:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                    yield from visit(child, False)
                    continue
                call = isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute | ast.Name)
                name = (
                    (child.func.attr if isinstance(child.func, ast.Attribute) else child.func.id)
                    if call
                    else ""
                )  # type: ignore[union-attr]
                if name in SLEEPS and not in_loop:
                    yield f"{path.relative_to(root)}:{child.lineno}"  # type: ignore[attr-defined]
                yield from visit(child, in_loop or isinstance(child, ast.While | ast.For | ast.AsyncFor))

        found += visit(tree, False)
    return found


def benchmark_entry_points(root: Path) -> str:
    """One entry point (benchmarks/__main__.py) naming N benchmarks, or N scripts each run on its own."""
    scripts = [
        p
        for p in (root / "benchmarks").glob("*.py")
        if not p.name.startswith("_") and "__name__ ==" in p.read_text(encoding="utf-8")
    ]
    if (root / "benchmarks" / "__main__.py").exists():
        return f"1 (python -m benchmarks NAME, {len(scripts)} benchmarks)"
    return f"{len(scripts)} (a script each)"


def floors(root: Path) -> dict[str, object]:
    """The module graph by test_floors' reader: imports between floors, those running back up, cycles."""
    edges = graph(root)
    across = [
        e
        for e in edges
        if floor_of(e.source) and floor_of(e.target) and floor_of(e.source) != floor_of(e.target)
    ]
    up = [e for e in across if FLOORS.index(floor_of(e.target)) > FLOORS.index(floor_of(e.source))]  # type: ignore[arg-type]
    return {
        "edges": Counter((floor_of(e.source), floor_of(e.target)) for e in across),
        "across": len(across),
        "inner": sum(e.inner for e in across),
        "up": [f"{e.source} -> {e.target}" + (" (in a function)" if e.inner else "") for e in up],
        "cycles top": cycles([e for e in edges if not e.inner]),
        "cycles all": cycles(edges),
    }


def figures(root: Path) -> dict[str, object]:
    modules, functions = long_parts(root)
    graph_ = floors(root)
    return {
        "decision sites (toy or real?) outside the layer implementations": decision_sites(root),
        "import cycles (modules importing each other, at the top)": graph_["cycles top"],
        "import cycles, imports inside functions included": graph_["cycles all"],
        "imports running back up a floor": graph_["up"],
        "lines using st.session_state outside explorer/ui/state/": state_lines(root),
        f"modules over {MODULE_LINES} lines": modules,
        f"functions of {FUNCTION_LINES} lines or more": functions,
        "README lines": (root / "README.md").read_text(encoding="utf-8").count("\n"),
        "benchmark entry points": benchmark_entry_points(root),
        "fixed sleeps in tests (outside a polling loop)": fixed_sleeps(root),
        "_graph": graph_,
    }


@contextlib.contextmanager
def checkout(rev: str) -> Iterator[Path]:
    """`rev` in a temporary git worktree, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="house-") as tmp:
        where = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(where), rev], cwd=ROOT, check=True)
        try:
            yield where
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=ROOT, check=True)


def count(value: object) -> str:
    return str(len(value)) if isinstance(value, list) else str(value)


def report(named: dict[str, dict[str, object]], details: bool) -> None:
    names = list(named)
    rows = [k for k in next(iter(named.values())) if not k.startswith("_")]
    print("| figure | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for row in rows:
        print(f"| {row} | " + " | ".join(count(named[n][row]) for n in names) + " |")
    for name, got in named.items():
        g = got["_graph"]
        print(f"\n{name}: module graph, imports between floors {g['across']} ({g['inner']} inside functions)")
        edges = g["edges"]
        for (a, b), k in sorted(edges.items(), key=lambda e: (FLOORS.index(e[0][0]), FLOORS.index(e[0][1]))):
            print(f"  {a} -> {b}: {k}")
        for row in rows:
            if isinstance(got[row], list) and got[row] and (details or len(got[row]) <= 12):
                print(f"{name}: {row}:\n  " + "\n  ".join(map(str, got[row])))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--at", action="append", default=[], help="another commit to measure (repeatable)")
    ap.add_argument("--details", action="store_true", help="list every site, however many")
    args = ap.parse_args()
    named: dict[str, dict[str, object]] = {}
    for rev in args.at:
        short = subprocess.run(
            ["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        with checkout(rev) as tree:
            named[short] = figures(tree)
    named["this checkout"] = figures(ROOT)
    report(named, args.details)


if __name__ == "__main__":
    main()
