"""AppTest of /minimal-pairs and of /ablation's occlusion strip (MiniLM): the numbers drawn are the engine's,
the page runs MiniLM whichever model is picked, example pairs set both sentences and the word, pairs that
cannot be compared get a message."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

from attention_core import analysis, pretrained
from explorer.model import pairs as pm
from explorer.ui import state
from tests.app.conftest import page_alone

TIRED, WIDE = pm.PAIRS[0].first, pm.PAIRS[0].second


@pytest.fixture(scope="module")
def minilm() -> pretrained.Model:
    from tests.core.models import need

    return need("all-MiniLM-L6-v2")


def page(name: str = "minimal-pairs", sentence: str = TIRED, model: str = "toy", **extra: object) -> AppTest:
    at = page_alone(f"app_pages/{name}.py")
    at.session_state[state.K_MODEL] = model
    at.session_state[state.K_SENTENCE] = sentence
    for key, value in extra.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def texts(at: AppTest) -> str:
    return (
        " ".join(m.value for m in [*at.info, *at.warning, *at.error]).replace("\\", "").replace("\u2060", "")
    )


def test_the_rows_drawn_are_the_engines_attention_from_it(minilm, kit) -> None:  # noqa: ANN001
    at = page(model="smollm2", **{state.K_PAIR_OTHER: WIDE, state.K_LAYER: 3})
    assert (
        "Showing **MiniLM (encoder)**, which reads the whole sentence in both directions"
        in at.caption[0].value
    )
    run_a, run_b = minilm.run(TIRED), minilm.run(WIDE)
    it = run_a.tokens.index("it")
    assert at.selectbox(key="pairs.word").value == it  # the pronoun, by default
    assert at.selectbox(key="pairs.layer").value == 3
    charts = kit.charts(at)
    a, b = run_a.attentions[3, :, it].astype(np.float64), run_b.attentions[3, :, it].astype(np.float64)
    assert_allclose(kit.z(charts["pairs.first"]).T, a, atol=0)
    assert_allclose(kit.z(charts["pairs.second"]).T, b, atol=0)
    assert_allclose(kit.z(charts["pairs.difference"]).T, b - a, atol=1e-7)
    assert kit.labels(charts["pairs.difference"])[13] == "tired/wide"
    # Both weights charts share one colour range: a colour is the same weight in each.
    first, second = charts["pairs.first"]["data"][0], charts["pairs.second"]["data"][0]
    assert (first["zmin"], first["zmax"]) == (second["zmin"], second["zmax"])
    assert first["zmax"] == pytest.approx(max(a.max(), b.max()))
    # The ranking: the heads by 0.5 sum |b - a|, each named with the key that lost and the key that gained most.
    moved = 0.5 * np.abs(b - a).sum(axis=1)
    bars = charts["pairs.ranked"]["data"][0]
    assert_allclose(kit.array(bars["x"]), np.sort(moved)[::-1], atol=1e-7)
    h = int(np.argmax(moved))
    lost, gained = run_b.tokens[int(np.argmin(b[h] - a[h]))], run_b.tokens[int(np.argmax(b[h] - a[h]))]
    assert bars["customdata"][0] == f"head {h + 1}: “{lost}” → “{gained}”"


def test_the_layer_picker_says_how_much_each_layer_moved_and_follows_the_shared_layer(minilm, kit) -> None:  # noqa: ANN001
    at = page(**{state.K_PAIR_OTHER: WIDE})
    it = minilm.run(TIRED).tokens.index("it")
    got = analysis.pair_shift(minilm, TIRED, WIDE, it)
    picker = at.selectbox(key="pairs.layer")
    assert picker.options[4] == f"layer 5 (a head moved up to {got.moved[4].max():.2f})"
    picker.select(4).run()
    assert at.session_state[state.K_LAYER] == 4
    assert_allclose(kit.z(kit.charts(at)["pairs.first"]).T, got.a[4], atol=1e-7)


def test_an_example_pair_sets_both_sentences_and_its_word(minilm) -> None:  # noqa: ANN001
    at = page(sentence="A cat sat on the mat.")
    assert "Type the sentence above with one word changed" in texts(at)
    fish = pm.PAIRS[3]
    at.button(key=f"pairs.example.{fish.name}").click().run()
    assert at.session_state[state.K_SENTENCE] == fish.first
    assert at.text_input(key=state.K_PAIR_OTHER).value == fish.second
    assert at.selectbox(key="pairs.word").value == minilm.run(fish.first).tokens.index("bank")  # not "he"
    at.selectbox(key="pairs.word").select(2).run()  # a word picked by hand stays for this sentence
    assert at.session_state[state._PAIR_WORD] == (fish.first, 2)
    assert at.selectbox(key="pairs.word").value == 2


def test_pairs_that_cannot_be_compared_get_a_message(minilm) -> None:  # noqa: ANN001
    at = page(sentence="a cat", **{state.K_PAIR_OTHER: "a big cat"})
    said = texts(at)
    assert "cannot be compared" in said and "the first is 4 tokens ('[CLS]' | 'a' | 'cat' | '[SEP]')" in said
    assert not at.get("bidi_component")
    at = page(sentence="A cat", **{state.K_PAIR_OTHER: "a cat"})
    assert "the same tokens" in texts(at)
