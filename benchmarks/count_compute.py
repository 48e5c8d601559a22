"""How often one rerun tokenizes the sentence and runs the pipeline, page by page (issue 12).

Counts calls of attention_core.tokenize and of explorer.compute.pipeline.run (the uncached run) while AppTest runs
app.py on each page: the first run (empty caches) and a rerun with nothing changed. Run from the repository
root: .venv/bin/python benchmarks/count_compute.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import save  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import attention_core as ac  # noqa: E402
from explorer.compute import pipeline  # noqa: E402

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
    lines = [
        "Tokenize calls and pipeline runs in one rerun of app.py (AppTest)",
        "",
        "| page | new sentence: tokenize | new sentence: pipeline.run | unchanged: tokenize | unchanged: pipeline.run |",
        "|---|---:|---:|---:|---:|",
    ]
    data = {}
    for i, name in enumerate(PAGES):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
        if name != "sentence":
            at.switch_page(f"app_pages/{name}.py").run()
        at.text_input(key="sentence").set_value(f"A new sentence number {i} for the count")
        typed, again = counted(at), counted(at)
        data[name] = {"new_sentence": typed, "unchanged": again}
        lines.append(f"| {name} | {typed[0]} | {typed[1]} | {again[0]} | {again[1]} |")
    # A preset whose panel compares the example with its other mask (a lesson): opened by its link.
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["preset"] = "causal-vs-bidirectional"
    first, again = counted(at), counted(at)
    data["preset causal-vs-bidirectional"] = {"first_open": first, "unchanged": again}
    lines.append(
        f"| ?preset=causal-vs-bidirectional (first open) | {first[0]} | {first[1]} | {again[0]} | {again[1]} |"
    )
    save("count_compute.md", "\n".join(lines), data)


if __name__ == "__main__":
    main()
