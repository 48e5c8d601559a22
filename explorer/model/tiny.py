"""The tiny model trained in the engine, one layer at a time, as the explorer's example: a `Layer`
(explorer.model.layer; the toy is explorer.model.toy, a real model's layer explorer.model.bridge).

The model is the final checkpoint of the shipped training run (explorer.model.learning reads it: /learn
shows how it was trained): two layers of four causal attention heads, d_model 64, no feed-forward network,
trained on sequences of 32 abstract tokens (ids 0 to 31) whose first stretch comes back later. Its layer 1
holds previous-token heads and its layer 2 induction heads, which is what a student can see it do.

Words become tokens by a shown, stable rule (`token_ids`): each word, lower-cased, gets a number from its
spelling (CRC-32 mod 32); when two different words of one sentence would share a number, the later takes
the next free one. A repeated word is the same token, so a sentence with a repeated word has a repeat for
the induction head to find. Layer 1's X is E[ids] + P (its token and position tables, editable); layer
2's X is what layer 1 computes from them (unedited). Each runs through attention_core.transformer_layer with
no norm and an empty feed-forward (d_ff 0): exactly the training code's forward pass (tests/app/model).

No Streamlit.
"""

from __future__ import annotations

import dataclasses
import functools
import zlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

import attention_core as ac
from attention_core import training as tr
from attention_core.transformer import LayerWeights, ModelConfig, transformer_layer
from explorer import cache, i18n
from explorer.i18n import N_, _
from explorer.model import description, learning, models, toy
from explorer.model import settings_table as table
from explorer.model.arrays import F64

KEY = "tiny"  # its row of the models table (explorer.model.models)
DRAWN = False  # trained weights: links and files carry the edits only
ROLE_SCORE = 0.5  # a head whose score on the run's repeated tokens passes this has that role
INPUT_BYTES = cache.MB // 2  # layer inputs X per sentence: at most 32 x 64 floats (16 KB) each
_NORMS = {"none": "none", "layer": "layer_norm", "rms": "rms_norm"}  # training's norm -> the engine's


@dataclasses.dataclass(frozen=True, eq=False)
class Trained:
    """The shipped run's final checkpoint, read-only. L layers, H heads.

    cfg: its TinyConfig; params: name -> float64 array (attention_core.training.param_shapes); step: the
    training step it was kept at; previous, induction: (L, H) each head's previous-token and induction
    score on the run's repeated tokens after the last step; config: the ModelConfig every layer runs with.
    """

    cfg: tr.TinyConfig
    params: dict[str, F64]
    step: int
    previous: F64
    induction: F64
    config: ModelConfig


@functools.cache
def trained() -> Trained:
    """The final checkpoint of the shipped run, read once per process (explorer.model.learning.load)."""
    run = learning.load()
    cfg = run.recipe.cfg
    params = run.params_at(len(run.checkpoints) - 1)
    for arr in params.values():
        arr.setflags(write=False)
    config = ModelConfig(
        name="the tiny trained model", n_layers=cfg.n_layers, n_heads=cfg.n_heads, n_kv_heads=cfg.n_heads,
        d_model=cfg.d_model, d_k=cfg.d_head, d_ff=0, vocab_size=cfg.vocab, max_positions=cfg.n_ctx,
        norm=_NORMS[cfg.norm], norm_first=cfg.norm != "none", eps=1e-5, activation="relu",
        positions="learned", rope_base=None, causal=True, tied_embeddings=False, has_logits=True,
        dtype="float64", weights="float16 checkpoint, run in float64",
    )  # fmt: skip
    last = lambda a: np.array(a[-1], dtype=np.float64)  # noqa: E731 - the scores after the last step
    return Trained(cfg, params, int(run.checkpoints[-1]), last(run.previous), last(run.induction), config)


def roles(layer: int) -> tuple[str, ...]:
    """What each head of layer `layer` (0-based) learned to do, in words ("" for a head with no clear
    role): a previous-token head attends to the token just before; an induction head to the token after an
    earlier copy of the current one. From the run's own scores (ROLE_SCORE)."""
    t = trained()
    out = []
    for h in range(t.cfg.n_heads):
        prev, ind = float(t.previous[layer, h]), float(t.induction[layer, h])
        if max(prev, ind) < ROLE_SCORE:
            out.append("")
        else:
            out.append("previous-token head" if prev >= ind else "induction head")
    return tuple(out)


