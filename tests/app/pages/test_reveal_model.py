"""Predict, then reveal on the real-model pages: ask=next hides /next-token's next words until
Reveal, ask=heads hides /ablation's "which heads matter" ranking; the link and the address bar carry them; a
new sentence asks again; bad values get a message."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from attention_core import analysis
from explorer.compute import interp, model_compute
from explorer.model import example as exm
from explorer.sharing import url as links
from explorer.ui import questions, state
from explorer.ui.state import keys
from explorer.views import chart_specs as charts
from tests.app.fixtures import CAPITAL, chart_ids, need, open_at, page

ROOT = Path(__file__).resolve().parents[3]


def test_ask_next_hides_the_next_words_until_reveal_and_a_new_sentence_asks_again() -> None:
    need("smollm2")
    at = open_at("next-token", model="smollm2", sentence=CAPITAL, ask="next", present="1")
    assert "next.bars" not in chart_ids(at)
    assert not [b for b in at.button if b.key and b.key.startswith("next.add.")]  # the buttons show it too
    assert [s.value for s in at.subheader if s.value.startswith("Predict")] == [
        "Predict: which word comes next after “The capital of France is”?"
    ]
    assert at.query_params["ask"] == "next"  # the address bar keeps the question
    at.button(key="reveal").click().run()
    assert "next.bars" in chart_ids(at)
    _, strings, probs = model_compute.next_tokens("smollm2", CAPITAL, 1.0)
    assert strings[0] == " Paris"
    assert at.success[0].value == f"Answer: “␣Paris”, with probability {probs[0]:.2f} (T = 1)."
    next(b for b in at.button if b.key == "next.add.0").click().run()  # add " Paris": a new sentence
    assert "next.bars" not in chart_ids(at)  # asked again, for the longer sentence
    assert at.session_state[state.K_SENTENCE] == CAPITAL + " Paris"


def test_ask_heads_hides_the_ranking_until_reveal() -> None:
    need("minilm")
    text = "The cat sat."
    at = page(
        "ablation", "minilm", text, **{state.K_ASK_HEADS: True}
    )  # the page alone: AppTest clicks it there
    at.button(key="ablation.rank").click().run()
    assert not at.exception, at.exception
    assert "ablation.ranking" not in chart_ids(at)
    assert [s.value for s in at.subheader if s.value.startswith("Predict")] == [
        "Predict: which head, switched off alone, changes the output most?"
    ]
    at.button(key="reveal").click().run()
    assert "ablation.ranking" in chart_ids(at)
    done = at.session_state[keys._RANKINGS][
        ("minilm", text)
    ]  # the ranking the page ran, kept for the session
    layer, head, effect = analysis.ranked(np.asarray(done.head_effects))[0]
    assert at.success[0].value == (
        f"Answer: layer {layer + 1}, head {head + 1}: removing it alone changes the output most "
        f"(effect {effect:.4f})."
    )


def test_the_share_link_carries_the_questions_and_bad_values_get_a_message() -> None:
    ex = exm.conform(state.Example())
    assert links.make_url("http://h/next-token", ex, ask="next").endswith("&ask=next")
    got = links.read({"ask": "7,next,heads"}, ex)
    assert got.ask == 7 and got.ask_model == ("next", "heads") and got.messages == []
    bad = links.read({"ask": "nxt"}, ex)
    assert bad.ask is None and bad.ask_model is None
    assert (
        "(ask=) takes a token's number, 0 to 63, and next, heads, induction, lens or prev"
        in bad.messages[0][1]
    )


def test_ask_induction_hides_the_scores_until_reveal_and_the_answer_is_the_engines_best_head() -> None:
    need("smollm2")
    at = open_at("induction", model="smollm2", ask="induction", present="1")
    shown = set(chart_ids(at))
    assert not shown & {charts.INDUCTION_SCORES.key, charts.INDUCTION_PATTERN.key}
    assert "induction.head" not in [s.key for s in at.selectbox]  # its labels carry the scores
    assert [s.value for s in at.subheader if s.value.startswith("Predict")] == [
        "Predict: which head copies the earlier token (the highest induction score)?"
    ]
    at.button(key="reveal").click().run()
    assert charts.INDUCTION_SCORES.key in chart_ids(at)
    seed, n = at.session_state[state.K_IND_SEED], at.session_state[state.K_IND_LEN]
    scores = interp.induction("smollm2", seed, n, ()).run.induction
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    assert at.success[0].value == (
        f"Answer: layer {layer + 1}, head {head + 1}, with an induction score of {scores.max():.2f}: its "
        "stripe below."
    )
    _, options, truth = questions.head_choices(scores, "")  # type: ignore[misc]
    assert options[truth] == f"layer {layer + 1}, head {head + 1}" and options == sorted(
        options, key=lambda o: tuple(int(x.split()[-1]) for x in o.split(","))
    )


def test_ask_lens_hides_what_each_layer_predicts_until_reveal() -> None:
    need("smollm2")
    at = open_at("logit-lens", model="smollm2", sentence=CAPITAL, ask="lens")
    assert not {"lens.grid", "lens.follow"} & set(chart_ids(at))
    r = interp.lens("smollm2", CAPITAL).reading
    wins = interp.wins_from(r.ids[:, -1, 0], int(r.ids[-1, -1, 0]))
    assert wins is not None
    asked, options, truth = questions.lens_choices(wins, r.ids.shape[0] - 1, "␣is", "␣Paris")
    assert [s.value for s in at.subheader if s.value.startswith("Predict")] == [
        "Predict: after “␣is”, from which layer on is “␣Paris” the top token?"
    ]
    first, last = map(int, re.findall(r"\d+", options[truth].replace("the embeddings", "layer 0")))
    assert first <= wins <= last and asked.startswith("After “␣is”")
    at.button(key="reveal").click().run()
    assert "lens.grid" in chart_ids(at)
    said = f"layer {wins} on (layer {wins} makes it win)." if wins else "the embeddings on."
    assert at.success[0].value == f"Answer: “␣Paris” is the top token from {said}"


def test_ask_prev_asks_whether_the_head_drawn_is_a_previous_token_head() -> None:
    need("smollm2")
    at = open_at("induction", model="smollm2", ask="prev")
    shown = set(chart_ids(at))
    assert charts.INDUCTION_SCORES.key in shown
    assert not shown & {charts.PREVIOUS_SCORES.key, charts.INDUCTION_PATTERN.key}
    seed, n = at.session_state[state.K_IND_SEED], at.session_state[state.K_IND_LEN]
    run = interp.induction("smollm2", seed, n, ()).run
    layer, head = np.unravel_index(int(np.argmax(run.induction)), run.induction.shape)  # the head drawn first
    assert [s.value for s in at.subheader if s.value.startswith("Predict")] == [
        f"Predict: is layer {layer + 1}, head {head + 1} a previous-token head (more than half its weight on the "
        "token just before)?"
    ]
    at.button(key="reveal").click().run()
    assert {charts.PREVIOUS_SCORES.key, charts.INDUCTION_PATTERN.key} <= set(chart_ids(at))
    prev = run.previous[layer, head]
    assert at.success[0].value == (
        f"Answer: {'yes' if prev > 0.5 else 'no'}: it gives the token just before {prev:.2f} of its weight, on "
        "average."
    )
