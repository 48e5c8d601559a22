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

# One BLAS thread per process, set before numpy is first imported (the xdist workers and the servers the
# browser tests start inherit it): the two test workers, an app server and Chromium already share the CPUs,
# and OpenBLAS's extra threads spin while they wait for a core, so a SmolLM2 run costs several times the CPU
# with two threads as with one. The job pool's workers use one thread each too (explorer.compute.jobs.local).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# Pages under test (AppTest, the browser suite's servers) run their heavy work in the asking thread: each
# xdist worker would otherwise start its own worker processes. The pool itself runs in the tests that ask
# for `job_pool` (tests/core/test_jobs.py and the pages' jobs), one per test process.
os.environ.setdefault("ATTENTION_EXPLORER_JOBS", "inline")


def _scan_components_once() -> None:
    """Every AppTest scans the installed packages' metadata for Streamlit components before its first run
    (streamlit.components.v2.manifest_scanner): about 0.24 s of CPU each time, half of a typical page test.
    The packages do not change while the tests run, so each test process scans them once."""
    import functools

    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    once = functools.cache(lambda: tuple(scan()))
    manifest_scanner.scan_component_manifests = lambda max_workers=None: list(once())


_scan_components_once()


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


# The order `pytest -n 2 --dist worksteal` (scripts/test.sh) deals out: each worker gets half of it, and a
# worker that runs out takes the back half of what the other has left. The first half starts with the browser
# tests on the shared app server (tests/e2e/conftest.py: one server and one Chromium in that worker), then the
# AppTests that run the real models longest. The second half starts with the tests that start servers of
# their own (the load tests, the replicas, a fresh server, the downloaded files): the longest after the shared
# server's, they run at the start there, beside the browser tests, instead of being taken over at the end.
# Both halves end in short engine and AppTest cases, so what a worker takes over at the end is short and
# needs no server of its own, and the two finish together. The order inside each group is unchanged.
FIRST = (
    "tests/e2e/",
    "tests/load/",
    "tests/app/export/",
    "tests/app/pages/",
    "tests/app/views/test_colour_ranges.py",
)


def own_servers(item) -> bool:  # noqa: ANN001 - a pytest Item
    """A load test, or a browser test that does not use the shared app server."""
    path = item.path.relative_to(ROOT).as_posix()
    return path.startswith("tests/load/") or (
        path.startswith("tests/e2e/") and "server" not in item.fixturenames
    )


@pytest.hookimpl(trylast=True)  # after `-m` has deselected: the halves are of what runs
def pytest_collection_modifyitems(items: list) -> None:
    def rank(item) -> int:  # noqa: ANN001 - a pytest Item
        path = item.path.relative_to(ROOT).as_posix()
        return next((i for i, prefix in enumerate(FIRST) if path.startswith(prefix)), len(FIRST))

    items.sort(key=rank)
    own = [item for item in items if own_servers(item)]
    shared = [item for item in items if not own_servers(item)]
    half = len(items) // 2
    items[:] = shared[:half] + own + shared[half:]
