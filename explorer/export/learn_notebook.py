"""/learn as a Jupyter notebook that trains the same tiny transformer in plain numpy (pure).

`notebook()` returns an nbformat v4 NotebookNode: the recipe of the shipped run, then the model (embeddings,
learned positions, causal multi-head attention, unembedding), its backward pass, Adam, the repeated-halves
data, the training loop and each head's scores, as code cells that import numpy and the standard library
only (never the app or its engine), with the same parameter names, shapes, draws and order as
``attention_core.training``: the same seed trains the same model (tests check the first steps against the
engine's). `to_bytes()` is the .ipynb file.
"""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from explorer.export.notebook import with_words
from explorer.i18n import _
from explorer.model import learning

STEPS_NAME = "STEPS"  # the variable the training cell reads (a test sets it smaller)

_MODEL = '''import math
import numpy as np


def param_shapes():
    d, h, dh = D_MODEL, N_HEADS, D_MODEL // N_HEADS
    shapes = {"embed": (VOCAB, d), "pos": (N_CTX, d)}
    for l in range(N_LAYERS):
        shapes.update({f"layers.{l}.w_q": (h, d, dh), f"layers.{l}.w_k": (h, d, dh),
                       f"layers.{l}.w_v": (h, d, dh), f"layers.{l}.w_o": (h * dh, d)})
    shapes["unembed"] = (d, VOCAB)
    return shapes


def init(seed):
    """Normal weights: 1/sqrt(fan-in); tokens 1/sqrt(d), positions 1, the unembedding 1/d."""
    rng = np.random.default_rng(seed)
    std = {"embed": D_MODEL**-0.5, "pos": 1.0, "unembed": 1.0 / D_MODEL}
    return {k: rng.standard_normal(s) * std.get(k, s[-2] ** -0.5) for k, s in param_shapes().items()}


def attention(x, w_q, w_k, w_v, w_o, keep=None):
    """Causal multi-head attention. x (B, T, d) -> output (B, T, d) and what the backward pass needs."""
    (B, T, d), (h, _, dh) = x.shape, w_q.shape
    q, k, v = (np.einsum("btd,hde->bhte", x, w) for w in (w_q, w_k, w_v))  # (B, h, T, dh)
    s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh)  # (B, h, T, T): rows are queries, columns keys
    s = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -np.inf)  # a query sees itself and earlier keys
    a = np.exp(s - s.max(axis=-1, keepdims=True))
    a /= a.sum(axis=-1, keepdims=True)  # softmax over the keys
    heads = a @ v  # (B, h, T, dh)
    if keep is not None:
        heads = heads * keep[None, :, None, None]
    concat = heads.transpose(0, 2, 1, 3).reshape(B, T, h * dh)  # head 0 first
    return concat @ w_o, (x, q, k, v, a, concat)


def forward(p, tokens, head_mask=None):
    """logits (B, T, V) and every layer's cache."""
    x = p["embed"][tokens] + p["pos"][: tokens.shape[1]]  # (B, T, d) the residual stream
    caches = []
    for l in range(N_LAYERS):
        keep = None if head_mask is None else head_mask[l]
        out, cache = attention(x, *(p[f"layers.{l}.{n}"] for n in ("w_q", "w_k", "w_v", "w_o")), keep)
        caches.append(cache)
        x = x + out  # each layer adds its heads' output
    return x @ p["unembed"], (x, caches)


def loss_and_grads(p, tokens):
    """Mean next-token cross-entropy and its gradient for every parameter."""
    (B, T), g = tokens.shape, {}
    logits, (xf, caches) = forward(p, tokens)
    z = logits[:, :-1]
    logp = z - z.max(-1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(-1, keepdims=True))
    target = tokens[:, 1:, None]
    loss = -np.take_along_axis(logp, target, 2).mean()
    dz = np.zeros_like(logits)
    dz[:, :-1] = np.exp(logp)
    np.put_along_axis(dz[:, :-1], target, np.take_along_axis(dz[:, :-1], target, 2) - 1.0, 2)
    dz /= B * (T - 1)
    g["unembed"] = np.einsum("btd,btv->dv", xf, dz)
    dx = dz @ p["unembed"].T  # (B, T, d)
    for l in reversed(range(N_LAYERS)):
        x, q, k, v, a, concat = caches[l]
        w_o, dh = p[f"layers.{l}.w_o"], q.shape[-1]
        g[f"layers.{l}.w_o"] = np.einsum("bti,btd->id", concat, dx)
        dheads = (dx @ w_o.T).reshape(*x.shape[:2], N_HEADS, dh).transpose(0, 2, 1, 3)  # (B, h, T, dh)
        da = dheads @ v.transpose(0, 1, 3, 2)
        ds = a * (da - (da * a).sum(-1, keepdims=True)) / math.sqrt(dh)
        dq, dk, dv = ds @ k, ds.transpose(0, 1, 3, 2) @ q, a.transpose(0, 1, 3, 2) @ dheads
        dx = dx.copy()
        for name, dw in (("w_q", dq), ("w_k", dk), ("w_v", dv)):
            g[f"layers.{l}.{name}"] = np.einsum("btd,bhte->hde", x, dw)
            dx += np.einsum("bhte,hde->btd", dw, p[f"layers.{l}.{name}"])
    g["embed"] = np.zeros_like(p["embed"])
    np.add.at(g["embed"], tokens.ravel(), dx.reshape(-1, D_MODEL))
    g["pos"] = np.zeros_like(p["pos"])
    g["pos"][:T] = dx.sum(0)
    return float(loss), g
'''

