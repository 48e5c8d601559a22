"""AppTest of /logit-lens and /induction: the numbers drawn equal the engine's, MiniLM says why it does not
apply, links carry the followed token and position and the induction run's seed and length.

The expected numbers come straight from attention_core (analysis.read_lens, lens_token_probs, run_induction
on random_tokens), not from the app's cached wrappers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

from attention_core import analysis
from explorer.model import models
from explorer.sharing import model_link
from explorer.ui import state
from explorer.views import interp_figures
from explorer.views.model_figures import show_token
from tests.app.fixtures import CAPITAL, need, page

ROOT = Path(__file__).resolve().parents[3]


def _text(at: AppTest) -> str:
    """Every Markdown and caption on the page, Markdown escapes removed."""
    return " ".join(m.value.replace("\\", "") for m in [*at.markdown, *at.caption])


def test_lens_grid_draws_the_engines_top_token_and_its_probability(kit) -> None:  # noqa: ANN001
    m = need("smollm2")
    at = page("logit-lens", "smollm2", CAPITAL)
    trace = m.run(CAPITAL)
    want_ids, want_probs = analysis.logit_lens(m, trace, k=5)
    spec = kit.charts(at)["lens.grid"]
    assert spec["layout"]["meta"]["rows"] == list(range(31))
    assert_allclose(kit.z(spec), want_probs[:, :, 0], rtol=1e-12)
    cut = [[interp_figures.esc(interp_figures._cut(m.token_strings([int(t)])[0])) for t in row]
           for row in want_ids[:, :, 0]]  # fmt: skip
    assert spec["data"][0]["text"] == cut
    assert spec["data"][0]["text"][-1][-1] == "␣Paris"  # the model's answer after "is"
    hover = spec["data"][0]["customdata"][-1][-1]  # the last row, after "is": the model's own top 5
    own = m.top_next(trace, 5)
    for rank, (_, word, p, _) in enumerate(own):
        assert f"{rank + 1}. “{interp_figures.esc(show_token(word))}” {p:.3f}" in hover


def test_lens_follows_the_models_answer_through_the_layers(kit) -> None:  # noqa: ANN001
    m = need("smollm2")
    at = page("logit-lens", "smollm2", CAPITAL)
    reading = analysis.read_lens(m, m.run(CAPITAL), 5)
    spec = kit.charts(at)["lens.follow"]
    paris = analysis.lens_token_probs(m, reading, [7042])[0][:, -1]  # " Paris" at the last position
    assert spec["data"][1]["name"] == "“␣Paris”"
    assert_allclose(kit.array(spec["data"][1]["y"]), paris, rtol=1e-12)
    assert_allclose(kit.array(spec["data"][0]["y"]), reading.probs[:, -1, 0], rtol=1e-12)
    # " Paris" is the top token only in the last row (layer 29 puts " capital" first)
    assert reading.ids[-1, -1, 0] == 7042 and reading.ids[-2, -1, 0] != 7042
    assert spec["layout"]["shapes"][0]["x0"] == 30
    assert "“␣Paris” is the top token from layer 30 on" in _text(at)
    assert f"{paris[-1]:.3f} at the end" in _text(at)


def test_lens_says_why_its_first_row_echoes_the_sentence_and_reads_tiny_probabilities(kit) -> None:  # noqa: ANN001
    """SmolLM2's input and output embeddings are one table: the page says why the embeddings' row repeats the
    sentence (as it does), and a probability in e-notation says how to read it."""
    m = need("smollm2")
    at = page("logit-lens", "smollm2", CAPITAL)
    reading = analysis.read_lens(m, m.run(CAPITAL), 5)
    echoed = np.mean(reading.ids[0, :, 0] == np.asarray(m.run(CAPITAL).token_ids))
    assert echoed >= 0.5  # the first row mostly is the sentence
    assert "input and output embeddings are one table (tied)" in _text(at)
    paris = analysis.lens_token_probs(m, reading, [7042])[0][0, -1]  # " Paris" after the embeddings
    assert paris < 1e-6 and "(practically zero) after the embeddings" in _text(at)


def test_lens_follows_a_picked_token_at_a_picked_position(kit) -> None:  # noqa: ANN001
    m = need("smollm2")
    at = page("logit-lens", "smollm2", CAPITAL, **{state.K_FOLLOW_AT: 3, state.K_FOLLOW: 260})  # " the"
    reading = analysis.read_lens(m, m.run(CAPITAL), 5)
    spec = kit.charts(at)["lens.follow"]
    assert_allclose(kit.array(spec["data"][1]["y"]), analysis.lens_token_probs(m, reading, [260])[0][:, 3])
    assert "after “␣France”" in spec["layout"]["title"]["text"]


def test_lens_on_minilm_says_why_and_shows_smollm2(kit) -> None:  # noqa: ANN001
    need("minilm")
    need("smollm2")
    at = page("logit-lens", "minilm", CAPITAL)
    assert "MiniLM is an encoder: it has no output layer" in at.info[0].value
    assert "lens.grid" in kit.charts(at)


@pytest.fixture(scope="module")
def induction_run() -> analysis.InductionRun:
    m = need("smollm2")
    return analysis.run_induction(m, analysis.random_tokens(3, 12, 17, 49152))


def test_induction_page_draws_the_engines_scores_pattern_and_losses(induction_run, kit) -> None:  # noqa: ANN001
    run, n = induction_run, 12
    at = page("induction", "smollm2", **{state.K_IND_SEED: 3, state.K_IND_LEN: n})
    cs = kit.charts(at)
    assert_allclose(kit.z(cs["induction.scores"]), run.induction, rtol=1e-12)
    assert_allclose(kit.z(cs["induction.previous"]), run.previous, rtol=1e-12)
    best = int(np.argmax(run.induction))
    drawn = kit.z(cs["induction.pattern"])
    low = np.tril(np.ones((2 * n, 2 * n), dtype=bool))
    assert_allclose(drawn[low], run.attentions[best // 9, best % 9][low], rtol=1e-6)
    assert np.isnan(drawn[~low]).all()  # the later tokens: masked
    lines = cs["induction.loss"]["data"]
    assert_allclose(kit.array(lines[0]["y"])[1:], run.losses[: n - 1], rtol=1e-12)
    assert_allclose(kit.array(lines[1]["y"]), run.losses[n - 1 :], rtol=1e-12)
    assert f"{run.losses[: n - 1].mean():.2f} nats on average the first time" in cs["induction.loss"]["layout"][
        "title"]["text"]  # fmt: skip


def test_induction_label_rule_is_stated_with_the_standard_runs_heads() -> None:
    m = need("smollm2")
    scores, _ = analysis.induction_scores(m, analysis.random_tokens(0, 50, 17, 49152))
    at = page("induction", "smollm2")
    passed = [f"{l + 1}.{h + 1}" for l, h in np.argwhere(scores >= models.INDUCTION_THRESHOLD)]
    assert f"{len(passed)} heads, {', '.join(passed)} (layer.head)" in _text(at)
    assert "18.5" in passed and "19.7" in passed


def test_induction_on_minilm_says_why() -> None:
    need("minilm")
    need("smollm2")
    at = page("induction", "minilm")
    assert "MiniLM is an encoder: every token sees every other" in at.info[0].value


def test_links_carry_the_followed_token_and_the_induction_run() -> None:
    need("smollm2")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    link = {"model": "smollm2", "sentence": CAPITAL, "follow": "260", "follow_at": "4", "ind_seed": "7",
            "ind_len": "9"}  # fmt: skip
    for key, value in link.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("app_pages/logit-lens.py").run()
    assert not at.exception, at.exception
    assert (at.session_state[state.K_FOLLOW], at.session_state[state.K_FOLLOW_AT]) == (260, 3)
    assert (at.session_state[state.K_IND_SEED], at.session_state[state.K_IND_LEN]) == (7, 9)
    address = {k: at.query_params[k] for k in at.query_params}
    assert {k: address.get(k) for k in ("follow", "follow_at", "ind_seed", "ind_len")} == {
        "follow": "260", "follow_at": "4", "ind_seed": "7", "ind_len": "9"}  # fmt: skip


@pytest.mark.parametrize("value", ["¹", "١٠", "+3", "-1", "1e3", "9999999", "abc", "3.0"])
def test_bad_numbers_in_links_are_left_out_with_a_message(value: str) -> None:
    got = model_link.read({"model": "smollm2", "layer": value, "head": value, "off": f"3.{value}",
                            "follow": value, "follow_at": value, "ind_seed": value, "ind_len": value})  # fmt: skip
    assert (got.layer, got.head, got.follow, got.follow_at, got.ind_seed, got.ind_len) == (None,) * 6
    assert got.off == ()
    assert len(got.messages) == 7
    assert any("(ind_len=) must be a whole number between 5 and 50" in m for m in got.messages)


def _lines(spec: dict) -> set[tuple[str, int, int]]:
    """(head, query, key) of every line a line view draws (its segment traces)."""
    out = set()
    for trace in spec["data"]:
        if trace.get("mode") == "lines" and trace.get("showlegend") is False:
            ys = trace["y"]
            out |= {(trace["name"], int(ys[a]), int(ys[a + 1])) for a in range(0, len(ys), 3)}
    return out


def test_head_page_draws_the_heads_weights_as_lines_one_querys_on_request(kit) -> None:  # noqa: ANN001
    m = need("minilm")
    at = page("head", "minilm", None, **{state.K_LAYER: 4, state.K_MODEL_HEAD: 10, "head.view": "lines",
                                         "head.lines.focus": "q3"})  # fmt: skip
    w = m.run(str(at.session_state[state.K_SENTENCE])).attentions[4, 10]
    spec = kit.charts(at)["head.lines"]
    assert _lines(spec) == {("head 11", 3, int(j)) for j in np.flatnonzero(w[3] >= 0.02)}
    assert "head.w" not in kit.charts(at)  # the heatmap is one click away
    at.segmented_control(key="head.view").set_value("heatmap").run()
    assert_allclose(kit.z(kit.charts(at)["head.w"]), w, rtol=1e-6)


def test_model_page_draws_a_whole_layer_as_lines_in_one_colour_per_head(kit) -> None:  # noqa: ANN001
    m = need("smollm2")
    at = page("model", "smollm2", CAPITAL, **{state.K_LAYER: 17, "model.lines": True})
    A = m.run(CAPITAL).attentions[17]
    spec = kit.charts(at)["model.lines_view"]
    assert _lines(spec) == {(f"head {h + 1}", int(i), int(j)) for h, i, j in np.argwhere(A >= 0.02)}
    colours = {t["name"]: t["line"]["color"] for t in spec["data"] if t.get("mode") == "lines"}
    assert len(set(colours.values())) == 9
