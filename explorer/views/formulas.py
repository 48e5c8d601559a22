"""LaTeX with the actual numbers substituted (pure: strings out, no Streamlit)."""

from __future__ import annotations

import math
import re
from decimal import Decimal

import numpy as np

from explorer.compute.pipeline import Result
from explorer.i18n import N_, _
from explorer.model.description import Description

# Words inside the formulas (marked here: an f-string's inside is not extracted)
OTHER_PRODUCTS = N_("the other {n} products: ")
MASKED_COLON = N_("masked: ")
PRE_NORM = N_("pre-norm: ")
POST_NORM = N_("post-norm: ")
TOKEN_IDS = N_("token ids")
TRAINED = N_("trained")
MAY_ATTEND = N_("may attend")
MASKED = N_("masked")
ROPE_BASE = N_("RoPE, base ")
NO_P = N_("no P added")
BEFORE_LAYER_1 = N_("before layer 1")
STREAM = N_("the residual stream")
MAX_TERMS = 6  # products written out in a dot product before "+ ..."


def _text(message: str, /, **values: object) -> str:
    """Words inside a formula, in the language on screen: \\text{…} of the translated message."""
    return r"\text{" + _(message, **values) + "}"


def num(v: float, digits: int = 3) -> str:
    """A number for LaTeX: fixed digits, minus sign, infinities as \\infty."""
    if math.isinf(v):
        return r"-\infty" if v < 0 else r"\infty"
    s = f"{v:.{digits}f}"
    return s.replace("-", "{-}") if s.startswith("-") else s


def sub(*indices: object) -> str:
    """A LaTeX subscript of several indices, comma-separated: a_{7,10}, never a_{710} (is it 71, 0 or 7, 10?)."""
    return "_{" + ",".join(str(i) for i in indices) + "}"


DOT_LINE_CHARS = 56  # characters of a written-out sum on one line: it fits the page at 1280 px, then wraps


def _decimal(text: str) -> Decimal:
    return Decimal(text.replace("{-}", "-"))


def dot_terms(q: np.ndarray, k: np.ndarray, raw: float) -> list[str]:
    """The terms of q . k as written out: the first MAX_TERMS products (q_c)(k_c) and, for a longer vector,
    the rest as one number R ("the other 58 products: R"), so that what is written adds up to the result
    written, num(raw, 4).

    The factors get the fewest decimals (2 to 6) at which, in exact decimal arithmetic, the products of the
    written factors add up to the written result to within half its last digit (no rest), or to the sum of
    the unrounded products to within that (a rest: R is then the written result minus the written products,
    to 4 decimals). Either way the written terms add up to the written result to within half its last
    digit: a student who checks by hand gets the number on the page."""
    n = min(len(q), MAX_TERMS)
    target, half = _decimal(num(raw, 4)), Decimal("0.00005")
    goal = target if len(q) == n else Decimal(repr(float(np.dot(q[:n], k[:n]))))
    for digits in range(2, 7):
        pairs = [(num(a, digits), num(b, digits)) for a, b in zip(q[:n], k[:n], strict=True)]
        written = sum((_decimal(a) * _decimal(b) for a, b in pairs), Decimal(0))
        if abs(written - goal) <= half:
            break
    terms = [f"({a})({b})" for a, b in pairs]
    if len(q) > n:
        rest = num(float(target - written), 4)
        terms.append(rf"({_text(OTHER_PRODUCTS, n=len(q) - n)}{rest})")
    return terms


def _wrapped_sum(left: str, terms: list[str], result: str) -> str:
    """left = terms[0] + terms[1] + ... = result, as one line while it fits DOT_LINE_CHARS, else an aligned
    block of lines of about that many characters, each further line starting with "+"."""
    lines: list[list[str]] = [[]]
    for term in terms:
        if lines[-1] and _shown_chars(" + ".join([*lines[-1], term])) > DOT_LINE_CHARS:
            lines.append([])
        lines[-1].append(term)
    if len(lines) == 1:
        return f"{left} = {' + '.join(lines[0])} = {result}"
    body = r" \\ &\quad + ".join(" + ".join(line) for line in lines)
    return rf"\begin{{aligned}}{left} &= {body} \\ &= {result}\end{{aligned}}"


