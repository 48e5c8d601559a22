"""What the five seed notebooks printed, and the helpers that set the app's own numbers beside them.

Pure: numpy and the pipeline, no Streamlit. Every printed number is a `Printed` constant naming the notebook
cell it comes from ("In [36]"), at the precision the notebook printed it. `checks(name, res)` pairs each
printed number of a preset's notebook with the number the app computes for the same thing (a `Check`);
`extras(name, ex, res)` gives the tables that show what the notebook could not (the rows it forgot to
print, the TODO it left, its two runs). `token_by_token` is the notebooks' loop, written out as they do.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import attention_core as ac
from explorer import pipeline
from explorer.arrays import F64
from explorer.example import Example

NOTEBOOKS = {
    "hello-world": "seed 000",
    "me-gusta": "seed 001",
    "three-inputs": "seed 002",
    "causal-mask": "seed 003",
    "its-snowing": "seed 004",
}


@dataclass(frozen=True, eq=False)
class Printed:
    """One number, vector or matrix as a notebook printed it: `decimals` digits after the point.

    agree_to: the decimals the app must reproduce; fewer than `decimals` only where the notebook's own inputs
    reach us rounded (seed 003 prints q, k, v to 8 decimals, so their products can move the 8th).
    """

    label: str
    cell: str
    values: F64
    decimals: int
    agree_to: int

    @property
    def why_fewer(self) -> str:
        return "" if self.agree_to >= self.decimals else f"to {self.agree_to} of {self.decimals} decimals"


def _p(label: str, cell: str, values: object, decimals: int, agree_to: int | None = None) -> Printed:
    return Printed(
        label, cell, np.array(values, dtype=np.float64), decimals, decimals if agree_to is None else agree_to
    )


# ------------------------------------------------------------------ seed 000 "Hello World"
# np.set_printoptions(suppress=True): numpy's default precision, 8 decimals.
S000_SENTENCE = "Hello World"
S000_E = np.array([[1, 2, 3, 4], [2, 3, 4, 5]], dtype=np.float64)  # In [73]
S000_W = {  # In [82]: (d_model 4, d_k 3) per head
    "WK1": [[1, 0, 1], [0, 1, 0], [1, 0, 1], [0, 1, 0]],
    "WV1": [[0, 1, 1], [1, 0, 0], [1, 0, 1], [0, 1, 0]],
    "WQ1": [[0, 0, 0], [1, 1, 0], [0, 0, 1], [1, 0, 0]],
    "WK2": [[0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 1, 0]],
    "WV2": [[1, 0, 0], [0, 1, 1], [0, 0, 1], [1, 0, 0]],
    "WQ2": [[1, 0, 1], [0, 1, 0], [1, 0, 0], [0, 1, 1]],
}
S000_PE = _p("positional encodings", "In [79]", [[0, 1, 0, 1], [0.84147098, 0.99995, 0.0001, 1.0]], 8)
S000_E_BEFORE = _p("E before adding", "In [81]", S000_E, 8)
S000_E_AFTER = _p("E after adding", "In [81]", [[1, 3, 3, 5], [2.84147098, 3.99995, 4.0001, 6]], 8)

# ------------------------------------------------------------------ seed 001 "me gusta ..."
# np.set_printoptions(precision=4, suppress=True).
S001_SENTENCE = "me gusta estudiar inteligencia artificial"
S001_SEED = 23  # In [1]: "# np.random.seed(23)", commented out, yet the later run's numbers are its draws
S001_D = {"d_model": 4, "d_ff": 5, "d_k": 3, "d_v": 3}  # In [2]
S001_POS = np.array(  # In [15]: pos_1 .. pos_5
    [
        [0.3, -0.9, -0.6, 0.8],
        [-0.6, 0.8, -0.9, 0.15],
        [0.8, -0.5, -0.9, 0.5],
        [-0.95, 0.2, -0.4, -0.9],
        [0.95, 0.16, 0.2, -0.95],
    ]
)
S001_X = _p(
    "X = embeddings + positions",
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
S001_Q = _p(
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
S001_K = _p(
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
S001_ALPHAS = _p(
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
S001_ME_ALPHAS = _p("me_alphas", "In [37]", [0.1981, 0.1992, 0.1963, 0.2039, 0.2024], 4)
S001_GUSTA_ALPHAS = _p("gusta_alphas", "In [22]", [0.1967, 0.1976, 0.1937, 0.2065, 0.2055], 4)
S001_ME_ATTENTION = _p("me_attention", "In [42]", [-0.078, 0.0809, 0.0652], 4)
S001_GUSTA_ATTENTION = _p("gusta_attention", "In [24]", [-0.0767, 0.0809, 0.0647], 4)
S001_OUTPUT = _p(
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
S001_EARLIER = {
    "me_": _p("me_ (embedding)", "In [13]", [0.4417, 1.1289, -1.8381, -0.9388], 4),
    "me_embed_pos": _p("me_embed_pos", "In [17]", [0.7417, 0.2289, -2.4381, -0.1388], 4),
    "me_alpha_me": _p("me_alpha_me = q·k", "In [23]", -0.002689607928836218, 18),
    "me_alphas": _p("me_alphas", "In [24]", [0.2003, 0.1993, 0.199, 0.2012, 0.2002], 4),
    "me_attention": _p("me_attention", "In [27]", [0.1467, 0.0717, -0.0538], 4),
}

# ------------------------------------------------------------------ seed 002 "three inputs"
S002_SENTENCE = "input-1 input-2 input-3"
S002_X = _p("x (3 inputs, d_model = 4)", "In [4]", [[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], 8)
S002_W_QUERY = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=np.float64)  # In [5]
S002_W_KEY = np.array([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], dtype=np.float64)  # In [6]
S002_W_VALUE = np.array([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], dtype=np.float64)  # In [7]
S002_K_D = 1.0  # In [11]: "Square root of 3 and rounded down to 1"
S002_Q = _p("Q = x w_query", "In [8]", [[1, 0, 2], [2, 2, 2], [2, 1, 3]], 8)
S002_K = _p("K = x w_key", "In [9]", [[0, 1, 1], [4, 4, 0], [2, 3, 1]], 8)
S002_V = _p("V = x w_value", "In [10]", [[1, 2, 3], [2, 8, 0], [2, 6, 3]], 8)
S002_SCORES = _p("attention_scores = Q Kᵀ / k_d", "In [11]", [[2, 4, 4], [4, 16, 12], [4, 12, 10]], 8)
S002_SOFTMAX_PRINTED = _p(  # the same row printed three times: print(attention_scores[0]) x 3
    "softmax, as printed (3 lines)",
    "In [12]",
    [[0.06337894, 0.46831053, 0.46831053]] * 3,
    8,
)
S002_TERMS = _p(
    "Attention 1, 2, 3 = a_0j V[j]",
    "In [14]",
    [
        [0.06337894, 0.12675788, 0.19013681],
        [0.93662106, 3.74648425, 0.0],
        [0.93662106, 2.80986319, 1.40493159],
    ],
    8,
)
S002_OUTPUT = _p("attention_input1 (output of input 1)", "In [15]", [1.93662106, 6.68310531, 1.59506841], 8)

# ------------------------------------------------------------------ seed 003 "causal mask"
S003_SENTENCE = (
    "My name is X"  # In [54]: "L = Length of the input sequence. (Example use here: 'My name is X')"
)
S003_Q = np.array(  # In [55] / In [91]
    [
        [-1.41767666, 0.96908187, -1.00570424, -1.38323781, 1.13465927, 0.79178207, 0.53179063, -0.72936195],
        [-2.16976431, 0.66542476, -0.99466221, 0.60654108, 1.71870799, -0.41256672, -1.79806925, -0.79852829],
        [0.89823134, 0.55090139, -0.4092929, 0.13166055, 0.37747643, 0.51839027, -1.41010075, -0.04922471],
        [0.24826843, 0.5348298, 0.75793618, -0.53615346, -0.19183252, -1.63892969, 0.24689664, 0.87612461],
    ]
)
S003_K = np.array(
    [
        [1.57491474, -0.86316812, -0.65884679, -0.37227769, -0.37581007, 0.63731469, 0.55250173, -0.23310638],
        [-1.63494969, -1.30428113, -0.80651226, 0.47716264, 1.13593996, 0.41789594, 0.41580284, -0.18122419],
        [
            2.06477795,
            -1.20794564,
            -0.94439751,
            -0.75339707,
            -0.47730805,
            -1.76071251,
            -0.50391215,
            0.54014202,
        ],
        [-0.55187274, -0.28083992, 0.11199461, 0.00648734, -1.78380066, 0.48092649, -1.297721, 0.73737651],
    ]
)
S003_V = np.array(  # In [88] (the prints of In [55] and In [91] are cut off in the seed file)
    [
        [-0.83391383, -1.53728569, -0.62599555, -0.87081994, -0.6608632, -1.30376564, 0.25958102, 1.95478765],
        [-1.69238889, -0.31480643, 1.4093176, 0.97424845, 0.99885477, -0.55161911, -0.88639875, 0.97593617],
        [0.5854254, -0.90880531, -0.88819252, -1.15829242, -0.13733918, -0.09430798, 1.76882755, -1.03688959],
        [1.72302482, -0.18988972, -0.12444181, -1.03273095, 1.45272653, -0.29987363, -0.70815872, 0.18090176],
    ]
)
S003_SCORES = _p(
    "q kᵀ",
    "In [56]",
    [
        [-1.34961473, 3.1780436, -4.70349122, -2.48253399],
        [-5.27817589, 4.94819001, -4.42067971, -0.61657652],
        [0.58067407, -1.72614953, 1.06760165, 0.67417618],
        [-1.41065307, -2.92951897, 2.88078195, -0.32619056],
    ],
    8,
    7,  # q, k, v reach us rounded to 8 decimals
)
S003_SCALED = _p(
    "scaled = q kᵀ / √d_k",
    "In [62]",
    [
        [-0.47716086, 1.12360809, -1.66293527, -0.87770831],
        [-1.86611698, 1.74944936, -1.5629463, -0.21799272],
        [0.20529928, -0.61028602, 0.37745418, 0.23835727],
        [-0.49874117, -1.03574136, 1.01851023, -0.11532578],
    ],
    8,
    7,  # q, k, v reach us rounded to 8 decimals
)
_NINF = -np.inf
S003_MASKED = _p(
    "scaled + mask",
    "In [72]",
    [
        [-0.47716086, _NINF, _NINF, _NINF],
        [-1.86611698, 1.74944936, _NINF, _NINF],
        [0.20529928, -0.61028602, 0.37745418, _NINF],
        [-0.49874117, -1.03574136, 1.01851023, -0.11532578],
    ],
    8,
    7,  # q, k, v reach us rounded to 8 decimals
)
S003_ATTENTION = _p(
    "attention = softmax(scaled + mask)",
    "In [84]",
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.02619694, 0.97380306, 0.0, 0.0],
        [0.38019313, 0.16818996, 0.45161691, 0.0],
        [0.13138081, 0.07679195, 0.59905383, 0.19277341],
    ],
    8,
)
S003_NEW_V = _p(
    "new_v = attention v",
    "In [87]",
    [
        [-0.83391383, -1.53728569, -0.62599555, -0.87081994, -0.6608632, -1.30376564, 0.25958102, 1.95478765],
        [-1.66989946, -0.34683165, 1.35599862, 0.9259133, 0.95537523, -0.57132305, -0.85637759, 1.00157908],
        [-0.33730312, -1.04784459, -0.40208889, -0.69032539, -0.145283, -0.63105062, 0.74843997, 0.43906264],
        [0.44333257, -0.80717343, -0.53008375, -0.93255716, 0.18765275, -0.32795291, 0.88914442, -0.25451399],
    ],
    8,
    7,  # q, k, v reach us rounded to 8 decimals
)
# In [57] / In [61]: Python floats, printed in full; the app starts from q and k printed to 8 decimals, so
# it can only agree to about 7 decimals here.
S003_VARIANCES = _p(
    "q.var(), k.var(), (q kᵀ).var(), scaled.var()",
    "In [57], In [61]",
    [0.9439222438403891, 0.8518506475999309, 7.96814250921233, 0.9960178136515412],
    16,
    7,
)

# ------------------------------------------------------------------ seed 004 "It's snowing outside"
S004_SENTENCE = "It's snowing outside"
S004_COMBINED = _p("combined (embeddings)", "In [26]", [[0.3, 0.8, -0.3], [-0.9, -0.1, 0], [1, -0.2, 0.3]], 8)
S004_WQ = np.array([[0.27, 0.14], [0.24, 0.09], [0.56, 0.84]])  # In [15]
S004_WK = np.array([[0.1, 0.69], [0.38, 0.63], [0.91, 0.01]])
S004_WV = np.array([[0.81, 0.8], [0.67, 0.98], [0.04, 0.3]])
S004_QUERIES = _p("queries", "In [37]", [[0.105, -0.138], [-0.267, -0.135], [0.39, 0.374]], 8)
S004_KEYS = _p("keys", "In [37]", [[0.061, 0.708], [-0.128, -0.684], [0.297, 0.567]], 8)
S004_SCORES = _p(
    "queries keysᵀ",
    "In [31]",
    [[-0.091299, 0.080952, -0.047061], [-0.111867, 0.126516, -0.155844], [0.288582, -0.305736, 0.327888]],
    8,
)


# ------------------------------------------------------------------ comparing


@dataclass(frozen=True, eq=False)
class Check:
    """A printed number beside the app's number for the same thing.

    They agree when every entry of the app's value rounds to the printed one: |app - printed| at most half a
    unit of the last printed decimal (plus 1e-12 for float noise); -inf agrees with -inf only.
    """

    printed: Printed
    app: F64 | None  # None when the app has no such number (e.g. the sentence has changed)
    source: str  # where the app's number comes from, e.g. "attention weights, head 1"

    @property
    def label(self) -> str:
        return self.printed.label

    @property
    def cell(self) -> str:
        return self.printed.cell

    @property
    def tolerance(self) -> float:
        return 0.5 * 10.0 ** (-self.printed.agree_to) + 1e-12

    @property
    def max_diff(self) -> float:
        """Largest |app - printed| over the finite entries (inf when shapes or infinities disagree)."""
        if self.app is None or np.shape(self.app) != self.printed.values.shape:
            return math.inf
        a, p = np.asarray(self.app, dtype=np.float64), self.printed.values
        fin = np.isfinite(p)
        if not np.array_equal(fin, np.isfinite(a)) or not np.array_equal(a[~fin], p[~fin]):
            return math.inf
        return float(np.max(np.abs(a[fin] - p[fin]), initial=0.0))

    @property
    def agrees(self) -> bool:
        return self.max_diff <= self.tolerance


def fmt(values: object, decimals: int) -> str:
    """Numbers as numpy prints them with this precision (suppress=True): "[0.1981 0.1992 0.1963]"."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 0:
        return repr(float(arr)) if decimals > 8 else np.format_float_positional(float(arr), decimals)
    return np.array2string(arr, precision=decimals, suppress_small=True, max_line_width=10_000)


