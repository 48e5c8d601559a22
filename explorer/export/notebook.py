"""The example on screen as a Jupyter notebook that recomputes every number in plain numpy (pure).

`notebook(w)` returns an nbformat v4 NotebookNode: a title with the settings and the link back to the app,
then one section per step (tokens and embeddings, positions, projections, scores, mask, softmax, heads and
W_O, one token's sum, the encoder block), each a line of explanation, the formula the app's page shows and
a code cell. Every matrix is a literal numpy array at full float64 precision; the code imports numpy and
the standard library only, never the app. The last cells print the results in full and check them against
the app's own numbers (to 1e-12). `to_bytes(w)` is the .ipynb file.

Text a person typed (the sentence, tokens) reaches the notebook only as Python string literals (repr) in
code, and escaped (`md`) in Markdown.
"""

from __future__ import annotations

import nbformat
import numpy as np
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from explorer.export import literal as lit
from explorer.export.markdown import fence, md
from explorer.export.walkthrough import MASK_NOTES, NUMBERS, STEP, Walkthrough, terms
from explorer.i18n import N_, _, pgettext
from explorer.model import glossary

CHECK_ATOL = 1e-12  # the notebook asserts its numbers equal the app's to this absolute difference
CHECKED = ("A", "out", "Y")  # the app's numbers written into the notebook for its own check
PRINT_MARK = "== "  # the full-precision print: "== name (shape)" then the array


def _section(w: Walkthrough, number: int, step_name: str, extra: str = "") -> object:
    step = STEP[step_name]
    body = f"## {number}. {_(step.title)}\n\n{_(step.text)}{extra}\n\n$$\n{w.formula(step_name)}\n$$"
    return new_markdown_cell(body)


def _head(w: Walkthrough) -> list[object]:
    rows = "\n".join(f"| {md(k)} | {md(v)} |" for k, v in w.settings())
    link = (
        "\n\n" + _("Open the same example in the Attention Explorer: <{link}>", link=w.link) if w.link else ""
    )
    notes = "".join("\n\n" + _("**Note:** {note}", note=md(n)) for n in w.notes)
    title = _("Self-attention, step by step: “{sentence}”", sentence=md(w.sentence))
    about = _(
        "This notebook was written by the Attention Explorer. It holds every matrix of the example you were "
        "looking at and recomputes each step in plain numpy, the way the app does: run the cells from top to "
        "bottom and the last one checks that you got the same numbers as the app."
    )
    head = "| " + _("setting") + " | " + _("value") + " |"  # marked outside an f-string: extracted
    intro = f"# {title}\n\n{about}{link}{notes}\n\n{head}\n|---|---|\n{rows}"
    setup = (
        "import sys\n\nimport numpy as np\n\nnp.set_printoptions(precision=4, suppress=True, linewidth=110)"
    )
    return [new_markdown_cell(intro), new_code_cell(setup)]


def _tokens(w: Walkthrough) -> list[object]:
    code = (
        f"sentence = {w.sentence!r}\n"
        f"tokens = {list(w.tokens)!r}\n"
        "n = len(tokens)\n"
        f"d_model, n_heads, d_k = {w.d_model}, {w.n_heads}, {w.d_k}  # d_v = d_k\n"
        'print(n, "tokens:", tokens)'
    )
    emb = f"# E: one row per token, (n, d_model). Embeddings: {w.emb_note()}.\nE = {lit.array(w.emb, 4)}"
    cells = [_section(w, 1, "tokens"), new_code_cell(code), new_code_cell(emb)]
    if w.emb_source == "random":
        cells.append(
            new_markdown_cell(_("Where these vectors come from: each word seeds its own generator."))
        )
        cells.append(
            new_code_cell(
                "import hashlib\n\n\n"
                f"def word_vector(word, seed={w.seed}):\n"
                '    """A word\'s embedding: normal numbers from a generator seeded by the word itself."""\n'
                '    digest = hashlib.blake2b(f"{seed}:{word}".encode(), digest_size=8).digest()\n'
                '    return np.random.default_rng(int.from_bytes(digest, "little")).standard_normal(d_model)\n'
                "\n\n"
                'print("E is the seeded vectors:", np.array_equal(E, np.stack([word_vector(t) for t in tokens])))'
            )
        )
    if w.emb_scale:
        cells.append(
            new_code_cell(
                "E = E * np.sqrt(d_model)  # the paper (section 3.4) scales embeddings by sqrt(d_model)\nprint(E)"
            )
        )
    else:
        cells.append(new_code_cell("print(E)"))
    return cells


