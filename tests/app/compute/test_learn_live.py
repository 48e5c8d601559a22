""" "Train it yourself": a visitor's run reports what it has so far, is the shipped recipe's training with the
visitor's settings, stops when asked, and refuses settings past its bounds with a message that says them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from attention_core import training as tr
from explorer.compute import jobs
from explorer.compute import learn_live as ll
from explorer.model import learning


def test_a_run_reports_its_curves_so_far_and_ends_with_the_whole_run() -> None:
    recipe = learning.live_recipe(3, 1e-2, 2, learning.LIVE_STEPS[0])
    recipe = replace(recipe, steps=25)  # short: the bounds are the job's, checked below
    seen: list[tuple[float, str, ll.LiveRun]] = []
    progress = jobs.Progress(lambda share, message, part: seen.append((share, message, part)))
    run = ll.train_live(recipe, progress)
    assert [p.measured.tolist() for _, _, p in seen] == [[0], [0, 10], [0, 10, 20], [0, 10, 20, 25]]
    assert jobs.words([m for _, m, _ in seen][-1]) == "Training: step 25 of 25" and seen[-1][0] == 1.0
    assert [p.taken for _, _, p in seen] == [0, 10, 20, 25] and not any(p.finished for _, _, p in seen)
    assert run.finished and run.taken == 25 and run.induction.shape == run.previous.shape == (4, 2, 2)
    for _, _, part in seen:  # each report is the beginning of the whole run
        np.testing.assert_array_equal(part.loss, run.loss[: part.taken])
        np.testing.assert_array_equal(part.induction, run.induction[: part.measured.size])
    # the same training as the shipped run's code, step for step (the batch losses, bit for bit)
    kept = learning.train_run(replace(recipe, checkpoints=(0, 10, 20, 25)))
    np.testing.assert_array_equal(run.loss, kept.loss.astype(np.float32))
    np.testing.assert_array_equal(run.induction, kept.induction[[0, 10, 20, 25]].astype(np.float32))
    np.testing.assert_array_equal(run.repeat_loss, kept.repeat_loss[[0, 10, 20, 25]].astype(np.float32))


def test_a_run_stops_at_its_next_report_once_nobody_waits() -> None:
    recipe = replace(learning.live_recipe(0, 5e-3, 4, learning.LIVE_STEPS[0]), steps=200)
    reports: list[int] = []

    def send(share: float, message: str, part: ll.LiveRun) -> None:
        reports.append(part.taken)

    with pytest.raises(jobs.Stopped):
        ll.train_live(recipe, jobs.Progress(send, stop=lambda: len(reports) >= 3))
    assert reports == [0, 10, 20]


def test_the_phase_change_is_the_first_measured_step_an_induction_head_forms() -> None:
    run = ll.train_live(replace(learning.live_recipe(0, 5e-3, 1, learning.LIVE_STEPS[0]), steps=10))
    induction = np.zeros((4, 2, 1), dtype=np.float32)
    formed = replace(run, measured=np.array([0, 10, 20, 30]), induction=induction)
    assert formed.formed_at is None
    induction[2:, 1, 0] = [0.5, 0.9]
    assert formed.formed_at == 20
    induction[1, 0, 0] = 0.99  # a layer-1 head does not count
    assert formed.formed_at == 20


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((-1, 5e-3, 4, 1000), "seed must be a whole number from 0 to 99,999"),
        ((100_000, 5e-3, 4, 1000), "seed must be a whole number from 0 to 99,999"),
        ((1.5, 5e-3, 4, 1000), "seed must be a whole number"),
        ((0, 0.5, 4, 1000), "learning rate must be one of 0.001, 0.002, 0.003, 0.005, 0.01, 0.02"),
        ((0, 5e-3, 3, 1000), "heads per layer must be one of 1, 2, 4, 8"),
        ((0, 5e-3, 4, 10**9), "training steps must be one of 500, 1000, 1500, 2000"),
    ],
)
def test_settings_past_the_bounds_are_refused_with_the_allowed_values(args: tuple, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        learning.live_recipe(*args)
    with pytest.raises(ValueError, match=said):  # the job itself checks them: a link's values reach it
        ll.train_job(*args, progress=jobs.Progress())


def test_the_job_is_keyed_by_its_settings_and_costs_its_steps() -> None:
    a, b = ll.job(1, 5e-3, 4, 1000), ll.job(1, 5e-3, 4, 1000)
    assert a.key == b.key and ll.job(2, 5e-3, 4, 1000).key != a.key  # one link's students join one run
    assert a.cost == pytest.approx(1000 * ll.STEP_S) and not a.short
    live = learning.live_recipe(1, 5e-3, 8, 1000)
    assert live.cfg == tr.TinyConfig(n_heads=8, n_ctx=learning.Recipe().cfg.n_ctx)
    r = learning.Recipe()
    assert (live.min_len, live.short_share, live.decay, live.score_len) == (
        r.min_len,
        r.short_share,
        r.decay,
        16,
    )


def test_the_clickers_tour_of_the_shipped_run_stops_at_its_moments_in_order() -> None:
    from explorer.compute import learning as lc

    steps = [int(s) for s in lc.shipped().checkpoints]
    m = lc.moments()
    stops = lc.tour(steps, m)
    assert stops == sorted(set(stops)) and set(stops) <= set(steps)
    assert stops[0] == 0 and stops[-1] == steps[-1]
    for moment in (m.previous_step, m.induction_step, m.drop_step):  # the checkpoint nearest each moment
        assert min(steps, key=lambda s, at=moment: abs(s - at)) in stops
    assert lc.neighbour(stops, stops[1], later=True) == stops[2]
    assert lc.neighbour(stops, stops[1] + 1, later=False) == stops[1]  # from between two stops
    assert lc.neighbour(stops, stops[-1], later=True) is None and lc.neighbour(stops, 0, later=False) is None