SHORT_REPEATS = (3, 4, 6, 8, 12, 16)  # tokens repeated once: a typed sentence's repeats, short to long


@functools.cache
def short_scores() -> tuple[F64, F64]:
    """(L, H) each head's induction and previous-token scores averaged over repeats of SHORT_REPEATS tokens
    (8 random runs each, a fixed seed): how well it does its role on sentences as long as a typed one; the
    run's own scores are measured on 16 tokens repeated."""
    t = trained()
    rng = np.random.default_rng([5, 0])
    runs = [tr.repeated_runs(rng, 8, n, t.cfg.vocab) for n in SHORT_REPEATS]
    scores = [tr.head_scores(t.cfg, t.params, r) for r in runs]
    return np.mean([s[0] for s in scores], axis=0), np.mean([s[1] for s in scores], axis=0)


def lead_head(layer: int) -> int:
    """The head of layer `layer` the explorer opens on: of the heads with a role, the one that does it best
    on short repeats (short_scores)."""
    induction, previous = short_scores()
    kept = [h for h, r in enumerate(roles(layer)) if r] or list(range(trained().cfg.n_heads))
    return max(kept, key=lambda h: max(induction[layer, h], previous[layer, h]))


# ------------------------------------------------------------------ words -> tokens


def token_ids_of(words: list[str], vocab: int | None = None) -> list[int]:
    """Each word's token id, 0 to vocab - 1: CRC-32 of the lower-cased word mod vocab; a different word of
    the same sentence that would get a number already taken takes the next free one (so two different
    words are never one token while the sentence has at most vocab different words); a repeated word
    (in any case) keeps its number."""
    v = trained().cfg.vocab if vocab is None else int(vocab)
    ids: list[int] = []
    given: dict[str, int] = {}
    taken: set[int] = set()
    for word in words:
        w = word.lower()
        if w not in given:
            i = zlib.crc32(w.encode("utf-8")) % v
            for _ in range(v):
                if i not in taken:
                    break
                i = (i + 1) % v
            given[w] = i
            taken.add(i)
        ids.append(given[w])
    return ids


def tokens_of(sentence: str) -> tuple[list[str], bool]:
    """The sentence's words and punctuation (the explorer's own tokenizer), cut to the model's context
    (n_ctx: the positions it was trained on); the flag says whether anything was cut."""
    words, cut = toy.tokens_of(sentence)
    n_ctx = trained().cfg.n_ctx
    return words[:n_ctx], cut or len(words) > n_ctx


def tokens(ex: Any) -> tuple[list[str], bool]:
    return tokens_of(ex.sentence[: table.MAX_SENTENCE_CHARS])


def run_first(ex: Any) -> None:
    return None  # two small layers: their input is computed here in a few milliseconds


def token_ids(ex: Any) -> list[int]:
    """The example's token ids (token_ids_of its tokens)."""
    return token_ids_of(tokens(ex)[0])


# ------------------------------------------------------------------ the layer's answers (explorer.model.layer)


def _weights(layer: int, w: dict[str, NDArray]) -> LayerWeights:
    """Layer `layer`'s LayerWeights with W_Q, W_K, W_V (h, d, k) and W_O (h k, d) from `w` (maybe edited),
    its norm's gain (and bias) where the model has one, and an empty feed-forward (d_ff 0)."""
    t = trained()
    d = t.cfg.d_model
    pre = f"layers.{layer}.norm_"
    parts = [
        np.asarray(w[n], dtype=np.float64).transpose(1, 0, 2).reshape(d, -1) for n in ("w_q", "w_k", "w_v")
    ]
    return LayerWeights(
        w_qkv=np.concatenate(parts, axis=1),  # (d, 3 h k): q of every head, then k, then v
        b_qkv=None, w_o=np.asarray(w["w_o"], dtype=np.float64), b_o=None,
        w1=np.zeros((d, 0)), b1=None, w_up=None, w2=np.zeros((0, d)), b2=None,
        attn_norm_gain=t.params.get(pre + "gain"), attn_norm_bias=t.params.get(pre + "bias"),
        norm1_gain=None, norm1_bias=None, norm2_gain=None, norm2_bias=None,
        n_heads=t.cfg.n_heads, n_kv_heads=t.cfg.n_heads, d_k=t.cfg.d_head,
    )  # fmt: skip