_ADAM = '''def adam_step(p, g, m, v, t, lr, b1=0.9, b2=0.999, eps=1e-8):
    """One Adam step (t = 1, 2, ...): new parameters and running means."""
    new_p, new_m, new_v = {}, {}, {}
    for k in p:
        new_m[k] = b1 * m[k] + (1 - b1) * g[k]
        new_v[k] = b2 * v[k] + (1 - b2) * (g[k] * g[k])
        new_p[k] = p[k] - lr * (new_m[k] / (1 - b1**t)) / (np.sqrt(new_v[k] / (1 - b2**t)) + eps)
    return new_p, new_m, new_v


def repeated_halves(rng, batch, T=N_CTX, shortest=MIN_LEN, share=SHORT_SHARE):
    """Random tokens in which a stretch of n (shortest .. T // 2; for a share of them 2 .. shortest - 1)
    at offset o comes back."""
    tokens = rng.integers(0, VOCAB, size=(batch, T))
    n = rng.integers(shortest, T // 2 + 1, size=batch)
    if share > 0:
        short = rng.integers(2, shortest, size=batch)
        n = np.where(rng.random(batch) < share, short, n)
    o = rng.integers(0, T - 2 * n + 1)
    pos = np.arange(T)[None, :]
    second = (pos >= (o + n)[:, None]) & (pos < (o + 2 * n)[:, None])
    return np.take_along_axis(tokens, np.where(second, pos - n[:, None], pos), axis=1)
'''

_TRAIN = """def lr_at(t):
    \"\"\"The learning rate of step t: LR, or down half a cosine to LR * FLOOR at step SCHEDULE.\"\"\"
    if DECAY == "none":
        return LR
    return LR * (FLOOR + (1 - FLOOR) * 0.5 * (1 + np.cos(np.pi * (t - 1) / max(1, SCHEDULE - 1))))


params = init(SEED)
m = {k: np.zeros_like(a) for k, a in params.items()}
v = {k: np.zeros_like(a) for k, a in params.items()}
rng = np.random.default_rng([1, SEED])
losses = []
for t in range(1, STEPS + 1):
    loss, grads = loss_and_grads(params, repeated_halves(rng, BATCH))
    params, m, v = adam_step(params, grads, m, v, t, lr_at(t))
    losses.append(loss)
    if t % 100 == 0:
        print(f"step {t}: loss {np.mean(losses[-100:]):.3f}")
"""