_SIN = (
    "pos = np.arange(n)[:, None]  # (n, 1)\n"
    "i = np.arange((d_model + 1) // 2)[None, :]  # the PAIR index: columns 2i and 2i+1 share a frequency\n"
    "angle = pos / base ** (2 * i / d_model)  # (n, ceil(d_model / 2))\n"
    "P = np.zeros((n, d_model))\n"
)


def _positions(w: Walkthrough) -> list[object]:
    base = f"base = {lit.number(w.pe_base)}\n"
    code = {
        "sinusoidal": base
        + _SIN
        + "P[:, 0::2] = np.sin(angle)  # even columns\nP[:, 1::2] = np.cos(angle[:, : d_model // 2])  # odd columns",
        "sinusoidal_split": base
        + _SIN
        + "n_sin = (d_model + 1) // 2\n"
        + "P[:, :n_sin] = np.sin(angle)  # the first half of the columns: sines\n"
        + "P[:, n_sin:] = np.cos(angle[:, : d_model // 2])  # the second half: cosines",
        "learned": "# A hand-set (learned) table: one row per position, (n, d_model)\n"
        + f"P = {lit.array(w.pe_table if w.pe_table is not None else np.zeros((w.n, w.d_model)), 4)}",
        "none": "P = np.zeros((n, d_model))  # no positional encoding: the order of the tokens is not seen",
    }.get(w.pe_kind)
    if code is None:
        raise ValueError(f"positional encoding {w.pe_kind!r} cannot be written as a notebook")
    extra = {
        "sinusoidal_split": N_(
            "Here the sines fill the first half of the columns and the cosines the second (the same values as "
            "the paper's formula, in another column order)."
        ),
        "learned": N_(
            "Here P is a table of numbers, one row per position, set by hand (as a model learns it)."
        ),
        "none": N_("Here there is no positional encoding: P = 0."),
    }.get(w.pe_kind, "")
    extra = " " + _(extra) if extra else ""
    return [_section(w, 2, "positions", extra), new_code_cell(code), new_code_cell("X = E + P\nprint(X)")]


_ROPE = '''def rope(x, base=10000.0):
    """RoPE: rotate each pair of columns (2i, 2i+1) of row pos by the angle pos / base^(2i/d)."""
    rows, d = x.shape[-2:]
    half = d // 2
    angle = np.arange(rows)[:, None] * base ** (-2.0 * np.arange(half) / d)  # (rows, half)
    cos, sin = np.cos(angle), np.sin(angle)
    even, odd = x[..., 0 : 2 * half : 2], x[..., 1 : 2 * half : 2]
    out = x.copy()
    out[..., 0 : 2 * half : 2] = even * cos - odd * sin
    out[..., 1 : 2 * half : 2] = even * sin + odd * cos
    return out


Q, K = rope(Q), rope(K)  # V is not rotated
print("Q of the first head, rotated:")
print(Q[0])'''


def _projections(w: Walkthrough) -> list[object]:
    lay = w.layer
    weights = (
        f"# The weights: {lay.source}.\n"
        "# One (d_model, d_k) matrix per head, stacked: (n_heads, d_model, d_k)\n"
        f"W_Q = {lit.array(lay.w_q, 4)}\n\nW_K = {lit.array(lay.w_k, 4)}\n\nW_V = {lit.array(lay.w_v, 4)}"
    )
    code = (
        "Q = X @ W_Q  # (n, d_model) @ (n_heads, d_model, d_k) -> (n_heads, n, d_k): every head at once\n"
        "K = X @ W_K\n"
        "V = X @ W_V\n"
        'print("Q of the first head:")\n'
        "print(Q[0])"
    )
    if w.norm_first:  # pre-norm: attention reads LN(X), as on the app's pages (one attention trace)
        code = (
            "# Pre-norm: attention reads LN(X), each row of X normalised to mean 0 and variance 1\n"
            f"eps = {lit.number(w.eps)}  # the layer norm's epsilon\n"
            "X_in = (X - X.mean(axis=-1, keepdims=True)) / np.sqrt(X.var(axis=-1, keepdims=True) + eps)\n"
            + code.replace("X @", "X_in @")
        )
    cells = [_section(w, 3, "projections"), new_code_cell(weights), new_code_cell(code)]
    if w.rope:
        cells.append(
            new_markdown_cell(
                _(
                    "**RoPE is on**: before the scores, each query and key is rotated by an angle that grows "
                    "with its position, so a score depends on how far apart two tokens are."
                )
                + "\n\n$$\n"
                r"q'_{pos,2i} = q_{pos,2i}\cos\theta - q_{pos,2i+1}\sin\theta,\quad "
                r"q'_{pos,2i+1} = q_{pos,2i}\sin\theta + q_{pos,2i+1}\cos\theta,\quad "
                r"\theta = pos / 10000^{2i/d_k}" + "\n$$"
            )
        )
        cells.append(new_code_cell(_ROPE))
    return cells


