"""Cached compute for /patching and the occlusion on /next-token (attention_core.analysis.patching).

Every result lives in a cache shared by every session and bounded in bytes, keyed on plain values (model key,
texts, token ids, site): a sweep a teacher ran shows at once for a student opening the same link. Every
analysis here is a job (explorer.compute.jobs); a sweep reports its progress a layer at a time and is stored
when it is complete. Nothing here draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from attention_core import analysis
from explorer import cache
from explorer.compute import jobs
from explorer.compute import model_compute as mc
from explorer.i18n import N_
from explorer.model import models
from explorer.model import patching as pm

SWEEP_BYTES = 4 * cache.MB  # a sweep is (30, n) or (30, 9) floats: under 4 KB each, about a thousand
OCCLUSION_BYTES = 2 * cache.MB  # (n,) floats each

_SWEEPS = cache.ByteCache("explorer.compute.patching.sweeps", SWEEP_BYTES)


@cache.shared(max_bytes=SWEEP_BYTES)
def pair(key: str, clean: str, corrupt: str, answer: int, wrong: int) -> analysis.PatchPair:
    """The checked experiment with both runs' logit differences; a ValueError a student can read otherwise.
    A job (explorer.compute.jobs): two runs."""
    cost = 2 * mc.run_cost(key, clean)
    return jobs.call(jobs.spec(pair_job, key, clean, corrupt, int(answer), int(wrong), cost=cost))


def pair_job(key: str, clean: str, corrupt: str, answer: int, wrong: int) -> analysis.PatchPair:
    """The job of ``pair``."""
    return analysis.patch_pair(models.model(key), clean, corrupt, int(answer), int(wrong))


def _sweep_key(key: str, clean: str, corrupt: str, answer: int, wrong: int, site: str) -> str:
    return cache.key_of((key, clean, corrupt, int(answer), int(wrong), site))


def sweep(
    key: str, clean: str, corrupt: str, answer: int, wrong: int, site: str
) -> NDArray[np.float64] | None:
    """The finished sweep of ``site`` ("resid" or "head") of this experiment, or None when it has not run."""
    found, value = _SWEEPS.get(_sweep_key(key, clean, corrupt, answer, wrong, site))
    return value if found else None  # type: ignore[return-value]


# What each sweep costs, in runs of the clean text (for the order of the workers' queue): SmolLM2 at 16
# tokens on one core, resid 1.1 s and head 2.7 s against a run's 0.28 s (python -m benchmarks one_core).
SWEEP_RUNS = {"resid": 4.0, "head": 10.0}


def _sweeps_spec(key: str, clean: str, corrupt: str, answer: int, wrong: int) -> jobs.Spec | None:
    """The job of the sweeps not yet cached (None: both are)."""
    sites = tuple(s for s in analysis.PATCH_SITES if sweep(key, clean, corrupt, answer, wrong, s) is None)
    if not sites:
        return None
    cost = sum(SWEEP_RUNS[s] for s in sites) * mc.run_cost(key, clean)
    return jobs.spec(sweeps_job, key, clean, corrupt, int(answer), int(wrong), sites, cost=cost)


def run_sweeps(key: str, clean: str, corrupt: str, answer: int, wrong: int) -> None:
    """Run the sweeps not yet cached, as one job (explorer.compute.jobs: a class pressing Run on one link
    costs one run), and store each. Its progress says "site: what was measured" (``progress_site``). The job
    runs to its end even when the visitor moves on meanwhile (the clicker's next key): ``collect`` finds it."""
    job = _sweeps_spec(key, clean, corrupt, answer, wrong)
    if job is not None:
        _store(key, clean, corrupt, answer, wrong, jobs.call(job, run_on=True))


def collect(key: str, clean: str, corrupt: str, answer: int, wrong: int) -> bool:
    """Store the sweeps a job finished after its visitor had moved on; whether there were any."""
    job = _sweeps_spec(key, clean, corrupt, answer, wrong)
    found, value = jobs.RESULTS.get(job.key) if job is not None else (False, None)
    if found:
        _store(key, clean, corrupt, answer, wrong, value)
    return found


def _store(key: str, clean: str, corrupt: str, answer: int, wrong: int, got: dict[str, Any]) -> None:
    for site, restored in got.items():
        _SWEEPS.put(_sweep_key(key, clean, corrupt, answer, wrong, site), restored)


# A sweeps job's progress, per site (jobs.said: worded in the visitor's language)
PATCHING = {
    "resid": N_("Patching the residual stream: layer {layer} of {n}"),
    "head": N_("Patching the heads: layer {layer} of {n}"),
}


def progress_site(message: str) -> str | None:
    """The site ("resid" or "head") a sweeps job's progress message is about (None: another message)."""
    text = jobs.unworded(message)
    return next((site for site, said in PATCHING.items() if said == text), None)


def sweeps_job(
    key: str,
    clean: str,
    corrupt: str,
    answer: int,
    wrong: int,
    sites: tuple[str, ...],
    progress: jobs.Progress,
) -> dict[str, NDArray[np.float64]]:
    """The job of ``run_sweeps``: residual stream first, a progress report after every layer."""
    p = pair_job(key, clean, corrupt, answer, wrong)
    # A patched run costs about as much as the rows it runs: n per position patched, n per head patched.
    widths = {"resid": p.n_tokens, "head": models.model(key).config.n_heads}
    total, before, out = sum(widths[s] for s in sites), 0.0, {}
    L = models.model(key).config.n_layers
    for site in sites:
        for step in analysis.patch_sweep(models.model(key), p, site):
            said = jobs.said(PATCHING[site], layer=step.layer + 1, n=L)  # worded on the visitor's page
            progress((before + widths[site] * step.done / step.total) / total, said)
        out[site] = step.restored
        before += widths[site]
    return out


@cache.shared(max_bytes=OCCLUSION_BYTES)
def occlusion(key: str, text: str, target: int) -> NDArray[np.float64]:
    """(n,) p(target | text without token i) - p(target | text), for every token i of ``text``: a job
    (explorer.compute.jobs), a run per token, as one batch: about a run's cost per four tokens (one core, 8
    tokens: 0.22 s of CPU against 0.11 s for the sentence's own run)."""
    return jobs.call(_occlusion_spec(key, text, target))


def _occlusion_cost(key: str, text: str) -> float:
    return max(1.0, len(text.split()) / 4) * mc.run_cost(key, text)


def _occlusion_spec(key: str, text: str, target: int) -> jobs.Spec:
    return jobs.spec(occlusion_job, key, text, int(target), cost=_occlusion_cost(key, text))


def occlusion_job(key: str, text: str, target: int) -> NDArray[np.float64]:
    """The job of ``occlusion``."""
    return analysis.occlusion(models.model(key), text, int(target))


def run_and_needs(key: str, text: str) -> Any:
    """model_compute.run(key, text), and the occlusion of its top prediction in the results every session
    reads (``occlusion`` finds it there): one job where /next-token would ask for two in turn, so a student
    waits in the workers' queue once, and the worker runs the sentence once. A run the engine holds already,
    or a sentence too long for occlusion, is model_compute.run alone."""
    m, whole = models.model(key), models.head_mask(models.shape(key), ())
    if m.has_run(text, whole) or len(text.split()) > pm.MAX_OCCLUSION_TOKENS:
        return mc.run(key, text)
    cost = mc.run_cost(key, text) + _occlusion_cost(key, text)
    trace, target, delta = jobs.call(jobs.spec(run_and_needs_job, key, text, cost=cost, keep=False))
    if delta is not None:
        jobs.RESULTS.put(_occlusion_spec(key, text, target).key, delta)
    return m.adopt(text, whole, trace)


def run_and_needs_job(key: str, text: str) -> tuple[Any, int, NDArray[np.float64] | None]:
    """The job of ``run_and_needs``: the detached trace, its top next token (as /next-token picks it) and that
    token's occlusion (None past pm.MAX_OCCLUSION_TOKENS tokens, or for a single token)."""
    m = models.model(key)
    trace = m.run(text, models.head_mask(models.shape(key), ()))
    target = int(analysis.top_next_tokens(trace.next_logits, 1)[0][0])
    fits = 2 <= trace.n_tokens <= pm.MAX_OCCLUSION_TOKENS
    return m.detach(trace), target, analysis.occlusion(m, text, target) if fits else None


def answers(key: str, clean: str, corrupt: str, answer: int | None, wrong: int | None) -> tuple[int, int]:
    """The answer and the wrong token of an experiment: those picked (a token id of the model), else the ones
    offered first (explorer.model.patching.default_ids over each sentence's likely next tokens)."""
    first = pm.default_ids(
        candidates(key, clean, pm.CANDIDATES)[0], candidates(key, corrupt, pm.CANDIDATES)[0]
    )
    vocab = models.model(key).config.vocab_size
    picked = [
        v if v is not None and 0 <= v < vocab else d for v, d in zip((answer, wrong), first, strict=True)
    ]
    return int(picked[0]), int(picked[1])


def candidates(key: str, text: str, k: int) -> tuple[list[int], list[str], Any]:
    """The k most likely next tokens after ``text`` (T = 1): ids, display strings, probabilities."""
    return mc.next_tokens(key, text, 1.0, k)


@dataclass(frozen=True)
class Views:
    """One prediction seen four ways (the page normalises each to its own largest value). n tokens."""

    attention: NDArray[np.float64]  # (n,) the last layer's attention from the last token, mean of its heads
    rollout: NDArray[np.float64]  # (n,) attention rollout: the last token's row after the last layer
    occlusion: NDArray[np.float64]  # (n,) p(answer) - p(answer without the token): how much each token helped
    ablation: NDArray[np.float64]  # (L, H) TV of the next-token distribution without each head


@cache.shared(max_bytes=SWEEP_BYTES)
def views(key: str, text: str, answer: int) -> Views:
    """The attention, rollout, occlusion and head-ablation views of the prediction after ``text``."""
    run = mc.run(key, text)
    attention = np.asarray(run.attentions[-1, :, -1, :], dtype=np.float64).mean(axis=0)  # (n,)
    rollout = analysis.attention_rollout(run.attentions)[-1, -1]  # (n,)
    helped = -occlusion(key, text, answer)
    return Views(attention, rollout, helped, ablation_effects(key, text))


def ablation_effects(key: str, text: str) -> NDArray[np.float64]:
    """(L, H) the next token's total variation without each head: a job (explorer.compute.jobs)."""
    cost = 30 * mc.run_cost(key, text)
    return jobs.call(jobs.spec(ablation_effects_job, key, text, cost=cost))


def ablation_effects_job(key: str, text: str) -> NDArray[np.float64]:
    """The job of ``ablation_effects``."""
    return analysis.ablation_effects(models.model(key), text)
