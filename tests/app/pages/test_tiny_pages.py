"""The tiny trained model on the explorer's steps: the sidebar's Model choice opens a layer, the first steps
say whether the weights on screen are random, and every step draws the trained model's own numbers."""

from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

from attention_core import training as tr
from explorer.model import tiny
from explorer.ui import layer_choice
from tests.app import fixtures

SENTENCE = "The cat sat on the mat because the cat was warm."
STEPS = ("sentence", "positional-encoding", "projections", "scores", "heads", "token", "encoder")


def text(at: AppTest) -> str:
    return (
        " ".join(m.value for m in [*at.markdown, *at.caption, *at.info])
        .replace("\\", "")
        .replace("\u2060", "")
    )


def test_the_model_choice_opens_a_trained_layer_and_every_step_draws_it(kit) -> None:  # noqa: ANN001
    at = fixtures.open_app(SENTENCE)
    assert "These weights are random" in text(at)  # the toy's first step says so, and offers the trained
    assert {"weights-note.l1", "weights-note.l2"} <= {b.key for b in at.button}
    at.sidebar.selectbox(key=layer_choice.WIDGET).set_value("tiny:1").run()
    assert not at.exception, at.exception
    assert "These weights are random" not in text(at) and "Trained model:" in text(at)
    ids = [int(v) for v in at.dataframe[0].value.loc["token id"]]
    assert ids == tiny.token_ids_of(tiny.tokens_of(SENTENCE)[0]) and ids[1] == ids[8]  # "cat" twice
    t = tiny.trained()
    ref = tr.run(t.cfg, t.params, np.array(ids)).attentions[0, 1]  # training's forward: layer 2
    for step in STEPS:
        fixtures.go(at, f"app_pages/{step}.py")
        assert not at.exception, (step, at.exception)
        if step == "scores":
            head = at.session_state["ui.head"]
            assert head == tiny.lead_head(1)  # opened on the head whose role is clearest
            w = np.nan_to_num(kit.z(kit.charts(at)["scores.weights"]))  # the masked future is drawn grey
            np.testing.assert_allclose(w, ref[head], atol=1e-9)
    # Predict, then reveal: the question names the head's rule; the answer says what the rule names
    at.session_state["ui.ask"] = 8  # the second "cat"
    fixtures.go(at, "app_pages/scores.py")
    assert "is an induction head: it learned to find an earlier copy of “cat”" in text(at)
    next(b for b in at.button if b.key == "reveal").click().run()
    answer = " ".join(s.value for s in at.success)
    assert "The rule names “sat”" in answer, answer  # the word after the earlier "cat"
    fixtures.go(at, "app_pages/sentence.py")
    at.sidebar.selectbox(key=layer_choice.WIDGET).set_value("toy:0").run()
    assert not at.exception and "These weights are random" in text(at)  # back to the toy


def test_a_lesson_link_opens_the_induction_head_with_its_question() -> None:
    """What a lesson's step writes (explorer.lessons.routes: a share link's parameters)."""
    head = tiny.lead_head(1)
    link = {"real": "tiny", "real_layer": "1", "sentence": SENTENCE, "h": str(head + 1), "ask": "8"}
    at = fixtures.opened_from_link(link, "app_pages/scores.py")
    assert not at.exception, at.exception
    assert at.session_state["ui.head"] == head and at.session_state["explorer.real"] == "tiny"
    assert f"Head {head + 1} is an induction head" in text(at)


def test_a_long_sentence_is_cut_at_the_models_context_and_says_so() -> None:
    at = fixtures.open_app("one two three four five six seven eight nine ten " * 4)  # 40 tokens
    at.sidebar.selectbox(key=layer_choice.WIDGET).set_value("tiny:0").run()
    assert not at.exception, at.exception
    said = " ".join(w.value for w in at.warning)
    assert "more than 32 tokens: the explorer uses the first 32" in said, said
    tables = [d.value for d in at.dataframe if "token id" in d.value.index]  # 12 positions a table
    assert sum(len(t.columns) for t in tables) == 32
