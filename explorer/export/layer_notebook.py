"""A real model's layer open in the explorer (explorer.model.bridge), as a Jupyter notebook that recomputes the head on
screen in plain numpy (pure: no Streamlit).

The notebook holds what that one head needs, every number a full-precision literal: the layer's input X for the
sentence, the norm before attention (SmolLM2's RMSNorm gain), the head's W_Q, W_K, W_V and their biases (with
the student's edits, if any), RoPE's base where the model rotates q and k, and the mask. It says where they
came from (the model, its package and version, the layer, the sentence). The other heads, W_O and the
feed-forward network stay in the app: with them the file would hold 1.5 million numbers. Its last cell checks
the weights and the head's output against the app's own numbers to CHECK_ATOL.
"""

from __future__ import annotations

import nbformat
import numpy as np
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from numpy.typing import NDArray

from explorer.export import literal as lit
from explorer.export.markdown import md
from explorer.export.notebook import CHECK_ATOL, PRINT_MARK, with_words
from explorer.i18n import _, ngettext

FLOAT32_ATOL = 1e-5  # weights in 0..1 and outputs of order 1, in float32: 7 digits

_RMS = '''def rms_norm(x, gain, eps):
    """x / sqrt(mean(x^2) + eps) * gain, per row (no centring, no bias)."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gain'''

_ROPE = '''def rope(x, base):
    """Rotate each pair of columns (2i, 2i+1) of row p by the angle p * base^(-2i/d)."""
    n, d = x.shape
    angles = np.outer(np.arange(n), base ** (-2.0 * np.arange(d // 2) / d))  # (n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    out = x.copy()
    out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
    out[:, 1::2] = x[:, 0::2] * sin + x[:, 1::2] * cos
    return out'''

_SOFTMAX = '''def softmax(s):
    """Row-wise softmax; -inf (a masked key) gets weight 0."""
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)'''


def _mask_code(kind: str, window: int, mask: NDArray[np.bool_] | None) -> str:
    if kind == "causal":
        return (
            "allowed = np.tril(np.ones((n, n), dtype=bool))  # causal: a token sees itself and earlier ones"
        )
    if kind == "window":
        return (
            f"i, j = np.indices((n, n))\nallowed = (j <= i) & (j > i - {int(window)})  "
            f"# sliding window of {int(window)}"
        )
    if kind == "custom" and mask is not None:
        return f"allowed = np.array({mask.astype(int).tolist()!r}, dtype=bool)  # the mask drawn in the app"
    if kind == "padding":
        return "allowed = np.array([[t != '[PAD]' for t in tokens]] * n)  # keys that are padding are hidden"
    return "allowed = np.ones((n, n), dtype=bool)  # no mask: every token sees every token"


