"""One traced run of an Example through the engine (pure: no Streamlit, no drawing).

Data flows one way: Example -> run() -> Result -> figure builders. Every number a page shows comes from a
Result field, so a page never does maths.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

import attention_core as ac
from explorer.i18n import N_, _
from explorer.model import layer
from explorer.model.arrays import F64
from explorer.model.example import Example, tokens_for

NO_TOKENS = N_("The sentence has no tokens yet: type a few words.")

PAD = "[PAD]"
MAX_LABEL = 24  # characters of a token shown in chart labels and editor headers


def short(token: str) -> str:
    """A token as chart labels show it: cut to MAX_LABEL characters with "…" (a pasted 10,000-letter word
    must not push every chart off the page). Labels stay unique: token_labels runs on the short forms."""
    return token if len(token) <= MAX_LABEL else token[: MAX_LABEL - 1] + "…"


@dataclass(frozen=True, eq=False)
class Result:
    """Every intermediate of one example. n tokens, d = d_model, h heads, k = d_k = d_v.

    tokens, labels (n,); emb (n, d) the embeddings used (after the sqrt(d_model) factor when on);
    pe (n, d); x (n, d) = emb + pe; mask (n, n) bool or None; bias (h, n, n) or None;
    scale the factor applied to q k^T; attention (AttentionTrace): THE attention of this example, the one
    the encoder block computes (encoder.attention is the same object), over attention_input: "X" in
    post-norm, "LN(X)" in pre-norm; encoder (EncoderTrace or None, with its own error in encoder_error);
    error: a readable message when the run failed (then the fields after `x` are None); ids: (n,) the
    tokens' ids where the layer has a vocabulary it shows (the tiny trained model), else None.
    """

    tokens: list[str]
    labels: list[str]
    truncated: bool
    emb: F64
    pe: F64
    x: F64
    scale: float
    mask: NDArray[np.bool_] | None
    bias: F64 | None
    attention: ac.AttentionTrace | None
    encoder: ac.EncoderTrace | None
    error: str | None = None
    encoder_error: str | None = None
    attention_input: str = "X"  # what attention reads: "X", or "LN(X)" in pre-norm
    ids: list[int] | None = None  # each token's id in the layer's vocabulary, where the layer shows them

    @property
    def n(self) -> int:
        return len(self.tokens)

    def contributions(self, head: int, query: int) -> F64:
        """(n_keys, d_v): row j is a_ij * v_j, the share of key j in query i's output (they sum to it)."""
        assert self.attention is not None
        return ac.weighted_value_contributions(
            self.attention.weights[head, query][None, :], self.attention.v[head]
        )[0]

    def strongest_key(self, head: int, query: int) -> int:
        """The key this query gives the most weight in this head."""
        assert self.attention is not None
        return int(self.attention.weights[head, query].argmax())

    @property
    def blocked(self) -> NDArray[np.bool_] | None:
        """(n, n) True where a query may not see a key (the mask's complement), or None without a mask."""
        return None if self.mask is None else ~self.mask

    @property
    def a_row_is_all_masked(self) -> bool:
        """True when some query may see no key at all (its weights are 0 and its output is zero)."""
        return self.mask is not None and bool((~self.mask).all(axis=1).any())

    @property
    def pe_gram(self) -> F64:
        """P P^T (n, n): how alike two positions' encodings are (dot products)."""
        return self.pe @ self.pe.T


def scale_of(ex: Example) -> float:
    """The factor on q k^T: 1/sqrt(d_k) (paper), 1 (none), or the custom number."""
    if ex.scale_mode == "none":
        return 1.0
    if ex.scale_mode == "custom":
        return float(ex.scale_custom)
    return 1.0 / float(np.sqrt(ex.d_k))


def mask_of(ex: Example, tokens: list[str]) -> NDArray[np.bool_] | None:
    """The (n, n) boolean mask (True = may attend) the settings ask for, or None for no mask."""
    n = len(tokens)
    if ex.mask_kind == "causal":
        return ac.causal_mask(n)
    if ex.mask_kind == "window":
        return ac.sliding_window_mask(n, int(ex.window))
    if ex.mask_kind == "padding":
        return ac.padding_mask(np.array([t == PAD for t in tokens], dtype=bool))
    if ex.mask_kind == "custom":
        return np.asarray(ex.custom_mask, dtype=bool)
    return None


