"""A quiet student beside visitors who each use one heavy page (benchmarks/flood.py --kinds), for a minute and
more: marked `load`, run by hand on a quiet machine (`pytest -m load tests/load/test_flood.py`). Passing: no
error in any session, and the quiet student's /scores p90 within 1.5x and /next-token p90 within 2x of the same
student alone in the same run, beside each kind; the server with its workers under 2 GB, and within 200 MB of
its idle memory 30 s after the visitors left."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import flood  # noqa: E402 - the benchmark, found through the path above


@pytest.mark.load
def test_a_quiet_student_beside_each_kind_of_heavy_visitor(capsys: pytest.CaptureFixture[str]) -> None:
    a = argparse.Namespace(kinds="induction,patching,lens,rank,upload,mix", flooders=20, duration=20.0,
                           think=(1.0, 2.0), head_start=10.0, serve="", settle=30.0, students=1)  # fmt: skip
    assert asyncio.run(flood.kinds_run(a)) == 0, "errors in the sessions"
    table = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 20 x ")]
    assert len(table) == 6
    for line in table:
        cells = [c.strip() for c in line.strip("|").split("|")]
        scores, next_token = float(cells[1].lstrip("x")), float(cells[2].lstrip("x"))
        peak, after = float(cells[4].split()[0]), float(cells[5].split()[0])
        assert scores <= 1.5 and next_token <= 2.0, line
        assert peak < 2048 and after <= 200, line  # MB: the whole server, and 30 s after the visitors left