def notebook(
    *,
    title: str,
    package: str,
    version: str,
    layer: int,
    n_layers: int,
    sentence: str,
    tokens: list[str],
    head: int,
    x: NDArray[np.float64],
    norm_gain: NDArray[np.float64] | None,
    eps: float,
    w: dict[str, NDArray[np.float64]],
    b: dict[str, NDArray[np.float64] | None],
    rope_base: float | None,
    mask_kind: str,
    window: int,
    mask: NDArray[np.bool_] | None,
    edited: bool,
    weights: NDArray[np.float64],
    output: NDArray[np.float64],
    link: str = "",
    norm: str = "",
) -> nbformat.NotebookNode:
    """The notebook of head `head` (0-based) of layer `layer` (0-based): w and b hold that head's W_Q, W_K,
    W_V (d, k) and b_q, b_k, b_v (k,) or None; weights (n, n) and output (n, k) are the app's numbers.
    package: the Python package the weights come from ("": trained by the explorer's own engine); norm: the
    model's norm ("none": it has none)."""
    d, k = w["w_q"].shape
    cells = [
        *_opening(title, package, version, (layer, n_layers, head), sentence, tokens, x, k, edited, link),
        *_norm_cells(norm_gain, eps, norm),
        *_projection_cells(head, w, b, rope_base),
        *_attention_cells(mask_kind, window, mask),
        *_check_cells(weights, output),
    ]
    cells = with_words(cells)
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def _where(
    title: str, package: str, version: str, where_in: tuple[int, int, int], sentence: str, edited: bool
) -> str:
    """The opening's paragraph on where the numbers come from: the model, the layer and head, what X is."""
    layer, n_layers, head = where_in
    made = (
        _(
            "the Python package {package} {version}, run in numpy by the Attention Explorer",
            package=md(package),
            version=md(version),
        )
        if package
        else _("trained by the Attention Explorer's own numpy engine, attention_core.training")
    )
    where = _(
        "The numbers come from **{model}** ({made}): layer {layer} of {n_layers}, head {head}, on the sentence "
        "“{sentence}”.",
        model=md(title),
        made=made,
        layer=str(layer + 1),
        n_layers=str(n_layers),
        head=str(head + 1),
        sentence=md(sentence),
    )
    where += " " + (
        _("X is the input of that layer for this sentence, its token and position embeddings added.")
        if layer == 0
        else ngettext(
            "X is the input of that layer for this sentence, computed by the model's {n} earlier layer.",
            "X is the input of that layer for this sentence, computed by the model's {n} earlier layers.",
            layer,
        )
    )
    if edited:
        where += " " + _("Some weights were edited in the app: the literals below are the edited ones.")
    return where


def _opening(
    title: str,
    package: str,
    version: str,
    where_in: tuple[int, int, int],
    sentence: str,
    tokens: list[str],
    x: NDArray[np.float64],
    d_k: int,
    edited: bool,
    link: str,
) -> list[object]:
    """Where the numbers come from (layer, n_layers, head of where_in, 0-based), the imports, and the tokens
    with the layer's input X."""
    layer, n_layers, head = where_in
    d = x.shape[1]
    where = _where(title, package, version, where_in, sentence, edited)
    link_md = (
        "\n\n" + _("Open the same example in the Attention Explorer: <{link}>", link=link) if link else ""
    )
    title_md = _(
        "Head {head} of {model}'s layer {layer}: “{sentence}”",
        head=str(head + 1),
        model=md(title),
        layer=str(layer + 1),
        sentence=md(sentence),
    )
    holds = _(
        "This notebook holds what this head needs ({n} tokens, d_model {d}, d_k {d_k}) and recomputes its "
        "attention in plain numpy; the last cell checks it gets the app's numbers. The other heads, W_O and the "
        "feed-forward network stay in the app (with them the file would hold about 1.5 million numbers).",
        n=str(len(tokens)),
        d=str(d),
        d_k=str(d_k),
    )
    intro = f"# {title_md}\n\n{where}{link_md}\n\n{holds}"
    return [
        new_markdown_cell(intro),
        new_code_cell(
            "import sys\n\nimport numpy as np\n\nnp.set_printoptions(precision=4, suppress=True, linewidth=110)"
        ),
        new_markdown_cell(
            "## 1. "
            + _("The tokens and the layer's input X")
            + "\n\n"
            + _(
                "The model's own tokens; each row of X is one token's vector (d_model = {d}) as it arrives at "
                "layer {layer}.",
                d=str(d),
                layer=str(layer + 1),
            )
        ),
        new_code_cell(
            f"tokens = {list(tokens)!r}\nn = len(tokens)\nX = {lit.array(x, 4)}  # (n, d_model)\nprint(X.shape)"
        ),
    ]