@dataclass(frozen=True)
class Row:
    """One line of a comparison table: one printed row beside the app's same row."""

    what: str
    cell: str
    notebook: str
    app: str
    source: str
    agrees: bool
    agree_to: int  # decimals compared
    decimals: int  # decimals printed

    @property
    def verdict(self) -> str:
        if not self.agrees:
            return "✗"
        return "✓" if self.agree_to >= self.decimals else f"✓ ({self.agree_to} dp)"


def rows(checks: list[Check]) -> list[Row]:
    """The checks as table lines: a matrix gives one line per row ("alphas, row 0"), a vector one line."""
    out: list[Row] = []
    for c in checks:
        p = c.printed.values
        d = c.printed.decimals
        if p.ndim < 2:
            app = "(not in this example)" if c.app is None else fmt(c.app, d)
            out.append(Row(c.label, c.cell, fmt(p, d), app, c.source, c.agrees, c.printed.agree_to, d))
            continue
        app_ok = c.app is not None and np.shape(c.app) == p.shape
        for i in range(p.shape[0]):
            sub = Check(
                Printed(c.label, c.cell, p[i], d, c.printed.agree_to), c.app[i] if app_ok else None, c.source
            )
            app = fmt(c.app[i], d) if app_ok else "(not in this example)"
            out.append(
                Row(
                    f"{c.label}, row {i}",
                    c.cell,
                    fmt(p[i], d),
                    app,
                    c.source,
                    sub.agrees,
                    c.printed.agree_to,
                    d,
                )
            )
    return out


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


