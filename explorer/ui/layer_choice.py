"""Which weights the explorer's steps run on: the sidebar's Model choice, and the note on the first steps.

The choices come from the models table: every model whose layers open without loading anything (the toy,
whose weights are random draws, and the model trained here, one choice per layer), and the real layer open
now, when one is. Picking the drawn one goes back to the toy; picking a layer opens it (state.open_layer)
on the head whose role is clearest (its description's `lead_head`).
"""

from __future__ import annotations

import streamlit as st

from explorer.i18n import _
from explorer.model import layer as layers
from explorer.model import models
from explorer.ui import state
from explorer.ui import widgets as ui

WIDGET = "frame.layer_choice"  # the sidebar's Model choice (a mirror of the current example's layer)


def _key(model: str, layer: int) -> str:
    return f"{model}:{int(layer)}"


def _parts(key: str) -> tuple[str, int]:
    model, _sep, layer = key.partition(":")
    return model, int(layer or 0)


def options() -> dict[str, str]:
    """Option key ("model:layer") -> its label: the models that open without loading, each layer, and the
    example's own layer when it is another."""
    out: dict[str, str] = {}
    for key, row in models.MODELS.items():
        if row.engine is not None:
            continue  # a real model loads first: it opens from its own pages (Open layer … in the explorer)
        if layers.of_key(key).DRAWN:
            out[_key(key, 0)] = _("{model}: random weights", model=row.title)
            continue
        for i in range(row.shape[0]):
            out[_key(key, i)] = _("{model}, layer {layer}", model=row.title, layer=i + 1)
    here = _current()
    if here not in out:  # a real model's layer, opened from its page
        title = state.description().title
        out[here] = title[:1].upper() + title[1:]
    return out


def _current() -> str:
    ex = state.current()
    return _key(str(ex.real), int(ex.real_layer))


def _picked() -> None:
    model, layer = _parts(str(state.value(WIDGET)))
    if layers.of_key(model).DRAWN:
        state.close_layer()
        return
    ex = state.current().with_(**layers.of_key(model).settings_of(model, layer))
    state.open_layer(model, layer, layers.describe(ex).lead_head)


def choice() -> None:
    """The sidebar's Model choice: random weights (the toy: the arithmetic) or a trained layer (the meaning)."""
    shown = options()
    state.show(WIDGET, _current())
    st.selectbox(
        _("Model"),
        list(shown),
        key=WIDGET,
        format_func=lambda k: shown.get(k, k),
        on_change=_picked,
        help=_(
            "The toy's weights are random draws: its steps show the arithmetic of attention, not meaning. The "
            "tiny model was trained here (page Watch a transformer learn): its layer 1 has a head that looks "
            "at the token before, its layer 2 heads that find an earlier copy of the current word and look at "
            "the word after it."
        ),
    )


def open_tiny(layer: int) -> None:
    """A button's callback: open layer `layer` of the first trained model that opens without loading."""
    for key, row in models.MODELS.items():
        if row.engine is None and not layers.of_key(key).DRAWN:
            state.show(WIDGET, _key(key, layer))
            _picked()
            return


def weights_note() -> None:
    """On the first steps: whether the weights on screen mean anything. Random draws say so and offer the
    trained model; a trained layer's banner already says what it is."""
    shown = state.description()
    if not shown.drawn or ui.step() is not None:  # presenting, every pixel of 1080 is the step's
        return
    with st.container(border=True, key="weights-note"):
        st.markdown(
            _(
                "**These weights are random.** The toy model's W_Q, W_K and W_V are random draws (the sidebar's "
                "seed picks them): every step below is the true arithmetic of attention, but which word a head "
                "picks means nothing. The **tiny trained model** learned its weights here: its heads look at "
                "the word before, or find an earlier copy of the current word and look at the word after it."
            )
        )
        a, b = st.columns(2)
        a.button(_("Open the trained model, layer 1"), key="weights-note.l1", on_click=open_tiny, args=(0,),
                 icon=":material/school:", help=_("Its previous-token head: each word looks at the word before."))  # fmt: skip
        b.button(_("Open the trained model, layer 2"), key="weights-note.l2", on_click=open_tiny, args=(1,),
                 icon=":material/school:", help=_("Its induction heads: a repeated word looks at what followed "
                 "its earlier copy."))  # fmt: skip