def _shown_chars(tex: str) -> int:
    """About how many characters a LaTeX fragment shows (its commands and braces are not drawn)."""
    return len(re.sub(r"\\text\{|\\[a-z]+|[{}]", "", tex))


def score_cell(
    q: np.ndarray,
    k: np.ndarray,
    raw: float,
    scale: float,
    bias: float | None,
    masked: bool,
    weight: float,
    row_scaled: np.ndarray,
    i: int,
    j: int,
    d_k: int,
) -> list[str]:
    """The lines of the formula for cell (i, j): raw score, scaled (+ bias), mask, softmax weight.

    q, k (d_k,) the query and key vectors; raw = q . k; scale the factor; row_scaled (n_keys,) the query's
    scaled and masked scores (masked = -inf) used by the softmax.
    """
    scale_tex = (
        r"\frac{1}{\sqrt{" + str(d_k) + "}}" if math.isclose(scale, 1 / math.sqrt(d_k)) else num(scale, 4)
    )
    lines = [_wrapped_sum(rf"q{sub(i)} \cdot k{sub(j)}", dot_terms(q, k, raw), num(raw, 4))]
    scaled = raw * scale + (bias or 0.0)
    bias_tex = f" + ({num(bias, 3)})" if bias is not None else ""
    s_ij, a_ij = f"s{sub(i, j)}", f"a{sub(i, j)}"
    lines.append(rf"{s_ij} = {num(raw, 4)} \times {scale_tex}{bias_tex} = {num(scaled, 4)}")
    if masked:
        lines.append(rf"{_text(MASKED_COLON)} {s_ij} = -\infty \;\Rightarrow\; {a_ij} = 0")
        return lines
    finite = row_scaled[np.isfinite(row_scaled)]
    m = float(finite.max())
    denom = float(np.exp(finite - m).sum())
    s_ij_row = "s" + sub(i, "j'")  # s_{i,j'}: every key of the row
    lines.append(
        rf"{a_ij} = \frac{{e^{{{s_ij} - \max_{{j'}} {s_ij_row}}}}}{{\sum_{{j'}} e^{{{s_ij_row} - \max}}}}"
        rf" = \frac{{e^{{{num(scaled - m, 4)}}}}}{{{num(denom, 4)}}} = {num(weight, 4)}"
    )
    return lines


def cell_of(res: Result, head: int, i: int, j: int) -> list[str]:
    """score_cell for cell (i, j) of head `head` of a traced run (the scores page's "one cell")."""
    tr, blocked = res.attention, res.blocked
    assert tr is not None
    bias = None if res.bias is None else float(res.bias[head, i, j])
    masked = bool(blocked is not None and blocked[i, j])
    raw, weight = float(tr.scores[head, i, j]), float(tr.weights[head, i, j])
    return score_cell(
        tr.q[head, i], tr.k[head, j], raw, res.scale, bias, masked, weight, tr.masked[head, i], i, j, tr.d_k
    )


SHOWN_DIMS = 8  # vector entries written out in a formula (the charts show them all)


def vec(values: np.ndarray, digits: int) -> str:
    """[a, b, ...] for LaTeX, cut after SHOWN_DIMS entries."""
    parts = [f"{x:.{digits}f}" for x in values[:SHOWN_DIMS]]
    return "[" + ", ".join(parts) + (r", \dots" if len(values) > SHOWN_DIMS else "") + "]"


def token_sum(i: int, out: np.ndarray, row: np.ndarray) -> list[str]:
    """The token page's two lines: the weighted sum of the values, and the row of A V it equals."""
    return [rf"\sum_j a{sub(i, 'j')}\, v_j = {vec(out, 6)}", rf"(A V)_{{{i}}} = {vec(row, 6)}"]


def token_term(i: int, j: int, weight: float, value: np.ndarray, part: np.ndarray) -> str:
    """One term of that sum: a_ij v_j with its numbers."""
    return rf"a{sub(i, j)}\, v{sub(j)} = {weight:.4f} \times {vec(value, 3)} = {vec(part, 4)}"


# ------------------------------------------------------------------ each page's formula, from the description


