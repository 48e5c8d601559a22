"""AppTest of the real-model pages on both models: the numbers drawn equal the engine's, ablation changes what
it should, links open the model, layer, head and switched-off heads.

Each page runs alone (AppTest.from_file on its script) with the model picked in session state, as a person
who picked it in the sidebar. The models are skipped locally (failed in CI) when they are not installed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

from attention_core import analysis, pretrained
from explorer.model import models
from explorer.ui import state
from explorer.views import model_figures
from tests.app.fixtures import CAPITAL, need, page

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 120


def grid_panels(spec: dict, L: int, H: int, n: int, kit) -> np.ndarray:  # noqa: ANN001 - the kit fixture
    """The (L, H, n, n) weights drawn in the grid, read back through its layout.meta.grid and checked against
    its category names."""
    grid = spec["layout"]["meta"]["grid"]
    assert grid[:3] == [L, H, n]
    ys, band = spec["data"][0]["y"], grid[4]
    assert [ys[layer * (band + n) + band] for layer in range(L)] == [
        c for c in ys if c.startswith("layer ") and " · query 0 " in c
    ]
    return model_figures.panels(kit.z(spec), grid)


@pytest.mark.parametrize("key", ["minilm", "smollm2"])
def test_model_grid_draws_every_head_and_its_label(key: str, kit) -> None:  # noqa: ANN001
    m = need(key)
    at = page("model", key)
    trace = m.run(str(at.session_state[state.K_SENTENCE]))
    L, H, n = m.config.n_layers, m.config.n_heads, trace.n_tokens
    spec = kit.charts(at)["model.grid"]
    assert_allclose(grid_panels(spec, L, H, n, kit), trace.attentions, rtol=1e-6, atol=1e-7)
    row = models.choice(key)
    labels = analysis.label_heads(trace.attentions, trace.tokens, causal=row.decoder, scheme=row.scheme)
    drawn = spec["data"][-1]["text"]
    words = [model_figures.SHORT_LABELS[r] for r in labels.rules.ravel()]
    if row.decoder:  # a second line for the heads that pass the induction rule on the standard run
        ids = analysis.random_tokens(
            models.INDUCTION_SEED, models.INDUCTION_LENGTH, row.ordinary_from, row.vocab
        )
        passed = analysis.induction_scores(m, ids)[0].ravel() >= models.INDUCTION_THRESHOLD
        assert 0 < passed.sum() < L * H
        words = [w + "<br>induction" if p else w for w, p in zip(words, passed, strict=True)]
    assert drawn == words
    assert f"{L} layers × {H} heads on {n} tokens" in at.markdown[1].value


def test_smollm2_grid_labels_the_attention_sink_of_layer_16_head_5(kit) -> None:  # noqa: ANN001
    need("smollm2")
    at = page("model", "smollm2", CAPITAL)
    text = kit.charts(at)["model.grid"]["data"][-1]["text"]
    assert text[15 * 9 + 4] == "first token"


@pytest.mark.parametrize(("key", "layer", "head", "row"), [
    ("minilm", 2, 5, [0.4110, 0.0704, 0.1289, 0.0119, 0.0066, 0.0153, 0.1996, 0.0040, 0.0372, 0.0097, 0.0989, 0.0033, 0.0032]),
    ("smollm2", 15, 4, [0.7851, 0.0357, 0.0653, 0.0458, 0.0681]),
])  # fmt: skip
def test_head_page_draws_the_heads_weights_and_q(key: str, layer: int, head: int, row: list, kit) -> None:  # noqa: ANN001
    m = need(key)
    sentence = CAPITAL if key == "smollm2" else "The cat sat on the mat because it was warm."
    at = page("head", key, sentence, **{state.K_LAYER: layer, state.K_MODEL_HEAD: head})
    cs = kit.charts(at)
    trace = m.run(sentence)
    w = kit.z(cs["head.w"])
    later = np.triu(np.ones(w.shape, dtype=bool), 1)
    assert np.isnan(w[later]).all() == (key == "smollm2")  # a decoder's later tokens are drawn masked (grey)
    w = np.where(np.isnan(w), 0.0, w)
    assert_allclose(w, trace.attentions[layer, head], rtol=1e-6, atol=1e-7)
    query = 8 if key == "minilm" else 4  # "it" / the last token
    assert_allclose(w[query], row, atol=6e-5)  # the reference implementation's numbers
    assert_allclose(kit.z(cs["head.q"]), trace.layers[layer].attention.q[head], rtol=1e-6, atol=1e-6)
    assert len(at.latex) >= 4  # the page's formula and the cell worked out in three lines
    if key == "smollm2":
        assert "query heads 4, 5, 6 of this layer share key/value head 2" in at.info[0].value


def test_next_token_top_10_temperature_and_add_it(kit) -> None:  # noqa: ANN001
    m = need("smollm2")
    at = page("next-token", "smollm2", CAPITAL)
    bars = kit.charts(at)["next.bars"]["data"][0]
    assert list(bars["text"][:3]) == ["0.773", "0.065", "0.012"]
    assert "Paris" in kit.charts(at)["next.bars"]["layout"]["yaxis"]["ticktext"][0]
    logits = m.run(CAPITAL).logits[-1].astype(np.float64)
    at.slider(key=state.K_TEMPERATURE).set_value(0.5).run()
    p = np.exp((logits - logits.max()) / 0.5)
    p /= p.sum()
    assert_allclose(kit.array(kit.charts(at)["next.bars"]["data"][0]["x"]), np.sort(p)[::-1][:10], rtol=1e-9)
    at.button(key="next.add.0").click().run()
    assert at.session_state[state.K_SENTENCE] == CAPITAL + " Paris"
    n = len(m.run(CAPITAL + " Paris").token_ids)
    mask = kit.charts(at)["next.mask"]
    assert len(mask["layout"]["yaxis"]["ticktext"]) == n == 6


def test_next_token_title_quotes_the_end_of_a_long_sentence_from_a_whole_word(kit) -> None:  # noqa: ANN001
    need("smollm2")
    long = "The old lighthouse keeper walked slowly along the rocky shore"
    at = page("next-token", "smollm2", long)
    title = kit.charts(at)["next.bars"]["layout"]["title"]["text"]
    assert "after “…walked slowly along the rocky shore”" in title  # not "…er walked": cut before a word


def test_next_token_on_minilm_shows_smollm2() -> None:
    need("smollm2")
    at = page("next-token", "minilm", CAPITAL)
    assert at.caption[0].value == models.MODELS["smollm2"].about  # the frame's bar names it (test_model_bar)


def test_ablation_minilm_cosine_and_hidden_states_follow_the_switched_off_heads(kit) -> None:  # noqa: ANN001
    m = need("minilm")
    text, other = "The cat sat on the mat because it was warm.", "A cat was sitting on the rug."
    at = page("ablation", "minilm", text)
    assert at.metric[0].value == "0.6810" == at.metric[1].value  # the reference cosine, untouched
    at.button[0].click().run()  # all off in layer 1
    assert at.session_state[state.K_OFF] == tuple((0, h) for h in range(12))
    mask = np.ones((6, 12))
    mask[0] = 0.0
    emb = analysis.sentence_embedding
    after = analysis.cosine(
        emb(m.run(text, mask).hidden_states[-1]), emb(m.run(other, mask).hidden_states[-1])
    )
    assert at.metric[1].value == f"{after:.4f}" != "0.6810"
    shift = kit.array(kit.charts(at)["ablation.shift"]["data"][0]["x"])
    assert shift[0] == 0.0 and (shift[1:] > 0).all()  # the embeddings do not move; every layer after does
    expected = analysis.hidden_state_shift(m.run(text).hidden_states, m.run(text, mask).hidden_states)
    assert_allclose(shift, expected, rtol=1e-9)


def test_ablation_smollm2_next_token_before_and_after(kit) -> None:  # noqa: ANN001
    m = need("smollm2")
    at = page("ablation", "smollm2", CAPITAL, **{state.K_OFF: ((15, 4),)})
    spec = kit.charts(at)["ablation.next"]
    before, after = (kit.array(t["x"]) for t in spec["data"])
    mask = np.ones((30, 9))
    mask[15, 4] = 0.0
    p = analysis.next_token_probs(m.run(CAPITAL, mask).logits[-1])
    assert_allclose(before[0], 0.773, atol=5e-4)
    ids = analysis.compare_next_tokens(m.run(CAPITAL).logits[-1], m.run(CAPITAL, mask).logits[-1]).ids
    assert_allclose(after, p[ids], rtol=1e-9)
    shift = kit.array(kit.charts(at)["ablation.shift"]["data"][0]["x"])
    assert (shift[:16] == 0.0).all() and (shift[16:] > 0).all()  # layers before 16 are untouched


def test_minilm_ranking_finds_the_heads_that_matter(kit) -> None:  # noqa: ANN001
    m = need("minilm")
    text = "The cat sat on the mat because it was warm."
    at = page("ablation", "minilm", text)
    at.button(key="ablation.rank").click().run()
    spec = kit.charts(at)["ablation.ranking"]
    names = spec["layout"]["yaxis"]["ticktext"]
    assert len(names) == 15
    layer, head = (int(s.split()[-1]) - 1 for s in names[0].split(", "))
    mask = np.ones((6, 12))
    mask[layer, head] = 0.0
    emb = analysis.sentence_embedding
    effect = 1 - analysis.cosine(emb(m.run(text).hidden_states[-1]), emb(m.run(text, mask).hidden_states[-1]))
    # The ranking runs its masks as one float32 batch (Model.ablate): the same numbers to float32's precision.
    assert_allclose(kit.array(spec["data"][0]["x"])[0], effect, rtol=1e-5)
    assert (np.diff(kit.array(spec["data"][0]["x"])) <= 0).all()


@pytest.mark.parametrize("key", ["minilm", "smollm2"])
def test_rollout_page_draws_the_rollout_of_the_picked_layer(key: str, kit) -> None:  # noqa: ANN001
    m = need(key)
    at = page("rollout", key, **{state.K_LAYER: 3})
    trace = m.run(str(at.session_state[state.K_SENTENCE]))
    cs = kit.charts(at)
    assert_allclose(kit.z(cs["rollout.rollout"]), analysis.attention_rollout(trace.attentions)[3], rtol=1e-9)
    assert_allclose(kit.z(cs["rollout.single"]), trace.attentions[3].mean(axis=0), rtol=1e-6)
    assert "not an explanation" in at.markdown[0].value


def kit_charts_present(at: AppTest) -> bool:
    return bool(at.get("bidi_component"))


def test_a_missing_model_is_one_sentence_on_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pretrained, "available", lambda name: False)
    at = page("model", "smollm2")
    shown = at.info[0].value.replace("\\", "")  # shown literally: Markdown punctuation escaped
    assert (
        len(at.info) == 1 and "SmolLM2-135M is not available on this server" in shown and "pip" not in shown
    )
    assert not kit_charts_present(at)


def test_next_token_shows_a_new_line_and_offers_only_tokens_that_change_the_sentence(kit) -> None:  # noqa: ANN001
    """After "…warm." the likeliest next token is a new line: shown as "↵", not as empty quotes; a token of
    white space alone is greyed out with its reason (the box holds one line, ends are trimmed); every button
    offered changes what the model reads; the signs ␣, ↵ and <|im_end|> are explained in one line."""
    need("smollm2")
    sentence = "The cat sat on the mat because it was warm."
    at = page("next-token", "smollm2", sentence)
    labels = kit.charts(at)["next.bars"]["layout"]["yaxis"]["ticktext"]
    assert labels[0] == "1. “↵”" and all("“”" not in lab for lab in labels)
    shown = {b.key: b for b in at.button if b.key.startswith("next.add.")}
    assert shown["next.add.0"].disabled and shown["next.add.0"].label.startswith("“↵”")
    line = " ".join(c.value for c in at.caption).replace("\\", "")  # as shown (Markdown escapes)
    assert "“↵” cannot be added" in line and "“␣” is a space" in line and "<|im_end|>" in line
    offered = [b for b in shown.values() if not b.disabled]
    assert len(offered) >= 7
    before = models.model("smollm2").run(sentence).token_ids
    for button in offered:  # each one changes the tokens the model reads (as the page reads the box)
        word = button.label[1 : button.label.rindex("”")].replace("␣", " ")
        assert models.model("smollm2").run((sentence + word).strip()).token_ids != before, button.label
    im_end = next(b for b in offered if "<|im_end|>" in b.label)
    im_end.click().run()
    assert at.session_state[state.K_SENTENCE] == sentence + "<|im_end|>"
    assert len(kit.charts(at)["next.mask"]["layout"]["yaxis"]["ticktext"]) == len(before) + 1


def test_next_token_axis_stays_0_to_1_and_shows_t_1_beside_another_temperature(kit) -> None:  # noqa: ANN001
    m = need("smollm2")
    at = page("next-token", "smollm2", CAPITAL)
    spec = kit.charts(at)["next.bars"]
    assert spec["layout"]["xaxis"]["range"][1] >= 1 and len(spec["data"]) == 1  # T = 1: one series
    at.slider(key=state.K_TEMPERATURE).set_value(2.5).run()
    spec = kit.charts(at)["next.bars"]
    assert spec["layout"]["xaxis"]["range"][0] == 0 and spec["layout"]["xaxis"]["range"][1] >= 1
    logits = m.run(CAPITAL).logits[-1].astype(np.float64)
    own = np.exp(logits - logits.max())
    own /= own.sum()
    assert [t["name"] for t in spec["data"]] == ["T = 2.5", "T = 1, the model's own"]
    assert_allclose(kit.array(spec["data"][1]["x"]), np.sort(own)[::-1][:10], rtol=1e-9)
    assert kit.array(spec["data"][0]["x"])[0] < 0.1 < kit.array(spec["data"][1]["x"])[0]  # flatter at 2.5


def test_ablation_says_what_is_off_and_what_did_not_change(kit) -> None:  # noqa: ANN001
    """A switched-off head's switch says "off"; no green arrow for a cosine that did not change; the
    hidden-state shift in words, its formula one click away; once ranked, no "Rank the heads" above."""
    need("minilm")
    text = "The cat sat on the mat because it was warm."
    at = page("ablation", "minilm", text, **{state.K_OFF: ((0, 2),)})
    layer1 = at.button_group(key="ablation.switch.0")
    shown = [o.content for o in layer1.proto.options]
    assert shown[2] == "3 off" and shown[1] == "2" and layer1.value == [h for h in range(12) if h != 2]
    layer1.unselect(5).run()  # switch head 6 off too: the state follows, and its switch says so
    assert at.session_state[state.K_OFF] == ((0, 2), (0, 5))
    assert [o.content for o in at.button_group(key="ablation.switch.0").proto.options][5] == "6 off"
    at.button[2].click().run()  # all heads on: the cosine is the untouched one, with no arrow
    assert at.session_state[state.K_OFF] == ()
    assert at.metric[1].value == at.metric[0].value and not at.metric[1].proto.delta
    axis = kit.charts(at)["ablation.shift"]["layout"]["xaxis"]["title"]["text"]
    assert "‖" not in axis and "share of its length" in axis
    said = [c for c in at.caption if "averaged over the tokens" in c.value]
    assert said and "‖h′ − h‖ / ‖h‖" in said[0].proto.help
    at.button(key="ablation.rank").click().run()
    assert not [b for b in at.button if b.key == "ablation.rank"]  # the finished ranking, nothing above it
    assert "ablation.ranking" in kit.charts(at)


def test_the_models_are_described_in_words_with_the_precise_terms_one_click_away() -> None:
    need("smollm2")
    at = page("next-token", "smollm2", CAPITAL)
    line = at.caption[0]
    assert "Q4_1" not in line.value and "dequantized" not in line.value and "4 bits" in line.value
    assert "Q4_1" in line.proto.help and "dequantized to float32" in line.proto.help
