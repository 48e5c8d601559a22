"""The whole shipped run of /learn reproduced from its seed, bit for bit, with BLAS on one thread and on two
(several minutes: `pytest -m load tests/load/test_learn_run_full.py`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
from explorer.model import learning
from tests.app.model.test_learn_run import assert_reproduces
shipped = learning.load()
assert_reproduces(shipped, learning.train_run(shipped.recipe), len(shipped.checkpoints))
print("reproduced")
"""


@pytest.mark.load
@pytest.mark.parametrize("threads", ["1", "2"])
def test_the_whole_run_reproduces_bit_for_bit(threads: str) -> None:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": threads, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("reproduced")
