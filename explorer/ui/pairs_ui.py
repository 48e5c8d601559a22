"""/minimal-pairs' widgets: the example pairs and the second sentence, the word and layer pickers, the charts;
and /ablation's occlusion strip of the similarity of two sentences. The compute is explorer.compute.pairs."""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st

from attention_core import analysis
from explorer.compute import model_compute as mc
from explorer.compute import pairs as pc
from explorer.i18n import N_, _
from explorer.model import pairs as pm
from explorer.ui import state, waiting
from explorer.ui import widgets as ui
from explorer.views import colour_range
from explorer.views import pairs as pv
from explorer.views.figures import FULL_PX
from explorer.views.model_figures import show_token, token_labels
from explorer.views.text import literal

HOW_TO_READ = N_(
    "**How to read it.** Each column is one head of the layer (its weights sum to 1); each row a key, the same "
    "position in both sentences. The first two charts are the attention from the compared word, one colour "
    "range for both; the third is the second sentence's weights minus the first's (below 0: the key gets less weight in the "
    "second sentence; above 0: more). A head whose weight moves from one noun to the other when the last word "
    "changes has read that word and tied it to the compared word, in that layer. The ranking names where each "
    "head's weight went from and to."
)


def controls() -> tuple[Any, Any, Any]:
    """The example pairs (each sets both sentences and the word), then slots for the second sentence's box, the
    word picker and the layer picker: the box above the two pickers, or, while presenting, in one row (a step
    is one screen; the second step, about the heads, shows only the pickers)."""
    if ui.shows("minimal-pairs"):
        row = st.container(
            horizontal=True, gap="small"
        )  # each name whole, wrapped to a second row if need be
        for pair in pm.PAIRS:
            row.button(pair.name, key=f"pairs.example.{pair.name}", help=_(pair.about), width="content",
                       on_click=state.set_pair, args=(pair.first, pair.second, pair.word))  # fmt: skip
    if not state.present():
        box = st.container()
        return (box, *st.columns(2))
    if ui.shows("minimal-pairs"):
        return tuple(st.columns([4, 2, 2], vertical_alignment="bottom"))  # type: ignore[return-value]
    return (None, *st.columns(2))


def second_box(slot: Any) -> str:
    """The second sentence's box in ``slot`` (or, with no slot, its value as it is); returns it, stripped."""
    if slot is None:
        return str(state.value(state.K_PAIR_OTHER, "")).strip()
    text = slot.text_input(
        _("Second sentence"),
        key=state.K_PAIR_OTHER,
        max_chars=500,
        placeholder=_("the sentence above with one word changed"),
        help=_(
            "The sentence above with one word changed: as many tokens, so that the keys line up position by "
            "position."
        ),
        persist_state="session",
    )
    return str(text).strip()


def _word_picker(first: list[str], second: list[str], differ: tuple[int, ...]) -> int:
    """The compared position: picked for this sentence, an example's word, or pm.default_word; bound to state."""
    text = state.sentence().strip()
    word = pm.pick_word(first, differ, state.pair_word(text))
    labels = token_labels(first)
    changed = set(differ)
    state.show("pairs.word", word)
    st.selectbox(_("The attention from the word"), list(range(len(first))),
                 key="pairs.word", on_change=_picked, args=(text,),
                 format_func=lambda i: f"{i}: {labels[i]}" + (f" / {show_token(second[i])}" if i in changed else ""))  # fmt: skip
    return word


def _picked(text: str) -> None:
    state.set_pair_word(text, int(state.value("pairs.word")))


def _layer_picker(moved: Any) -> int:
    """The layer shown, bound to the shared picked layer; each option says how much its heads moved at most."""
    n_layers, n_heads = moved.shape
    layer, _head = state.layer_head(n_layers, n_heads)
    state.show("pairs.layer", layer)
    st.selectbox(_("Layer"), list(range(n_layers)), key="pairs.layer", on_change=state.pick_back,
                 args=("pairs.layer", state.K_LAYER),
                 format_func={i: _("layer {layer} (a head moved up to {most:.2f})", layer=i + 1,
                                   most=float(moved[i].max())) for i in range(n_layers)}.__getitem__)  # fmt: skip
    return state.layer_head(n_layers, n_heads)[0]


