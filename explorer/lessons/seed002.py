"""Seed notebook 002, "three inputs": the lesson (what a lesson module holds: explorer/lessons/__init__.py)."""

from __future__ import annotations

import numpy as np

from explorer.compute.pipeline import Result
from explorer.i18n import N_, _
from explorer.lessons.compare import Check, Run, Table, dims, head1, head_of, printed, row_of, table_example
from explorer.model.example import Example

NAME = "three-inputs"
TITLE = N_("Attention by hand: three inputs")
NOTE = N_(
    "**Attention by hand.** Three inputs x = [[1,0,1,0],[0,2,0,2],[1,1,1,1]] (no positions), integer "
    "W_Q, W_K, W_V (4×3), and the scores divided by **1** (“√3 rounded down”). Then the softmax, and "
    "the output of input 1 built by hand: weight × value, summed.\n\n"
    "Try the true scale: choose 1/√d_k on the Scores page and watch rows 1 and 2 soften."
)
# Where this comes from (the seed notebook and its cells), shown in a detail below the note.
SOURCE = N_(
    "Seed notebook 002, three inputs (`002_0580ee3f4c0a5b17.txt`): x (In [4]), w_query, w_key, w_value "
    "(In [5] – In [7]), Q, K, V (In [8] – In [10]), the scores divided by 1 (In [11]), the softmax "
    "(In [12], In [14]) and the output of input 1 (In [15]). It prints the first softmax row three times "
    "(a copy-paste slip); the real three rows are under “What to look at”."
)

SENTENCE = "input-1 input-2 input-3"
X = printed(N_("x (3 inputs, d_model = 4)"), "In [4]", [[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], 8)
W_QUERY = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=np.float64)  # In [5]
W_KEY = np.array([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], dtype=np.float64)  # In [6]
W_VALUE = np.array([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], dtype=np.float64)  # In [7]
K_D = 1.0  # In [11]: "Square root of 3 and rounded down to 1"
Q = printed("Q = x w_query", "In [8]", [[1, 0, 2], [2, 2, 2], [2, 1, 3]], 8)
K = printed("K = x w_key", "In [9]", [[0, 1, 1], [4, 4, 0], [2, 3, 1]], 8)
V = printed("V = x w_value", "In [10]", [[1, 2, 3], [2, 8, 0], [2, 6, 3]], 8)
SCORES = printed("attention_scores = Q Kᵀ / k_d", "In [11]", [[2, 4, 4], [4, 16, 12], [4, 12, 10]], 8)
SOFTMAX_PRINTED = printed(  # the same row printed three times: print(attention_scores[0]) x 3
    "softmax, as printed (3 lines)",
    "In [12]",
    [[0.06337894, 0.46831053, 0.46831053]] * 3,
    8,
)
TERMS = printed(
    "Attention 1, 2, 3 = a_0j V[j]",
    "In [14]",
    [
        [0.06337894, 0.12675788, 0.19013681],
        [0.93662106, 3.74648425, 0.0],
        [0.93662106, 2.80986319, 1.40493159],
    ],
    8,
)
OUTPUT = printed(
    N_("attention_input1 (output of input 1)"), "In [15]", [1.93662106, 6.68310531, 1.59506841], 8
)

# query -> the notebook's own per-token result for that query (its loop, written by hand)
LOOPS = {0: OUTPUT}


def build() -> Example:
    settings = {"pe_kind": "none", "scale_mode": "custom", "scale_custom": 1.0 / K_D}
    return table_example(SENTENCE, X.values, W_QUERY, W_KEY, W_VALUE, **settings)


def checks(res: Result) -> list[Check]:
    t = res.attention
    w = head_of(t, "weights")
    terms = None
    if t is not None and t.n_heads >= 1 and res.n >= 1:
        terms = res.contributions(0, 0)
    return [
        Check(X, res.x, _("X (table, no positions)")),
        *head1(res, q=Q, k=K, v=V),
        Check(SCORES, head_of(t, "scaled"), _("scores × scale (scale 1)")),
        Check(
            SOFTMAX_PRINTED,
            None if w is None or len(w) < 1 else np.repeat(w[:1], 3, axis=0),
            _("weights row 0, three times"),
        ),
        Check(TERMS, terms, _("a_0j · v_j for each key j")),
        Check(OUTPUT, row_of(head_of(t, "head_outputs"), 0), _("head-1 output of input 1")),
    ]


def extras(ex: Example, res: Result, run: Run) -> list[Table]:
    t = res.attention
    assert t is not None
    return [
        Table(
            _("All three rows of softmax(Q Kᵀ / 1)"),
            [f"{lab} (row {i})" for i, lab in enumerate(res.labels)],
            res.labels,
            t.weights[0],
            8,
            _(
                "The notebook prints `attention_scores[0]` three times, so its Step 5 shows row 0 thrice. The "
                "real rows 1 and 2 are almost one-hot: their scores (16 and 12 against 4) are far apart, and "
                "no √3 tamed them (the notebook divides by 1)."
            ),
        ),
        Table(
            _("Every input's output, not only input 1"),
            res.labels,
            dims(t.d_v),
            t.head_outputs[0],
            8,
            _("The notebook sums the three weighted values for input 1 only; row 0 here is its Step 7."),
        ),
    ]
