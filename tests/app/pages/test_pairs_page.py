"""AppTest of /minimal-pairs and of /ablation's occlusion strip (MiniLM): the numbers drawn are the engine's,
the page runs MiniLM whichever model is picked, example pairs set both sentences and the word, pairs that
cannot be compared get a message."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

from attention_core import analysis, pretrained
from explorer.model import models
from explorer.model import pairs as pm
from explorer.ui import state
from explorer.ui.state import keys
from tests.app.fixtures import ROOT, model_page
from tests.app.fixtures import messages_text as texts

TIRED, WIDE = pm.PAIRS[0].first, pm.PAIRS[0].second


@pytest.fixture(scope="module")
def minilm() -> pretrained.Model:
    from tests.core.models import need

    return need("all-MiniLM-L6-v2")


def page(name: str = "minimal-pairs", sentence: str = TIRED, model: str = "toy", **extra: object) -> AppTest:
    return model_page(name, model, sentence, **extra)


def test_the_rows_drawn_are_the_engines_attention_from_it(minilm, kit) -> None:  # noqa: ANN001
    at = page(model="smollm2", **{state.K_PAIR_OTHER: WIDE, state.K_LAYER: 3})
    assert at.caption[0].value == models.MODELS["minilm"].about  # the frame's bar names it (test_model_bar)
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
    assert (first["zmin"], first["zmax"]) == (0.0, 1.0)  # weights: 0 to 1, unless the student asks
    # The difference spans its largest change both ways (the cells that move most are the point).
    diff = charts["pairs.difference"]["data"][0]
    assert (diff["zmin"], diff["zmax"]) == pytest.approx((-np.abs(b - a).max(), np.abs(b - a).max()))
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
    assert at.session_state[keys._PAIR_WORD] == (fish.first, 2)
    assert at.selectbox(key="pairs.word").value == 2


def test_pairs_that_cannot_be_compared_get_a_message(minilm) -> None:  # noqa: ANN001
    at = page(sentence="a cat", **{state.K_PAIR_OTHER: "a big cat"})
    said = texts(at)
    assert "cannot be compared" in said and "the first is 4 tokens ('[CLS]' | 'a' | 'cat' | '[SEP]')" in said
    assert not at.get("bidi_component")
    at = page(sentence="A cat", **{state.K_PAIR_OTHER: "a cat"})
    assert "the same tokens" in texts(at)


def test_ablation_colours_each_token_by_the_change_in_the_cosine(minilm, kit) -> None:  # noqa: ANN001
    text, other = "A man is playing a guitar.", "Someone plays music on a guitar."
    at = page("ablation", sentence=text, model="minilm", **{state.K_OTHER: other})
    strip = kit.charts(at)["ablation.occlusion"]["data"][0]
    want = analysis.occlusion_similarity(minilm, text, other)
    assert_allclose(kit.array(strip["z"])[0], np.nan_to_num(want), atol=1e-12)
    cells = [t.split("<br>") for t in strip["text"][0]]
    assert [t for t, _ in cells] == minilm.run(text).tokens
    assert [v for _, v in cells] == ["kept", *(f"{d:+.3f}" for d in want[1:-1]), "kept"]
    assert strip["customdata"][0][0] == "“[CLS]”: kept in every run"


@pytest.mark.parametrize(
    ("script", "key", "text"),
    [
        ("app_pages/ablation.py", state.K_OTHER, "Someone plays music."),
        ("app_pages/minimal-pairs.py", state.K_PAIR_OTHER, WIDE),
        ("app_pages/patching.py", state.K_PATCH_CORRUPT, "The capital of Italy is"),
    ],
)
def test_a_second_sentence_stays_while_another_page_is_open(minilm, script: str, key: str, text: str) -> None:  # noqa: ANN001
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params["model"] = "minilm"
    at.run()
    at.switch_page(script).run()
    at.text_input(key=key).input(text).run()
    at.switch_page("app_pages/sentence.py").run()
    at.switch_page(script).run()
    assert not at.exception, at.exception
    assert at.text_input(key=key).value == text


def test_ablation_says_when_a_sentence_is_too_long_for_occlusion(minilm, kit) -> None:  # noqa: ANN001
    long = " ".join(["word"] * pm.MAX_OCCLUSION_TOKENS)
    at = page("ablation", sentence=long, model="minilm", **{state.K_OTHER: "a word"})
    assert "ablation.occlusion" not in kit.charts(at)
    assert f"up to {pm.MAX_OCCLUSION_TOKENS} tokens ([CLS] and [SEP] included); this one has 34" in " ".join(
        c.value for c in at.caption
    )
