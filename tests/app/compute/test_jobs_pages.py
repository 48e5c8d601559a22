"""The real-model analyses through real worker processes (explorer.compute.jobs): the same numbers as computed
in the asking process, the run's layers still readable here, and a class asking together costs one job."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from explorer.compute import interp, jobs, model_compute, pairs
from explorer.compute import patching as pc
from explorer.model import models
from tests.app.fixtures import need, page

TEXT = "The keys were on the table"


def clear() -> None:
    """Forget every result kept in this process (the engine's runs and the shared caches)."""
    from attention_core.pretrained import _trace
    from explorer import cache

    _trace.RESULTS.clear()
    _trace.PARTS.clear()
    jobs.RESULTS.clear()
    for store in cache.caches():
        store.clear()


def inline_and_pooled(pool: object, ask: object) -> tuple[object, object]:
    clear()
    before = jobs.use(None)  # inline: this process computes
    try:
        here = ask()  # type: ignore[operator]
    finally:
        jobs.use(before)
    clear()
    return here, ask()  # type: ignore[operator]


def test_a_new_run_comes_from_a_worker_and_its_layers_are_read_here(job_pool: object) -> None:
    need("smollm2")
    here, pooled = inline_and_pooled(job_pool, lambda: model_compute.run("smollm2", TEXT, ((2, 1),)))
    assert pooled.tokens == here.tokens and pooled.message == here.message
    for name in ("attentions", "hidden_states", "next_logits", "head_mask"):
        np.testing.assert_array_equal(getattr(pooled, name), getattr(here, name))
        assert not getattr(pooled, name).flags.writeable
    np.testing.assert_allclose(pooled.layers[2].attention.q, here.layers[2].attention.q, rtol=0, atol=0)
    m = models.model("smollm2")
    assert m.has_run(TEXT, models.head_mask(models.shape("smollm2"), ((2, 1),)))


def test_the_analyses_give_the_pages_the_same_numbers(job_pool: object) -> None:
    need("smollm2")
    need("minilm")
    short = "The cat sat on"
    cases = {
        "lens": lambda: interp.lens("smollm2", short).reading.probs,
        "induction": lambda: interp.induction("smollm2", 3, 6).run.induction,
        "rank": lambda: model_compute.rank("minilm", short).head_effects,
        "occlusion": lambda: pc.occlusion("smollm2", short, 13),
        "pairs": lambda: pairs.shift("minilm", "The cat sat", "The dog sat", 2).moved,
    }
    for name, ask in cases.items():
        here, pooled = inline_and_pooled(job_pool, ask)
        np.testing.assert_allclose(pooled, here, rtol=0, atol=0, err_msg=name)


def test_next_token_asks_for_its_run_and_the_occlusion_it_draws_as_one_job(job_pool: object) -> None:
    """/next-token's new sentence: the run and the top prediction's occlusion come from one job, with the
    numbers of the two computed here; the occlusion of another token is a job of its own."""
    need("smollm2")
    here, _ = inline_and_pooled(job_pool, lambda: model_compute.run("smollm2", TEXT))
    here_delta = pc.occlusion_job("smollm2", TEXT, 13)  # (computed here: the engine's own)
    clear()
    before = job_pool.started.copy()  # type: ignore[attr-defined]
    trace = pc.run_and_needs("smollm2", TEXT)
    top = model_compute.next_tokens("smollm2", TEXT, 0.5)[0][0]  # as the page picks it, at another T
    delta = pc.occlusion("smollm2", TEXT, top)
    ran = job_pool.started - before  # type: ignore[attr-defined]
    assert ran == {f"{pc.__name__}:run_and_needs_job": 1}, ran
    np.testing.assert_array_equal(trace.next_logits, here.next_logits)
    np.testing.assert_array_equal(delta, pc.occlusion_job("smollm2", TEXT, top))
    np.testing.assert_array_equal(pc.occlusion("smollm2", TEXT, 13), here_delta)  # another token: apart
    assert (job_pool.started - before)[f"{pc.__name__}:occlusion_job"] == (0 if top == 13 else 1)  # type: ignore[attr-defined]


def test_next_token_on_a_new_sentence_waits_for_one_job_and_draws_its_numbers(job_pool: object, kit) -> None:  # noqa: ANN001
    m = need("smollm2")
    text = TEXT + " at noon"
    clear()
    before = job_pool.started.copy()  # type: ignore[attr-defined]
    at = page("next-token", "smollm2", text)
    assert not at.exception and job_pool.started - before == {f"{pc.__name__}:run_and_needs_job": 1}  # type: ignore[attr-defined]
    top = int(np.argmax(m.run(text).next_logits))
    np.testing.assert_allclose(
        kit.z(kit.charts(at)["next.occlusion"])[0], pc.occlusion_job("smollm2", text, top)
    )


def test_a_sweep_reports_its_progress_and_a_class_pressing_run_costs_one(job_pool: object) -> None:
    need("smollm2")
    clean, corrupt = "Mary saw John and John", "Mary saw John and Mary"
    answer, wrong = pc.answers("smollm2", clean, corrupt, None, None)
    seen: list[jobs.Status] = []
    got: list[object] = []

    def student(i: int) -> None:
        with jobs.for_visitor(f"student {i}", seen.append if i == 0 else None):
            pc.run_sweeps("smollm2", clean, corrupt, answer, wrong)
            got.append(pc.sweep("smollm2", clean, corrupt, answer, wrong, "head"))

    clear()
    fn = "explorer.compute.patching:sweeps_job"
    runs_before = job_pool.started[fn]  # type: ignore[attr-defined]
    threads = [threading.Thread(target=student, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    assert job_pool.started[fn] == runs_before + 1 and len(got) == 5  # type: ignore[attr-defined]
    sites = {pc.progress_site(s.message) for s in seen if s.state == "running" and s.message}
    assert sites <= {"resid", "head"} and "resid" in sites
    p = pc.pair("smollm2", clean, corrupt, answer, wrong)
    from attention_core import analysis

    # The worker's sweep is this process's, row for row: the first, a middle and the last layer (a layer costs
    # the layers after it, so three rows cost a tenth of a sweep; tests/core/test_patching.py checks that
    # patch_layer's rows are patch_sweep's).
    smol = models.model("smollm2")
    assert got[0].shape == (smol.config.n_layers, smol.config.n_heads)
    for layer in (0, smol.config.n_layers // 2, smol.config.n_layers - 1):
        np.testing.assert_allclose(
            got[0][layer], analysis.patch_layer(smol, p, layer, "head"), rtol=0, atol=0
        )


def test_a_bad_input_says_why_from_the_worker(job_pool: object) -> None:
    need("smollm2")
    with pytest.raises(ValueError, match="."):
        pc.pair("smollm2", "A short one", "A sentence of quite another length entirely", 13, 14)


def test_a_real_layer_opened_on_a_new_sentence_reads_a_workers_run(job_pool: object, monkeypatch) -> None:
    """The model run a real layer's tokens and X read is made by a worker (model_compute.prepare): this
    process then computes no run of its own, and reads the same tokens and X as computed here."""
    from attention_core.pretrained._model import Model
    from explorer.model import example as exm
    from explorer.model import layer

    need("smollm2")
    ex = (
        exm.Example()
        .with_(**layer.of_key("smollm2").settings_of("smollm2", 4))
        .with_(sentence=TEXT + " today")
    )
    clear()
    before = jobs.use(None)
    try:
        tokens_here, x_here = exm.tokens_for(ex), layer.of(ex).model_input(ex, ex.sentence)
    finally:
        jobs.use(before)
    clear()
    runs: list[str] = []
    real_run = Model._run
    monkeypatch.setattr(
        Model, "_run", lambda self, text, *a, **k: runs.append(text) or real_run(self, text, *a, **k)
    )
    model_compute.prepare(ex)
    assert exm.tokens_for(ex) == tokens_here
    np.testing.assert_array_equal(layer.of(ex).model_input(ex, ex.sentence), x_here)
    assert runs == []  # every run came from the worker
    toy = exm.Example().with_(sentence="a sentence the toy reads")
    model_compute.prepare(toy)  # the toy asks for no run: nothing is sent to a worker
    assert layer.of(toy).run_first(toy) is None
