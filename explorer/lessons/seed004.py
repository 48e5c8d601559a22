"""Seed notebook 004, "It's snowing outside": the lesson (what a lesson module holds: explorer/lessons/__init__.py)."""

from __future__ import annotations

import numpy as np

import attention_core as ac
from explorer.compute.pipeline import Result
from explorer.i18n import N_, _
from explorer.lessons.compare import Check, Run, Table, dims, head1, printed, table_example
from explorer.model.example import Example

NAME = "its-snowing"
TITLE = N_("From queries and keys to raw scores, finished")
NOTE = N_(
    "**From queries and keys to raw scores.** Three made-up 3-d embeddings (“It's snowing outside”) and "
    "3×2 matrices W_Q, W_K, W_V give the queries, the keys and the raw scores q·k.\n\n"
    "The app finishes the computation: scale by 1/√2, softmax, times the values. The raw scores are "
    "on the Scores page (before the scale); the finished steps are below."
)
# Where this comes from (the seed notebook and its cells), shown in a detail below the note.
SOURCE = N_(
    "Seed notebook 004, “It's snowing outside” (`004_c70dfc3b1bbfa780.txt`): the embeddings (In [26]), "
    "Wq, Wk, Wv (In [15]), the queries and keys (In [37]) and the raw scores (In [31]); it "
    "leaves the scale, the softmax and the output as TODO."
)

SENTENCE = "It's snowing outside"
COMBINED = printed(
    N_("combined (embeddings)"), "In [26]", [[0.3, 0.8, -0.3], [-0.9, -0.1, 0], [1, -0.2, 0.3]], 8
)
WQ = np.array([[0.27, 0.14], [0.24, 0.09], [0.56, 0.84]])  # In [15]
WK = np.array([[0.1, 0.69], [0.38, 0.63], [0.91, 0.01]])
WV = np.array([[0.81, 0.8], [0.67, 0.98], [0.04, 0.3]])
QUERIES = printed(N_("queries"), "In [37]", [[0.105, -0.138], [-0.267, -0.135], [0.39, 0.374]], 8)
KEYS = printed(N_("keys"), "In [37]", [[0.061, 0.708], [-0.128, -0.684], [0.297, 0.567]], 8)
SCORES = printed(
    N_("queries keysᵀ"),
    "In [31]",
    [[-0.091299, 0.080952, -0.047061], [-0.111867, 0.126516, -0.155844], [0.288582, -0.305736, 0.327888]],
    8,
)


def build() -> Example:
    return table_example(SENTENCE, COMBINED.values, WQ, WK, WV, pe_kind="none", scale_mode="sqrt")


def checks(res: Result) -> list[Check]:
    return [
        Check(COMBINED, res.x, _("X (table, no positions)")),
        *head1(res, q=QUERIES, k=KEYS, scores=SCORES),
    ]


def extras(ex: Example, res: Result, run: Run) -> list[Table]:
    t = res.attention
    assert t is not None
    d_k = t.d_k
    finished = ac.scaled_dot_product_attention(t.q[0], t.k[0], t.v[0])  # scale 1/sqrt(d_k)
    return [
        Table(_("values = combined Wv"), res.labels, dims(t.d_v), t.v[0], 6),
        Table(
            _("The TODO, finished: weights = softmax(q kᵀ / √{d_k})", d_k=d_k),
            res.labels,
            res.labels,
            finished[1],
            6,
            kind="weights",
        ),
        Table(
            _("The TODO, finished: output = softmax(q kᵀ / √{d_k}) V", d_k=d_k),
            res.labels,
            dims(t.d_v),
            finished[0],
            6,
            _(
                "The notebook's class sketches `np.matmul(self.Wq, tokens.T)`: with Wq 3×2 and tokens.T 3×3 "
                "that product does not even have matching shapes. Its working cells use tokens @ Wq, as here. "
                "The scores are small (|q·k| < 0.33), so the weights stay close to 1/3: these made-up "
                "embeddings barely prefer one word."
            ),
        ),
    ]
