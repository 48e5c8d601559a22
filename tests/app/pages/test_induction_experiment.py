"""/induction's experiment in one button: switch the induction heads off and the copy fails. The heads
switched off (on /ablation, by a link's off= or by the button) are honoured on /induction when it shows their
model; the loss chart then draws the second copy with them off beside it with every head on, and links to
/ablation with the same heads off.
"""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_allclose

from explorer.compute import interp
from explorer.model import models
from explorer.ui import state
from tests.app.fixtures import array_of, model_page, need


def second_copy(trace: dict, name: str) -> np.ndarray:
    (line,) = [t for t in trace["data"] if t["name"] == name]
    return array_of(line["y"])


def test_the_button_switches_the_induction_heads_off_and_the_copy_fails(kit) -> None:  # noqa: ANN001
    need("smollm2")
    at = model_page("induction", "toy")
    heads = tuple(map(tuple, np.argwhere(interp.standard_induction("smollm2") >= models.INDUCTION_THRESHOLD)))
    assert heads and at.session_state[state.K_OFF] == ()
    before = kit.charts(at)["induction.loss"]
    assert [t["name"] for t in before["data"]] == ["first copy", "second copy"]
    at.button(key="induction.switch_off").click().run()
    assert not at.exception, at.exception
    assert at.session_state[state.K_MODEL] == "smollm2" and at.session_state[state.K_OFF] == heads
    after = kit.charts(at)["induction.loss"]
    on = second_copy(after, "second copy, every head on")
    assert_allclose(on, second_copy(before, "second copy"), rtol=1e-6)  # the dashed line: the run before
    off = second_copy(after, "second copy, heads off")
    assert off.mean() > on.mean() + 1.0, (off.mean(), on.mean())  # the copy fails: a nat and more lost
    assert f"**See the {len(heads)} heads switched off on Switch heads off**" in [
        m.value for m in at.markdown
    ]
    at.button(key="induction.switch_on").click().run()
    assert at.session_state[state.K_OFF] == () and "every head on" not in str(
        kit.charts(at)["induction.loss"]
    )


def test_heads_switched_off_on_another_model_do_not_touch_it(kit) -> None:  # noqa: ANN001
    need("smollm2")
    at = model_page(
        "induction", "minilm", **{state.K_OFF: ((0, 0),)}
    )  # MiniLM's head: /induction is SmolLM2's
    assert [t["name"] for t in kit.charts(at)["induction.loss"]["data"]] == ["first copy", "second copy"]
