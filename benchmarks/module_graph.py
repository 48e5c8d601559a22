"""The app's module graph, floor by floor: which floor imports which, the arrows that run back up, cycles.

Reads the source as tests/test_floors.py does (the same reader: that test fails on an arrow up, an import
cycle or streamlit below ui/); this prints the counts: the imports between each pair of floors, those hidden
inside functions, modules that import each other, and the modules over 450 lines.

Usage: python -m benchmarks module_graph [--root /path/to/checkout] [--edges]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_floors import FLOORS, app_files, cycles, floor_of, graph  # noqa: E402

LIMIT = 450


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=ROOT)
    ap.add_argument("--edges", action="store_true", help="print every floor-to-floor edge with its count")
    args = ap.parse_args()
    root = args.root.resolve()
    edges = graph(root)
    across = [
        e
        for e in edges
        if floor_of(e.source) and floor_of(e.target) and floor_of(e.source) != floor_of(e.target)
    ]
    up = [e for e in across if FLOORS.index(floor_of(e.target)) > FLOORS.index(floor_of(e.source))]
    lengths = {str(p.relative_to(root)): p.read_text(encoding="utf-8").count("\n") for p in app_files(root)}
    long = sorted(((p, n) for p, n in lengths.items() if n > LIMIT), key=lambda x: -x[1])
    print(f"checkout: {root}")
    print(
        f"modules: {len(lengths)}; over {LIMIT} lines: {len(long)}: "
        + ", ".join(f"{p} ({n})" for p, n in long)
    )
    print(f"imports across floors: {len(across)}, inside functions: {sum(e.inner for e in across)}")
    print(f"imports running back up a floor: {len(up)}")
    for e in up:
        print(f"  {e.source} -> {e.target}" + (" (in a function)" if e.inner else ""))
    print(f"modules importing each other at their top: {cycles([e for e in edges if not e.inner])}")
    print(f"... or inside functions too: {cycles(edges)}")
    if args.edges:
        counts = Counter((floor_of(e.source), floor_of(e.target)) for e in across)
        for (a, b), k in sorted(counts.items(), key=lambda e: (FLOORS.index(e[0][0]), FLOORS.index(e[0][1]))):
            print(f"  {a} -> {b}: {k}")


if __name__ == "__main__":
    main()
