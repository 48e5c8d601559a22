"""Our own example: who is “it”? One hand-set head that sends a pronoun to the noun it refers to."""

from __future__ import annotations

import numpy as np

from explorer.compute.pipeline import Result
from explorer.i18n import N_, _
from explorer.lessons.compare import Run, Table, table_example
from explorer.model.example import Example

NAME = "pronoun"
TITLE = N_("Who is “it”? A head that resolves a pronoun")
NOTE = N_(
    "**Who is “it”?** One head with hand-set weights, on 7 readable features (d0 living "
    "thing, d1 object, d2 pronoun, d3 verb, d4 about a living thing, d5 about an object, d6 small "
    "word). W_Q turns “about a living thing” into the question *are you a living thing?* and "
    "“pronoun” into *are you a noun?*; W_K gives the nouns the matching answers. So “it” (a pronoun "
    "that is tired) looks at **animal**, and “tired” does too.\n\n"
    "A trained model learns such weights, and earlier layers are what tell “it” that it is tired: "
    "here that is hand-set in its embedding (d4 = 1)."
)
# Where this comes from (the seed notebook and its cells), shown in a detail below the note.
SOURCE = N_(
    "Our own example, not from a seed notebook: the features and weights are set by hand in "
    "`explorer/lessons/pronoun.py` to show what one trained head can do."
)

# The pronoun example: 7 readable features, one hand-set head that sends "it" to the noun it refers to.
SENTENCE = "The animal didn't cross the street because it was too tired"
FEATURES = (
    "living thing",
    "object",
    "pronoun",
    "verb",
    "about a living thing",
    "about an object",
    "small word",
)
_ROWS = {  # token -> {feature index: value}
    "The": {6: 1.0},
    "the": {6: 1.0},
    "animal": {0: 1.0},
    "didn't": {3: 0.5, 6: 0.5},
    "cross": {3: 1.0},
    "street": {1: 1.0},
    "because": {6: 1.0},
    "it": {2: 1.0, 4: 1.0},  # a pronoun that earlier layers have told "something tired": about a living thing
    "was": {3: 1.0},
    "too": {6: 1.0},
    "tired": {4: 1.0},
}


def build() -> Example:
    from explorer.model.example import tokens_of

    toks, _cut = tokens_of(SENTENCE)
    d = len(FEATURES)
    emb = np.zeros((len(toks), d))
    for i, tok in enumerate(toks):
        for j, v in _ROWS[tok].items():
            emb[i, j] = v
    # Query dims: q0 "I want a living thing", q1 "I want a noun", q2 "I want an object".
    w_q = np.zeros((d, 3))
    w_q[4, 0] = 3.0  # about a living thing -> looks for living things
    w_q[2, 1] = 2.0  # a pronoun -> looks for nouns
    w_q[5, 2] = 3.0  # about an object -> looks for objects
    # Key dims: k0 "I am a living thing", k1 "I am a noun", k2 "I am an object".
    w_k = np.zeros((d, 3))
    w_k[0, 0] = 2.0
    w_k[0, 1] = w_k[1, 1] = 1.0
    w_k[1, 2] = 2.0
    # Values carry (living, object, verb); W_O writes them back into the same features.
    w_v = np.zeros((d, 3))
    w_v[0, 0] = w_v[1, 1] = w_v[3, 2] = 1.0
    w_o = np.zeros((3, d))
    w_o[0, 0] = w_o[1, 1] = w_o[2, 3] = 1.0
    return table_example(SENTENCE, emb, w_q, w_k, w_v, w_o=w_o, pe_kind="none", scale_mode="sqrt")


def extras(ex: Example, res: Result, run: Run) -> list[Table]:
    t = res.attention
    assert t is not None
    if "it" not in res.tokens:
        return []
    i = res.tokens.index("it")
    return [
        Table(
            _("Where “it” looks (head 1)"),
            ["it"],
            res.labels,
            t.weights[0, i][None, :],
            3,
            _(
                "Try it: in the embeddings table on this page, set the row of “it” to d4 = 0 (not about a living "
                "thing) and d5 = 1 (about an object), as if the sentence ended “because it was too wide”: the "
                "weight moves to “street”. With d4 = d5 = 0, “it” cannot choose and splits its weight between "
                "the two nouns."
            ),
            kind="weights",
        )
    ]
