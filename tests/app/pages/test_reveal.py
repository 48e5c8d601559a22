"""Predict, then reveal: a question hides the weights of one query until Reveal; the link
carries the question, so a teacher prepares them before class; bad values get a message."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl

from explorer.lessons import PRESETS
from explorer.sharing import url as links
from tests.app.fixtures import chart_ids, open_at, open_share

ROOT = Path(__file__).resolve().parents[3]
IT = 7  # "The animal didn't cross the street because it was too tired": token 7 is "it"


def test_a_question_in_the_link_hides_the_weights_until_reveal() -> None:
    at = open_at(preset="pronoun", ask=str(IT), step="softmax", present="1")
    assert "scores.weights" not in chart_ids(at)
    assert [s.value for s in at.subheader if s.value.startswith("Predict")] == [
        "Predict: which word will “it” attend to most?"
    ]
    assert at.selectbox(key="ui.ask").value == IT
    at.button(key="reveal").click().run()
    assert not at.exception, at.exception
    assert "scores.weights" in chart_ids(at)
    (answer,) = [s.value for s in at.success if s.value.startswith("Answer")]
    assert answer.startswith("Answer: “it” attends most to “animal” (weight ")
    assert not [s for s in at.subheader if s.value.startswith("Predict")]
    at.run()  # it stays revealed on the next run
    assert "scores.weights" in chart_ids(at)


def test_the_teacher_asks_from_the_sidebar_and_the_share_link_carries_the_question() -> None:
    at = open_at(preset="pronoun")
    assert at.selectbox(key="ui.ask").value == -1
    assert "scores.weights" in chart_ids(at)
    at.selectbox(key="ui.ask").set_value(IT).run()
    assert "scores.weights" not in chart_ids(at)
    link = next(c.value for c in open_share(at).code if "sentence=" in c.value)
    assert link.endswith(f"&ask={IT}")
    at.button(key="reveal").click().run()
    assert "scores.weights" in chart_ids(at)
    at.selectbox(key="ui.ask").set_value(3).run()  # a new question: hidden again
    assert "scores.weights" not in chart_ids(at)
    assert any(s.value == "Predict: which word will “cross” attend to most?" for s in at.subheader)
    at.selectbox(key="ui.ask").set_value(-1).run()
    assert "scores.weights" in chart_ids(at) and not any(s.value.startswith("Predict") for s in at.subheader)


def test_a_bad_question_in_a_link_gets_a_message_and_no_question() -> None:
    for bad in ("x", "-1", "64", "9" * 300):
        at = open_at(preset="pronoun", ask=bad)
        assert at.selectbox(key="ui.ask").value == -1
        assert any("takes a token's number, 0 to 63" in w.value for w in at.warning), bad  # (escaped "=")
        assert "scores.weights" in chart_ids(at)


def test_a_question_past_the_last_token_is_dropped() -> None:
    at = open_at(sentence="a b c", ask="20")
    assert at.selectbox(key="ui.ask").value == -1 and "scores.weights" in chart_ids(at)


def test_the_link_round_trip_of_a_question() -> None:
    ex = PRESETS["pronoun"].build()
    url = links.make_url("http://h/scores", ex, ask=IT)
    got = links.read(dict(parse_qsl(url.split("?", 1)[1])), ex)
    assert got.ask == IT and not got.messages
    assert "&ask=" not in links.make_url("http://h/scores", ex)
