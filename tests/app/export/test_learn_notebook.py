"""/learn's notebook trains the same model as the engine: its cells, run here, give the engine's parameters
after the same steps from the same seed (to float64 rounding), and import nothing of the app."""

from __future__ import annotations

import contextlib
import io

import numpy as np

from attention_core import training as tr
from explorer.export import learn_notebook
from explorer.model import learning

STEPS = 5


def test_the_notebook_trains_the_engines_model() -> None:
    nb = learn_notebook.notebook("https://example.org/learn")
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert not any("attention_core" in src or "explorer" in src for src in code)  # plain numpy only
    scope: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(code[0], scope)  # noqa: S102 - our own notebook's code
        scope[learn_notebook.STEPS_NAME] = STEPS
        for src in code[1:]:
            exec(src, scope)  # noqa: S102
    r = learning.Recipe()
    expected: dict = {}
    learning.train_steps(r, tr.init(r.cfg, r.seed), STEPS, lambda s: expected.update(s.params))
    for name, arr in expected.items():
        np.testing.assert_allclose(scope["params"][name], arr, rtol=1e-9, atol=1e-12, err_msg=name)
    induction, previous = tr.head_scores(r.cfg, expected, learning.measuring_sets(r)[0])
    np.testing.assert_allclose(scope["induction"], induction, rtol=1e-9)
    np.testing.assert_allclose(scope["previous"], previous, rtol=1e-9)
    assert "induction score with it off:" in out.getvalue()
    assert "https://example.org/learn" in nb.cells[0].source
