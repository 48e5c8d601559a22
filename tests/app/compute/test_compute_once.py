"""Every number computed once: per rerun the sentence is tokenized at most once and the pipeline
runs at most once, through the cache (lessons included); a rerun with nothing changed computes nothing.

Counted with counters on attention_core.tokenize and explorer.compute.pipeline.run (the uncached run) while AppTest
runs app.py on each page. Each test types a sentence no other test uses, so the shared caches are cold.
"""

from __future__ import annotations

import itertools
import uuid

import pytest
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

import attention_core as ac
from explorer.compute import pipeline
from explorer.ui import page_table
from tests.app.fixtures import ROOT, TIMEOUT

_fresh = itertools.count()


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    seen = {"tokenize": 0, "pipeline.run": 0}

    def counting(name, fn):  # noqa: ANN001, ANN202
        def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            seen[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(ac, "tokenize", counting("tokenize", ac.tokenize))
    monkeypatch.setattr(pipeline, "run", counting("pipeline.run", pipeline.run))
    return seen


def rerun(at: AppTest, counts: dict[str, int]) -> tuple[int, int]:
    for k in counts:
        counts[k] = 0
    at.run()
    assert not at.exception, at.exception
    return counts["tokenize"], counts["pipeline.run"]


def sentence() -> str:
    return f"a sentence nobody typed before {uuid.uuid4().hex[:8]} {next(_fresh)}"


@pytest.mark.parametrize("url", [p.url_path for p in page_table.listed() if p.sentence])  # those with the box
def test_a_new_sentence_is_tokenized_once_and_run_once(url: str, counts: dict[str, int]) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    if url:
        at.switch_page(page_table.by_path(url).script).run()
    at.text_input(key="sentence").set_value(sentence())
    # typed: one tokenization, one traced run of the toy model (none on a real model's page: nothing there
    # draws the toy model while Share and export is closed)
    runs = 0 if page_table.by_path(url).section == "Real model" else 1
    assert rerun(at, counts) == (1, runs)
    assert rerun(at, counts) == (0, 0)  # nothing changed: nothing computed again


def test_a_lesson_runs_its_other_example_through_the_cache(counts: dict[str, int]) -> None:
    """causal-vs-bidirectional compares the example with its other mask: a second run, once, cached."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params["preset"] = "causal-vs-bidirectional"
    at.query_params["seed"] = str(1000 + next(_fresh))  # an example no other test ran
    first = rerun(at, counts)
    assert first[1] == 2 and first[0] <= 1  # the example and the same with its mask switched
    assert rerun(at, counts) == (0, 0)


def test_in_pre_norm_the_attention_pages_show_and_say_what_the_block_reads(kit) -> None:  # noqa: ANN001
    """One attention trace: in pre-norm the Scores page draws the block's own weights, over LN(X), and says so;
    in post-norm it says nothing (the input is X)."""
    at = kit.open("scores", via_app=True)
    assert not [i for i in at.info if "Pre-norm" in i.value]
    at.session_state["encoder.norm_first"] = True
    at.run()
    assert not at.exception, at.exception
    notes = [i.value for i in at.info if "Pre-norm" in i.value]
    assert len(notes) == 1 and "LN(X)" in notes[0]
    ref = kit.reference(norm_first=True)
    x_in = ac.layer_norm(ref.x)
    want = ac.multi_head_attention(x_in, ref.ex.w_q, ref.ex.w_k, ref.ex.w_v, ref.ex.w_o, scale=0.5)
    e = ref.ex
    block = ac.encoder_layer(ref.x, e.w_q, e.w_k, e.w_v, e.w_o, e.w1, e.w2, norm_first=True, scale=0.5)
    assert_allclose(block.attention.weights, want.weights, rtol=1e-12)  # the block's own attention
    assert_allclose(kit.z(kit.charts(at)["scores.weights"]), want.weights[0], rtol=1e-12, atol=1e-15)
    at.switch_page(kit.scripts()["positional-encoding"]).run()  # not an attention page: no note
    assert not [i for i in at.info if "Pre-norm" in i.value]
