"""Cached compute: st.cache_data wrappers over the pure pipeline (bounded, keyed on content)."""

from __future__ import annotations

import streamlit as st

from explorer import pipeline
from explorer.example import Example


@st.cache_data(max_entries=256, show_spinner=False)
def _run(digest: str, _ex: Example) -> pipeline.Result:
    # `digest` is the content hash of `_ex` (the underscore keeps Streamlit from hashing the arrays again).
    return pipeline.run(_ex)


def run(ex: Example) -> pipeline.Result:
    """The traced run of `ex`, computed once per distinct example across reruns and sessions."""
    return _run(ex.digest(), ex)


@st.cache_data(max_entries=64, show_spinner=False)
def pe_curves(kind: str, d_model: int, base: float, n_positions: int):
    return pipeline.pe_curves(kind, d_model, base, n_positions)


D_KS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


@st.cache_data(max_entries=32, show_spinner=False)
def scale_experiment(n_samples: int, n_keys: int, seed: int):
    """(d_ks, ScoreVariance, SoftmaxSaturation) for d_k = 1 .. 512, seeded."""
    import numpy as np

    import attention_core as ac

    d_ks = np.array(D_KS)
    var = ac.score_variance_experiment(list(D_KS), n_samples=n_samples, seed=seed)
    sat = ac.softmax_saturation(list(D_KS), n_keys=n_keys, n_samples=n_samples, seed=seed)
    return d_ks, var, sat


def scale_stats(res: pipeline.Result) -> pipeline.ScaleStats:
    return pipeline.scale_stats(res.attention.scores, res.attention.q.shape[-1])