def s001_draws() -> dict[str, F64]:
    """Seed 001's random numbers, drawn again: np.random.seed(23), then its cells In [12] and In [19].

    numpy's legacy RandomState stream is fixed across versions, so these are the notebook's own draws:
    emb (5, 4) (me_, gusta_ from randn, the other three from rand) and W_q, W_k, W_v (4, 3), randn * 0.1.
    """
    rng = np.random.RandomState(S001_SEED)  # noqa: NPY002 - the notebook's own (legacy) generator
    d = S001_D["d_model"]
    emb = np.array([rng.randn(d), rng.randn(d), rng.rand(d), rng.rand(d), rng.rand(d)])  # (5, d_model)
    w = {name: rng.randn(d, S001_D["d_k"]) * 0.1 for name in ("w_q", "w_k", "w_v")}  # (d_model, d_k)
    return {"emb": emb, **w}


def least_squares_projection(x: F64, y: F64) -> F64:
    """The W with x W closest to y (np.linalg.lstsq): recovers W_q from printed X and Q. x (n, d), y (n, k)."""
    return np.linalg.lstsq(x, y, rcond=None)[0]  # (d, k)


def _one_head(res: pipeline.Result) -> ac.AttentionTrace | None:
    return res.attention if res.attention is not None else None


def _checks_000(res: pipeline.Result) -> list[Check]:
    pe_nb = ac.notebook_positional_encoding(2, 4)
    app_e = res.emb if res.emb.shape == (2, 4) else None
    return [
        Check(S000_E_BEFORE, app_e, "the embeddings table E"),
        Check(S000_PE, pe_nb, "attention_core.notebook_positional_encoding(2, 4)"),
        Check(S000_E_AFTER, None if app_e is None else app_e + pe_nb, "E + the notebook's encoding"),
    ]