def embeddings_of(ex: Example, tokens: list[str]) -> F64:
    """E (n, d_model): seeded per-word vectors or the hand-set table, times sqrt(d_model) if asked."""
    e = ex.emb if ex.emb_source == "table" else ac.embed(tokens, ex.d_model, seed=ex.seed)
    return e * np.sqrt(ex.d_model) if ex.pe_scale else np.array(e, dtype=np.float64)


def encodings_of(ex: Example, n: int) -> F64:
    """P (n, d_model) for the chosen kind; "learned" is the editable table."""
    if ex.pe_kind == "learned":
        return np.array(ex.pe_table, dtype=np.float64)
    return ac.positional_encoding(n, ex.d_model, kind=ex.pe_kind, base=ex.pe_base)


def run(ex: Example) -> Result:
    """Embeddings -> + positions -> the encoder block (its multi-head attention included), every step kept.

    The attention is computed once, inside the block: in pre-norm it reads LN(X), and so do the pages.
    """
    tokens, truncated = tokens_for(ex)
    labels = ac.token_labels([short(t) for t in tokens])
    n = len(tokens)
    empty = np.zeros((0, ex.d_model))
    if n == 0:
        return Result(
            tokens,
            labels,
            truncated,
            empty,
            empty,
            empty,
            1.0,
            None,
            None,
            None,
            None,
            error=NO_TOKENS,  # marked: said where shown (the result is cached across languages)
        )
    try:
        emb = embeddings_of(ex, tokens)
        pe = encodings_of(ex, n)
        x = emb + pe  # (n, d_model)
        scale = scale_of(ex)
        mask = mask_of(ex, tokens)
        bias = ac.alibi_bias(n, ex.n_heads) if ex.alibi else None  # (n_heads, n, n)
    except ValueError as err:
        e = locals().get("emb", empty)
        return Result(tokens, labels, truncated, e, empty, empty, 1.0, None, None, None, None, error=str(err))
    try:  # the block computes the attention once; every page reads that trace
        encoder, trace, enc_error, reads = layer.of(ex).run_block(ex, x, mask, scale, bias)
    except ValueError as err:
        return Result(
            tokens, labels, truncated, emb, empty, empty, 1.0, None, None, None, None, error=str(err)
        )
    ids = layer.of(ex).token_ids(ex)
    return Result(
        tokens, labels, truncated, emb, pe, x, scale, mask, bias, trace, encoder, None, enc_error, reads, ids
    )


ROLES = ("previous-token head", "induction head")  # the roles a head's rule answers (Description.roles)


def rule_key(role: str, res: Result, query: int) -> int | None:
    """The key a head with this role attends to by its rule, for `query`: a previous-token head the token
    just before (the first token, itself); an induction head the token after the latest earlier copy of the
    query's token (same id, or the same word in any case). None when the rule names no key (no role, or no
    earlier copy)."""
    if role == ROLES[0]:
        return max(query - 1, 0)
    if role != ROLES[1]:
        return None
    same = res.ids if res.ids is not None else [t.lower() for t in res.tokens]
    copies = [j for j in range(query) if same[j] == same[query]]
    return copies[-1] + 1 if copies else None


@dataclass(frozen=True)
class ScaleStats:
    """The current sentence's scores, per head, with and without 1/sqrt(d_k) (unmasked, no bias).

    var_raw, var_scaled (h,): variance of q k^T and of q k^T / sqrt(d_k) over all cells;
    max_raw, max_scaled (h,): mean over queries of the largest softmax weight;
    ent_raw, ent_scaled (h,): mean entropy (nats) of the softmax rows; max_entropy = log(n).
    """

    var_raw: F64
    var_scaled: F64
    max_raw: F64
    max_scaled: F64
    ent_raw: F64
    ent_scaled: F64
    max_entropy: float