_SCORES = '''def head_scores(p, n=SCORE_LEN, count=8, head_mask=None):
    """Every head's induction and previous-token score on n distinct random tokens then the same n."""
    rng = np.random.default_rng([2, SEED])
    first = rng.permuted(np.tile(np.arange(VOCAB), (count, 1)), axis=1)[:, :n]
    runs = np.concatenate([first, first], axis=1)
    A = np.stack([c[4] for c in forward(p, runs, head_mask)[1][1]], axis=1).mean(0)  # (L, h, 2n, 2n)
    i = np.arange(n, 2 * n)
    j = np.arange(1, 2 * n)
    return A[:, :, i, i - n + 1].mean(-1), A[:, :, j, j - 1].mean(-1)


induction, previous = head_scores(params)
print("previous-token score, layer 1's heads:", previous[0].round(2))
print("induction score, layer 2's heads:", induction[1].round(2))
off = np.ones((N_LAYERS, N_HEADS))
off[0, int(np.argmax(previous[0]))] = 0.0  # the previous-token head switched off
print("induction score with it off:", head_scores(params, head_mask=off)[0][1].round(2))
'''


def notebook(link: str = "") -> nbformat.NotebookNode:
    """The notebook of /learn; ``link`` (the page's address) goes into its title cell."""
    r = learning.Recipe()
    c = r.cfg
    shortest = r.min_len if r.min_len is not None else max(2, c.n_ctx // 2 - c.n_ctx // 8)
    config = (
        f"SEED, LR, BATCH, {STEPS_NAME} = {r.seed}, {r.lr!r}, {r.batch}, {r.steps}\n"
        f"N_LAYERS, N_HEADS, D_MODEL, VOCAB, N_CTX = {c.n_layers}, {c.n_heads}, {c.d_model}, {c.vocab}, {c.n_ctx}\n"
        f"MIN_LEN = {shortest}  # the shortest repeated stretch\n"
        f"SHORT_SHARE = {r.short_share!r}  # the share of sequences whose stretch is shorter (2 .. MIN_LEN - 1)\n"
        f"DECAY, FLOOR, SCHEDULE = {r.decay!r}, {learning.FLOOR!r}, {r.steps}  # the learning rate's schedule\n"
        f"SCORE_LEN = {r.score_len}  # the heads are scored on this many distinct tokens, twice"
    )
    page = _("Watch a transformer learn")
    back = " " + _("([the page]({link}))", link=link) if link else ""
    about = _(
        "The run of the Attention Explorer's *{page}*{back}, in plain numpy: a transformer of {layers} "
        "attention-only layers ({heads} heads each, d_model {d_model}), trained with Adam on random tokens of a "
        "vocabulary of {vocab} in which a stretch comes back at a varied offset. The loss sits flat, then falls "
        "when a previous-token head (layer 1) and an induction head (layer 2) form together. {steps} steps take "
        "a minute or two on one core.",
        page=page,
        back=back,
        layers=str(c.n_layers),
        heads=str(c.n_heads),
        d_model=str(c.d_model),
        vocab=str(c.vocab),
        steps=str(r.steps),
    )
    cells = [
        new_markdown_cell(f"# {page}\n\n{about}"),
        new_code_cell(config),
        new_markdown_cell(
            "## " + _("The model and its gradients") + "\n\n" + _("Rows are queries, columns are keys.")
        ),
        new_code_cell(_MODEL),
        new_markdown_cell("## " + _("Adam and the data")),
        new_code_cell(_ADAM),
        new_markdown_cell("## " + _("Training")),
        new_code_cell(_TRAIN),
        new_markdown_cell(
            "## "
            + _("Each head's scores, and K-composition")
            + "\n\n"
            + _(
                "The induction head's key reads what the previous-token head wrote: switch that head off and "
                "the induction score falls."
            )
        ),
        new_code_cell(_SCORES),
    ]
    cells = with_words(cells)
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def to_bytes(link: str = "") -> bytes:
    return nbformat.writes(notebook(link)).encode("utf-8")
