"""What every export shows, as plain data: the example's sentence, its matrices, its settings, each step's
short text and formula, and the numbers the app computed (pure: no Streamlit, no drawing).

The exports never read an Example or a Result directly: `from_example` turns them into a `Walkthrough`, and
the notebook and the HTML page are written from that. A real-model layer becomes a Walkthrough the same
way (its own `Layer`, with `source` saying which model, layer and heads the weights come from, and `notes`
saying what the notebook does not reproduce), so the builders need no change for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

import attention_core as ac
from explorer import i18n
from explorer.compute.pipeline import Result
from explorer.export.experiments import Experiment
from explorer.i18n import N_, _, pgettext
from explorer.model import glossary
from explorer.model.description import Description
from explorer.model.example import Example
from explorer.model.glossary import Term
from explorer.model.layer import describe
from explorer.views import formulas

F64 = NDArray[np.float64]

LN_EPS = 1e-5  # attention_core.encoder_layer's default: the app's layer norm


@dataclass(frozen=True)
class Step:
    """One section of the exports: a page's step. `formula` gives the LaTeX its page shows for the model
    described (explorer.views.formulas: the pages call the same functions)."""

    name: str
    title: str  # in English, marked: translated where shown (_(step.title))
    text: str  # one or two sentences, plain text (as the title)
    formula: Callable[[Description], str]  # LaTeX of the model described
    url_path: str  # the page of the app that shows it


STEPS: tuple[Step, ...] = (
    Step(
        "tokens",
        N_("Tokens and embeddings"),
        N_(
            "The sentence is cut into tokens (words and punctuation) and each token becomes a vector, its "
            "embedding: the rows of E."
        ),
        formulas.embeddings,
        "",
    ),
    Step(
        "positions",
        N_("Positional encoding"),
        N_(
            "Attention by itself ignores word order, so every position gets its own vector P, added to the "
            "embedding: X = E + P is what attention reads."
        ),
        formulas.positions,
        "positional-encoding",
    ),
    Step(
        "projections",
        N_("Queries, keys and values"),
        N_(
            "Each head multiplies X by its own W_Q, W_K and W_V: a token's query (what it looks for), its key "
            "(what it offers) and its value (what it passes on)."
        ),
        formulas.projections,
        "projections",
    ),
    Step(
        "scores",
        N_("Scores, mask and softmax"),
        N_(
            "Every query is compared with every key by a dot product; the scores are scaled, positions that may "
            "not be seen are masked to minus infinity, and a softmax turns each row into weights that are at "
            "least 0 and sum to 1."
        ),
        formulas.scores,
        "scores",
    ),
    Step(
        "heads",
        N_("Heads and W_O"),
        N_(
            "Each head's output is its weights times its values; the heads' outputs are laid side by side "
            "(concatenated) and multiplied by W_O, which mixes them back into one d_model-wide vector per token."
        ),
        formulas.heads,
        "heads",
    ),
    Step(
        "token",
        N_("One token's view"),
        N_(
            "One token's output is the mix of every value vector, each weighted by its row of attention "
            "weights: one row of the matrix product A V."
        ),
        formulas.token_view,
        "token",
    ),
    Step(
        "encoder",
        N_("The encoder block"),
        N_(
            "Attention's output is added back to its input (a residual connection) and normalised; then every "
            "token goes on its own through the same two-layer feed-forward network, again with a residual and a "
            "norm."
        ),
        formulas.block,
        "encoder",
    ),
)
STEP = {s.name: s for s in STEPS}

# The numbers every export recomputes or shows, in reading order: name -> what it is (with its shape).
NUMBERS: dict[str, str] = {
    "E": "embeddings used, (n, d_model)",
    "P": "positional encodings, (n, d_model)",
    "X": "X = E + P, (n, d_model)",
    "Q": "queries per head, (h, n, d_k)",
    "K": "keys per head, (h, n, d_k)",
    "V": "values per head, (h, n, d_v)",
    "S": "raw scores Q K^T, (h, n, n)",
    "S_scaled": "scaled scores, (h, n, n)",
    "S_masked": "scaled + bias, -inf where masked, (h, n, n)",
    "A": "softmax weights, (h, n, n)",
    "heads": "head outputs A V, (h, n, d_v)",
    "concat": "heads side by side, (n, h * d_v)",
    "out": "multi-head attention output, (n, d_model)",
    "token_sum": "one token's output as a sum over keys, (d_v,)",
    "enc_attn_in": "encoder: what attention reads, X (post-norm) or LN(X) (pre-norm), (n, d_model)",
    "enc_attn": "encoder: the attention output, (n, d_model)",
    "enc_sum1": "encoder: first residual sum, (n, d_model)",
    "enc_norm1": "encoder: LN of the first sum, (n, d_model)",
    "enc_hidden": "encoder: feed-forward hidden layer after ReLU, (n, d_ff)",
    "enc_ffn": "encoder: feed-forward output, (n, d_model)",
    "enc_sum2": "encoder: second residual sum, (n, d_model)",
    "Y": "encoder block output, (n, d_model)",
}

# How the settings table of the exports words each choice (marked: translated where shown).
PE_NOTES = {
    "sinusoidal": N_("sines and cosines, interleaved (the paper's layout)"),
    "sinusoidal_split": N_("sines in the first half of the columns, cosines in the second"),
    "learned": N_("a hand-set (learned) table"),
    "none": N_("none (P = 0)"),
}
MASK_NOTES = {
    "none": N_("none"),
    "causal": N_("causal (each token sees itself and the tokens before it)"),
    "window": N_("sliding window"),
    "padding": N_("padding (no query attends to a [PAD] key)"),
    "custom": N_("custom (a hand-set table)"),
}


@dataclass(frozen=True, eq=False)
class Layer:
    """The weights of one attention layer, as the exports write them, and where they came from.

    w_q, w_k (h, d_model, d_k); w_v (h, d_model, d_v); w_o (h * d_v, d_model); w1 (d_model, d_ff) and
    w2 (d_ff, d_model), or None when the layer has no feed-forward part shown; b1 (d_ff,), b2 (d_model,) or
    None. source: one sentence saying where the numbers came from. heads: the name of each head (a real
    model's layer shows some of its heads: "layer 5, head 3").
    """

    w_q: F64
    w_k: F64
    w_v: F64
    w_o: F64
    w1: F64 | None
    w2: F64 | None
    source: str
    heads: tuple[str, ...]
    b1: F64 | None = None
    b2: F64 | None = None


@dataclass(frozen=True, eq=False)
class Walkthrough:
    """One example, everything an export writes. n tokens, d = d_model.

    emb (n, d) the embeddings BEFORE the optional sqrt(d_model) factor (emb_scale); emb_note says how they
    were made; seed is the seed of "random" embeddings. pe_table (n, d) for pe_kind "learned", else None.
    scale_mode "sqrt" / "none" / "custom" says how `scale` is written. mask (n, n) bool for mask_kind
    "custom" (True = may attend), else None: the other masks are written as code. query, head: the token
    and head of the one-token section. numbers: the app's numbers, keys of NUMBERS (an absent key was not
    computed, e.g. the encoder when it failed: encoder_error says why). notes: what the exports do not
    reproduce, said at the top of each. experiments: the experiment of the real-model page the export was
    made on (/patching, /minimal-pairs), if any.
    """

    sentence: str
    tokens: tuple[str, ...]
    labels: tuple[str, ...]
    d_model: int
    n_heads: int
    d_k: int
    emb: F64
    emb_source: str
    seed: int
    emb_scale: bool
    pe_kind: str
    pe_base: float
    pe_table: F64 | None
    scale: float
    scale_mode: str
    mask_kind: str
    window: int
    mask: NDArray[np.bool_] | None
    alibi: bool
    rope: bool
    norm_first: bool
    layer: Layer
    query: int
    head: int
    numbers: Mapping[str, F64]
    link: str = ""
    encoder_error: str | None = None
    eps: float = LN_EPS
    notes: tuple[str, ...] = field(default_factory=tuple)
    model: Description | None = None  # what is described (explorer.model.description): each step's formula
    experiments: tuple[Experiment, ...] = ()  # a real-model page's experiment, shown after the steps

    def description(self) -> Description:
        """What is described: the example's model, or the toy model with these settings."""
        return self.model if self.model is not None else _toy_of(self)

    def formula(self, step: str) -> str:
        """The LaTeX of step `step` for this example's model (the page's own formula)."""
        return STEP[step].formula(self.description())

    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def d_ff(self) -> int:
        return 0 if self.layer.w1 is None else int(self.layer.w1.shape[1])

    def settings(self) -> list[tuple[str, str]]:
        """(setting, value) rows, as a person reads them, in the language on screen; the numbers as the
        settings hold them (a link's and a file's format)."""
        if self.scale_mode == "sqrt":
            scale = f"1/√d_k = {self.scale!r}"
        elif self.scale_mode == "none":
            scale = _("none (× 1)")
        else:
            scale = _("custom: × {factor}", factor=repr(self.scale))
        mask = _(MASK_NOTES[self.mask_kind]) if self.mask_kind in MASK_NOTES else self.mask_kind
        if self.mask_kind == "window":
            mask = _("{mask}, w = {window}", mask=mask, window=str(self.window))
        on, off = pgettext("switch", "on"), pgettext("switch", "off")
        rows = [
            (_("tokens"), str(self.n)),
            ("d_model", str(self.d_model)),
            (_("heads"), str(self.n_heads)),
            ("d_k = d_v", str(self.d_k)),
            (_("embeddings"), self.emb_note()),
            (_("scale E by √d_model"), _("yes") if self.emb_scale else _("no")),
            (
                _("positional encoding"),
                _(PE_NOTES[self.pe_kind]) if self.pe_kind in PE_NOTES else self.pe_kind,
            ),
        ]
        if self.pe_kind in ("sinusoidal", "sinusoidal_split"):
            rows.append((_("encoding base"), f"{self.pe_base:g}"))
        rows += [
            (_("score scale"), scale),
            (_("mask"), mask),
            (_("ALiBi bias"), on if self.alibi else off),
            ("RoPE", on if self.rope else off),
            ("d_ff", str(self.d_ff)),
            (_("layer norm"), _("pre-norm") if self.norm_first else _("post-norm (the paper)")),
            (_("weights"), self.layer.source),
        ]
        return rows

    def emb_note(self) -> str:
        """How the embeddings were made, in the language on screen."""
        if self.emb_source == "random":
            return _(
                "random per word, seeded (seed {seed}): the same word always gets the same vector",
                seed=str(self.seed),
            )
        if self.emb_source == "table":
            return _("a hand-edited table")
        return self.emb_source


