"""The worked numbers printed by the seed notebooks in shared/seeds/, reproduced by the engine."""

from __future__ import annotations

import numpy as np

from attention_core import (
    causal_mask,
    multi_head_attention,
    notebook_positional_encoding,
    positional_encoding,
    scaled_dot_product_attention,
    softmax,
)


# Seed 000: the positional encoding printed with the dimension index in the exponent.
def test_seed_000_notebook_encoding_and_the_paper() -> None:
    printed = np.array([[0.0, 1.0, 0.0, 1.0], [0.84147098, 0.99995, 0.0001, 1.0]])
    np.testing.assert_allclose(notebook_positional_encoding(2, 4), printed, atol=1e-8)
    np.testing.assert_allclose(
        positional_encoding(2, 4)[1], [0.84147098, 0.54030231, 0.00999983, 0.99995], atol=1e-8
    )
    embeddings = np.array([[1, 2, 3, 4], [2, 3, 4, 5]], dtype=np.float64)
    np.testing.assert_allclose(
        embeddings + notebook_positional_encoding(2, 4),
        [[1.0, 3.0, 3.0, 5.0], [2.84147098, 3.99995, 4.0001, 6.0]],
        atol=1e-8,
    )


# Seed 001: attention computed one token at a time equals the matrix form.
def test_seed_001_per_token_loop_equals_matrix_form() -> None:
    rng = np.random.default_rng(23)
    d_model, d_k, d_v, n = 4, 3, 3, 5
    x = rng.standard_normal((n, d_model))
    w_q, w_k, w_v = (rng.standard_normal((d_model, d)) * 0.1 for d in (d_k, d_k, d_v))
    queries = [x[i] @ w_q for i in range(n)]
    keys = [x[i] @ w_k for i in range(n)]
    values = [x[i] @ w_v for i in range(n)]
    loop = []
    for i in range(n):
        alphas = softmax(np.array([[queries[i] @ keys[j] for j in range(n)]]))  # the notebook: no scaling
        loop.append(sum(alphas[:, j] * values[j] for j in range(n)))
    t = multi_head_attention(x, w_q, w_k, w_v, scale=1.0)
    np.testing.assert_allclose(t.output, np.array(loop), rtol=1e-12)
    np.testing.assert_allclose(t.q[0], np.array(queries), rtol=1e-12)


# Seed 002: three inputs, d_model 4, scale 1 (sqrt(3) "rounded down to 1").
X_002 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 2.0, 0.0, 2.0], [1.0, 1.0, 1.0, 1.0]])
W_QUERY_002 = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]])
W_KEY_002 = np.array([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]])
W_VALUE_002 = np.array([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]])


def test_seed_002_first_output_row() -> None:
    t = multi_head_attention(X_002, W_QUERY_002, W_KEY_002, W_VALUE_002, scale=1.0)
    np.testing.assert_allclose(t.q[0], [[1, 0, 2], [2, 2, 2], [2, 1, 3]])
    np.testing.assert_allclose(t.k[0], [[0, 1, 1], [4, 4, 0], [2, 3, 1]])
    np.testing.assert_allclose(t.v[0], [[1, 2, 3], [2, 8, 0], [2, 6, 3]])
    np.testing.assert_allclose(t.scores[0], [[2, 4, 4], [4, 16, 12], [4, 12, 10]])
    np.testing.assert_allclose(t.weights[0, 0], [0.06337894, 0.46831053, 0.46831053], atol=1e-8)
    np.testing.assert_allclose(t.output[0], [1.93662106, 6.68310531, 1.59506841], atol=1e-8)


# Seed 003: q, k, v (4 x 8) as printed, causal mask, scale 1/sqrt(8).
Q_003 = np.array([
    [-1.41767666, 0.96908187, -1.00570424, -1.38323781, 1.13465927, 0.79178207, 0.53179063, -0.72936195],
    [-2.16976431, 0.66542476, -0.99466221, 0.60654108, 1.71870799, -0.41256672, -1.79806925, -0.79852829],
    [0.89823134, 0.55090139, -0.4092929, 0.13166055, 0.37747643, 0.51839027, -1.41010075, -0.04922471],
    [0.24826843, 0.5348298, 0.75793618, -0.53615346, -0.19183252, -1.63892969, 0.24689664, 0.87612461],
])  # fmt: skip
K_003 = np.array([
    [1.57491474, -0.86316812, -0.65884679, -0.37227769, -0.37581007, 0.63731469, 0.55250173, -0.23310638],
    [-1.63494969, -1.30428113, -0.80651226, 0.47716264, 1.13593996, 0.41789594, 0.41580284, -0.18122419],
    [2.06477795, -1.20794564, -0.94439751, -0.75339707, -0.47730805, -1.76071251, -0.50391215, 0.54014202],
    [-0.55187274, -0.28083992, 0.11199461, 0.00648734, -1.78380066, 0.48092649, -1.297721, 0.73737651],
])  # fmt: skip
V_003 = np.array([
    [-0.83391383, -1.53728569, -0.62599555, -0.87081994, -0.6608632, -1.30376564, 0.25958102, 1.95478765],
    [-1.69238889, -0.31480643, 1.4093176, 0.97424845, 0.99885477, -0.55161911, -0.88639875, 0.97593617],
    [0.5854254, -0.90880531, -0.88819252, -1.15829242, -0.13733918, -0.09430798, 1.76882755, -1.03688959],
    [1.72302482, -0.18988972, -0.12444181, -1.03273095, 1.45272653, -0.29987363, -0.70815872, 0.18090176],
])  # fmt: skip


