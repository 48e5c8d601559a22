"""One indicator of the model on screen, always true: the line above the sentence names the model each page
shows, whatever was picked (the toy picked, /model shows MiniLM; SmolLM2 picked, /heads shows the toy model;
/induction shows SmolLM2 and /minimal-pairs MiniLM whichever is picked), and on a page of Real model its
picker changes the model that page shows. The sidebar holds no second model choice that could contradict it.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from explorer.model import models
from explorer.ui import model_ui, page_table, state
from tests.app import fixtures
from tests.app.fixtures import need


def opened(url_path: str, model: str) -> AppTest:
    at = AppTest.from_file(str(fixtures.ROOT / "app.py"), default_timeout=fixtures.TIMEOUT)
    at.session_state[state.K_MODEL] = model
    at.switch_page(page_table.by_path(url_path).script)
    at.run()
    assert not at.exception, at.exception
    return at


def bar_says(at: AppTest) -> str:
    """The model the bar names: its picker's choice, or the bold words of its line."""
    pickers = [w for w in at.main.button_group if w.key == model_ui.BAR_PICKER]
    if pickers:
        return models.MODELS[pickers[0].value].title
    lines = [m.value for m in at.main.markdown if m.value.startswith("Model on this page: **")]
    assert len(lines) == 1, [m.value for m in at.main.markdown][:5]
    return lines[0].split("**")[1]


@pytest.mark.parametrize(
    ("url_path", "model", "shows"),
    [
        ("heads", "smollm2", None),  # the explorer's pages: the toy model, whatever is picked
        ("model", "toy", "minilm"),
        ("model", "smollm2", "smollm2"),
        ("induction", "minilm", "smollm2"),
        ("minimal-pairs", "smollm2", "minilm"),
        ("next-token", "toy", "smollm2"),
    ],
)
def test_the_bar_names_the_model_the_page_shows(url_path: str, model: str, shows: str | None) -> None:
    if shows is not None:
        need(shows)
    at = opened(url_path, model)
    if shows is None:
        assert bar_says(at) == "the toy model"
        return
    assert bar_says(at) == models.MODELS[shows].title
    # The page ran that model: its caption describes it, and no other model.
    captions = " ".join(c.value for c in at.main.caption)
    assert models.MODELS[shows].about in captions
    other = next(k for k in ("minilm", "smollm2") if k != shows)
    assert models.MODELS[other].about not in captions


def test_the_bars_picker_changes_the_model_of_the_page_and_the_sidebar_has_no_other() -> None:
    need("minilm")
    need("smollm2")
    at = opened("model", "toy")
    assert not [w for w in at.sidebar.radio if w.label == "Model"]  # no second choice, below the fold
    picker = at.main.button_group(key=model_ui.BAR_PICKER)
    assert picker.value == "minilm"
    picker.set_value("smollm2").run()
    assert not at.exception, at.exception
    assert at.session_state[state.K_MODEL] == "smollm2" and bar_says(at) == models.MODELS["smollm2"].title
    assert models.MODELS["smollm2"].about in " ".join(c.value for c in at.main.caption)
    sizes = " ".join(m.value for m in at.sidebar.markdown)
    assert "576" in sizes  # the sidebar's sizes are SmolLM2's (d_model 576), the model on screen


def test_the_sidebars_sizes_follow_a_page_that_needs_a_decoder() -> None:
    need("smollm2")
    at = opened("induction", "minilm")
    sizes = " ".join(m.value for m in at.sidebar.markdown)
    assert "576" in sizes and "384" not in sizes


def test_induction_which_runs_random_tokens_shows_no_sentence_box() -> None:
    need("smollm2")
    boxes = lambda at: [w for w in at.main.text_input if w.key == state.K_SENTENCE]  # noqa: E731
    assert boxes(opened("induction", "toy")) == []  # the box would change nothing there
    assert len(boxes(opened("heads", "toy"))) == 1
    # /learn draws a model trained on random tokens: no sentence either
    assert all(p.sentence for p in page_table.listed() if p.url_path not in ("induction", "learn"))