def trained_matrices(layer: int) -> dict[str, F64]:
    """Layer `layer`'s own W_Q, W_K, W_V (h, d, k) and W_O (h k, d)."""
    p = trained().params
    return {n: p[f"layers.{layer}.{n}"] for n in ("w_q", "w_k", "w_v", "w_o")}


def layer_input(layer: int, ids: tuple[int, ...]) -> F64:
    """X (n, d): what layer `layer` reads for these token ids, computed by the layers before it (untouched)."""
    return _cached_input(int(layer), tuple(int(i) for i in ids))


@cache.shared(max_bytes=INPUT_BYTES)
def _cached_input(layer: int, ids: tuple[int, ...]) -> F64:
    t = trained()
    n = len(ids)
    x = t.params["embed"][list(ids)] + t.params["pos"][:n]  # (n, d)
    for i in range(layer):
        x = np.array(
            transformer_layer(x, _weights(i, trained_matrices(i)), t.config, ac.causal_mask(n)).output
        )
    x.setflags(write=False)
    return x


def describe(ex: Any) -> description.Description:
    """Layer `real_layer` (0-based) of the tiny trained model as the explorer holds it."""
    return _described(int(ex.real_layer), i18n.current())


@functools.lru_cache(maxsize=16)  # one per layer (the run has 2) and language: its words are in it
def _described(layer: int, language: str) -> description.Description:
    t = trained()
    c, first = t.cfg, layer == 0
    norm = {"none": _("none: the model has no norm"), "layer": _("layer norm before attention (as trained)"),
            "rms": _("RMSNorm before attention (as trained)")}[c.norm]  # fmt: skip
    fixed = {
        "d_model": str(c.d_model),
        "n_heads": str(c.n_heads),
        "d_k": str(c.d_head),
        "d_ff": _("none: the model has attention only"),
        "seed": _("trained weights, not drawn"),
        "emb_source": _("E, the model's trained token vectors") if first
        else _("X, the input of layer 2, computed by layer 1"),
        "pe_kind": _("learned, added here (as trained)") if first else _("learned, already added into X"),
        "pe_base": _("none"),
        "pe_scale": _("no (as trained)"),
        "scale_mode": _("1/√d_k (as trained)"),
        "scale_custom": _("1/√d_k (as trained)"),
        "alibi": _("none (as trained)"),
        "rope": _("none (as trained)"),
        "norm_first": norm,
    }  # fmt: skip
    d = description.Description(
        model=KEY,
        layer=layer,
        title=_("the tiny trained model, layer {layer} of {n}", layer=layer + 1, n=c.n_layers),
        origin=models.choice(KEY).about,
        n_layers=c.n_layers,
        d_model=c.d_model,
        n_heads=c.n_heads,
        n_kv_heads=c.n_heads,
        d_k=c.d_head,
        d_ff=0,
        norm=t.config.norm,
        norm_first=t.config.norm_first,
        norm_learned=c.norm != "none",
        activation="none",
        positions="learned" if first else "in_x",
        rope_base=None,
        alibi=False,
        biases=False,
        causal=True,
        tokenizer=_(
            "words, each a fixed number 0 to {last} (its spelling's checksum; a repeated word keeps its "
            "number)",
            last=c.vocab - 1,
        ),
        fixed={name: text for name, text in fixed.items() if name in table.FIXED_BY_LAYER},
        drawn=False,
        about=models.choice(KEY).about,
        source=_("Trained model"),
        roles=roles(layer),
        lead_head=lead_head(layer),
    )
    return dataclasses.replace(d, banner=_banner(d, t.step))


def _banner(d: description.Description, step: int) -> str:
    x = (
        _("X = E + P: each token's trained vector E plus its position's trained vector P")
        if d.layer == 0
        else _("X is what layer 1 made of the tokens")
    )
    values = {"model": d.title, "step": step, "x": x}
    if d.norm == "none":
        said = _(
            "{model}, trained here on repeated sequences of abstract tokens (step {step} of the run on Watch "
            "a transformer learn). {x}; W_Q, W_K, W_V and W_O are its trained weights (editable). It has "
            "attention only: no norm, no feed-forward; the mask is causal.",
            **values,
        )
    else:
        said = _("{model}, trained here on repeated sequences of abstract tokens (step {step} of the run on Watch "
                 "a transformer learn). {x}; W_Q, W_K, W_V and W_O are its trained weights (editable). It has "
                 "attention only: {norm} before attention, no feed-forward; the mask is causal.",
                 norm=d.norm_name, **values)  # fmt: skip
    for role in dict.fromkeys(d.roles):
        if role:
            said += " " + _listed([h + 1 for h, r in enumerate(d.roles) if r == role], role)
    return said


