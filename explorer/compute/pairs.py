"""Cached compute for /minimal-pairs (attention_core.analysis.pairs) and /ablation's occlusion of the similarity
of two sentences (attention_core.analysis.occlusion_similarity).

Results live in caches shared by every session, bounded in bytes, keyed on plain values (model key, texts,
position). Nothing here draws.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from attention_core import analysis
from explorer import cache
from explorer.compute import jobs, model_compute
from explorer.model import models

# A pair's rows are 3 x (L, H, n) floats: under 0.2 MB for MiniLM at 64 tokens; an occlusion is (n,) floats.
PAIR_BYTES = 8 * cache.MB
OCCLUSION_BYTES = 2 * cache.MB


@cache.shared(max_bytes=PAIR_BYTES)
def shift(key: str, first: str, second: str, word: int) -> analysis.PairShift:
    """The attention from position ``word`` in both sentences, every layer and head, and how much moved; a
    ValueError a student can read when the sentences cannot be compared. A job (explorer.compute.jobs)."""
    cost = 2 * model_compute.run_cost(key, first)
    return jobs.call(jobs.spec(shift_job, key, first, second, int(word), cost=cost))


def shift_job(key: str, first: str, second: str, word: int) -> analysis.PairShift:
    """The job of ``shift``."""
    return analysis.pair_shift(models.model(key), first, second, int(word))


@cache.shared(max_bytes=OCCLUSION_BYTES)
def occlusion_similarity(key: str, text: str, other: str) -> NDArray[np.float64]:
    """(n,) cos(e(text without token i), e(other)) - cos(e(text), e(other)); NaN at [CLS] and [SEP]: a job
    (explorer.compute.jobs), a run per token."""
    cost = len(text.split()) * model_compute.run_cost(key, text)
    return jobs.call(jobs.spec(occlusion_similarity_job, key, text, other, cost=cost))


def occlusion_similarity_job(key: str, text: str, other: str) -> NDArray[np.float64]:
    """The job of ``occlusion_similarity``."""
    return analysis.occlusion_similarity(models.model(key), text, other)