def _norm_cells(norm_gain: NDArray[np.float64] | None, eps: float, norm: str) -> list[object]:
    """What attention reads: X under RMSNorm with its gain (pre-norm), or X itself (post-norm, or no norm)."""
    cells: list[object] = []
    if norm_gain is not None:
        cells += [
            new_markdown_cell(
                "## 2. "
                + _("The norm before attention")
                + "\n\n"
                + _(
                    "This model normalises each row of X before attention (pre-norm) with RMSNorm and a learned gain."
                )
                + "\n\n$$\\operatorname{RMSNorm}(x) = \\frac{x}"
                "{\\sqrt{\\operatorname{mean}(x^2) + \\epsilon}} \\odot g$$"
            ),
            new_code_cell(
                f"{_RMS}\n\ng = {lit.array(norm_gain, 4)}  # (d_model,)\n"
                f"Xn = rms_norm(X, g, {eps!r})  # what attention reads"
            ),
        ]
    else:
        cells += [
            new_markdown_cell(
                "## 2. "
                + _("What attention reads")
                + "\n\n"
                + (
                    _("This model has no norm: attention reads X itself.")
                    if norm == "none"
                    else _("This model normalises after attention (post-norm): attention reads X itself.")
                )
            )  # fmt: skip
        ]
        cells.append(new_code_cell("Xn = X"))
    return cells


def _projection_cells(
    head: int,
    w: dict[str, NDArray[np.float64]],
    b: dict[str, NDArray[np.float64] | None],
    rope_base: float | None,
) -> list[object]:
    """The head's W_Q, W_K, W_V and biases (zeros where the model has none), its q, k, v (rotated by RoPE)."""
    k = w["w_q"].shape[1]
    bias_lines = "".join(
        f"{name} = {lit.array(v, 4)}  # (d_k,)\n" if v is not None else f"{name} = np.zeros({k})  # no bias\n"
        for name, v in (("b_q", b.get("b_q")), ("b_k", b.get("b_k")), ("b_v", b.get("b_v")))
    )
    rope_md = (
        " " + _("Then RoPE rotates q and k by their positions (base {base}).", base=f"{rope_base:g}")
        if rope_base is not None
        else ""
    )
    return [
        new_markdown_cell(
            "## 3. "
            + _("Head {head}'s queries, keys and values", head=str(head + 1))
            + "\n\n"
            + _("Each token's query, key and value: its row times W_Q, W_K, W_V, plus the biases.")
            + f"{rope_md}\n\n$$Q = X W_Q + b_Q,\\quad K = X W_K + b_K,"
            "\\quad V = X W_V + b_V$$"
        ),
        new_code_cell(
            f"W_Q = {lit.array(w['w_q'], 4)}  # (d_model, d_k)\nW_K = {lit.array(w['w_k'], 4)}\n"
            f"W_V = {lit.array(w['w_v'], 4)}\n{bias_lines}"
            "q = Xn @ W_Q + b_q\nk = Xn @ W_K + b_k\nv = Xn @ W_V + b_v\n"
            + (
                f"{_ROPE}\n\nq, k = rope(q, {float(rope_base)!r}), rope(k, {float(rope_base)!r})\n"
                if rope_base is not None
                else ""
            )
            + "print(q.shape, k.shape, v.shape)"
        ),
    ]


def _attention_cells(mask_kind: str, window: int, mask: NDArray[np.bool_] | None) -> list[object]:
    """The scores, the mask, the softmax and the head's output."""
    return [
        new_markdown_cell(
            "## 4. "
            + _("Scores, mask and softmax")
            + "\n\n"
            + _(
                "Every query against every key, divided by √d_k; a key the mask hides gets −∞, so its weight is "
                "0; softmax makes each row sum to 1."
            )
            + "\n\n"
            "$$A = \\operatorname{softmax}\\!\\left(\\frac{q k^\\top}{\\sqrt{d_k}} + M\\right),\\quad \\operatorname{out} = A v$$"
        ),
        new_code_cell(
            f"{_SOFTMAX}\n\n{_mask_code(mask_kind, window, mask)}\n"
            "S = q @ k.T / np.sqrt(q.shape[1])  # (n, n)\nS_masked = np.where(allowed, S, -np.inf)\n"
            "A = softmax(S_masked)  # (n, n): row i = how much token i takes from each token\n"
            "out = A @ v  # (n, d_k): the head's output\nprint(A)"
        ),
    ]


