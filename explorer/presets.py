"""Presets: each seed notebook (and examples of our own) as an Example, one click or one URL away.

`PRESETS` maps the fixed preset names (used in links: ?preset=<name>) to Preset objects. Each build() returns
a complete Example (every matrix at its shape): what the notebook sets is set here, the rest (W_O, W1, W2 and
the tables the notebook does not use) is the seeded default of `explorer.example.conform`. The notebooks
compute one head without W_O, so their numbers are compared with the head's output, not the W_O output
(see explorer/lessons.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from explorer import lessons as ls
from explorer.example import Example, conform


@dataclass(frozen=True)
class Preset:
    name: str  # the URL name, e.g. "three-inputs"
    title: str  # shown in the picker
    note: str  # markdown: what the notebook does, what to look at
    build: Callable[[], Example]  # the Example, matrices included


def _one_head(*mats: np.ndarray) -> list[np.ndarray]:
    """(d_model, d_k) matrices as (1, d_model, d_k): one head."""
    return [np.asarray(m, dtype=np.float64)[None] for m in mats]


def _hello_world() -> Example:
    w = {k: np.asarray(v, dtype=np.float64) for k, v in ls.S000_W.items()}
    ex = Example(
        sentence=ls.S000_SENTENCE,
        d_model=4,
        n_heads=2,
        d_k=3,
        emb_source="table",
        pe_kind="sinusoidal",
        scale_mode="sqrt",
        emb=ls.S000_E.copy(),
        w_q=np.stack([w["WQ1"], w["WQ2"]]),  # (2, 4, 3)
        w_k=np.stack([w["WK1"], w["WK2"]]),
        w_v=np.stack([w["WV1"], w["WV2"]]),
    )
    return conform(ex)


def _me_gusta() -> Example:
    draws = ls.s001_draws()
    w_q, w_k, w_v = _one_head(draws["w_q"], draws["w_k"], draws["w_v"])
    ex = Example(
        sentence=ls.S001_SENTENCE,
        d_model=4,
        n_heads=1,
        d_k=3,
        d_ff=5,
        emb_source="table",
        pe_kind="learned",
        scale_mode="none",
        emb=draws["emb"],
        pe_table=ls.S001_POS.copy(),
        w_q=w_q,
        w_k=w_k,
        w_v=w_v,
    )
    return conform(ex)


def _three_inputs() -> Example:
    w_q, w_k, w_v = _one_head(ls.S002_W_QUERY, ls.S002_W_KEY, ls.S002_W_VALUE)
    ex = Example(
        sentence=ls.S002_SENTENCE,
        d_model=4,
        n_heads=1,
        d_k=3,
        emb_source="table",
        pe_kind="none",
        scale_mode="custom",
        scale_custom=1.0 / ls.S002_K_D,
        emb=ls.S002_X.values.copy(),
        w_q=w_q,
        w_k=w_k,
        w_v=w_v,
    )
    return conform(ex)


def _causal_mask() -> Example:
    w_q, w_k, w_v = _one_head(ls.S003_Q, ls.S003_K, ls.S003_V)  # one-hot tokens: X W = W
    ex = Example(
        sentence=ls.S003_SENTENCE,
        d_model=4,
        n_heads=1,
        d_k=8,
        emb_source="table",
        pe_kind="none",
        scale_mode="sqrt",
        mask_kind="causal",
        emb=np.eye(4),
        w_q=w_q,
        w_k=w_k,
        w_v=w_v,
    )
    return conform(ex)


def _its_snowing() -> Example:
    w_q, w_k, w_v = _one_head(ls.S004_WQ, ls.S004_WK, ls.S004_WV)
    ex = Example(
        sentence=ls.S004_SENTENCE,
        d_model=3,
        n_heads=1,
        d_k=2,
        emb_source="table",
        pe_kind="none",
        scale_mode="sqrt",
        emb=ls.S004_COMBINED.values.copy(),
        w_q=w_q,
        w_k=w_k,
        w_v=w_v,
    )
    return conform(ex)


# The pronoun example: 7 readable features, one hand-set head that sends "it" to the noun it refers to.
PRONOUN_SENTENCE = "The animal didn't cross the street because it was too tired"
PRONOUN_FEATURES = (
    "living thing",
    "object",
    "pronoun",
    "verb",
    "about a living thing",
    "about an object",
    "small word",
)
_PRONOUN_ROWS = {  # token -> {feature index: value}
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


def _pronoun() -> Example:
    from explorer.example import tokens_of

    toks, _ = tokens_of(PRONOUN_SENTENCE)
    d = len(PRONOUN_FEATURES)
    emb = np.zeros((len(toks), d))
    for i, tok in enumerate(toks):
        for j, v in _PRONOUN_ROWS[tok].items():
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
    ex = Example(
        sentence=PRONOUN_SENTENCE,
        d_model=d,
        n_heads=1,
        d_k=3,
        emb_source="table",
        pe_kind="none",
        scale_mode="sqrt",
        emb=emb,
        w_q=w_q[None],
        w_k=w_k[None],
        w_v=w_v[None],
        w_o=w_o,
    )
    return conform(ex)


def _causal_vs_bidirectional() -> Example:
    return conform(
        Example(
            sentence="The cat sat on the mat because it was warm.",
            d_model=8,
            n_heads=2,
            d_k=4,
            seed=3,
            pe_kind="sinusoidal",
            mask_kind="causal",
        )
    )


_NOTES = {
    "hello-world": (
        "**Notebook 000, “Hello World”.** Two tokens with hand-made embeddings E = [[1,2,3,4],[2,3,4,5]], "
        "a sinusoidal positional encoding, then **two heads**, each with its own integer 4×3 W_Q, W_K, W_V "
        "(d_model 4, d_k 3). The notebook stops after Q, K, V; the app goes on to the scores, both heads "
        "and W_O.\n\n"
        "Look at the encoding: the notebook's formula puts the **dimension** index in the exponent, the "
        "paper puts the **pair** index there, so the two tables below differ from column 1 on. The app "
        "uses the paper's encoding; the notebook's is computed beside it."
    ),
    "me-gusta": (
        "**Notebook 001, “me gusta estudiar inteligencia artificial”.** Five tokens, d_model 4, "
        "d_k = d_v = 3, hand-set position vectors pos_1 … pos_5 (a *learned* encoding here) and **no "
        "scaling**: it computes softmax(Q Kᵀ), not softmax(Q Kᵀ/√3). It first builds each token's output "
        "in a loop (me_attention = Σ alpha · value), then the same with matrices.\n\n"
        "Its embeddings and weights are random. Seed 23 (commented out in its first cell) draws them "
        "again exactly, so every number of its final run comes out, the output included. The app's "
        "numbers are head 1's, before W_O (the notebook has no W_O)."
    ),
    "three-inputs": (
        "**Notebook 002, three inputs.** x = [[1,0,1,0],[0,2,0,2],[1,1,1,1]] (no positions), integer "
        "w_query, w_key, w_value (4×3), and the scores divided by **1**: “√3 rounded down”. Then softmax, "
        "and the output of input 1 built by hand: weight × value, summed.\n\n"
        "The notebook prints the first softmax row three times (a copy-paste slip); the real three rows "
        "are below. Try the true scale: choose 1/√d_k on the Scores page and watch rows 1 and 2 soften."
    ),
    "causal-mask": (
        "**Notebook 003, the causal mask.** Four tokens (“My name is X”), random q, k, v with "
        "d_k = d_v = 8, scores divided by √8, and a **causal mask**: a token may not look at the tokens "
        "after it, so the weights above the diagonal are 0.\n\n"
        "Here each token is a one-hot vector (X = the 4×4 identity), so W_Q, W_K, W_V are its printed q, "
        "k, v themselves. Its lesson, why √8, has its own page: **Why divide by √d_k?**"
    ),
    "its-snowing": (
        "**Notebook 004, “It's snowing outside”.** Three made-up 3-d embeddings and 3×2 matrices Wq, Wk, "
        "Wv: it computes the queries, the keys and the raw scores q kᵀ, and leaves the rest as TODO.\n\n"
        "The app finishes it: scale by 1/√2, softmax, times the values. The raw scores are on the Scores "
        "page (the q·k numbers before the scale); the finished steps are below."
    ),
    "pronoun": (
        "**Our own: who is “it”?** One head with hand-set weights, on 7 readable features (d0 living "
        "thing, d1 object, d2 pronoun, d3 verb, d4 about a living thing, d5 about an object, d6 small "
        "word). W_Q turns “about a living thing” into the question *are you a living thing?* and "
        "“pronoun” into *are you a noun?*; W_K gives the nouns the matching answers. So “it” (a pronoun "
        "that is tired) looks at **animal**, and “tired” does too.\n\n"
        "A trained model learns such weights, and earlier layers are what tell “it” that it is tired: "
        "here that is hand-set in its embedding (d4 = 1)."
    ),
    "causal-vs-bidirectional": (
        "**Our own: causal or bidirectional?** The same sentence and weights with and without the causal "
        "mask. An encoder (BERT) lets every token see every other; a decoder (GPT) lets a token see only "
        "itself and the tokens before it, because when it writes text the later tokens do not exist yet. "
        "Switch the mask on the Scores page, or compare the two below."
    ),
}

_TITLES = {
    "hello-world": "Notebook 000: Hello World",
    "me-gusta": "Notebook 001: me gusta estudiar…",
    "three-inputs": "Notebook 002: three inputs",
    "causal-mask": "Notebook 003: causal mask",
    "its-snowing": "Notebook 004: It's snowing",
    "pronoun": "Ours: who is “it”?",
    "causal-vs-bidirectional": "Ours: causal or bidirectional",
}

_BUILDS: dict[str, Callable[[], Example]] = {
    "hello-world": _hello_world,
    "me-gusta": _me_gusta,
    "three-inputs": _three_inputs,
    "causal-mask": _causal_mask,
    "its-snowing": _its_snowing,
    "pronoun": _pronoun,
    "causal-vs-bidirectional": _causal_vs_bidirectional,
}

PRESETS: dict[str, Preset] = {
    name: Preset(name, _TITLES[name], _NOTES[name], build) for name, build in _BUILDS.items()
}
