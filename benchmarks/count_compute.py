"""How often one rerun tokenizes the sentence and runs the pipeline, page by page (issue 12).

Counts calls of attention_core.tokenize and of explorer.pipeline.run (the uncached run) while AppTest runs
app.py on each page: the first run (empty caches) and a rerun with nothing changed. Run from the repository
root: .venv/bin/python benchmarks/count_compute.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

import attention_core as ac  # noqa: E402
from explorer import pipeline  # noqa: E402

PAGES = ("sentence", "positional-encoding", "projections", "scores", "heads", "token", "encoder", "why-scale")
COUNTS = {"tokenize": 0, "pipeline.run": 0}


def _counting(name: str, fn):  # noqa: ANN001, ANN202
    def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        COUNTS[name] += 1
        return fn(*args, **kwargs)

    return wrapper


ac.tokenize = _counting("tokenize", ac.tokenize)
pipeline.run = _counting("pipeline.run", pipeline.run)


def counted(at: AppTest) -> tuple[int, int]:
    for k in COUNTS:
        COUNTS[k] = 0
    at.run()
    assert not at.exception, at.exception
    return COUNTS["tokenize"], COUNTS["pipeline.run"]


def main() -> None:
    """Per page: a rerun after a new sentence is typed (nothing cached), then a rerun with nothing changed."""
    print(f"{'page':22} {'new sentence':>18} {'nothing changed':>18}")
    print(f"{'':22} {'tokenize  pipeline':>18} {'tokenize  pipeline':>18}")
    for i, name in enumerate(PAGES):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
        if name != "sentence":
            at.switch_page(f"pages/{name}.py").run()
        at.text_input(key="sentence").set_value(f"A new sentence number {i} for the count")
        typed = counted(at)
        again = counted(at)
        print(f"{name:22} {typed[0]:>8} {typed[1]:>9} {again[0]:>8} {again[1]:>9}")
    # A preset whose panel compares the example with its other mask (lessons): opened by its link.
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["preset"] = "causal-vs-bidirectional"
    first = counted(at)
    again = counted(at)
    print(f"{'?preset=causal-vs-bi…':22} {first[0]:>8} {first[1]:>9} {again[0]:>8} {again[1]:>9}")


if __name__ == "__main__":
    main()