def _scale_code(w: Walkthrough) -> str:
    if w.scale_mode == "sqrt":
        return "scale = 1 / np.sqrt(d_k)  # the paper's 1/sqrt(d_k)"
    if w.scale_mode == "none":
        return "scale = 1.0  # no scaling"
    return f"scale = {lit.number(w.scale)}  # a custom factor"


def _mask_code(w: Walkthrough) -> str:
    if w.mask_kind == "causal":
        return "mask = np.tri(n, dtype=bool)  # causal: query i sees keys j <= i"
    if w.mask_kind == "window":
        return (
            f"window = {w.window}\n"
            "offset = np.arange(n)[:, None] - np.arange(n)[None, :]  # i - j\n"
            "mask = (offset >= 0) & (offset < window)  # query i sees keys i - window + 1 .. i"
        )
    if w.mask_kind == "padding":
        return (
            'is_pad = np.array([t == "[PAD]" for t in tokens])\n'
            "mask = np.tile(~is_pad, (n, 1))  # no query attends to a [PAD] key"
        )
    if w.mask_kind == "custom":
        m = w.mask if w.mask is not None else np.ones((w.n, w.n), dtype=bool)
        return (
            f"# A hand-set mask: True = may attend (rows are queries, columns keys)\nmask = {lit.array(m, 4)}"
        )
    if w.mask_kind == "none":
        return "mask = np.ones((n, n), dtype=bool)  # no mask: every query may attend to every key"
    raise ValueError(f"mask {w.mask_kind!r} cannot be written as a notebook")


_ALIBI = (
    "slopes = 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads)  # ALiBi: one slope per head\n"
    "distance = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])  # |i - j|, (n, n)\n"
    "B = -slopes[:, None, None] * distance  # (n_heads, n, n): far keys get a negative bias"
)

_SOFTMAX = '''def softmax(s):
    """Along the last axis (keys); a row whose keys are all masked (-inf) gets weights 0."""
    top = s.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)  # subtracting the row max keeps exp from overflowing
    e = np.exp(s - top)
    total = e.sum(axis=-1, keepdims=True)
    return e / np.where(total == 0, 1.0, total)


A = softmax(S_masked)  # (n_heads, n, n)
print("weights of the first head (rows sum to 1):")
print(A[0])
print("row sums:", A.sum(axis=-1))'''


def _scores(w: Walkthrough) -> list[object]:
    scores = (
        "S = Q @ K.transpose(0, 2, 1)  # (n_heads, n, n): rows are queries, columns keys\n"
        f"{_scale_code(w)}\n"
        "S_scaled = S * scale\n"
        'print("scores of the first head, scaled:")\n'
        "print(S_scaled[0])"
    )
    bias = _ALIBI if w.alibi else "B = np.zeros((n_heads, n, n))  # no bias (ALiBi is off)"
    masked = (
        f"{bias}\n\n{_mask_code(w)}\n"
        "S_masked = np.where(mask, S_scaled + B, -np.inf)  # a key a query may not see scores -inf\n"
        "print(S_masked[0])"
    )
    extra = (
        "" if not w.alibi else " " + _("With ALiBi on, B adds −slope·|i − j| to each score: far keys lose.")
    )
    return [
        _section(w, 4, "scores", extra),
        new_code_cell(scores),
        new_markdown_cell(
            _(
                "**The mask and the bias.** M sets a score to −∞ where a query may not look (here: {mask}); B is "
                "the ALiBi bias ({alibi}).",
                mask=md(_(MASK_NOTES[w.mask_kind]) if w.mask_kind in MASK_NOTES else w.mask_kind),
                alibi=pgettext("switch", "on") if w.alibi else pgettext("switch", "off"),
            )
        ),
        new_code_cell(masked),
        new_markdown_cell(_("**Softmax** turns each row of scores into weights ≥ 0 that sum to 1.")),
        new_code_cell(_SOFTMAX),
    ]