def from_example(ex: Example, res: Result, *, query: int = 0, head: int = 0, link: str = "") -> Walkthrough:
    """The Walkthrough of an example and its traced run (res = pipeline.run(ex)); ValueError if it failed."""
    if res.error or res.attention is None or res.n == 0:
        raise ValueError(res.error or "the example has no tokens")
    n = res.n
    query = int(min(max(query, 0), n - 1))
    head = int(min(max(head, 0), ex.n_heads - 1))
    emb = ex.emb if ex.emb_source == "table" else ac.embed(res.tokens, ex.d_model, seed=ex.seed)
    numbers = _numbers(res, query, head)
    layer = _toy_layer(ex)
    return Walkthrough(
        sentence=ex.sentence,
        tokens=tuple(res.tokens),
        labels=tuple(res.labels),
        d_model=ex.d_model,
        n_heads=ex.n_heads,
        d_k=ex.d_k,
        emb=np.asarray(emb, dtype=np.float64),
        emb_source=ex.emb_source,
        seed=ex.seed,
        emb_scale=ex.pe_scale,
        pe_kind=ex.pe_kind,
        pe_base=float(ex.pe_base),
        pe_table=np.asarray(ex.pe_table, dtype=np.float64) if ex.pe_kind == "learned" else None,
        scale=float(res.scale),
        scale_mode=ex.scale_mode,
        mask_kind=ex.mask_kind,
        window=int(ex.window),
        mask=np.asarray(ex.custom_mask, dtype=bool) if ex.mask_kind == "custom" else None,
        alibi=ex.alibi,
        rope=ex.rope,
        norm_first=ex.norm_first,
        layer=layer,
        query=query,
        head=head,
        numbers={k: np.array(v, dtype=np.float64) for k, v in numbers.items()},
        link=link,
        encoder_error=res.encoder_error,
        notes=((_("The tokens were cut to the first 64 of the sentence."),) if res.truncated else ()),
        model=describe(ex),
    )