def test_seed_003_causal_attention() -> None:
    out, weights = scaled_dot_product_attention(Q_003, K_003, V_003, mask=causal_mask(4))
    np.testing.assert_allclose(
        weights,
        [
            [1.0, 0.0, 0.0, 0.0],
            [0.02619694, 0.97380306, 0.0, 0.0],
            [0.38019313, 0.16818996, 0.45161691, 0.0],
            [0.13138081, 0.07679195, 0.59905383, 0.19277341],
        ],
        atol=1e-8,
    )
    new_v = [
        [-0.83391383, -1.53728569, -0.62599555, -0.87081994, -0.6608632, -1.30376564, 0.25958102, 1.95478765],
        [-1.66989946, -0.34683165, 1.35599862, 0.9259133, 0.95537523, -0.57132305, -0.85637759, 1.00157908],
        [-0.33730312, -1.04784459, -0.40208889, -0.69032539, -0.145283, -0.63105062, 0.74843997, 0.43906264],
        [0.44333257, -0.80717343, -0.53008375, -0.93255716, 0.18765275, -0.32795291, 0.88914442, -0.25451399],
    ]  # fmt: skip
    np.testing.assert_allclose(out, new_v, atol=1e-8)


def test_seed_003_scores_and_scaled() -> None:
    # With x = I (4 x 4), x W = W: the printed q, k, v serve as the weights of one head.
    t = multi_head_attention(np.eye(4), Q_003, K_003, V_003, mask=causal_mask(4))
    np.testing.assert_allclose(
        t.scores[0],
        [
            [-1.34961473, 3.1780436, -4.70349122, -2.48253399],
            [-5.27817589, 4.94819001, -4.42067971, -0.61657652],
            [0.58067407, -1.72614953, 1.06760165, 0.67417618],
            [-1.41065307, -2.92951897, 2.88078195, -0.32619056],
        ],
        atol=1e-7,
    )
    np.testing.assert_allclose(
        t.scaled[0],
        [
            [-0.47716086, 1.12360809, -1.66293527, -0.87770831],
            [-1.86611698, 1.74944936, -1.5629463, -0.21799272],
            [0.20529928, -0.61028602, 0.37745418, 0.23835727],
            [-0.49874117, -1.03574136, 1.01851023, -0.11532578],
        ],
        atol=1e-8,
    )
    assert np.isneginf(t.masked[0][np.triu_indices(4, 1)]).all()


# Seed 004: "It's snowing outside" with hand-set embeddings and 3 x 2 weights.
def test_seed_004_queries_keys_and_scores() -> None:
    combined = np.array([[0.3, 0.8, -0.3], [-0.9, -0.1, 0.0], [1.0, -0.2, 0.3]])
    w_q = np.array([[0.27, 0.14], [0.24, 0.09], [0.56, 0.84]])
    w_k = np.array([[0.1, 0.69], [0.38, 0.63], [0.91, 0.01]])
    w_v = np.array([[0.81, 0.8], [0.67, 0.98], [0.04, 0.3]])
    t = multi_head_attention(combined, w_q, w_k, w_v, scale=1.0)
    np.testing.assert_allclose(t.q[0], [[0.105, -0.138], [-0.267, -0.135], [0.39, 0.374]], atol=1e-12)
    np.testing.assert_allclose(t.k[0], [[0.061, 0.708], [-0.128, -0.684], [0.297, 0.567]], atol=1e-12)
    np.testing.assert_allclose(
        t.scores[0],
        [[-0.091299, 0.080952, -0.047061], [-0.111867, 0.126516, -0.155844], [0.288582, -0.305736, 0.327888]],
        atol=1e-12,
    )
