"""Waits said truthfully: a slow step's cost is said from what this server measured (else from the
development machine's figures, said as such), scaled to the work asked; never "a few seconds" for 20 to 50.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.compute import timing

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def fresh() -> None:
    for recent in timing._RECENT.values():
        recent.clear()


def test_before_any_run_the_prior_is_said_as_the_development_machines() -> None:
    lo, hi, measured = timing.estimate("patching", 570)
    assert not measured and lo == pytest.approx(570 * 0.04) and hi == pytest.approx(570 * 0.09)
    said = timing.words("patching", 570)
    assert said.startswith("25 s to 50 s") and "2-core" in said


def test_after_runs_here_the_measured_range_scaled_to_the_work() -> None:
    timing.record("ranking", 10.0, 1000)  # 0.01 s a unit here
    lo, hi, measured = timing.estimate("ranking", 3000)
    assert measured and lo == hi == pytest.approx(30.0)
    assert timing.words("ranking", 3000) == "about 30 s (as measured on this server lately)"
    for s in (0.01, 0.01, 0.01, 0.5):  # one slow run among fast ones: the range reaches it (the last)
        timing.record("ranking", s * 100, 100)
    assert timing.estimate("ranking", 100)[1] == pytest.approx(50.0)
    timing.record("ranking", 0.0, 100)  # nothing measured: ignored
    with pytest.raises(ValueError, match="unknown kind"):
        timing.record("nap", 1.0, 1)


@pytest.mark.parametrize(
    ("seconds", "said"),
    [(0.2, "1 s"), (8.4, "8 s"), (22, "20 s"), (47, "45 s"), (61, "1 min"), (131, "2 min 10 s")],
)
def test_durations_read_as_a_person_says_them(seconds: float, said: str) -> None:
    assert timing.duration(seconds) == said


def test_no_page_promises_a_few_seconds() -> None:
    vague = re.compile(r"few seconds|a moment\b", re.I)
    for path in [*(ROOT / "app_pages").glob("*.py"), *(ROOT / "explorer" / "ui").rglob("*.py")]:
        strings = re.findall(r"\"[^\"\n]*\"", path.read_text(encoding="utf-8"))
        assert not [s for s in strings if vague.search(s)], path


def test_induction_says_its_wait_and_measures_its_own_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """/induction's first open says what the run costs (never a blank wait), from the development machine's
    figures until this server has run one, then from its own run (a result handed back at once is no run)."""
    from explorer.compute import interp

    assert "on a busy 2-core machine" in timing.words("induction", 100)
    calls = iter([0.0, 0.6])  # a finished job's result, then a run of 0.6 s
    monkeypatch.setattr(interp.models, "model", lambda key: None)
    monkeypatch.setattr(interp.model_compute, "run_cost", lambda key, text: 1.0)

    def call(job: object) -> str:
        took = next(calls)
        clock[0] += took
        return "the run"

    clock = [100.0]
    monkeypatch.setattr(interp.jobs, "call", call)
    monkeypatch.setattr(interp.time, "monotonic", lambda: clock[0])
    run = interp.induction.__wrapped__  # the function under its cache
    assert run("smollm2", 1, 4) == "the run"
    assert not timing.estimate("induction", 8)[2]  # at once: nothing measured
    assert run("smollm2", 2, 4) == "the run"
    lo, hi, measured = timing.estimate("induction", 8)
    assert measured and lo == hi == pytest.approx(0.6)  # 0.6 s for 8 tokens, said for 8
    assert "as measured on this server lately" in timing.words("induction", 100)
    page = (ROOT / "app_pages" / "induction.py").read_text(encoding="utf-8")
    assert 'timing.words("induction", 2 * n)' in page  # the page's wait is said from it