def _checks_001(res: pipeline.Result) -> list[Check]:
    t = _one_head(res)
    return [
        Check(S001_X, res.x, "X = E + P (learned positions)"),
        Check(S001_Q, _head(t, "q"), "queries, head 1"),
        Check(S001_K, _head(t, "k"), "keys, head 1"),
        Check(S001_ALPHAS, _head(t, "weights"), "attention weights, head 1"),
        Check(S001_ME_ALPHAS, _row(_head(t, "weights"), 0), "weights of “me”"),
        Check(S001_GUSTA_ALPHAS, _row(_head(t, "weights"), 1), "weights of “gusta”"),
        Check(S001_ME_ATTENTION, _row(_head(t, "head_outputs"), 0), "head-1 output of “me”"),
        Check(S001_GUSTA_ATTENTION, _row(_head(t, "head_outputs"), 1), "head-1 output of “gusta”"),
        Check(S001_OUTPUT, _head(t, "head_outputs"), "head-1 output (before W_O)"),
    ]


def _checks_002(res: pipeline.Result) -> list[Check]:
    t = _one_head(res)
    w = _head(t, "weights")
    terms = None
    if t is not None and t.n_heads >= 1 and res.n >= 1:
        terms = res.contributions(0, 0)
    return [
        Check(S002_X, res.x, "X (table, no positions)"),
        Check(S002_Q, _head(t, "q"), "queries, head 1"),
        Check(S002_K, _head(t, "k"), "keys, head 1"),
        Check(S002_V, _head(t, "v"), "values, head 1"),
        Check(S002_SCORES, _head(t, "scaled"), "scores × scale (scale 1)"),
        Check(
            S002_SOFTMAX_PRINTED,
            None if w is None or len(w) < 1 else np.repeat(w[:1], 3, axis=0),
            "weights row 0, three times",
        ),
        Check(S002_TERMS, terms, "a_0j · v_j for each key j"),
        Check(S002_OUTPUT, _row(_head(t, "head_outputs"), 0), "head-1 output of input 1"),
    ]


