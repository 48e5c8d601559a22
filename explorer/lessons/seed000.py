"""Seed notebook 000, "Hello World": the lesson (what a lesson module holds: explorer/lessons/__init__.py).

Its prints: np.set_printoptions(suppress=True): numpy's default precision, 8 decimals.
"""

from __future__ import annotations

import numpy as np

import attention_core as ac
from explorer.compute.pipeline import Result
from explorer.i18n import N_, _
from explorer.lessons.compare import Check, Run, Table, dims, printed, table_example
from explorer.model.example import Example

NAME = "hello-world"
TITLE = N_("Positions, then two heads")
NOTE = N_(
    "**Positions, then two heads.** Two tokens (“Hello World”) with hand-made embeddings "
    "E = [[1,2,3,4],[2,3,4,5]], a sinusoidal positional encoding added to them, then **two heads**, each "
    "with its own small integer 4×3 W_Q, W_K, W_V (d_model 4, d_k 3). Follow Q, K and V to the scores, "
    "both heads and W_O.\n\n"
    "Look at the encoding: a common slip puts the **dimension** index in the exponent where the paper "
    "puts the **pair** index, and the two tables below differ from column 1 on. The app uses the "
    "paper's encoding; the other is computed beside it."
)
# Where this comes from (the seed notebook and its cells), shown in a detail below the note.
SOURCE = N_(
    "Seed notebook 000, “Hello World” (`000_8aaade25cb8306ff.txt`): the embeddings E (In [73]), its "
    "positional encoding (In [78], printed In [79]) added to E (In [81]), and each head's W_Q, W_K, W_V "
    "(In [82]). The notebook stops after Q, K and V; the Scores and Heads pages finish its two heads. Its "
    "encoding puts the dimension index in the exponent; the app uses the paper's."
)

SENTENCE = "Hello World"
E = np.array([[1, 2, 3, 4], [2, 3, 4, 5]], dtype=np.float64)  # In [73]
W = {  # In [82]: (d_model 4, d_k 3) per head
    "WK1": [[1, 0, 1], [0, 1, 0], [1, 0, 1], [0, 1, 0]],
    "WV1": [[0, 1, 1], [1, 0, 0], [1, 0, 1], [0, 1, 0]],
    "WQ1": [[0, 0, 0], [1, 1, 0], [0, 0, 1], [1, 0, 0]],
    "WK2": [[0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 1, 0]],
    "WV2": [[1, 0, 0], [0, 1, 1], [0, 0, 1], [1, 0, 0]],
    "WQ2": [[1, 0, 1], [0, 1, 0], [1, 0, 0], [0, 1, 1]],
}
PE = printed(N_("positional encodings"), "In [79]", [[0, 1, 0, 1], [0.84147098, 0.99995, 0.0001, 1.0]], 8)
E_BEFORE = printed(N_("E before adding"), "In [81]", E, 8)
E_AFTER = printed(N_("E after adding"), "In [81]", [[1, 3, 3, 5], [2.84147098, 3.99995, 4.0001, 6]], 8)


def build() -> Example:
    w = {k: np.asarray(v, dtype=np.float64) for k, v in W.items()}
    heads = [np.stack([w[f"{m}1"], w[f"{m}2"]]) for m in ("WQ", "WK", "WV")]  # (2, 4, 3) each
    return table_example(SENTENCE, E, *heads, pe_kind="sinusoidal", scale_mode="sqrt")


def checks(res: Result) -> list[Check]:
    pe_nb = ac.notebook_positional_encoding(2, 4)
    app_e = res.emb if res.emb.shape == (2, 4) else None
    return [
        Check(E_BEFORE, app_e, _("the embeddings table E")),
        Check(PE, pe_nb, "attention_core.notebook_positional_encoding(2, 4)"),
        Check(E_AFTER, None if app_e is None else app_e + pe_nb, _("E + the notebook's encoding")),
    ]


def extras(ex: Example, res: Result, run: Run) -> list[Table]:
    n = max(res.n, 1)
    nb = ac.notebook_positional_encoding(n, ex.d_model)
    paper = ac.positional_encoding(n, ex.d_model)
    pos = [_("pos {p}", p=p) for p in range(n)]
    why = _(
        "The notebook puts the **dimension** index i = 0, 1, 2, 3 in the exponent 10000^(2i/d_model) where "
        "the paper puts the **pair** index 0, 0, 1, 1, so its columns 2i and 2i+1 no longer share a frequency "
        "and the last columns barely move (column 3 at position 1: cos(1/10000^1.5) = 1.0)."
    )
    return [
        Table(
            _("The other encoding (exponent on the dimension index i)"),
            pos,
            dims(ex.d_model),
            nb,
            8,
            group="pe",
        ),
        Table(
            _("The paper's encoding (exponent on the pair index): the app's"),
            pos,
            dims(ex.d_model),
            paper,
            8,
            group="pe",
        ),
        Table(_("Why they differ"), caption=why, kind="text"),
        Table(
            _("X = E + P with the paper's encoding: what the app's heads read"),
            res.labels,
            dims(ex.d_model),
            res.x,
            8,
            _(
                "The notebook stops after computing Q, K and V; the Scores and Heads pages finish its two heads."
            ),
        ),
    ]