def _numbers(res: Result, query: int, head: int) -> dict[str, F64]:
    """Every matrix of the run the walkthrough shows, by its name: the attention's, then the encoder block's."""
    tr = res.attention
    assert tr is not None
    numbers: dict[str, F64] = {
        "E": res.emb,
        "P": res.pe,
        "X": res.x,
        "Q": tr.q,
        "K": tr.k,
        "V": tr.v,
        "S": tr.scores,
        "S_scaled": tr.scaled,
        "S_masked": tr.masked,
        "A": tr.weights,
        "heads": tr.head_outputs,
        "concat": tr.concat,
        "out": tr.output,
        "token_sum": res.contributions(head, query).sum(axis=0),
    }
    enc = res.encoder
    if enc is not None:
        numbers |= {
            "enc_attn_in": enc.attn_input,
            "enc_attn": enc.attention.output,
            "enc_sum1": enc.sum1,
            "enc_norm1": enc.norm1,
            "enc_hidden": enc.ffn_hidden,
            "enc_ffn": enc.ffn_out,
            "enc_sum2": enc.sum2,
            "Y": enc.output,
        }
    return numbers


def _toy_layer(ex: Example) -> Layer:
    """The toy layer's weights as edited on screen, float64."""
    return Layer(
        w_q=np.asarray(ex.w_q, dtype=np.float64),
        w_k=np.asarray(ex.w_k, dtype=np.float64),
        w_v=np.asarray(ex.w_v, dtype=np.float64),
        w_o=np.asarray(ex.w_o, dtype=np.float64),
        w1=np.asarray(ex.w1, dtype=np.float64),
        w2=np.asarray(ex.w2, dtype=np.float64),
        source=_(
            "the explorer's toy weights: seeded random (seed {seed}), as edited on screen", seed=str(ex.seed)
        ),
        heads=tuple(_("head {k}", k=str(h + 1)) for h in range(ex.n_heads)),
    )


