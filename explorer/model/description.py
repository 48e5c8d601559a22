"""What is on screen, described once: the toy example or a real model's layer.

A page never asks "is this a real model?". It asks the description: the norm and where it sits, the
activation, the positions, the mask, the heads and how they share keys and values, the biases, the sizes,
the tokenizer and how a token is written, which settings the model fixes (and what they are, in words), where
the weights come from, whether they are drawn, what the banner says. Formulas (explorer.views.formulas), chart
titles, the sidebar, the banner, links and both exports read it. Each layer describes itself
(explorer.model.layer: `describe(ex)`); `of_config` describes a trained layer from its model's config, and
`of_model` a whole real model for the pages that show every layer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from explorer import i18n
from explorer.i18n import N_
from explorer.model import models
from explorer.model import settings_table as table

TOY = "toy"
VISIBLE_SPACE = "␣"  # a token's leading space (a new word in byte-level BPE), written so it can be seen
# Characters that would show as nothing, written as a sign: a new line, a tab, a carriage return.
VISIBLE = str.maketrans({"\n": "↵", "\t": "⇥", "\r": "␍"})


def show_token(token: str) -> str:
    """A token as every page writes it: a leading space (a new word in byte-level BPE) as "␣", a new line as
    "↵" (a tab "⇥"), and a token of spaces only as that many "␣": no token is shown as nothing."""
    shown = VISIBLE_SPACE + token[1:] if token.startswith(" ") else token
    if not token.strip():
        shown = shown.replace(" ", VISIBLE_SPACE)
    return shown.translate(VISIBLE)


@dataclass(frozen=True)
class Description:
    """One model on screen (a toy example, a real layer, or a whole real model).

    model: the link's name ("toy", "minilm", "smollm2"); layer: the real model's layer (0-based) or None;
    title: what the sidebar and banner call it; origin: where its weights come from, in one sentence;
    n_layers: layers of the model it comes from (1 for the toy); sizes d_model, n_heads, n_kv_heads (fewer
    than n_heads: grouped-query attention), d_k, d_ff; norm "layer_norm" or "rms_norm", norm_first (pre-norm),
    norm_learned (trained gains); activation "relu", "gelu" or "swiglu"; positions "sinusoidal", "learned",
    "none" (added to E: the toy), "rope" (q and k rotated in every layer) or "in_x" (learned positions added
    before the first layer, so already in X); rope_base; alibi; biases (b_Q ... b2 are part of the layer);
    causal (True/False when the model fixes the mask, None when it is a setting); tokenizer (in words);
    fixed: setting name -> what the model fixes it to, in words (shown instead of a control);
    drawn: the weights are seeded draws (re-randomize draws again, Reset returns to the seed's, links carry
    each matrix's draw), not a trained layer's own; banner: the paragraph above an explorer page that shows
    a trained layer (which one, what stays the model's), "" for the toy; notebook: which notebook writes the
    example out ("walkthrough": every step of the toy; "layer": one head of a trained layer); about: what the
    model line above every page says of its weights; source: what the banner calls the model (a real model,
    or one trained here); roles: per head, what it learned to do ("previous-token head", "induction head",
    "" when it has no role found), which the predict-then-reveal questions ask by its rule.
    """

    model: str
    layer: int | None
    title: str
    origin: str
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    d_k: int
    d_ff: int
    norm: str
    norm_first: bool
    norm_learned: bool
    activation: str
    positions: str
    rope_base: float | None
    alibi: bool
    biases: bool
    causal: bool | None
    tokenizer: str
    fixed: Mapping[str, str] = field(default_factory=dict)
    drawn: bool = False
    banner: str = ""
    notebook: str = "layer"
    about: str = N_("trained weights of a real model, editable")  # marked: translated where shown
    source: str = N_("Real model")  # what the banner calls a trained layer's model (marked)
    roles: tuple[str, ...] = ()  # what each head learned to do, in words ("" for none): the questions' rules
    lead_head: int = 0  # the head the explorer opens the layer on (the clearest role)

    @property
    def norm_name(self) -> str:
        """The norm's short name in formulas and titles: LN or RMSNorm."""
        return "RMSNorm" if self.norm == "rms_norm" else "LN"

    @property
    def ffn_name(self) -> str:
        return {"relu": "ReLU", "gelu": "GELU", "swiglu": "SwiGLU"}.get(self.activation, self.activation)

    @property
    def rope(self) -> bool:
        return self.positions == "rope"

    @property
    def shares_kv(self) -> bool:
        return self.n_kv_heads < self.n_heads

    @property
    def input_title(self) -> str:
        """What the first page's chart shows: the toy's embeddings E, or the layer's input X."""
        if self.layer is None:
            return i18n._("Embeddings E")
        if self.adds_positions:  # a trained first layer: E is its token vectors; P is added on the next step
            return i18n._("Embeddings E: each token's trained vector")
        return i18n._(
            "X: the input of layer {layer} (what the model's layers before it made of the tokens)",
            layer=self.layer + 1,
        )

    @property
    def adds_positions(self) -> bool:
        """X = E + P is made in the explorer (the toy's P, or a trained first layer's learned P); False when
        the positions are already in X or rotate q and k inside attention."""
        return not self.fixes("pe_kind") or self.positions == "learned"

    def fixes(self, setting: str) -> bool:
        """Whether the model fixes this setting (it is then described, not offered as a control)."""
        return setting in self.fixed

    def sizes_line(self) -> str:
        """The sizes in one line: d_model 576 · 9 heads (3 key/value heads) · d_k 64 · d_ff 1536."""
        heads = (
            i18n.ngettext(
                "{n} head ({kv} key/value heads)",
                "{n} heads ({kv} key/value heads)",
                self.n_heads,
                kv=self.n_kv_heads,
            )
            if self.shares_kv
            else i18n.ngettext("{n} head", "{n} heads", self.n_heads)
        )
        layers = (
            i18n.ngettext("{n} layer", "{n} layers", self.n_layers) + " · "
            if self.layer is None and self.n_layers > 1
            else ""
        )
        ffn = f"d_ff {self.d_ff}" if self.d_ff else i18n._("no feed-forward")
        return f"{layers}d_model {self.d_model} · {heads} · d_k {self.d_k} · {ffn}"  # a list of sizes, not a sentence


def of_toy(ex: Any) -> Description:
    """The toy model with the example's settings (explorer.model.toy)."""
    return Description(
        model=TOY,
        layer=None,
        title=i18n._("the toy model"),
        origin=i18n._("Seeded random weights (or your own numbers): nothing was trained."),
        n_layers=1,
        d_model=int(ex.d_model),
        n_heads=int(ex.n_heads),
        n_kv_heads=int(ex.n_heads),
        d_k=int(ex.d_k),
        d_ff=int(ex.d_ff),
        norm="layer_norm",
        norm_first=bool(ex.norm_first),
        norm_learned=False,
        activation="relu",
        positions=str(ex.pe_kind) if not ex.rope else "rope",
        rope_base=float(ex.pe_base) if ex.rope else None,
        alibi=bool(ex.alibi),
        biases=False,
        causal=None,
        tokenizer=i18n._("words and punctuation (the explorer's own)"),
        drawn=True,
        notebook="walkthrough",
        about=models.choice(TOY).about,
    )


def of_model(key: str) -> Description:
    """A whole real model, as the pages that show every layer and head present it."""
    m = models.model(key)
    lw, c = m.layer_weights(0), m.config
    biases = lw.b_qkv is not None or lw.b_o is not None or lw.b1 is not None
    return of_config(key, None, c, int(c.n_kv_heads), str(c.name), biases)


def of_config(key: str, layer: int | None, c: Any, n_kv: int, title: str, biases: bool) -> Description:
    """A trained model's layer `layer` (or the whole model: None) from its ModelConfig `c`: n_kv key/value
    heads as the explorer holds them, the model's title, whether it has biases. Its words are in the language
    on screen when it is made (it is made on each run, never cached across languages)."""
    _ = i18n._
    rope = c.positions == "rope"
    if c.norm == "rms_norm":
        norm = _("RMSNorm, before attention and the feed-forward (as trained)") if c.norm_first else _(
            "RMSNorm, after each residual sum (as trained)")  # fmt: skip
    else:
        norm = _("layer norm with gain and bias, before attention and the feed-forward (as trained)") if (
            c.norm_first) else _("layer norm with gain and bias, after each residual sum (as trained)")  # fmt: skip
    base = i18n.integer(round(c.rope_base)) if rope else ""
    fixed = {
        "d_model": str(c.d_model),
        "n_heads": _("{n} (sharing {kv} key/value heads)", n=c.n_heads, kv=n_kv)
        if n_kv < c.n_heads
        else str(c.n_heads),
        "d_k": str(c.d_k),
        "d_ff": str(c.d_ff),
        "seed": _("trained weights, not drawn"),
        "emb_source": _("X, the layer's input, computed by the model"),
        "pe_kind": _("RoPE, inside the layer") if rope else _("learned, already added into X"),
        "pe_base": _("{base} (RoPE, as trained)", base=base) if rope else _("none"),
        "pe_scale": _("no (as trained)"),
        "scale_mode": _("1/√d_k (as trained)"),
        "scale_custom": _("1/√d_k (as trained)"),
        "alibi": _("none (as trained)"),
        "rope": _("base {base}, applied inside the layer (as trained)", base=base)
        if rope
        else _("none (as trained)"),
        "norm_first": norm,
    }
    d = Description(
        model=key,
        layer=layer,
        title=_("{model}, layer {layer} of {n}", model=title, layer=layer + 1, n=c.n_layers)
        if layer is not None
        else title,
        origin=models.choice(key).about,
        n_layers=int(c.n_layers),
        d_model=int(c.d_model),
        n_heads=int(c.n_heads),
        n_kv_heads=int(n_kv),
        d_k=int(c.d_k),
        d_ff=int(c.d_ff),
        norm=str(c.norm),
        norm_first=bool(c.norm_first),
        norm_learned=True,
        activation=str(c.activation),
        positions="rope" if rope else "in_x",
        rope_base=float(c.rope_base) if rope else None,
        alibi=False,
        biases=biases,
        causal=bool(c.causal),
        tokenizer=_("byte-level BPE")
        if models.choice(key).scheme == "bytelevel"
        else _("WordPiece (uncased)"),
        fixed={name: text for name, text in fixed.items() if name in table.FIXED_BY_LAYER},
        about=_("trained weights of a real model, editable"),
        source=_("Real model"),
    )
    return replace(d, banner=_banner(d)) if layer is not None else d


def _banner(d: Description) -> str:
    """One paragraph above an explorer page showing a trained layer: which one, what stays the model's."""
    _ = i18n._
    weights = "W_Q, W_K, W_V, W_O, W1, W_up, W2" if d.activation == "swiglu" else "W_Q, W_K, W_V, W_O, W1, W2"
    norms = {
        ("rms_norm", True): N_("Its RMSNorm before attention and before the feed-forward (pre-norm) and its {ffn} "
                               "feed-forward are applied as trained"),
        ("rms_norm", False): N_("Its RMSNorm after each residual sum (post-norm) and its {ffn} feed-forward are "
                                "applied as trained"),
        ("layer_norm", True): N_("Its layer norm before attention and before the feed-forward (pre-norm) and its "
                                 "{ffn} feed-forward are applied as trained"),
        ("layer_norm", False): N_("Its layer norm after each residual sum (post-norm) and its {ffn} feed-forward "
                                  "are applied as trained"),
    }  # fmt: skip
    norm = _(norms[("rms_norm" if d.norm == "rms_norm" else "layer_norm", d.norm_first)], ffn=d.ffn_name)
    if d.rope:
        said = _("{norm}; RoPE (base {base}) rotates q and k in the layer itself.", norm=norm,
                 base=i18n.integer(round(d.rope_base or 0)))  # fmt: skip
    else:
        said = _("{norm}; its learned positions were added to the embeddings before layer 1, so they are already "
                 "in X.", norm=norm)  # fmt: skip
    said = _("{model}: X is that layer's input for this sentence, and {weights} and their biases are its "
             "trained weights (editable). {rest}", model=d.title, weights=weights, rest=said)  # fmt: skip
    if d.shares_kv:
        said = _("{said} Its {heads} query heads share {kv} key/value heads; here each query head has its own "
                 "copy of W_K and W_V, so an edit changes that head only.", said=said, heads=d.n_heads,
                 kv=d.n_kv_heads)  # fmt: skip
    return said


def shown_tokens(tokens: Sequence[str]) -> list[str]:
    """Tokens as every page writes them (show_token)."""
    return [show_token(t) for t in tokens]
