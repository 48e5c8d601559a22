"""Seed notebook 003, "causal mask": the lesson (what a lesson module holds: explorer/lessons/__init__.py)."""

from __future__ import annotations

import numpy as np

from explorer.compute.pipeline import Result
from explorer.i18n import N_, _
from explorer.lessons.compare import Check, Run, Table, head_of, printed, table_example
from explorer.model.example import Example

NAME = "causal-mask"
TITLE = N_("The causal mask, and why divide by √d_k")
NOTE = N_(
    "**The causal mask.** Four tokens (“My name is X”), random q, k, v with d_k = d_v = 8, scores "
    "divided by √8, and a **causal mask**: a token may not look at the tokens after it, so the weights "
    "above the diagonal are 0.\n\n"
    "Here each token is a one-hot vector (X = the 4×4 identity), so W_Q, W_K, W_V are the q, k, v "
    "themselves. Why √8 has its own page: **Why divide by √d_k?**"
)
# Where this comes from (the seed notebook and its cells), shown in a detail below the note.
SOURCE = N_(
    "Seed notebook 003, the causal mask (`003_e5c726d2d0fde901.txt`): the sentence (In [54]), q, k, v "
    "(In [55], In [88], In [91]), the scores (In [56]), the variances it measures (In [57], In [61]), the "
    "scaled scores (In [62]), the mask (In [72]) and the weights and output (In [84], In [87])."
)

SENTENCE = "My name is X"  # In [54]: "L = Length of the input sequence. (Example use here: 'My name is X')"
Q = np.array(  # In [55] / In [91]
    [
        [-1.41767666, 0.96908187, -1.00570424, -1.38323781, 1.13465927, 0.79178207, 0.53179063, -0.72936195],
        [-2.16976431, 0.66542476, -0.99466221, 0.60654108, 1.71870799, -0.41256672, -1.79806925, -0.79852829],
        [0.89823134, 0.55090139, -0.4092929, 0.13166055, 0.37747643, 0.51839027, -1.41010075, -0.04922471],
        [0.24826843, 0.5348298, 0.75793618, -0.53615346, -0.19183252, -1.63892969, 0.24689664, 0.87612461],
    ]
)
K = np.array(
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
V = np.array(  # In [88] (the prints of In [55] and In [91] are cut off in the seed file)
    [
        [-0.83391383, -1.53728569, -0.62599555, -0.87081994, -0.6608632, -1.30376564, 0.25958102, 1.95478765],
        [-1.69238889, -0.31480643, 1.4093176, 0.97424845, 0.99885477, -0.55161911, -0.88639875, 0.97593617],
        [0.5854254, -0.90880531, -0.88819252, -1.15829242, -0.13733918, -0.09430798, 1.76882755, -1.03688959],
        [1.72302482, -0.18988972, -0.12444181, -1.03273095, 1.45272653, -0.29987363, -0.70815872, 0.18090176],
    ]
)
SCORES = printed(
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
SCALED = printed(
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
MASKED = printed(
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
ATTENTION = printed(
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
NEW_V = printed(
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
VARIANCES = printed(
    "q.var(), k.var(), (q kᵀ).var(), scaled.var()",
    "In [57], In [61]",
    [0.9439222438403891, 0.8518506475999309, 7.96814250921233, 0.9960178136515412],
    16,
    7,
)


def build() -> Example:
    # one-hot tokens (X = I): X W = W, so the printed q, k, v are W_Q, W_K, W_V
    return table_example(SENTENCE, np.eye(4), Q, K, V, pe_kind="none", scale_mode="sqrt", mask_kind="causal")


def checks(res: Result) -> list[Check]:
    t = res.attention
    q, k, scores, scaled = (head_of(t, f) for f in ("q", "k", "scores", "scaled"))
    variances = None
    if q is not None and k is not None and scores is not None and scaled is not None:
        variances = np.array([q.var(), k.var(), scores.var(), scaled.var()])
    return [
        Check(SCORES, scores, _("raw scores q kᵀ, head 1")),
        Check(VARIANCES, variances, _("variances of the app's q, k, scores")),
        Check(SCALED, scaled, "scores × 1/√8"),
        Check(MASKED, head_of(t, "masked"), _("scaled scores with the causal mask")),
        Check(ATTENTION, head_of(t, "weights"), _("attention weights, head 1")),
        Check(NEW_V, head_of(t, "head_outputs"), _("head-1 output (before W_O)")),
    ]


def extras(ex: Example, res: Result, run: Run) -> list[Table]:
    return [
        Table(
            _("Why these numbers had to be typed in"),
            caption=(
                _(
                    "The notebook calls `random.seed(8)`, which seeds Python's `random` module, but draws q, k, v "
                    "with `np.random.randn`, which it does not seed: run it again and every number changes. The "
                    "preset therefore types in its printed q, k, v and feeds one-hot tokens (X = I), so that "
                    "W_Q = q, W_K = k, W_V = v."
                )
            ),
            kind="text",
        )
    ]


def variance_check(res: Result) -> Check:
    """The measured variances (In [57], In [61]) beside the app's: the lesson of the why-scale page."""
    return checks(res)[1]