def _heads(w: Walkthrough) -> list[object]:
    code = (
        "heads = A @ V  # (n_heads, n, d_v): each head's weights times its values\n"
        "concat = heads.transpose(1, 0, 2).reshape(n, n_heads * d_k)  # (n, n_heads * d_v), the first head first\n"
        f"\n# W_O mixes the heads: (n_heads * d_v, d_model)\nW_O = {lit.array(w.layer.w_o, 4)}\n\n"
        "out = concat @ W_O  # (n, d_model)\n"
        "print(out)"
    )
    return [_section(w, 5, "heads"), new_code_cell(code)]


def _token(w: Walkthrough) -> list[object]:
    head_name = w.layer.heads[w.head] if w.head < len(w.layer.heads) else f"head {w.head + 1}"
    code = (
        f"i, h = {w.query}, {w.head}  # the token {w.tokens[w.query]!r}, {head_name}\n"
        "token_sum = np.zeros(d_k)\n"
        "for j in range(n):\n"
        "    token_sum = token_sum + A[h, i, j] * V[h, j]  # weight times value vector\n"
        'print("sum over the keys:", token_sum)\n'
        'print("row i of A V:     ", heads[h, i])\n'
        'print("the same:", np.allclose(token_sum, heads[h, i]))'
    )
    return [_section(w, 6, "token"), new_code_cell(code)]


def _encoder(w: Walkthrough) -> list[object]:
    lay = w.layer
    extra = " " + (_("Here: pre-norm.") if w.norm_first else _("Here: post-norm (the paper)."))
    cells = [_section(w, 7, "encoder", extra)]
    if w.encoder_error or lay.w1 is None or lay.w2 is None:
        why = w.encoder_error or _("this layer has no feed-forward weights shown")
        cells.append(
            new_markdown_cell(_("The encoder block is not computed for this example: {why}", why=md(why)))
        )
        return cells
    b1 = "" if lay.b1 is None else f"\nb1 = {lit.array(lay.b1, 5)}"
    b2 = "" if lay.b2 is None else f"\nb2 = {lit.array(lay.b2, 5)}"
    weights = (
        f"W1 = {lit.array(lay.w1, 5)}  # (d_model, d_ff)\n\nW2 = {lit.array(lay.w2, 5)}  # (d_ff, d_model)"
        f"{b1}{b2}\neps = {lit.number(w.eps)}  # the layer norm's epsilon"
    )
    rope = "    q, k = rope(q), rope(k)\n" if w.rope else ""
    funcs = (
        "def layer_norm(x):\n"
        '    """Each row to mean 0 and variance 1 (no learned gain or bias)."""\n'
        "    mean = x.mean(axis=-1, keepdims=True)\n"
        "    var = x.var(axis=-1, keepdims=True)\n"
        "    return (x - mean) / np.sqrt(var + eps)\n\n\n"
        "def multi_head_attention(x):\n"
        '    """Every step above on the input x, (n, d_model) -> (n, d_model)."""\n'
        "    q, k, v = x @ W_Q, x @ W_K, x @ W_V\n"
        f"{rope}"
        "    s = np.where(mask, (q @ k.transpose(0, 2, 1)) * scale + B, -np.inf)\n"
        "    return (softmax(s) @ v).transpose(1, 0, 2).reshape(n, n_heads * d_k) @ W_O\n\n\n"
        "def feed_forward(h):\n"
        '    """The same two-layer network for every token: ReLU(h W1) W2."""\n'
        f"    hidden = np.maximum(0.0, h @ W1{' + b1' if lay.b1 is not None else ''})\n"
        f"    return hidden, hidden @ W2{' + b2' if lay.b2 is not None else ''}"
    )
    if w.norm_first:
        block = (
            "enc_attn_in = layer_norm(X)  # pre-norm: attention reads LN(X)\n"
            "enc_attn = multi_head_attention(enc_attn_in)\n"
            "enc_sum1 = X + enc_attn  # H = X + MHA(LN(X))\n"
            "enc_norm1 = layer_norm(enc_sum1)  # what the feed-forward reads\n"
            "enc_hidden, enc_ffn = feed_forward(enc_norm1)\n"
            "enc_sum2 = enc_sum1 + enc_ffn\n"
            "Y = enc_sum2  # Y = H + FFN(LN(H)): pre-norm ends on a residual sum\n"
            "print(Y)"
        )
    else:
        block = (
            "enc_attn_in = X  # post-norm: attention reads X itself\n"
            "enc_attn = multi_head_attention(enc_attn_in)\n"
            "enc_sum1 = X + enc_attn\n"
            "enc_norm1 = layer_norm(enc_sum1)  # H = LN(X + MHA(X))\n"
            "enc_hidden, enc_ffn = feed_forward(enc_norm1)\n"
            "enc_sum2 = enc_norm1 + enc_ffn\n"
            "Y = layer_norm(enc_sum2)  # Y = LN(H + FFN(H))\n"
            "print(Y)"
        )
    return [*cells, new_code_cell(weights), new_code_cell(funcs), new_code_cell(block)]