def scale_stats(scores: F64, d_k: int) -> ScaleStats:
    """ScaleStats of raw scores (h, n, n)."""
    scaled = scores / np.sqrt(d_k)

    def peaks(z: F64) -> tuple[F64, F64]:
        w = ac.softmax(z, axis=-1)  # (h, n, n)
        ent = -(w * np.log(np.where(w > 0, w, 1.0))).sum(axis=-1)  # (h, n), 0 log 0 = 0
        return w.max(axis=-1).mean(axis=-1), ent.mean(axis=-1)

    (mr, er), (ms, es) = peaks(scores), peaks(scaled)
    axes = (1, 2)
    return ScaleStats(
        scores.var(axis=axes), scaled.var(axis=axes), mr, ms, er, es, float(np.log(scores.shape[-1]))
    )


def scale_table(stats: ScaleStats) -> dict[str, object]:
    """The why-scale page's table of the sentence's scores: column -> one value per head."""
    return {
        "head": [f"head {h + 1}" for h in range(len(stats.var_raw))],
        "var(QKᵀ)": stats.var_raw,
        "var(QKᵀ/√d_k)": stats.var_scaled,
        "largest weight, unscaled": stats.max_raw,
        "largest weight, scaled": stats.max_scaled,
        "entropy, unscaled": stats.ent_raw,
        "entropy, scaled": stats.ent_scaled,
    }


def encoder_stages(enc: ac.EncoderTrace, norm_first: bool) -> list[tuple[str, F64, bool]]:
    """The stages of an encoder block in reading order: (title, matrix, is_hidden_layer).

    Titles name the block's own norm and activation: the toy's LN and ReLU, or a real layer's (explorer.model.bridge)
    LayerNorm with its gains and GELU (MiniLM), RMSNorm and SwiGLU (SmolLM2); an attention-only layer (no
    norm, d_ff 0: the tiny trained model) has three: X, MHA(X), X + MHA(X)."""
    n = "RMSNorm" if getattr(enc, "norm", "layer_norm") == "rms_norm" else "LN"
    act = getattr(enc, "activation", "relu") or "relu"
    if enc.ffn_hidden.shape[-1] == 0 and getattr(enc, "norm", "") == "none":  # attention only
        return [("X (input)", enc.x, False), ("MHA(X)", enc.attention.output, False),
                ("Output = X + MHA(X)", enc.output, False)]  # fmt: skip

    def hidden(h: str) -> str:
        return {
            "relu": f"ReLU({h} W1)",
            "gelu": f"GELU({h} W1 + b1)",
            "swiglu": f"silu({h} W1) ⊙ {h} W_up",
        }.get(act, f"{act}({h} W1)") + ": FFN hidden"

    if norm_first:
        return [
            ("X (input)", enc.x, False),
            (f"{n}(X): what attention reads", enc.attn_input, False),
            (f"MHA({n}(X))", enc.attention.output, False),
            (f"H = X + MHA({n}(X))", enc.sum1, False),
            (f"{n}(H): what the FFN reads", enc.norm1, False),
            (hidden(f"{n}(H)"), enc.ffn_hidden, True),
            (f"FFN({n}(H))", enc.ffn_out, False),
            (f"Output = H + FFN({n}(H))", enc.output, False),
        ]
    return [
        ("X (input)", enc.x, False),
        ("MHA(X)", enc.attention.output, False),
        ("X + MHA(X)", enc.sum1, False),
        (f"H = {n}(X + MHA(X))", enc.norm1, False),
        (hidden("H"), enc.ffn_hidden, True),
        ("FFN(H)", enc.ffn_out, False),
        ("H + FFN(H)", enc.sum2, False),
        (f"Output = {n}(H + FFN(H))", enc.output, False),
    ]


# The four stages that tell the block's story on one screen (presenting): the input, what attention adds,
# A stage's title in the language on screen: its formula kept, the words after it translated (its English
# title stays the chart's key on the page).
OUTPUT = N_("Output = {formula}")
_STAGE_WORDS = (
    (" (input)", N_("{formula} (input)")),
    (": what attention reads", N_("{formula}: what attention reads")),
    (": what the FFN reads", N_("{formula}: what the FFN reads")),
    (": FFN hidden", N_("{formula}: FFN hidden")),
)