def _checks_003(res: pipeline.Result) -> list[Check]:
    t = _one_head(res)
    q, k, scores, scaled = (_head(t, f) for f in ("q", "k", "scores", "scaled"))
    variances = None
    if q is not None and k is not None and scores is not None and scaled is not None:
        variances = np.array([q.var(), k.var(), scores.var(), scaled.var()])
    return [
        Check(S003_SCORES, scores, "raw scores q kᵀ, head 1"),
        Check(S003_VARIANCES, variances, "variances of the app's q, k, scores"),
        Check(S003_SCALED, scaled, "scores × 1/√8"),
        Check(S003_MASKED, _head(t, "masked"), "scaled scores with the causal mask"),
        Check(S003_ATTENTION, _head(t, "weights"), "attention weights, head 1"),
        Check(S003_NEW_V, _head(t, "head_outputs"), "head-1 output (before W_O)"),
    ]


def _checks_004(res: pipeline.Result) -> list[Check]:
    t = _one_head(res)
    return [
        Check(S004_COMBINED, res.x, "X (table, no positions)"),
        Check(S004_QUERIES, _head(t, "q"), "queries, head 1"),
        Check(S004_KEYS, _head(t, "k"), "keys, head 1"),
        Check(S004_SCORES, _head(t, "scores"), "raw scores q kᵀ, head 1"),
    ]


