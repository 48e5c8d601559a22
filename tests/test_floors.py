"""The app's floors, read from its source (ast; nothing is imported): data flows one way, from the engine up
to the pages, and only the ui floor and above talk to Streamlit.

Floors, bottom to top: the engine (attention_core, every sub-package included), cache, i18n, model, compute,
lessons, sharing, views, export, ui, pages (app.py, server.py, app_pages/). Checked on every import, at the
top of a module or inside a function: nothing below ui/ imports streamlit; no import runs back up a floor;
no two modules import each other, directly or through others; no module over 450 lines, no function of
60 lines or more. `python -m benchmarks module_graph` prints
the same graph with its counts (edges per pair of floors, modules over 450 lines).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOORS = (
    "attention_core",
    "cache",
    "i18n",
    "model",
    "compute",
    "lessons",
    "sharing",
    "views",
    "export",
    "ui",
    "pages",
)
TOP = frozenset({"app", "server"})  # the frame and the server, on the pages' floor


@dataclass(frozen=True)
class Import:
    source: str  # the importing module (dotted)
    target: str  # the module imported (dotted; `from a.b import c` gives a.b.c when c is a module, else a.b)
    inner: bool  # inside a function (run when it is called)


def floor_of(module: str) -> str | None:
    """The floor of a dotted module name of the app, or None for a module outside it (or explorer itself)."""
    parts = module.split(".")
    if parts[0] == "attention_core":
        return "attention_core"
    if parts[0] == "app_pages" or module in TOP:
        return "pages"
    if parts[0] != "explorer" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in FLOORS else None


def app_files(root: Path = ROOT) -> list[Path]:
    files = [root / f"{name}.py" for name in sorted(TOP) if (root / f"{name}.py").exists()]
    for package in ("attention_core", "explorer", "app_pages"):
        files += sorted((root / package).rglob("*.py"))
    return files


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(tree: ast.AST, module: str, is_package: bool, known: set[str]) -> Iterator[Import]:
    """Every import in a module's tree, resolved to a module of `known` where it names one."""

    def resolve(name: str) -> str:
        return name if name in known or name.rsplit(".", 1)[0] not in known else name.rsplit(".", 1)[0]

    def visit(node: ast.AST, inner: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            in_function = inner or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:  # relative: from the module's own package
                    package = module.split(".") if is_package else module.split(".")[:-1]
                    base = ".".join([*package[: len(package) - child.level + 1], *filter(None, [base])])
                for alias in child.names:
                    yield Import(module, resolve(f"{base}.{alias.name}"), in_function)
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(module, alias.name, in_function)
            yield from visit(child, in_function)

    yield from visit(tree, False)


def graph(root: Path = ROOT) -> list[Import]:
    """Every import of every module of the app."""
    files = app_files(root)
    known = {module_name(root, p) for p in files}
    out: list[Import] = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        out += imports_of(tree, module_name(root, path), path.name == "__init__.py", known)
    return out


def cycles(edges: list[Import]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted: modules that import
    each other, directly or through others. A package's own __init__ re-exporting its modules is not a
    cycle of the code (a module importing its own package's name reads what __init__ put there)."""
    succ: dict[str, set[str]] = {}
    for e in edges:
        if floor_of(e.target) is None and not e.target.startswith(("explorer", "attention_core")):
            continue
        if e.target == e.source or e.source.startswith(e.target + ".") or e.target.startswith(e.source + "."):
            continue  # a package and its own modules
        succ.setdefault(e.source, set()).add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def strongconnect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ.get(v, ()):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(succ):
        if v not in index:
            strongconnect(v)
    return found


EDGES = graph()


def test_the_graph_reads_every_floor() -> None:
    """The reader finds the app: every floor has modules, and the imports between them run downwards."""
    floors = {floor_of(e.source) for e in EDGES}
    assert floors >= set(FLOORS), set(FLOORS) - floors
    assert any(floor_of(e.source) == "pages" and floor_of(e.target) == "ui" for e in EDGES)


def test_nothing_below_ui_imports_streamlit() -> None:
    below = set(FLOORS[: FLOORS.index("ui")])
    found = [
        f"{e.source} imports {e.target}" + (" (in a function)" if e.inner else "")
        for e in EDGES
        if floor_of(e.source) in below and e.target.split(".")[0] == "streamlit"
    ]
    assert found == []


def test_no_import_runs_back_up_a_floor() -> None:
    up = [
        f"{e.source} ({floor_of(e.source)}) imports {e.target} ({floor_of(e.target)})"
        + (" in a function" if e.inner else "")
        for e in EDGES
        if floor_of(e.source)
        and floor_of(e.target)
        and FLOORS.index(floor_of(e.target)) > FLOORS.index(floor_of(e.source))
    ]
    assert up == []


def test_no_import_cycles() -> None:
    """Not even between imports made inside functions (a hidden cycle)."""
    assert cycles([e for e in EDGES if not e.inner]) == []
    assert cycles(EDGES) == []


def test_a_cycle_and_an_upward_import_are_found() -> None:
    """The checks can fail: a made-up pair of modules importing each other, one of them up a floor."""
    made_up = [
        Import("explorer.model.a", "explorer.views.b", False),
        Import("explorer.views.b", "explorer.model.a", True),
    ]
    assert cycles(made_up) == [["explorer.model.a", "explorer.views.b"]]
    assert [
        e for e in made_up if FLOORS.index(floor_of(e.target)) > FLOORS.index(floor_of(e.source))
    ] == made_up[:1]


# A module is one concern and a function one step: past these a file wants to be a package, a function two.
MODULE_LINES = 450
FUNCTION_LINES = 60


def _sources() -> list[Path]:
    dirs = ("attention_core", "explorer", "app_pages")
    return [p for d in dirs for p in sorted((ROOT / d).rglob("*.py"))] + [ROOT / "app.py", ROOT / "server.py"]


def long_parts(paths: list[Path]) -> tuple[list[str], list[str]]:
    """(modules over MODULE_LINES lines, functions of FUNCTION_LINES lines or more), as 'path' / 'path:name'."""
    modules, functions = [], []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
        if len(text.splitlines()) > MODULE_LINES:
            modules.append(name)
        for node in ast.walk(ast.parse(text)):
            is_function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            if is_function and node.end_lineno - node.lineno >= FUNCTION_LINES:  # type: ignore[union-attr,operator]
                functions.append(f"{name}:{node.name}")  # type: ignore[union-attr]
    return modules, functions


def test_no_module_and_no_function_outgrows_one_concern() -> None:
    assert long_parts(_sources()) == ([], [])


def test_a_long_module_and_a_long_function_are_found(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES))
    made_up = tmp_path / "made_up.py"
    made_up.write_text(f"def long():\n{body}\n" + "\n" * MODULE_LINES, encoding="utf-8")
    assert long_parts([made_up]) == (["made_up.py"], ["made_up.py:long"])
