"""Picking an example pair on /patching or /minimal-pairs puts its sentence in place of the student's on every
page: never silently. The page says which sentence it replaced, and Undo brings it back."""

from __future__ import annotations

import pytest

from explorer.model import pairs as pairs_model
from explorer.model import patching as patching_model
from explorer.ui import state
from tests.app.fixtures import need, open_page

MINE = "My own sentence about a cat"


@pytest.mark.parametrize(
    ("url_path", "button", "first"),
    [
        ("patching", f"patching.pair.{patching_model.PAIRS[1].name}", patching_model.PAIRS[1].clean),
        ("minimal-pairs", f"pairs.example.{pairs_model.PAIRS[0].name}", pairs_model.PAIRS[0].first),
    ],
)
def test_an_example_says_whose_sentence_it_replaced_and_undo_brings_it_back(
    url_path: str, button: str, first: str
) -> None:
    need("smollm2" if url_path == "patching" else "minilm")
    at = open_page(url_path, via_app=True, state={state.K_SENTENCE: MINE})
    at.button(key=button).click().run()
    assert not at.exception, at.exception
    assert at.session_state[state.K_SENTENCE] == first
    said = " ".join(m.value for m in at.info).replace("\\", "")
    assert f"(it was “{MINE}”)" in said and "Undo" in said
    at.sidebar.button(key="frame.undo").click().run()
    assert at.session_state[state.K_SENTENCE] == MINE
    at.button(key=button).click().run()  # the same example again: nothing to replace, nothing said twice
    at.button(key=button).click().run()
    assert sum("(it was" in m.value for m in at.info) == 0