def _norm_tex(d: Description) -> str:
    """The norm the layer applies: the toy's plain LN, a trained LN with gain and bias, or RMSNorm."""
    if d.norm == "rms_norm":
        return (
            r"\operatorname{RMSNorm}(x) = \gamma \odot \frac{x}{\sqrt{\operatorname{mean}(x^2) + \epsilon}}"
        )
    core = r"\frac{x - \operatorname{mean}(x)}{\sqrt{\operatorname{var}(x) + \epsilon}}"
    return r"\operatorname{LN}(x) = " + (rf"\gamma \odot {core} + \beta" if d.norm_learned else core)


def _ffn_tex(d: Description) -> str:
    """The feed-forward network the layer computes: ReLU (toy), GELU with biases, or SwiGLU."""
    b1, b2 = (" + b_1", " + b_2") if d.biases else ("", "")
    if d.activation == "swiglu":
        return rf"\operatorname{{FFN}}(h) = \big(\operatorname{{silu}}(h W_1{b1}) \odot h W_{{up}}\big)\, W_2{b2}"
    if d.activation == "gelu":
        return rf"\operatorname{{FFN}}(h) = \operatorname{{GELU}}(h W_1{b1})\, W_2{b2}"
    return rf"\operatorname{{FFN}}(h) = \max(0,\, h W_1{b1})\, W_2{b2}"


def block(d: Description) -> str:
    """/encoder: the block in the order this layer computes it, its norm and its feed-forward."""
    if d.activation == "none" and d.norm == "none":  # attention only: the residual sum is the layer
        return (
            r"Y = X + \operatorname{MHA}(X)\quad("
            + _text(N_("attention only: no norm, no feed-forward"))
            + ")"
        )
    n = r"\operatorname{" + d.norm_name + "}"
    order = (
        rf"{_text(PRE_NORM)} H = X + \operatorname{{MHA}}({n}(X)),\quad Y = H + \operatorname{{FFN}}({n}(H))"
        if d.norm_first
        else rf"{_text(POST_NORM)} H = {n}(X + \operatorname{{MHA}}(X)),\quad Y = {n}(H + \operatorname{{FFN}}(H))"
    )
    # Two lines: on one, the formula runs past the page's edge at 1400 px.
    return rf"\begin{{gathered}}{order}\\{_ffn_tex(d)},\quad {_norm_tex(d)}\end{{gathered}}"


def embeddings(d: Description) -> str:
    """/: what the first chart holds: the toy's embeddings, or the real layer's input."""
    if not d.fixes("emb_source"):  # the embeddings are made here, from the settings
        return r"E = \operatorname{embed}(\text{tokens}) \in \mathbb{R}^{n \times d_{model}}"
    if d.adds_positions:  # a trained first layer: its token vectors, looked up by id
        return rf"E = W_E[{_text(TOKEN_IDS)}] \in \mathbb{{R}}^{{n \times {d.d_model}}}\ ({_text(TRAINED)})"
    before = "" if not d.layer else _text(N_(" after layers ")) + rf" 1..{d.layer}"
    if d.layer == 1:
        before = _text(N_(" after layer ")) + " 1"
    return rf"X = {_text(STREAM)}{before} \in \mathbb{{R}}^{{n \times {d.d_model}}}"


def scores(d: Description) -> str:
    """/scores: the softmax's input as this model forms it (RoPE, ALiBi, the mask)."""
    q, k = (r"\tilde Q", r"\tilde K") if d.rope else ("Q", "K")
    bias = " + B" if d.alibi else ""
    mask = rf"M_{{ij}} = \begin{{cases}}0 & {_text(MAY_ATTEND)}\\ -\infty & {_text(MASKED)}\end{{cases}}"
    main = rf"A = \operatorname{{softmax}}\!\left(\frac{{{q} {k}^\top}}{{\sqrt{{d_k}}}}{bias} + M\right),\quad {mask}"
    if not (d.rope and d.rope_base):
        return main
    # Two lines: on one, RoPE's rotation runs past the page's edge at 1280 px.
    base = f"{d.rope_base:,.0f}".replace(",", "{,}")  # a thousands comma, with no space after it
    rope = rf"\tilde q_i = R_i\, q_i,\quad \tilde k_j = R_j\, k_j\quad ({_text(ROPE_BASE)} {base})"
    return rf"\begin{{gathered}}{main}\\{rope}\end{{gathered}}"