def _head(t: ac.AttentionTrace | None, name: str) -> F64 | None:
    """Head 1 (index 0) of a traced (h, ...) field, or None."""
    if t is None:
        return None
    return np.asarray(getattr(t, name)[0])


def _row(m: F64 | None, i: int) -> F64 | None:
    return None if m is None or len(m) <= i else m[i]


CHECKS: dict[str, Callable[[pipeline.Result], list[Check]]] = {
    "hello-world": _checks_000,
    "me-gusta": _checks_001,
    "three-inputs": _checks_002,
    "causal-mask": _checks_003,
    "its-snowing": _checks_004,
}


def checks(name: str, res: pipeline.Result) -> list[Check]:
    """The notebook's printed numbers beside the app's (empty for presets of our own)."""
    fn = CHECKS.get(name)
    if fn is None or res.error:
        return []
    return fn(res)


# ------------------------------------------------------------------ what the notebooks could not show


@dataclass(frozen=True, eq=False)
class Table:
    """A small labelled matrix for the panel: rows x cols values at `decimals` digits.

    kind: "table" (numbers), or "weights" / "signed" (drawn as a heatmap), "text" (only `caption`).
    group: consecutive tables with the same non-empty group are drawn side by side.
    """

    title: str
    rows: list[str] = field(default_factory=list)
    cols: list[str] = field(default_factory=list)
    values: F64 = field(default_factory=lambda: np.zeros((0, 0)))
    decimals: int = 4
    caption: str = ""
    kind: str = "table"
    group: str = ""


def _dims(n: int, prefix: str = "d") -> list[str]:
    return [f"{prefix}{j}" for j in range(n)]


def _extras_000(ex: Example, res: pipeline.Result) -> list[Table]:
    n = max(res.n, 1)
    nb = ac.notebook_positional_encoding(n, ex.d_model)
    paper = ac.positional_encoding(n, ex.d_model)
    pos = [f"pos {p}" for p in range(n)]
    why = (
        "The notebook puts the **dimension** index i = 0, 1, 2, 3 in the exponent 10000^(2i/d_model) where "
        "the paper puts the **pair** index 0, 0, 1, 1, so its columns 2i and 2i+1 no longer share a frequency "
        "and the last columns barely move (column 3 at position 1: cos(1/10000^1.5) = 1.0)."
    )
    return [
        Table(
            "The notebook's encoding (exponent on the dimension index i)",
            pos,
            _dims(ex.d_model),
            nb,
            8,
            group="pe",
        ),
        Table(
            "The paper's encoding (exponent on the pair index): the app's",
            pos,
            _dims(ex.d_model),
            paper,
            8,
            group="pe",
        ),
        Table("Why they differ", caption=why, kind="text"),
        Table(
            "X = E + P with the paper's encoding: what the app's heads read",
            res.labels,
            _dims(ex.d_model),
            res.x,
            8,
            "The notebook stops after computing Q, K and V; the Scores and Heads pages finish its two heads.",
        ),
    ]


