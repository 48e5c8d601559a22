"""Shared helpers for the engine's tests: the repository root on sys.path and small random inputs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Modest property tests, so the whole engine suite stays fast. Applied per test (not as a global profile,
# which would change the settings of other test suites run in the same session).
fast = settings(max_examples=50, deadline=None)


def random_mha_inputs(
    seed: int, n: int, d_model: int, n_heads: int, d_k: int, d_v: int
) -> dict[str, np.ndarray]:
    """x (n, d_model) and per-head weights drawn from a seeded generator."""
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((n, d_model)),
        "w_q": rng.standard_normal((n_heads, d_model, d_k)),
        "w_k": rng.standard_normal((n_heads, d_model, d_k)),
        "w_v": rng.standard_normal((n_heads, d_model, d_v)),
    }