def experiment(key: str, first: Any, second: str, slots: Any) -> tuple[analysis.PairShift, int] | None:
    """The checked pair's attention from the picked word, and the picked layer (the pickers in ``slots``, from
    ``controls``); None with a message drawn."""
    if not second:
        st.info(
            _("Type the sentence above with one word changed, or pick an example pair."),
            icon=":material/edit:",
        )
        return None
    try:
        with waiting.working(_("Running the second sentence…"), key):
            other = mc.run(key, second)
    except ValueError as exc:
        st.error(
            _("The model cannot read the second sentence: {why}", why=literal(exc)), icon=":material/warning:"
        )
        return None
    same = other.n_tokens == first.n_tokens
    differ = analysis.differing(first.tokens, other.tokens) if same else ()
    if not differ:
        try:
            pc.shift(key, first.text, other.text, 0)  # raises the ValueError that says why
        except ValueError as exc:
            st.warning(
                _("These sentences cannot be compared: {why}", why=literal(exc)), icon=":material/warning:"
            )
        return None
    with slots[1]:
        word = _word_picker(first.tokens, other.tokens, differ)
    with waiting.working(_("Comparing the two sentences' attention, head by head…"), key):
        got = pc.shift(key, first.text, other.text, word)
    with slots[2]:
        layer = _layer_picker(got.moved)
    return got, layer


def _words(tokens: list[str], differ: tuple[int, ...]) -> str:
    return " ".join(f"“{show_token(tokens[i])}”" for i in differ)


def draw(got: analysis.PairShift, layer: int) -> None:
    """The attention from the word in both sentences side by side; below, their difference beside the heads
    ranked. Presenting, each row is a step of its own (one screen each)."""
    sty = ui.style()
    word = f"“{show_token(got.tokens_a[got.query])}”"
    first, second = _words(got.tokens_a, got.differ), _words(got.tokens_b, got.differ)
    a, b, diff = got.a[layer], got.b[layer], got.difference[layer]  # (H, n) each
    if ui.shows("minimal-pairs"):
        zrange = colour_range.shared_weight_range(a, b, style=sty)
        ui.charts_in_row([
            (pv.rows_chart(a, got.tokens_a, title=_("With {words}: the attention from {word}, layer {layer}",
                                                    words=first, word=word, layer=layer + 1),
                           style=sty, zrange=zrange, width_px=ui.HALF), "pairs.first"),
            (pv.rows_chart(b, got.tokens_b, title=_("With {words}: the attention from {word}, layer {layer}",
                                                    words=second, word=word, layer=layer + 1),
                           style=sty, zrange=zrange, width_px=ui.HALF), "pairs.second"),
        ])  # fmt: skip
        if got.query in got.differ:
            st.caption(
                _("The word compared is itself the word that changed: its own query differs between the two.")
            )
    if ui.shows("minimal-pairs-heads"):
        title = _("Layer {layer}: how much of each head's weight moved", layer=layer + 1)
        moved = pv.difference_chart(diff, got.tokens_a, got.tokens_b,
                                    title=_("Difference: {second} − {first}", second=second, first=first),
                                    style=sty, width_px=ui.HALF)  # fmt: skip
        bars = pv.moved_bars(got.moved[layer], diff, got.tokens_b, title=title, style=sty, width_px=ui.HALF)
        ui.charts_in_row([(moved, "pairs.difference"), (pv.no_taller_than(bars, moved), "pairs.ranked")])
    if ui.step() is None:
        top = analysis.ranked(got.moved)[0]
        st.caption(
            _(
                "Over every layer, head {head} of layer {layer} moves most: {moved:.2f} of its weight. 0 would "
                "be the same weights in both sentences, 1 none of the weight on the same keys.",
                head=top[1] + 1,
                layer=top[0] + 1,
                moved=top[2],
            )
        )
        st.markdown(_(HOW_TO_READ))


def occlusion(key: str, text: str, other: str, width_px: int = FULL_PX) -> None:
    """/ablation (an encoder): the sentence as tokens coloured by how the cosine with ``other`` changes
    without each (the untouched model); width_px: the width the page gives the chart (its title wraps to it)."""
    if not other.strip():
        return
    n = mc.run(key, text).n_tokens
    if n > pm.MAX_OCCLUSION_TOKENS:
        st.caption(_("Which tokens make the sentences alike (each removed in turn): shown for sentences of up "
                     "to {most} tokens ([CLS] and [SEP] included); this one has {n}.", most=pm.MAX_OCCLUSION_TOKENS,
                     n=n))  # fmt: skip
        return
    try:
        with waiting.working(_("Removing each token in turn and running the sentence again…"), key):
            delta = pc.occlusion_similarity(key, text, other)
    except ValueError as exc:
        st.caption(
            _("Which tokens make the sentences alike cannot be measured here: {why}", why=literal(exc))
        )
        return
    tokens = mc.run(key, text).tokens
    ui.chart(
        pv.similarity_strip(tokens, np.asarray(delta), style=ui.style(), width_px=width_px),
        "ablation.occlusion",
    )
    st.caption(
        _(
            "Each token of the first sentence removed in turn (the others keep their order) and the sentence "
            "run again, every head on: the number is how the cosine with the second sentence changes without "
            "it. Below 0, the sentences are less alike without the token (it made them alike); above 0, more "
            "alike. [CLS] and [SEP] stay in every run."
        )
    )