def _check_cells(weights: NDArray[np.float64], output: NDArray[np.float64]) -> list[object]:
    """Every number printed in full, then checked against the app's: to float32's rounding where the app ran
    the layer in float32, else to CHECK_ATOL."""
    # The app runs an untouched layer in float32, the model's own precision (about 7 digits); the notebook
    # recomputes in float64, so it checks to float32's rounding then, and to CHECK_ATOL otherwise.
    single = np.asarray(weights).dtype == np.float32 or np.asarray(output).dtype == np.float32
    tolerance = FLOAT32_ATOL if single else CHECK_ATOL
    why_tolerance = "the app ran this layer in float32, as the model does" if single else "float64"
    return [
        new_markdown_cell("## 5. " + _("The numbers, in full, and a check against the app")),
        new_code_cell(
            "np.set_printoptions(precision=17, floatmode='unique', suppress=False, threshold=sys.maxsize)\n"
            f"for name, value in {{'A': A, 'out': out}}.items():\n"
            f'    print(f"{PRINT_MARK}{{name}} {{value.shape}}")\n    print(value)'
        ),
        new_code_cell(
            f"app = {{\n    'A': {lit.array(weights, 8)},\n    'out': {lit.array(output, 8)},\n}}\n"
            "for name, value in app.items():\n    gap = np.abs({'A': A, 'out': out}[name] - value).max()\n"
            '    print(f"{name}: largest difference from the app {gap:.1e}")\n'
            f"    assert gap <= {tolerance!r}, name  # {why_tolerance}\n"
            'print("Every number is the same as in the app.")'
        ),
    ]


def of_example(ex: object, res: object, head: int, link: str = "") -> nbformat.NotebookNode:
    """The notebook of head `head` of the loaded example `ex` (an Example with `real` set) and its run `res`."""
    from attention_core import pretrained
    from explorer.model import layer as layers

    fixed, c = layers.of(ex).fixed(ex)  # the norms' gains and the config the layer runs with
    reference = layers.of(ex).reference(
        ex, list(res.tokens)
    )  # its own weights, to say whether they are edited
    # a model of attention_core.pretrained names its package; one trained in the engine has none
    _, package, version, _ = pretrained.MODELS.get(c.name, ("", "", "", ""))
    # The head's biases as the explorer holds them (maybe edited); a model without biases (SmolLM2) gets none
    # written while they are still its zeros.
    held = {n: np.asarray(getattr(ex, n), dtype=np.float64) for n in ("b_q", "b_k", "b_v")}
    biases = {n: b[head] if b.size else np.zeros(0) for n, b in held.items()}  # a layer without: empty
    if not any(v.any() for v in biases.values()):
        biases = {n: None for n in biases}
    w = {name: np.asarray(getattr(ex, name)[head], dtype=np.float64) for name in ("w_q", "w_k", "w_v")}
    names = ("w_q", "w_k", "w_v", "b_q", "b_k", "b_v")
    edited = any(not np.array_equal(getattr(ex, n), reference[n]) for n in names)
    att = res.attention
    return notebook(
        title=str(c.name),
        package=package,
        version=version,
        layer=int(ex.real_layer),
        n_layers=int(c.n_layers),
        sentence=ex.sentence,
        tokens=list(res.tokens),
        head=int(head),
        x=np.asarray(res.x, dtype=np.float64),
        norm_gain=None if not c.norm_first else np.asarray(fixed.attn_norm_gain, dtype=np.float64),
        eps=float(c.eps),
        w=w,
        b=biases,
        rope_base=None if c.rope_base is None else float(c.rope_base),
        mask_kind=ex.mask_kind,
        window=int(ex.window),
        mask=None if ex.mask_kind != "custom" else np.asarray(ex.custom_mask, dtype=bool),
        edited=edited,
        weights=np.asarray(att.weights[head]),  # float32 for an untouched layer (its precision)
        output=np.asarray(att.head_outputs[head]),
        link=link,
        norm=str(c.norm),
    )


def to_bytes(ex: object, res: object, head: int, link: str = "") -> bytes:
    nb = of_example(ex, res, head, link)
    nbformat.validate(nb)
    return nbformat.writes(nb).encode("utf-8")
