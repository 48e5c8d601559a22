"""A two-layer decoder built by hand, whose attention, logit lens and losses are known without running it.

The residual stream has three one-hot blocks: the token (V dims, also what the tied output matrix reads),
the previous token (V dims, written by layer 1) and the position (P dims, learned positions). Every vector
that enters a layer has unit entries, so each RMSNorm is a known factor (norm of x = sqrt(#ones / d)).

- Layer 1, head 1 ("previous token"): q_i = a e_i, k_j = a e_(j+1) on the position block, so query i puts
  all but e^-30 of its weight on key i - 1 (query 0 has only itself); it copies that key's token into the
  previous-token block, with weight 1.
- Layer 2, head 1 ("induction"): q_i reads the token block, k_j the previous-token block: query i attends to
  the keys whose previous token is its own token, and copies their token into the token block three times
  over, so the output predicts the token that followed last time. It also scores key 0 at -60: position 0
  has no previous token, so layer 1 copies position 0's own token into its previous-token block, and query
  n (the second copy's first token) would otherwise split its weight between keys 0 and 1.
- Head 2 of both layers has W_Q = 0 (every score 0: uniform weights over the keys it may see) and W_V = 0.
- The feed-forward networks are zero.

Known answers on n distinct tokens repeated: the previous-token head and the induction head score 1 (to
within n e^-30); a uniform head scores mean_i 1 / (i + 1) over the queries it is measured on
(``uniform_score``). The logit lens reads the token block times the norm's factor: row 0 predicts each
position's own token with p = e^4 / (e^4 + 7), row 1 with p = e^f / (e^f + 7), f = sqrt(D / 3), and the last
row, at every position of the second copy, the token that followed last time (``lens_known``).
"""

from __future__ import annotations

import math

import numpy as np

from attention_core import EmbeddingWeights, LayerWeights, ModelConfig, ModelWeights
from attention_core.pretrained._model import Model, Tokenizer

V, P = 8, 16  # vocabulary, positions
D = 2 * V + P  # d_model: token block, previous-token block, position block
TOK, PREV, POS = 0, V, 2 * V  # where each block starts
DK = P  # d_k, wide enough for the position block
STRENGTH = 30.0  # a matching key's scaled score: its weight is 1 - (keys seen) e^-30
COPY = 3.0  # how many times over the induction head writes the token it attends to


def _layer(w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray, w_o: np.ndarray) -> LayerWeights:
    """One pre-norm layer with two heads (given for head 1; head 2 is zero) and a zero feed-forward net."""
    blocks = [np.zeros((D, 2 * DK)) for _ in range(3)]
    for block, w in zip(blocks, (w_q, w_k, w_v), strict=True):
        block[:, :DK] = w  # head 1's columns; head 2's stay 0 (W_Q = 0: uniform, W_V = 0: writes nothing)
    out = np.zeros((2 * DK, D))
    out[:DK] = w_o
    ones = np.ones(D)
    return LayerWeights(
        w_qkv=np.concatenate(blocks, axis=1), b_qkv=None, w_o=out, b_o=None,
        w1=np.zeros((D, 4)), b1=None, w_up=None, w2=np.zeros((4, D)), b2=None,
        attn_norm_gain=ones, attn_norm_bias=None, norm1_gain=ones, norm1_bias=None,
        norm2_gain=None, norm2_bias=None, n_heads=2, n_kv_heads=2, d_k=DK,
    )  # fmt: skip


def weights() -> ModelWeights:
    """The two layers described in the module's docstring."""
    eye = np.eye(V)
    # Layer 1: RMSNorm scales (token + position) by sqrt(D / 2); the scaled score is (norm a)^2 / sqrt(DK).
    n1 = math.sqrt(D / 2)
    a = math.sqrt(STRENGTH * math.sqrt(DK)) / n1
    q1, k1, v1, o1 = np.zeros((D, DK)), np.zeros((D, DK)), np.zeros((D, DK)), np.zeros((DK, D))
    q1[POS : POS + P, :P] = a * np.eye(P)
    k1[POS : POS + P - 1, 1:P] = a * np.eye(P - 1)  # key j answers query j + 1
    v1[TOK : TOK + V, :V] = eye
    o1[:V, PREV : PREV + V] = eye / n1  # the value is the token times n1: write it once
    # Layer 2 reads token + position + previous token: RMSNorm scales by sqrt(D / 3).
    n2 = math.sqrt(D / 3)
    b = math.sqrt(STRENGTH * math.sqrt(DK)) / n2
    q2, k2, v2, o2 = np.zeros((D, DK)), np.zeros((D, DK)), np.zeros((D, DK)), np.zeros((DK, D))
    q2[TOK : TOK + V, :V] = b * eye
    k2[PREV : PREV + V, :V] = b * eye
    q2[TOK : TOK + V, V] = b  # every query has b in head dimension V, key 0 has -2b there: a score of -60
    k2[POS, V] = -2 * b
    v2[TOK : TOK + V, :V] = eye
    o2[:V, TOK : TOK + V] = COPY * eye / n2
    token = np.zeros((V, D))
    token[:, TOK : TOK + V] = eye
    position = np.zeros((P, D))
    position[:, POS : POS + P] = np.eye(P)
    layers = (_layer(q1, k1, v1, o1), _layer(q2, k2, v2, o2))
    return ModelWeights(EmbeddingWeights(token=token, position=position), layers, final_norm_gain=np.ones(D))


CONFIG = ModelConfig(
    name="hand-built induction", n_layers=2, n_heads=2, n_kv_heads=2, d_model=D, d_k=DK, d_ff=4,
    vocab_size=V, max_positions=P, norm="rms_norm", norm_first=True, eps=1e-12, activation="relu",
    positions="learned", rope_base=None, causal=True, tied_embeddings=True, has_logits=True,
    dtype="float64", weights="float64, set by hand",
)  # fmt: skip


def model() -> Model:
    """The hand-built decoder as a pretrained.Model; its text is token ids separated by spaces ("3 1 4")."""
    tokenizer = Tokenizer(
        encode=lambda text: [int(t) for t in text.split()],
        display=lambda ids: [f"t{i}" for i in ids],
        keep_last=0,
    )
    return Model(CONFIG, weights(), tokenizer, {"package": "tests/core/handbuilt.py"})


def uniform_score(queries: range) -> float:
    """What a head with uniform causal weights scores on a stripe: mean over the queries i of 1 / (i + 1)."""
    return float(np.mean([1.0 / (i + 1) for i in queries]))


def lens_known(n: int) -> tuple[float, float, float]:
    """On n distinct tokens repeated, the logit lens's top probability: row 0 (its own token), row 1 (its own
    token), and the last row at the second copy's positions n .. 2n - 1 (the token that followed last time: the
    stream holds the own token once and the copied one three times, so the norm's factor is sqrt(D / 12))."""
    f0, f1, f2 = math.sqrt(D / 2), math.sqrt(D / 3), math.sqrt(D / 12)
    last = math.exp(COPY * f2) / (math.exp(COPY * f2) + math.exp(f2) + V - 2)
    return math.exp(f0) / (math.exp(f0) + V - 1), math.exp(f1) / (math.exp(f1) + V - 1), last
