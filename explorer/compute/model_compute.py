"""Cached compute for the real-model pages: the engine's runs and the measures of attention_core.analysis.

Runs are cached by the engine itself (attention_core.pretrained: per (model, text, head_mask), bounded in
bytes), so ``run`` is a plain call; the small results derived from a run (labels, rollout, comparisons) are
in caches shared by every session, bounded in bytes (explorer.cache.shared), keyed on plain values (model
key, text, switched-off heads). Nothing here draws.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from attention_core import analysis, causal_mask
from explorer import cache
from explorer.compute import jobs
from explorer.i18n import N_
from explorer.model import layer, models

SMALL_BYTES = 8 * cache.MB  # labels (a few KB), rollouts (at most 1 MB: 30 x 64 x 64 floats), comparisons

Off = tuple[tuple[int, int], ...]  # switched-off heads, 0-based (layer, head), sorted


def run(key: str, text: str, off: Off = ()) -> Any:
    """The traced run (a ModelTrace) of ``text`` with the heads ``off`` removed; the engine caches it. A run
    the cache does not hold is a job (explorer.compute.jobs): a worker runs it, and this process keeps what
    its pages read (the engine's cache; a layer's whole trace is computed here when a page asks for it)."""
    m = models.model(key)
    mask = models.head_mask(models.shape(key), off)
    if m.has_run(text, mask):
        return m.run(text, mask)
    trace = jobs.call(jobs.spec(run_job, key, text, tuple(off), cost=run_cost(key, text), keep=False))
    return m.adopt(text, mask, trace)


def prepare(ex: Any) -> None:
    """Have the model run that `ex`'s tokens and X read (its layer's `run_first`) made by a worker, so that
    this process reads it from the engine's cache instead of computing it in a visitor's run (a class opening
    the same link or file joins one run). A run refused here (the visitor's queue full, the text refused) is
    left to the layer, which computes it or says why in the page."""
    need = layer.of(ex).run_first(ex)
    if need is not None:
        with contextlib.suppress(ValueError, jobs.Busy, jobs.Failed):
            run(*need)


def run_job(key: str, text: str, off: Off) -> Any:
    """The job of ``run``: the trace, detached from the model to go back to the asking process."""
    m = models.model(key)
    return m.detach(m.run(text, models.head_mask(models.shape(key), off)))


def run_cost(key: str, text: str) -> float:
    """About how many seconds a new run of ``text`` takes (for the order of the heavy pool's queue): SmolLM2
    runs 64 tokens in about a second on one core, MiniLM's 6 layers take about a fifth of that."""
    per_token = (1.0 if models.choice(key).decoder else 0.2) / 64
    return per_token * min(len(text.split()) + 2, 64)


def blocked(key: str, n: int) -> NDArray[np.bool_] | None:
    """(n, n) True where model ``key``'s runs hide a key from a query (a decoder's later tokens: the engine's
    causal_mask, as run_transformer applies it); None for an encoder, whose queries see every token."""
    return ~causal_mask(n) if models.choice(key).decoder else None


@cache.shared(max_bytes=SMALL_BYTES)
def labels(key: str, text: str) -> analysis.HeadLabels:
    """Every head's label on ``text`` in the untouched model."""
    trace = run(key, text)
    row = models.choice(key)
    return analysis.label_heads(trace.attentions, trace.tokens, causal=row.decoder, scheme=row.scheme)


@cache.shared(max_bytes=SMALL_BYTES)
def rollout(key: str, text: str, off: Off = ()) -> NDArray[np.float64]:
    """(L, n, n) attention rollout after each layer, switched-off heads left out of the average."""
    trace = run(key, text, off)
    weights = models.head_mask(models.shape(key), off)
    return analysis.attention_rollout(trace.attentions, 0.5, weights)


@dataclass(frozen=True)
class Comparison:
    """The untouched model against the one with heads off (what /ablation draws)."""

    shift: NDArray[np.float64]  # (L + 1,) how far each layer's hidden states moved
    next_tokens: analysis.NextTokenShift | None  # decoder: top next tokens before and after
    next_strings: tuple[str, ...]  # their display strings
    cosine_before: float | None  # encoder: cosine with the second sentence, untouched
    cosine_after: float | None  # ... and with the heads off


@cache.shared(max_bytes=SMALL_BYTES)
def compare(key: str, text: str, off: Off, other: str) -> Comparison:
    """Compare the untouched model with the one whose heads ``off`` are removed, on ``text`` (and, for an
    encoder, the sentence embedding's cosine with ``other`` before and after)."""
    base, changed = run(key, text), run(key, text, off)
    shift = analysis.hidden_state_shift(base.hidden_states, changed.hidden_states)
    if models.choice(key).decoder:
        nt = analysis.compare_next_tokens(base.next_logits, changed.next_logits, k=10)
        strings = tuple(models.model(key).token_strings([int(i) for i in nt.ids]))
        return Comparison(shift, nt, strings, None, None)
    if not other.strip():
        return Comparison(shift, None, (), None, None)
    b_other, c_other = run(key, other), run(key, other, off)
    emb = analysis.sentence_embedding
    before = analysis.cosine(emb(base.hidden_states[-1]), emb(b_other.hidden_states[-1]))
    after = analysis.cosine(emb(changed.hidden_states[-1]), emb(c_other.hidden_states[-1]))
    return Comparison(shift, None, (), before, after)


def effect_of(key: str, text: str) -> Any:
    """The function the "which heads matter" ranking calls: head masks (b, L, H) -> (b,) how much the output
    moved under each (the engine runs them together: pretrained.Model.ablate).

    Decoder: the total variation between the next-token distributions (the share of probability that
    moved). Encoder: 1 - cosine between the sentence embeddings (0 = the same direction).
    """
    m, base = models.model(key), run(key, text)
    if models.choice(key).decoder:
        p = analysis.next_token_probs(base.next_logits)

        def moved(masks: NDArray[np.float64]) -> NDArray[np.float64]:
            logits = m.ablate(text, masks, last_only=True)[1]
            return np.array([analysis.total_variation(p, analysis.next_token_probs(z)) for z in logits])

        return moved
    e = analysis.sentence_embedding(base.hidden_states[-1])

    def turned(masks: NDArray[np.float64]) -> NDArray[np.float64]:
        finals = m.ablate(text, masks)[0]
        return np.array([1.0 - analysis.cosine(e, analysis.sentence_embedding(f)) for f in finals])

    return turned


def ranking(key: str, text: str) -> Iterator[analysis.RankingStep]:
    """The "which heads matter" ranking as progress steps (MiniLM: every head; SmolLM2: layers first)."""
    L, H = models.shape(key)
    decoder = models.choice(key).decoder
    return analysis.rank_heads(effect_of(key, text), L, H, layers_first=decoder, top_layers=3)


def rank(key: str, text: str) -> analysis.RankingStep:
    """The finished ranking of ``text``: a job (explorer.compute.jobs) whose progress says which runs are
    done ("layer 3 of 30 (3 of 57 runs)")."""
    return jobs.call(jobs.spec(rank_job, key, text, cost=30 * run_cost(key, text)))


# The ranking's progress (jobs.said: worded in the visitor's language)
RANK_LAYERS = N_("{layers} layers, each switched off whole ({done} of {total} runs)")
RANK_HEADS = N_("Layer {layer}: its {heads} heads, each switched off alone ({done} of {total} runs)")


def rank_job(key: str, text: str, progress: jobs.Progress) -> analysis.RankingStep:
    """The job of ``rank``: every step of ``ranking`` reported, the last one returned."""
    done, (L, H) = None, models.shape(key)
    before = np.zeros(L, dtype=bool)  # the layers whose heads were measured by the step before
    for step in ranking(key, text):
        measured = ~np.isnan(step.head_effects).all(axis=1)  # (L,)
        new = np.flatnonzero(measured & ~before)
        before = measured
        if len(new):  # worded on the visitor's page (jobs.said)
            said = jobs.said(RANK_HEADS, layer=int(new[0]) + 1, heads=H, done=step.done, total=step.total)
        else:
            said = jobs.said(RANK_LAYERS, layers=L, done=step.done, total=step.total)
        progress(step.done / step.total, said)
        done = step
    assert done is not None
    return done


def next_tokens(key: str, text: str, temperature: float, k: int = 10) -> tuple[list[int], list[str], Any]:
    """The top k next tokens at ``temperature``: ids, display strings, probabilities (k,)."""
    trace = run(key, text)
    ids, probs = analysis.top_next_tokens(trace.next_logits, k, temperature)
    id_list = [int(i) for i in ids]
    return id_list, list(models.model(key).token_strings(id_list)), probs