def _extras_001(ex: Example, res: pipeline.Result) -> list[Table]:
    t = res.attention
    assert t is not None
    early = S001_EARLIER
    run_rows = [early["me_alphas"].values, S001_ME_ALPHAS.values]
    names = ["In [24], earlier run", "In [37], later run"]
    if res.n == 5:
        run_rows.append(t.weights[0, 0])
        names.append("this app, row of “me”")
    out = [
        Table(
            "Two different me_alphas in one notebook",
            names,
            [f"a(me, {w})" for w in S001_SENTENCE.split()],
            np.array(run_rows),
            4,
            "The notebook was run twice with different random embeddings and weights, and some cells kept "
            "the earlier output: me_alphas prints as [0.2003 0.1993 0.199 0.2012 0.2002] in In [24], and "
            "as [0.1981 0.1992 0.1963 0.2039 0.2024] in In [37]; me_attention as [0.1467 0.0717 -0.0538] "
            "and then [-0.078 0.0809 0.0652]. Only the later run matches its matrices (In [26] to In [40]). "
            "The app reproduces that run exactly: its first cell has `np.random.seed(23)` commented out, "
            "and seed 23 draws the very same embeddings and W_q, W_k, W_v.",
        )
    ]
    _, loop_out = token_by_token(t.q[0], t.k[0], t.v[0], res.scale)
    diff = largest_difference(loop_out, t.head_outputs[0])
    out.append(
        Table(
            "The notebook's per-token loop equals the matrix form",
            res.labels,
            [*(f"loop d{j}" for j in range(t.d_v)), *(f"(A V) d{j}" for j in range(t.d_v))],
            np.hstack([loop_out, t.head_outputs[0]]),
            6,
            "Left: out_i = Σ_j a_ij v_j token by token, as the notebook writes me_attention; right: the "
            "whole matrix softmax(Q Kᵀ) V at once, as the app computes it. Largest difference: "
            f"{diff:.1e}, the last bit of float64 arithmetic.",
        )
    )
    if ex.w_q.shape == (1, 4, 3):
        w_ls = least_squares_projection(S001_X.values, S001_Q.values)
        out.append(
            Table(
                "W_q recovered from the printed X and Q (least squares) beside seed 23's W_q",
                _dims(4),
                [*(f"lstsq k{j}" for j in range(3)), *(f"seed 23 k{j}" for j in range(3))],
                np.hstack([w_ls, ex.w_q[0]]),
                4,
                "Even without the seed, the printed X and Q (4 decimals) pin W_q down to about 1e-4, "
                "enough for the printed attention weights to come out.",
            )
        )
    return out


def _extras_002(ex: Example, res: pipeline.Result) -> list[Table]:
    t = res.attention
    assert t is not None
    return [
        Table(
            "All three rows of softmax(Q Kᵀ / 1)",
            [f"{lab} (row {i})" for i, lab in enumerate(res.labels)],
            res.labels,
            t.weights[0],
            8,
            "The notebook prints `attention_scores[0]` three times, so its Step 5 shows row 0 thrice. The "
            "real rows 1 and 2 are almost one-hot: their scores (16 and 12 against 4) are far apart, and "
            "no √3 tamed them (the notebook divides by 1).",
        ),
        Table(
            "Every input's output, not only input 1",
            res.labels,
            _dims(t.d_v),
            t.head_outputs[0],
            8,
            "The notebook sums the three weighted values for input 1 only; row 0 here is its Step 7.",
        ),
    ]


def _extras_003(ex: Example, res: pipeline.Result) -> list[Table]:
    return [
        Table(
            "Why these numbers had to be typed in",
            caption=(
                "The notebook calls `random.seed(8)`, which seeds Python's `random` module, but draws q, k, v "
                "with `np.random.randn`, which it does not seed: run it again and every number changes. The "
                "preset therefore types in its printed q, k, v and feeds one-hot tokens (X = I), so that "
                "W_Q = q, W_K = k, W_V = v."
            ),
            kind="text",
        )
    ]


def _extras_004(ex: Example, res: pipeline.Result) -> list[Table]:
    t = res.attention
    assert t is not None
    d_k = t.d_k
    finished = ac.scaled_dot_product_attention(t.q[0], t.k[0], t.v[0])  # scale 1/sqrt(d_k)
    return [
        Table("values = combined Wv", res.labels, _dims(t.d_v), t.v[0], 6),
        Table(
            f"The TODO, finished: weights = softmax(q kᵀ / √{d_k})",
            res.labels,
            res.labels,
            finished[1],
            6,
            kind="weights",
        ),
        Table(
            f"The TODO, finished: output = softmax(q kᵀ / √{d_k}) V",
            res.labels,
            _dims(t.d_v),
            finished[0],
            6,
            "The notebook's class sketches `np.matmul(self.Wq, tokens.T)`: with Wq 3×2 and tokens.T 3×3 "
            "that product does not even have matching shapes. Its working cells use tokens @ Wq, as here. "
            "The scores are small (|q·k| < 0.33), so the weights stay close to 1/3: these made-up "
            "embeddings barely prefer one word.",
        ),
    ]


def _extras_pronoun(ex: Example, res: pipeline.Result) -> list[Table]:
    t = res.attention
    assert t is not None
    if "it" not in res.tokens:
        return []
    i = res.tokens.index("it")
    return [
        Table(
            "Where “it” looks (head 1)",
            ["it"],
            res.labels,
            t.weights[0, i][None, :],
            3,
            "Try it: in the embeddings table on this page, set the row of “it” to d4 = 0 (not about a living "
            "thing) and d5 = 1 (about an object), as if the sentence ended “because it was too wide”: the "
            "weight moves to “street”. With d4 = d5 = 0, “it” cannot choose and splits its weight between "
            "the two nouns.",
            kind="weights",
        )
    ]