def projections(d: Description) -> str:
    """/projections: each head's Q, K, V from what attention reads (X, or its norm before attention)."""
    x = rf"\operatorname{{{d.norm_name}}}(X)" if d.norm_first else "X"
    b = (lambda s: rf" + b_{s}") if d.biases else (lambda s: "")
    shared = r",\quad K_h = K_{g(h)},\ V_h = V_{g(h)}\ (" + _text(N_("shared")) + ")" if d.shares_kv else ""
    # The sizes beside a short formula; under a long one (a norm, shared K and V), which a projector's
    # screen does not hold on one line.
    apart = r"\\" if d.norm_first or d.shares_kv else r"\qquad"
    return (
        rf"\begin{{gathered}}Q_h = {x} W_Q^h{b('Q')},\quad K_h = {x} W_K^h{b('K')},\quad V_h = {x} W_V^h{b('V')}"
        rf"{shared}{apart} (n \times {d.d_model}) ({d.d_model} \times {d.d_k}) = (n \times {d.d_k})\end{{gathered}}"
    )


def heads(d: Description) -> str:
    """/heads: the heads' outputs side by side, through W_O (and b_O where the layer has one)."""
    b = " + b_O" if d.biases else ""
    return (
        rf"\operatorname{{head}}_h = A_h V_h,\quad \operatorname{{MultiHead}}(X) = [\operatorname{{head}}_1, \dots, "
        rf"\operatorname{{head}}_{{{d.n_heads}}}]\, W_O{b}\qquad ({{n}} \times {d.n_heads * d.d_k})"
        rf"({d.n_heads * d.d_k} \times {d.d_model})"
    )


def positions(d: Description) -> str:
    """/positional-encoding: the sinusoid of the paper and X = E + P; for a trained layer, where its positions
    come in: RoPE's rotation of q and k inside attention, or learned vectors added before the first layer."""
    if d.fixes("pe_kind") and d.adds_positions:  # a trained first layer adds its learned positions here
        return r"X = E_{\text{token}} + P_{\text{learned}}\quad(" + _text(N_("both trained")) + ")"
    if d.fixes("pe_kind"):  # the model brings its own positions
        x = embeddings(d).split(r" \in ")[0]
        if d.rope:
            base = f"{d.rope_base:,.0f}".replace(",", "{,}")
            return (  # two lines: on one, the formula runs past the page's edge at 1280 px
                rf"\begin{{gathered}}{x}\ ({_text(NO_P)})\\ \tilde q_i = R_i\, q_i,\ "
                rf"\tilde k_j = R_j\, k_j\quad ({_text(ROPE_BASE)} {base})\end{{gathered}}"
            )
        if d.norm == "none":  # a model without norms adds its tables and nothing else
            first = r"X^{(0)} = E_{\text{token}} + P_{\text{learned}}"
            return rf"\begin{{gathered}}{first}\ {_text(BEFORE_LAYER_1)}\\ {x}\end{{gathered}}"
        return (
            r"\begin{gathered}X^{(0)} = \operatorname{LN}(E_{\text{token}} + P_{\text{learned}} + E_{\text{type}})"
            rf"\ {_text(BEFORE_LAYER_1)}\\ {x}\end{{gathered}}"
        )
    return (
        r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{base^{2i/d_{model}}}\right),\quad "
        r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{base^{2i/d_{model}}}\right),\quad X = E\,(\times\sqrt{d_{model}}) + P"
    )


def token_view(d: Description) -> str:
    """/token: one token's output, a weighted sum of the value vectors."""
    return r"\operatorname{out}_i = \sum_j a_{i,j}\, v_j = a_{i,0} v_0 + a_{i,1} v_1 + \dots + a_{i,n-1} v_{n-1} = (A V)_i"


def why_scale() -> str:
    """/why-scale: the variance of q·k grows with d_k; divided by √d_k it is 1."""
    return (
        r"\operatorname{Var}(q \cdot k) = \sum_{i=1}^{d_k} \operatorname{Var}(q_i k_i) = d_k \quad\Rightarrow\quad "
        r"\operatorname{Var}\!\left(\frac{q \cdot k}{\sqrt{d_k}}\right) = 1"
    )


CONCAT_TITLE = N_(
    "Concatenation [head 1, …, head H]: each head's Aₕ Vₕ side by side"
)  # /heads and the exports