# What a head learned, in a sentence (roles are codes: the questions compare them; the words are here)
ROLE_ONE = {
    "previous-token head": N_("Head {head} is a previous-token head."),
    "induction head": N_("Head {head} is an induction head."),
}
ROLE_MANY = {
    "previous-token head": N_("Heads {heads} and {last} are previous-token heads."),
    "induction head": N_("Heads {heads} and {last} are induction heads."),
}


def _listed(heads: list[int], role: str) -> str:
    """ "Head 2 is a previous-token head." or "Heads 1, 2 and 4 are induction heads." """
    if len(heads) == 1:
        return _(ROLE_ONE[role], head=heads[0])
    return _(ROLE_MANY[role], heads=", ".join(str(h) for h in heads[:-1]), last=heads[-1])


def fixed(ex: Any) -> tuple[LayerWeights, ModelConfig]:
    """(the layer's norm gain, where it has one, as LayerWeights; the config it runs with)."""
    return _weights(int(ex.real_layer), trained_matrices(int(ex.real_layer))), trained().config


def layer_only_shapes(ex: Any) -> dict[str, tuple[int, ...]]:
    """None: the model has no biases and no W_up."""
    return dict(toy.LAYER_ONLY_EMPTY)


def model_input(ex: Any, sentence: str) -> F64:
    """X for a sentence: layer 1's E + P, or layer 2's input computed by layer 1."""
    words, _cut = tokens_of(sentence[: table.MAX_SENTENCE_CHARS])
    return layer_input(int(ex.real_layer), tuple(token_ids_of(words)))


def defaults(ex: Any, tokens: list[str], draws: dict[str, int] | None = None) -> dict[str, NDArray]:
    """The layer itself: its trained weights; layer 1's E[ids] and P[:n] (X = E + P made here), or layer
    2's X computed by layer 1 (no P added). Nothing is drawn."""
    t, layer = trained(), int(ex.real_layer)
    ids = token_ids_of(list(tokens))
    n, d = len(ids), t.cfg.d_model
    first = layer == 0
    emb = t.params["embed"][ids] if first else layer_input(layer, tuple(ids))
    return {
        **trained_matrices(layer),
        "w1": np.zeros((d, 0)),
        "w2": np.zeros((0, d)),
        "emb": np.array(emb, dtype=np.float64).reshape(n, d),
        "pe_table": np.array(t.params["pos"][:n]) if first else np.zeros((n, d)),
        "custom_mask": np.tril(np.ones((n, n), dtype=bool)),
        **toy.empty_layer_only(),
    }


reference = defaults  # links and files carry the cells that differ from the layer


def run_block(
    ex: Any, x: F64, mask: NDArray[np.bool_] | None, scale: float, bias: F64 | None
) -> tuple[ac.EncoderTrace, ac.AttentionTrace, None, str]:
    """(the layer's trace, its attention, no separate block error, what attention reads): the engine's
    transformer_layer with the explorer's (maybe edited) W_Q, W_K, W_V, W_O. A ValueError (an overflow from
    edited weights) escapes: nothing of the layer can be shown then."""
    w = {n: getattr(ex, n) for n in ("w_q", "w_k", "w_v", "w_o")}
    t = trained()
    with np.errstate(over="ignore", invalid="ignore"):
        trace = transformer_layer(
            np.asarray(x, dtype=np.float64),
            _weights(int(ex.real_layer), w),
            t.config,
            mask,
            scale=scale,
            bias=bias,
        )
    if not np.isfinite(trace.output).all():
        raise ValueError(_("the layer's output overflowed: the edited weights are too large"))
    norm = "RMSNorm" if t.config.norm == "rms_norm" else "LN"
    return trace, trace.attention, None, f"{norm}(X)" if t.config.norm_first else "X"


def settings_of(key: str, layer: int) -> dict[str, object]:
    """The Example settings a layer fixes (the models table's), with layer 1's learned positions: its P is
    added here, to E."""
    return {**models.layer_settings(key, layer), "pe_kind": "learned" if int(layer) == 0 else "none"}
