"""Seed notebook 001, "me gusta estudiar inteligencia artificial": the lesson (what a lesson module holds: explorer/lessons/__init__.py).

Its prints: np.set_printoptions(precision=4, suppress=True).
"""

from __future__ import annotations

import math

import numpy as np

from explorer.compute import pipeline
from explorer.compute.pipeline import Result
from explorer.i18n import N_, _
from explorer.lessons.compare import Check, Run, Table, dims, head1, head_of, printed, row_of, table_example
from explorer.model.arrays import F64
from explorer.model.example import Example

NAME = "me-gusta"
TITLE = N_("One token's output, step by step (no scaling)")
NOTE = N_(
    "**One token's output, step by step.** Five tokens (“me gusta estudiar inteligencia artificial”), "
    "d_model 4, d_k = d_v = 3, hand-set position vectors (a *learned* encoding here) and **no "
    "scaling**: softmax(Q Kᵀ), not softmax(Q Kᵀ/√3). Each token's output is first built one key at a "
    "time (output = Σ weight · value, the Token page), then all at once with matrices: the same "
    "numbers.\n\n"
    "The numbers are head 1's, before W_O."
)
# Where this comes from (the seed notebook and its cells), shown in a detail below the note.
SOURCE = N_(
    "Seed notebook 001, “me gusta estudiar inteligencia artificial” (`001_172aa03a4314f59f.txt`): sizes "
    "(In [2]), position vectors pos_1 … pos_5 (In [15]), weights and scores (In [26] – In [36]), the "
    "hand-written loop (me_alphas In [37], me_attention In [42]; gusta In [22], In [24]) and the matrix "
    "form (In [40]). Its embeddings and weights are random: seed 23 (commented out in its first cell, "
    "In [1]) draws them again exactly, so every number of its final run comes out. The notebook has no W_O."
)

SENTENCE = "me gusta estudiar inteligencia artificial"
SEED = 23  # In [1]: "# np.random.seed(23)", commented out, yet the later run's numbers are its draws
D = {"d_model": 4, "d_ff": 5, "d_k": 3, "d_v": 3}  # In [2]
POS = np.array(  # In [15]: pos_1 .. pos_5
    [
        [0.3, -0.9, -0.6, 0.8],
        [-0.6, 0.8, -0.9, 0.15],
        [0.8, -0.5, -0.9, 0.5],
        [-0.95, 0.2, -0.4, -0.9],
        [0.95, 0.16, 0.2, -0.95],
    ]
)
X = printed(
    N_("X = embeddings + positions"),
    "In [26]",
    [
        [0.967, -0.8742, -1.3776, 1.7486],
        [0.1017, -0.2511, -1.2675, -0.9875],
        [1.4181, -0.0881, -0.8975, 1.384],
        [-0.0651, 0.5004, 0.1896, 0.0784],
        [1.7951, 0.2251, 0.4947, -0.6621],
    ],
    4,
)
Q = printed(
    "Q = X W_q",
    "In [32]",
    [
        [-0.1159, -0.0089, -0.0807],
        [0.0539, -0.0729, -0.2006],
        [-0.1092, 0.0701, -0.1161],
        [-0.0471, -0.0031, 0.0788],
        [0.1479, 0.2473, -0.3784],
    ],
    4,
)
K = printed(
    "K = X W_k",
    "In [34]",
    [
        [0.0779, 0.0176, 0.3061],
        [0.0452, -0.0045, 0.2849],
        [0.0901, -0.035, 0.4052],
        [0.0125, 0.0363, 0.0416],
        [0.0046, -0.2769, 0.1759],
    ],
    4,
)
ALPHAS = printed(
    "alphas = softmax(Q Kᵀ)",
    "In [36]",
    [
        [0.1981, 0.1992, 0.1963, 0.2039, 0.2024],
        [0.1967, 0.1976, 0.1937, 0.2065, 0.2055],
        [0.1988, 0.1997, 0.1955, 0.2067, 0.1993],
        [0.2006, 0.2006, 0.2021, 0.1971, 0.1995],
        [0.1994, 0.1989, 0.1899, 0.2192, 0.1926],
    ],
    4,
)
ME_ALPHAS = printed("me_alphas", "In [37]", [0.1981, 0.1992, 0.1963, 0.2039, 0.2024], 4)
GUSTA_ALPHAS = printed("gusta_alphas", "In [22]", [0.1967, 0.1976, 0.1937, 0.2065, 0.2055], 4)
ME_ATTENTION = printed("me_attention", "In [42]", [-0.078, 0.0809, 0.0652], 4)
GUSTA_ATTENTION = printed("gusta_attention", "In [24]", [-0.0767, 0.0809, 0.0647], 4)
OUTPUT = printed(
    "attn_scores = alphas V",
    "In [40]",
    [
        [-0.078, 0.0809, 0.0652],
        [-0.0767, 0.0809, 0.0647],
        [-0.0783, 0.0803, 0.0651],
        [-0.0804, 0.0815, 0.0663],
        [-0.0777, 0.0784, 0.064],
    ],
    4,
)
# The earlier run: the cells numbered In [13], [17], [24], [27] kept the output of other random draws.
EARLIER = {
    "me_": printed("me_ (embedding)", "In [13]", [0.4417, 1.1289, -1.8381, -0.9388], 4),
    "me_embed_pos": printed("me_embed_pos", "In [17]", [0.7417, 0.2289, -2.4381, -0.1388], 4),
    "me_alpha_me": printed("me_alpha_me = q·k", "In [23]", -0.002689607928836218, 18),
    "me_alphas": printed("me_alphas", "In [24]", [0.2003, 0.1993, 0.199, 0.2012, 0.2002], 4),
    "me_attention": printed("me_attention", "In [27]", [0.1467, 0.0717, -0.0538], 4),
}

