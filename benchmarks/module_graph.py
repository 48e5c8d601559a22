"""The app's module graph, floor by floor: which floor imports which, the arrows that run back up, the
imports hidden inside functions, and the modules over 450 lines. Reads the source (ast), runs nothing.

Floors, bottom to top: the engine (attention_core), cache, model, compute, lessons, sharing, views, export,
ui, pages. A module of a checkout from before explorer was grouped into sub-packages is put on the floor its
module went to (MOVED), so two checkouts are measured the same way.

Usage: .venv/bin/python benchmarks/module_graph.py [--root /path/to/checkout] [--edges]
"""

from __future__ import annotations

import argparse
import ast
from collections import Counter
from pathlib import Path

FLOORS = (
    "attention_core",
    "cache",
    "model",
    "compute",
    "lessons",
    "sharing",
    "views",
    "export",
    "ui",
    "pages",
)
# Where each module of the flat layout went (explorer/<name>.py -> explorer/<floor>/...).
MOVED = {
    "example": "model", "settings_table": "model", "seeding": "model", "defaults": "model", "arrays": "model",
    "bridge": "model", "models": "model", "pipeline": "compute", "compute": "compute",
    "model_compute": "compute", "figures": "views", "model_figures": "views", "formulas": "views",
    "text": "views", "state": "ui", "frame": "ui", "ui": "ui", "editors": "ui", "grid_guard": "ui",
    "present": "ui", "clicker": "ui", "chart": "ui", "boot": "ui", "model_ui": "ui", "preset_ui": "ui",
    "export_ui": "ui", "page_table": "ui", "cache": "cache", "sharing.panel": "ui",
}  # fmt: skip
LIMIT = 450


def floor_of(module: str) -> str | None:
    """The floor of a dotted module name (explorer.x.y, attention_core.x, app_pages.x), or None."""
    parts = module.split(".")
    if parts[0] == "attention_core":
        return "attention_core"
    if parts[0] in ("app_pages", "pages", "app"):
        return "pages"
    if parts[0] != "explorer" or len(parts) < 2:
        return None
    if ".".join(parts[1:3]) in MOVED:
        return MOVED[".".join(parts[1:3])]
    if parts[1] in FLOORS:
        return parts[1]
    return MOVED.get(parts[1])


def module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports(tree: ast.AST, module: str) -> list[tuple[str, bool]]:
    """(imported module, inside a function) for every import of the explorer or the engine."""
    out: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.ImportFrom) and child.module:
                base = child.module
                if child.level:  # relative: from the module's package
                    pkg = module.split(".")[: -child.level] if not module.endswith("__init__") else module
                    base = ".".join([*pkg, child.module])
                for alias in child.names:
                    out.append((f"{base}.{alias.name}", inner))
            elif isinstance(child, ast.Import):
                out.extend((alias.name, inner) for alias in child.names)
            visit(child, inner)

    visit(tree, False)
    return out


def measure(root: Path) -> dict[str, object]:
    files = [
        *root.glob("app.py"),
        *(root / "explorer").rglob("*.py"),
        *(root / "attention_core").rglob("*.py"),
    ]
    files += [*(root / "app_pages").glob("*.py"), *(root / "pages").glob("*.py")]
    edges: Counter[tuple[str, str]] = Counter()
    up: list[str] = []
    local = 0
    long: list[tuple[str, int]] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        n_lines = text.count("\n")
        name = module_name(root, path)
        if n_lines > LIMIT:
            long.append((str(path.relative_to(root)), n_lines))
        src = floor_of(name)
        if src is None:
            continue
        for target, inner in imports(ast.parse(text), name):
            dst = floor_of(target)
            if dst is None or dst == src:
                continue
            local += inner and target.startswith("explorer")
            edges[(src, dst)] += 1
            if FLOORS.index(dst) > FLOORS.index(src):
                up.append(f"{name} -> {target}")
    return {"edges": edges, "up": up, "local": local, "long": sorted(long, key=lambda x: -x[1])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--edges", action="store_true", help="print every floor-to-floor edge with its count")
    args = ap.parse_args()
    m = measure(args.root.resolve())
    print(f"checkout: {args.root}")
    print(f"modules over {LIMIT} lines: {len(m['long'])}: " + ", ".join(f"{p} ({n})" for p, n in m["long"]))
    print(f"imports running back up a floor: {len(m['up'])}")
    for line in m["up"]:
        print(f"  {line}")
    print(f"explorer imports inside functions (across floors): {m['local']}")
    if args.edges:
        for (a, b), k in sorted(
            m["edges"].items(), key=lambda e: (FLOORS.index(e[0][0]), FLOORS.index(e[0][1]))
        ):
            print(f"  {a} -> {b}: {k}")


if __name__ == "__main__":
    main()
