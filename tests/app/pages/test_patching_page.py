"""AppTest of /patching and of the occlusion strip on /next-token: the numbers drawn are the engine's, bad pairs
get a message, a link carries the pair and the answers, a session runs one sweep at a time.

SmolLM2 is skipped locally (failed in CI) when it is not installed. Sweeps are cached for the process, so the
pair France / Italy is swept once for the whole module.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

from attention_core import analysis, pretrained
from explorer.compute import jobs
from explorer.compute import patching as pc
from explorer.export import experiments
from explorer.model import patching as pm
from explorer.ui import state
from explorer.ui.state import keys
from tests.app.fixtures import (
    PATCH_CLEAN,
    PATCH_CORRUPT,
    exported,
    exported_charts,
    model_page,
    opened_from_link,
    pair_link,
)
from tests.app.fixtures import messages_text as texts

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 300  # a sweep on a loaded 2-CPU machine
CLEAN, CORRUPT = PATCH_CLEAN, PATCH_CORRUPT


@pytest.fixture(scope="module")
def smol() -> pretrained.Model:
    from tests.core.models import need

    return need("SmolLM2-135M")


def page(name: str = "patching", sentence: str = CLEAN, **extra: object) -> AppTest:
    return model_page(name, "smollm2", sentence, TIMEOUT, **extra)


def ids(smol: pretrained.Model, *words: str) -> list[int]:
    return [smol.tokenizer.encode(w)[0] for w in words]


def test_the_sweeps_drawn_are_the_engines(smol, kit) -> None:  # noqa: ANN001 - the kit fixture
    at = page(**{state.K_PATCH_CORRUPT: CORRUPT})
    paris, rome = ids(smol, " Paris", " Rome")
    assert (at.selectbox(key="patching.answer").value, at.selectbox(key="patching.wrong").value) == (
        paris,
        rome,
    )
    pair = analysis.patch_pair(smol, CLEAN, CORRUPT, paris, rome)
    assert [m.value for m in at.metric] == [f"{pair.ld_clean:.3f}", f"{pair.ld_corrupt:.3f}"]
    assert "patching.resid" not in kit.charts(at)  # nothing runs before the button
    at.button(key="patching.run").click().run()
    assert not at.exception, at.exception
    charts = kit.charts(at)
    resid, heads = kit.z(charts["patching.resid"]), kit.z(charts["patching.head"])
    # Every cell measured; the first, a middle and the last layer's rows are the engine's own (a layer costs
    # the layers after it, so three rows cost a tenth of a sweep; tests/core/test_patching.py checks that
    # patch_layer's rows are patch_sweep's).
    L = smol.config.n_layers
    assert resid.shape == (L, pair.n_tokens) and heads.shape == (L, smol.config.n_heads)
    assert np.isfinite(resid).all() and np.isfinite(heads).all()
    for layer in (0, L // 2, L - 1):
        assert_allclose(resid[layer], analysis.patch_layer(smol, pair, layer, "resid"), atol=1e-9)
        assert_allclose(heads[layer], analysis.patch_layer(smol, pair, layer, "head"), atol=1e-9)
    hover = charts["patching.resid"]["data"][0]["customdata"]
    assert (
        hover[11][3]
        == "the residual stream entering layer 12 at position 3: “␣France” (clean) in place of “␣Italy” (corrupt)"
    )
    assert charts["patching.head"]["data"][0]["customdata"][23][4].startswith(
        "head 5 of layer 24: its output"
    )
    assert kit.labels(charts["patching.resid"], "xaxis")[3] == "␣France/␣Italy"
    assert not [
        b for b in at.button if b.key == "patching.run"
    ]  # done: no button; a new session sees it at once
    again = page(**{state.K_PATCH_CORRUPT: CORRUPT})
    assert_allclose(kit.z(kit.charts(again)["patching.head"]), heads)
    # The take-home files carry the sweeps the app ran (tests/app/export/test_export_experiments.py checks
    # the rest of the experiment's section, and the section of one not run yet).
    html, _ = exported(("patching", "smollm2", CLEAN, CORRUPT, None, None))
    assert '<section id="patching">' in html and experiments.NOT_HELD not in html
    files = exported_charts(html)
    assert_allclose(kit.z(files["patching.resid"]), resid, atol=1e-9)
    assert_allclose(kit.z(files["patching.head"]), heads, atol=1e-9)


def test_an_example_pair_sets_both_sentences_and_its_answers(smol) -> None:  # noqa: ANN001
    at = page(sentence="The cat sat on the mat.")
    assert "Type a corrupt sentence" in texts(at)
    at.button(key="patching.pair.Mary → John").click().run()
    assert at.session_state[state.K_SENTENCE] == pm.PAIRS[2].clean
    assert at.text_input(key=state.K_PATCH_CORRUPT).value == pm.PAIRS[2].corrupt
    assert (at.selectbox(key="patching.answer").value, at.selectbox(key="patching.wrong").value) == tuple(
        ids(smol, " Mary", " John")
    )


def test_texts_of_different_lengths_and_long_texts_get_a_message(smol) -> None:  # noqa: ANN001
    at = page(**{state.K_PATCH_CORRUPT: "The capital city of Italy is"})
    said = texts(at)
    assert "5 tokens ('The' | ' capital' | ' of' | ' France' | ' is')" in said
    assert "6 ('The' | ' capital' | ' city' | ' of' | ' Italy' | ' is')" in said
    assert not [b for b in at.button if b.key == "patching.run"]
    long = " ".join(["word"] * 20)
    at = page(sentence=long, **{state.K_PATCH_CORRUPT: long})
    assert f"up to {pm.MAX_PATCH_TOKENS} tokens" in texts(at)


def test_a_session_runs_one_sweep_at_a_time(smol, kit) -> None:  # noqa: ANN001
    corrupt = "The capital of Spain is"
    lock = threading.Lock()
    lock.acquire()  # a sweep of this session is still running
    at = page(**{state.K_PATCH_CORRUPT: corrupt, keys._PATCH_LOCK: lock})
    answer, wrong = at.selectbox(key="patching.answer").value, at.selectbox(key="patching.wrong").value
    at.button(key="patching.run").click().run()
    assert "already running in this session" in texts(at)
    assert pc.sweep("smollm2", CLEAN, corrupt, answer, wrong, "resid") is None
    assert "patching.resid" not in kit.charts(at)


def test_a_link_carries_the_pair_and_the_answers(smol) -> None:  # noqa: ANN001
    paris, london = ids(smol, " Paris", " London")
    link = pair_link(paris, london)
    at = opened_from_link(link, "app_pages/patching.py", TIMEOUT)
    assert not at.exception, at.exception
    assert at.text_input(key=state.K_PATCH_CORRUPT).value == CORRUPT
    assert at.selectbox(key="patching.wrong").value == london  # not the corrupt sentence's top token: kept
    assert {k: at.query_params[k] for k in ("corrupt", "answer", "wrong")} == {
        "corrupt": CORRUPT, "answer": str(paris), "wrong": str(london)
    }  # fmt: skip
    pair = analysis.patch_pair(smol, CLEAN, CORRUPT, paris, london)
    assert at.metric[1].value == f"{pair.ld_corrupt:.3f}"
    at = page(**{state.K_PATCH_CORRUPT: CORRUPT, keys._PATCH_IDS: {"answer": (CLEAN, 999999)}})
    assert "answer= is not a token id of this model (0 to 49151)" in texts(at)
    assert at.selectbox(key="patching.answer").value == paris


def test_link_token_ids_are_ascii_digits_bounded() -> None:
    got = pm.read_link({"corrupt": "x" * 900, "answer": "٣٤", "wrong": "1234567"})
    assert got.corrupt == "x" * 500 and got.answer is None and got.wrong is None
    assert len(got.messages) == 2 and all("token id" in m for m in got.messages)
    assert pm.read_link({"answer": " 7042 "}).answer == 7042
    assert pm.link_params("b", 1, None) == {"corrupt": "b", "answer": "1"}


def test_next_token_colours_each_token_by_occlusion(smol, kit) -> None:  # noqa: ANN001
    text = "The Eiffel Tower is a famous landmark in the city of"
    at = page("next-token", sentence=text)
    strip = kit.charts(at)["next.occlusion"]
    paris = ids(smol, " Paris")[0]
    assert_allclose(kit.z(strip)[0], analysis.occlusion(smol, text, paris), atol=1e-12)
    assert [t.split("<br>")[0] for t in strip["data"][0]["text"][0]] == ["The", "␣E", "iffel", "␣Tower", "␣is", "␣a", "␣famous",
                                                 "␣landmark", "␣in", "␣the", "␣city", "␣of"]  # fmt: skip
    assert np.argmin(kit.z(strip)[0]) in (2, 11)  # "iffel" or "of": without them Paris is not next


def test_four_views_draw_the_engines_numbers_each_divided_by_its_largest(smol, kit) -> None:  # noqa: ANN001
    at = page(**{state.K_PATCH_CORRUPT: CORRUPT, state.K_VIEWS: True})
    charts = kit.charts(at)
    run, paris = smol.run(CLEAN), ids(smol, " Paris")[0]
    rows = [
        run.attentions[-1, :, -1, :].astype(np.float64).mean(axis=0),
        analysis.attention_rollout(run.attentions)[-1, -1],
        -analysis.occlusion(smol, CLEAN, paris),
    ]
    want = np.stack([r / np.abs(r).max() for r in rows])
    assert_allclose(kit.z(charts["patching.views.tokens"]), want, atol=1e-6)
    # The head-ablation view is the page's own effects divided by their largest (kept for the process: the
    # run above made them), and those effects are the engine's: three heads' cells equal a run of the model
    # without that head (all 270 again would double the test's minutes; tests/core/test_patching.py checks
    # analysis.ablation_effects the same way).
    effects = pc.views("smollm2", CLEAN, paris).ablation
    assert effects.shape == (smol.config.n_layers, smol.config.n_heads)
    assert_allclose(kit.z(charts["patching.views.ablation"]), effects / effects.max(), atol=1e-9)
    base = run.next_token_probs()
    for layer, head in ((0, 3), (23, 4), (29, 8)):
        mask = np.ones(effects.shape)
        mask[layer, head] = 0.0
        want = analysis.total_variation(base, smol.run(CLEAN, mask).next_token_probs())
        assert effects[layer, head] == pytest.approx(want, abs=1e-4)
    assert "Why they disagree" in at.markdown[-1].value


def test_sweeps_that_finished_after_the_clicker_moved_on_are_drawn_on_return(smol, kit) -> None:  # noqa: ANN001
    """The clicker's next key stops the run mid-sweep; the job runs on (jobs.call run_on) and its result
    lands in the jobs' results. Back on the step, the page draws it at once: no button, no second sweep."""
    corrupt = "The capital of Germany is"
    at = page(**{state.K_PATCH_CORRUPT: corrupt})
    answer, wrong = at.selectbox(key="patching.answer").value, at.selectbox(key="patching.wrong").value
    L, H, n = smol.config.n_layers, smol.config.n_heads, len(smol.run(CLEAN).tokens)
    rng = np.random.default_rng(7)
    finished = {"resid": rng.random((L, n)), "head": rng.random((L, H))}  # as the job would have left it
    job = pc._sweeps_spec("smollm2", CLEAN, corrupt, answer, wrong)
    jobs.RESULTS.put(job.key, finished)
    back = page(**{state.K_PATCH_CORRUPT: corrupt})
    charts = kit.charts(back)
    assert_allclose(kit.z(charts["patching.resid"]), finished["resid"])
    assert_allclose(kit.z(charts["patching.head"]), finished["head"])
    assert not [b for b in back.button if b.key == "patching.run"]


def test_sweeps_asked_for_are_taken_up_again_on_return_without_a_button(smol) -> None:  # noqa: ANN001
    """Asked for (Run pressed), not drawn yet, a sweep of this session still running: the page takes it up
    by itself (here it finds the session's sweep lock held, and says the result shows when done)."""
    corrupt = "The capital of Poland is"
    at = page(**{state.K_PATCH_CORRUPT: corrupt})
    answer, wrong = at.selectbox(key="patching.answer").value, at.selectbox(key="patching.wrong").value
    lock = threading.Lock()
    lock.acquire()
    asked = ("smollm2", CLEAN, corrupt, answer, wrong)
    back = page(**{state.K_PATCH_CORRUPT: corrupt, keys._PATCH_LOCK: lock, keys._PATCH_ASKED: asked})
    assert "already running in this session" in texts(back)  # taken up: no click needed
    assert not [b for b in back.button if b.key == "patching.run"]
