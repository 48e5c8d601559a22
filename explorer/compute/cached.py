"""Cached compute: the pure pipeline behind caches shared by every session, bounded in bytes, keyed by digest.

Budgets (explorer.cache; benchmarks/limits.py measures an entry): one result of the largest example
holds about 6 MB, so RESULT_BYTES keeps the last 10 of those, or thousands of the default example's.
"""

from __future__ import annotations

from explorer import cache
from explorer.compute import pipeline
from explorer.model.example import Example

RESULT_BYTES = 64 * cache.MB  # traced runs (pipeline.Result)
SMALL_BYTES = 4 * cache.MB  # encoding curves, the why-scale experiment (a few KB each)


@cache.shared(max_bytes=RESULT_BYTES)
def _run(digest: str, _ex: Example) -> pipeline.Result:
    # `digest` is the content hash of `_ex`: the key, whatever the size of the sentence or the matrices.
    return pipeline.run(_ex)


def run(ex: Example) -> pipeline.Result:
    """The traced run of `ex`, computed once per distinct example across reruns and sessions."""
    return _run(ex.digest(), ex)


@cache.shared(max_bytes=SMALL_BYTES)
def pe_curves(kind: str, d_model: int, base: float, n_positions: int):
    return pipeline.pe_curves(kind, d_model, base, n_positions)


D_KS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


@cache.shared(max_bytes=SMALL_BYTES)
def scale_experiment(n_samples: int, n_keys: int, seed: int):
    """(d_ks, ScoreVariance, SoftmaxSaturation) for d_k = 1 .. 512, seeded."""
    import numpy as np

    import attention_core as ac

    d_ks = np.array(D_KS)
    var = ac.score_variance_experiment(list(D_KS), n_samples=n_samples, seed=seed)
    sat = ac.softmax_saturation(list(D_KS), n_keys=n_keys, n_samples=n_samples, seed=seed)
    return d_ks, var, sat


@cache.shared(max_bytes=SMALL_BYTES)
def _encoder_note(digest: str, _ex: Example, _res: pipeline.Result) -> pipeline.EncoderNote:
    return pipeline.encoder_note(_ex, _res)


def encoder_note(ex: Example, res: pipeline.Result) -> pipeline.EncoderNote:
    """The encoder page's note on `res` (the run of `ex`): its other order computed once per example."""
    return _encoder_note(ex.digest(), ex, res)


def scale_stats(res: pipeline.Result) -> pipeline.ScaleStats:
    return pipeline.scale_stats(res.attention.scores, res.attention.q.shape[-1])
