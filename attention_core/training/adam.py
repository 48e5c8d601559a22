"""Adam (Kingma & Ba 2015): a step per parameter from running means of its gradient and squared gradient."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import FloatArray, as_real

__all__ = ["AdamState", "adam_init", "adam_step"]


@dataclass(frozen=True, eq=False)
class AdamState:
    """Adam's memory after ``step`` steps. m, v: dicts name -> array of that parameter's shape."""

    step: int
    m: dict[str, FloatArray]  # running mean of the gradient
    v: dict[str, FloatArray]  # running mean of the squared gradient


def adam_init(params: dict[str, FloatArray]) -> AdamState:
    """Step 0: m = v = 0 for every parameter."""
    return AdamState(
        0, {k: np.zeros_like(a) for k, a in params.items()}, {k: np.zeros_like(a) for k, a in params.items()}
    )


def adam_step(
    params: dict[str, FloatArray],
    grads: dict[str, FloatArray],
    state: AdamState,
    lr: float = 1e-3,
    beta1: float = 0.9,
    beta2: float = 0.999,
    eps: float = 1e-8,
) -> tuple[dict[str, FloatArray], AdamState]:
    """One Adam step; returns new parameters and state (the arguments are not changed).

    With t = state.step + 1 and g = grads[name]: m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
    param = param - lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps).

    Args:
        params, grads: dicts with the same keys, arrays of matching shapes.
        state: from ``adam_init`` or the previous step.
        lr: learning rate > 0; beta1, beta2 in [0, 1); eps > 0.
    """
    lr = as_real("lr", lr, positive=True)
    eps = as_real("eps", eps, positive=True)
    for name, beta in (("beta1", beta1), ("beta2", beta2)):
        if not 0.0 <= as_real(name, beta) < 1.0:
            raise ValueError(f"{name} must lie in [0, 1), got {beta}")
    if set(grads) != set(params) or set(state.m) != set(params):
        raise ValueError("params, grads and the Adam state must hold the same parameter names")
    t = state.step + 1
    fix1, fix2 = 1.0 - beta1**t, 1.0 - beta2**t  # bias corrections: m and v start at 0
    new_p, new_m, new_v = {}, {}, {}
    for name, p in params.items():
        g = grads[name]
        new_m[name] = beta1 * state.m[name] + (1.0 - beta1) * g
        new_v[name] = beta2 * state.v[name] + (1.0 - beta2) * (g * g)
        new_p[name] = p - lr * (new_m[name] / fix1) / (np.sqrt(new_v[name] / fix2) + eps)
    return new_p, AdamState(t, new_m, new_v)