def _toy_of(w: Walkthrough) -> Description:
    """The toy model with a walkthrough's settings (for one built field by field, without its model)."""
    return describe(Example(d_model=w.d_model, n_heads=w.n_heads, d_k=w.d_k, norm_first=w.norm_first,
                            pe_kind=w.pe_kind, rope=w.rope, alibi=w.alibi))  # fmt: skip


@lru_cache(maxsize=8)
def _patterns(code: str) -> tuple[tuple[Term, re.Pattern[str]], ...]:
    """Each glossary term as the language `code` writes it: its translated word, each of its parts ("consulta,
    clave y valor": three), with a plural ending, whole words, any case."""
    out = []
    with i18n.using(code):
        for t in glossary.TERMS:
            said = i18n._(t.word)
            parts = [p.strip() for p in re.split(r",| y | and |\(|\)", said) if len(p.strip()) > 2]
            # "peso de atención": "los pesos" in a text about attention say it too
            parts += [p[: -len(" de atención")] for p in parts if p.endswith(" de atención")]
            words = "|".join(_plural(p) for p in parts)
            out.append((t, re.compile(rf"(?<!\w)(?:{words})(?!\w)", re.IGNORECASE)))
    return tuple(out)


def _plural(word: str) -> str:
    """A pattern for `word` and its plural: +s, +es, and an accented last syllable losing its accent
    ("puntuación", "puntuaciones")."""
    plain = (
        word[:-2] + {"ó": "o", "á": "a", "é": "e", "í": "i", "ú": "u"}[word[-2]] + word[-1]
        if (len(word) > 2 and word[-2] in "óáéíú")
        else word
    )
    return (
        f"{re.escape(word)}(?:s|es)?|{re.escape(plain)}es" if plain != word else f"{re.escape(word)}(?:s|es)?"
    )


def terms(text: str) -> list[Term]:
    """The glossary's terms a text of an export uses, in the glossary's order: found by their English patterns
    and, in another language, by how that language writes them (an export is written in the language it was
    asked in)."""
    found = {t.key for t in glossary.terms_in(text)}
    if i18n.current() != i18n.SOURCE:
        found |= {t.key for t, pattern in _patterns(i18n.current()) if pattern.search(text)}
    return [t for t in glossary.TERMS if t.key in found]