# query -> the notebook's own per-token result for that query (its loop, written by hand)
LOOPS = {0: ME_ATTENTION, 1: GUSTA_ATTENTION}


def build() -> Example:
    drawn = draws()
    w_q, w_k, w_v = drawn["w_q"], drawn["w_k"], drawn["w_v"]
    return table_example(
        SENTENCE,
        drawn["emb"],
        w_q,
        w_k,
        w_v,
        d_ff=5,
        pe_kind="learned",
        scale_mode="none",
        pe_table=POS.copy(),
    )


def checks(res: Result) -> list[Check]:
    t = res.attention
    return [
        Check(X, res.x, "X = E + P (learned positions)"),
        *head1(res, q=Q, k=K, weights=ALPHAS),
        Check(ME_ALPHAS, row_of(head_of(t, "weights"), 0), "weights of “me”"),
        Check(GUSTA_ALPHAS, row_of(head_of(t, "weights"), 1), "weights of “gusta”"),
        Check(ME_ATTENTION, row_of(head_of(t, "head_outputs"), 0), _("head-1 output of “me”")),
        Check(GUSTA_ATTENTION, row_of(head_of(t, "head_outputs"), 1), _("head-1 output of “gusta”")),
        *head1(res, head_outputs=OUTPUT),
    ]