def _check(w: Walkthrough) -> list[object]:
    names = [k for k in NUMBERS if k in w.numbers]
    results = "results = {\n" + "".join(f"    {k!r}: {k},\n" for k in names) + "}"
    printing = (
        f"{results}\n"
        "np.set_printoptions(precision=17, floatmode='unique', suppress=False, threshold=sys.maxsize)\n"
        "for name, value in results.items():\n"
        f'    print(f"{PRINT_MARK}{{name}} {{value.shape}}")\n'
        "    print(value)"
    )
    checked = [k for k in CHECKED if k in w.numbers]
    app = "app = {\n" + "".join(f"    {k!r}: {lit.array(w.numbers[k], 8)},\n" for k in checked) + "}"
    check = (
        "# The app's own numbers for the weights, the attention output and the encoder output\n"
        f"{app}\n"
        "for name, value in app.items():\n"
        "    gap = np.abs(results[name] - value).max()\n"
        f'    print(f"{{name}}: largest difference from the app {{gap:.1e}}")\n'
        f"    assert gap <= {CHECK_ATOL!r}, name\n"
        'print("Every number is the same as in the app.")'
    )
    return [
        new_markdown_cell(
            "## 8. "
            + _("The numbers, in full")
            + "\n\n"
            + _("Every result above with all its digits, and a check against the numbers the app showed.")
        ),
        new_code_cell(printing),
        new_code_cell(check),
    ]


def _experiments(w: Walkthrough) -> list[object]:
    """The real-model page's experiment: what was compared and the Python that repeats it (a Markdown block,
    not a cell: it needs the model's weights, which the notebook's own cells never do)."""
    cells = []
    for ex in w.experiments:
        rows = "\n".join(f"| {md(k)} | {md(v)} |" for k, v in ex.rows)
        cells.append(new_markdown_cell(
            f"## {md(ex.title)}\n\n{md(ex.text)}\n\n| | |\n|---|---|\n{rows}\n\n"
            f"{md(ex.repeat)}\n\n{fence(ex.code)}"
        ))  # fmt: skip
    return cells


def with_words(cells: list[object]) -> list[object]:
    """The cells, then one that says in plain words what each glossary term their Markdown uses means."""
    text = "\n".join(str(c["source"]) for c in cells if c["cell_type"] == "markdown")  # type: ignore[index]
    found = terms(text)  # in the language the notebook is written in
    if not found:
        return cells
    return [*cells, new_markdown_cell(f"## {_(glossary.WORDS_TITLE)}\n\n{glossary.markdown(found)}")]


def notebook(w: Walkthrough) -> nbformat.NotebookNode:
    """The walkthrough as a notebook (nbformat v4, not executed: no outputs)."""
    cells = [
        *_head(w),
        *_experiments(w),  # a real-model page's experiment first: the file opens with what the page showed
        *_tokens(w),
        *_positions(w),
        *_projections(w),
        *_scores(w),
        *_heads(w),
        *_token(w),
        *_encoder(w),
        *_check(w),
    ]
    cells = with_words(cells)
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def to_bytes(w: Walkthrough) -> bytes:
    """The .ipynb file (UTF-8 JSON), validated against the notebook schema."""
    nb = notebook(w)
    nbformat.validate(nb)
    return nbformat.writes(nb).encode("utf-8")