def _extras_causal(ex: Example, res: pipeline.Result) -> list[Table]:
    t = res.attention
    assert t is not None
    other = pipeline.run(ex.with_(mask_kind="none" if ex.mask_kind == "causal" else "causal"))
    if other.attention is None:
        return []
    causal, free = (t, other.attention) if ex.mask_kind == "causal" else (other.attention, t)
    last = res.n - 1
    same_last = bool(np.allclose(causal.weights[:, last], free.weights[:, last]))
    first_self = bool(np.allclose(causal.weights[:, 0, 0], 1.0))
    return [
        Table(
            "Bidirectional (no mask): head 1",
            res.labels,
            res.labels,
            free.weights[0],
            2,
            kind="weights",
            group="cvb",
        ),
        Table("Causal: head 1", res.labels, res.labels, causal.weights[0], 2, kind="weights", group="cvb"),
        Table(
            "What changed",
            caption=(
                f"- The first token can only see itself: its causal row is [1, 0, …, 0] "
                f"({'✓' if first_self else '✗'} in every head).\n"
                f"- The last token sees every token either way: its row is the same with and without the "
                f"mask ({'✓' if same_last else '✗'}).\n"
                "- In between, each row is the bidirectional row cut at the diagonal and renormalised: the "
                "weight a token gave to later tokens goes back, in proportion, to the earlier ones."
            ),
            kind="text",
        ),
    ]


EXTRAS: dict[str, Callable[[Example, pipeline.Result], list[Table]]] = {
    "hello-world": _extras_000,
    "me-gusta": _extras_001,
    "three-inputs": _extras_002,
    "causal-mask": _extras_003,
    "its-snowing": _extras_004,
    "pronoun": _extras_pronoun,
    "causal-vs-bidirectional": _extras_causal,
}


def extras(name: str, ex: Example, res: pipeline.Result) -> list[Table]:
    """What the preset shows beyond its notebook's prints (empty when the example cannot run)."""
    fn = EXTRAS.get(name)
    if fn is None or res.error or res.attention is None:
        return []
    try:
        return fn(ex, res)
    except (ValueError, IndexError):  # the person has reshaped the example past what the table needs
        return []


# ------------------------------------------------------------------ ties from the lesson pages to the notebooks

# (preset, query index) -> the notebook's own per-token result for that query (its loop, written by hand).
TOKEN_LOOPS: dict[tuple[str, int], Printed] = {
    ("me-gusta", 0): S001_ME_ATTENTION,
    ("me-gusta", 1): S001_GUSTA_ATTENTION,
    ("three-inputs", 0): S002_OUTPUT,
}


def token_loop_check(preset: str, query: int, head: int, res: pipeline.Result) -> Check | None:
    """The notebook's hand-written loop result for this query beside the app's row (A V)_i, if it has one."""
    printed = TOKEN_LOOPS.get((preset, query))
    if printed is None or head != 0 or res.attention is None:
        return None
    return Check(printed, np.asarray(res.attention.head_outputs[0, query]), f"(A V)_{query}, head 1")


def variance_check(preset: str, res: pipeline.Result) -> Check | None:
    """Seed 003's measured variances beside the app's, on the why-sqrt(d_k) page."""
    if preset != "causal-mask" or res.error:
        return None
    return _checks_003(res)[1]


@dataclass(frozen=True)
class RowStats:
    """Per-token (row) statistics of a matrix: the largest |row mean| and the range of the row variances."""

    max_abs_mean: float
    min_var: float
    max_var: float


def row_stats(m: F64) -> RowStats:
    """RowStats of m (n, d): after layer norm every row has mean 0 and variance about 1."""
    arr = np.asarray(m, dtype=np.float64)
    var = arr.var(axis=1)  # (n,)
    return RowStats(float(np.abs(arr.mean(axis=1)).max()), float(var.min()), float(var.max()))


def largest_difference(a: F64, b: F64) -> float:
    """max |a - b| over all entries (inf when the shapes differ)."""
    if np.shape(a) != np.shape(b):
        return math.inf
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)), initial=0.0))