def extras(ex: Example, res: Result, run: Run) -> list[Table]:
    t = res.attention
    assert t is not None
    early = EARLIER
    run_rows = [early["me_alphas"].values, ME_ALPHAS.values]
    names = [_("In [24], earlier run"), _("In [37], later run")]
    if res.n == 5:
        run_rows.append(t.weights[0, 0])
        names.append(_("this app, row of “me”"))
    out = [
        Table(
            _("Two different me_alphas in one notebook"),
            names,
            [f"a(me, {w})" for w in SENTENCE.split()],
            np.array(run_rows),
            4,
            _(
                "The notebook was run twice with different random embeddings and weights, and some cells kept "
                "the earlier output: me_alphas prints as [0.2003 0.1993 0.199 0.2012 0.2002] in In [24], and "
                "as [0.1981 0.1992 0.1963 0.2039 0.2024] in In [37]; me_attention as [0.1467 0.0717 -0.0538] "
                "and then [-0.078 0.0809 0.0652]. Only the later run matches its matrices (In [26] to In [40]). "
                "The app reproduces that run exactly: its first cell has `np.random.seed(23)` commented out, "
                "and seed 23 draws the very same embeddings and W_q, W_k, W_v."
            ),
            source=True,
        )
    ]
    _weights, loop_out = token_by_token(t.q[0], t.k[0], t.v[0], res.scale)
    diff = pipeline.largest_difference(loop_out, t.head_outputs[0])
    out.append(
        Table(
            _("The notebook's per-token loop equals the matrix form"),
            res.labels,
            [*(_("loop d{j}", j=j) for j in range(t.d_v)), *(f"(A V) d{j}" for j in range(t.d_v))],
            np.hstack([loop_out, t.head_outputs[0]]),
            6,
            _(
                "Left: out_i = Σ_j a_ij v_j token by token, as the notebook writes me_attention; right: the "
                "whole matrix softmax(Q Kᵀ) V at once, as the app computes it. Largest difference: {diff:.1e}, "
                "the last bit of float64 arithmetic.",
                diff=diff,
            ),
        )
    )
    if ex.w_q.shape == (1, 4, 3):
        w_ls = least_squares_projection(X.values, Q.values)
        out.append(
            Table(
                _("W_q recovered from the printed X and Q (least squares) beside seed 23's W_q"),
                dims(4),
                [*(_("lstsq k{j}", j=j) for j in range(3)), *(_("seed 23 k{j}", j=j) for j in range(3))],
                np.hstack([w_ls, ex.w_q[0]]),
                4,
                _(
                    "Even without the seed, the printed X and Q (4 decimals) pin W_q down to about 1e-4, "
                    "enough for the printed attention weights to come out."
                ),
                source=True,
            )
        )
    return out


def draws() -> dict[str, F64]:
    """Seed 001's random numbers, drawn again: np.random.seed(23), then its cells In [12] and In [19].

    numpy's legacy RandomState stream is fixed across versions, so these are the notebook's own draws:
    emb (5, 4) (me_, gusta_ from randn, the other three from rand) and W_q, W_k, W_v (4, 3), randn * 0.1.
    """
    rng = np.random.RandomState(SEED)  # noqa: NPY002 - the notebook's own (legacy) generator
    d = D["d_model"]
    emb = np.array([rng.randn(d), rng.randn(d), rng.rand(d), rng.rand(d), rng.rand(d)])  # (5, d_model)
    w = {name: rng.randn(d, D["d_k"]) * 0.1 for name in ("w_q", "w_k", "w_v")}  # (d_model, d_k)
    return {"emb": emb, **w}


def token_by_token(q: F64, k: F64, v: F64, scale: float = 1.0) -> tuple[F64, F64]:
    """The notebooks' loop (seeds 001 and 002): one query token at a time, one key at a time.

    For query i: s_ij = (q_i . k_j) * scale for every key j; a_i = softmax(s_i); out_i = sum_j a_ij v_j.
    Written with Python loops on purpose, to set beside the matrix form softmax(Q K^T * scale) V.
    q, k (n, d_k); v (n, d_v). Returns weights (n, n) and outputs (n, d_v).
    """
    n = len(q)
    weights = np.zeros((n, n))
    outputs = np.zeros((n, v.shape[1]))
    for i in range(n):
        scores = [float(q[i] @ k[j]) * scale for j in range(n)]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        for j in range(n):
            weights[i, j] = exps[j] / total
            outputs[i] += weights[i, j] * v[j]  # alpha_ij * value_j, as me_attention does
    return weights, outputs


def least_squares_projection(x: F64, y: F64) -> F64:
    """The W with x W closest to y (np.linalg.lstsq): recovers W_q from printed X and Q. x (n, d), y (n, k)."""
    return np.linalg.lstsq(x, y, rcond=None)[0]  # (d, k)