def stage_title(title: str) -> str:
    """An encoder_stages title in the language on screen ("X (input)" -> "X (entrada)")."""
    if title.startswith("Output = "):
        return _(OUTPUT, formula=title[len("Output = ") :])
    for tail, said in _STAGE_WORDS:
        if title.endswith(tail):
            return _(said, formula=title[: -len(tail)])
    return title


# the residual sum H, the output (indices into encoder_stages, pre-norm and post-norm).
BRIEF_STAGES = {True: (0, 2, 3, 7), False: (0, 1, 3, 7)}


def brief_stages(stages: list[tuple[str, F64, bool]], norm_first: bool) -> list[tuple[str, F64, bool]]:
    """The stages shown on one screen: BRIEF_STAGES of a block's eight, or all of an attention-only layer's."""
    return (
        stages
        if len(stages) <= len(BRIEF_STAGES[norm_first])
        else [stages[k] for k in BRIEF_STAGES[norm_first]]
    )


def pe_curves(kind: str, d_model: int, base: float, n_positions: int, steps: int = 8) -> tuple[F64, F64]:
    """Each encoding dimension as a function of a continuous position t in [0, n-1].

    PE(t, 2i) = sin(t / base^(2i/d)), PE(t, 2i+1) = cos(t / base^(2i/d)) (interleaved), or the same
    frequencies as all sin columns then all cos columns ("sinusoidal_split"). Returns t (m,) and
    curves (m, d_model) with m = steps * (n - 1) + 1.
    """
    t = np.linspace(0.0, max(n_positions - 1, 1), steps * max(n_positions - 1, 1) + 1)
    i = np.arange(d_model)
    if kind == "sinusoidal_split":
        half = (d_model + 1) // 2
        pair = np.where(i < half, i, i - half)
        is_sin = i < half
    else:
        pair = i // 2
        is_sin = i % 2 == 0
    angle = t[:, None] / base ** (2 * pair[None, :] / d_model)  # (m, d_model)
    return t, np.where(is_sin[None, :], np.sin(angle), np.cos(angle))


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


@dataclass(frozen=True)
class TokenView:
    """One query's row of one head: weights (n,), parts (n, d_v) row j = a_ij v_j, out (d_v,) their sum,
    row (d_v,) the same query's row of A V; equal: out and row agree to 1e-12 (diff: the largest gap)."""

    weights: F64
    parts: F64
    out: F64
    row: F64
    equal: bool
    diff: float

    @property
    def weight_sum(self) -> float:
        return float(self.weights.sum())


def token_view(res: Result, head: int, query: int) -> TokenView:
    """The token page's numbers: query `query`'s output as the weighted sum of the value vectors."""
    assert res.attention is not None
    parts = res.contributions(head, query)  # (n, d_v)
    out, row = parts.sum(axis=0), np.asarray(res.attention.head_outputs[head, query])
    equal = bool(np.allclose(out, row, rtol=1e-12, atol=1e-12))
    return TokenView(res.attention.weights[head, query], parts, out, row, equal, largest_difference(out, row))


@dataclass(frozen=True)
class EncoderNote:
    """What the encoder page says under its charts: the output's row statistics and how far the other
    order (pre-norm for post-norm and back) moves the output with the same weights (None: it cannot run)."""

    stats: RowStats
    other_gap: float | None


def encoder_note(ex: Example, res: Result) -> EncoderNote:
    """EncoderNote of a run whose encoder block was computed: one more block, in the other order."""
    assert res.encoder is not None
    out = res.encoder.output
    try:
        other = ac.encoder_layer(
            res.x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, ex.w1, ex.w2, norm_first=not ex.norm_first,
            mask=res.mask, scale=res.scale, bias=res.bias, use_rope=ex.rope,
        )  # fmt: skip
    except ValueError:
        return EncoderNote(row_stats(out), None)
    return EncoderNote(row_stats(out), largest_difference(out, other.output))
