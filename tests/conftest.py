"""Shared test set-up: the repository root on sys.path, so `attention_core`, `explorer` and the page
scripts import the same way under pytest, pytest-xdist workers and AppTest."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Pages under test (AppTest, the browser suite's servers) run their heavy work in the asking thread: each
# xdist worker would otherwise start its own worker processes. The pool itself runs in the tests that ask
# for `job_pool` (tests/core/test_jobs.py and the pages' jobs), one per test process.
os.environ.setdefault("ATTENTION_EXPLORER_JOBS", "inline")


@pytest.fixture(scope="session")
def shared_pool() -> Iterator[object]:
    """One local pool of worker processes (one worker and the short lane) for the whole test process."""
    from explorer.compute.jobs import local

    os.environ.setdefault("ATTENTION_EXPLORER_WORKER_WARM", "0")  # models load at the first job needing them
    pool = local.LocalPool(1)
    yield pool
    pool.close()


@pytest.fixture
def job_pool(shared_pool: object) -> Iterator[object]:
    """The shared pool, used by jobs.call for the test's duration."""
    from explorer.compute import jobs

    before = jobs.use(shared_pool)  # type: ignore[arg-type]
    yield shared_pool
    jobs.use(before)
