"""Shared test set-up: the repository root on sys.path, so `attention_core`, `explorer` and the page
scripts import the same way under pytest, pytest-xdist workers and AppTest."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# Run first: the browser tests and the short load test, then the AppTests that run the real models longest. With `pytest -n 2` the
# long tests then overlap each other, and the last minute is spent on short engine tests on both workers,
# not on one long browser test while the other worker waits. The order inside each group is unchanged.
FIRST = (
    "tests/e2e/",
    "tests/load/",
    "tests/app/export/",
    "tests/app/pages/",
    "tests/app/views/test_colour_ranges.py",
)


def pytest_collection_modifyitems(items: list) -> None:
    def rank(item) -> int:  # noqa: ANN001 - a pytest Item
        path = item.path.relative_to(ROOT).as_posix()
        return next((i for i, prefix in enumerate(FIRST) if path.startswith(prefix)), len(FIRST))

    items.sort(key=rank)
