"""The shipped run of /learn is what training from its seed gives, bit for bit: its first checkpoints here
(fast), every checkpoint under `pytest -m load tests/load/test_learn_run_full.py`."""

from __future__ import annotations

import numpy as np

from attention_core import training as tr
from explorer.model import learning

PREFIX = 2  # checkpoints reproduced here: steps 0 .. checkpoints[PREFIX] (50 steps, about 2 s)


def assert_reproduces(shipped: learning.LearnRun, again: learning.LearnRun, count: int) -> None:
    """The first `count` checkpoints and every step up to the last of them, bit for bit."""
    last = int(shipped.checkpoints[count - 1])
    np.testing.assert_array_equal(again.checkpoints[:count], shipped.checkpoints[:count])
    assert again.digests[:count] == shipped.digests[:count]  # the float64 parameters themselves
    for name, arr in shipped.params.items():
        np.testing.assert_array_equal(again.params[name][:count], arr[:count])
    np.testing.assert_array_equal(again.loss[:last], shipped.loss[:last])
    for field in ("repeat_loss", "induction", "previous"):
        np.testing.assert_array_equal(getattr(again, field)[: last + 1], getattr(shipped, field)[: last + 1])


def test_the_shipped_file_holds_the_recipes_run() -> None:
    run = learning.load()
    r = run.recipe
    assert r == learning.Recipe()  # the file was made by the recipe in the code
    assert run.loss.shape == (r.steps,) and run.repeat_loss.shape == (r.steps + 1,)
    assert run.induction.shape == run.previous.shape == (r.steps + 1, r.cfg.n_layers, r.cfg.n_heads)
    assert tuple(run.checkpoints) == r.checkpoints and len(run.digests) == len(r.checkpoints)
    for name, shape in tr.param_shapes(r.cfg).items():
        assert run.params[name].shape == (len(r.checkpoints), *shape) and run.params[name].dtype == np.float16
    assert learning.RUN_FILE.stat().st_size < 4_000_000


def test_training_from_the_seed_reproduces_the_first_checkpoints_bit_for_bit() -> None:
    shipped = learning.load()
    again = learning.train_run(shipped.recipe, until=int(shipped.checkpoints[PREFIX]))
    assert_reproduces(shipped, again, PREFIX + 1)


def test_the_shipped_run_reaches_its_targets_measured_again_on_its_last_checkpoint() -> None:
    run = learning.load()
    previous, induction, loss = learning.final_figures(run)  # recomputed from the kept float16 parameters
    want_previous, want_induction, want_loss = learning.TARGETS
    assert previous >= want_previous and induction >= want_induction and loss <= want_loss
    # the kept float16 parameters give what the float64 ones measured after the last step
    assert abs(previous - run.previous[-1, 0].max()) < 0.01
    assert abs(induction - run.induction[-1, 1].max()) < 0.01
    assert abs(loss - run.repeat_loss[-1]) < 0.01
