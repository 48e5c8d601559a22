"""What changes the session's example: cell edits, reset, re-randomize, undo, presets, a real layer
opened or closed, the questions of predict-then-reveal."""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st

from explorer.compute import model_compute
from explorer.i18n import _
from explorer.model import example as exm
from explorer.model import layer as layers
from explorer.model.example import Example
from explorer.model.layer import describe
from explorer.ui.state.core import (
    _bump,
    _kept,
    apply_whole,
    clamp_ui,
    current,
    draws,
    matrix,
    say,
    tokens,
)
from explorer.ui.state.keys import (
    _APPLYING,
    _DRAWS,
    _HEAD_NEXT,
    _MATRICES,
    _PRESET_AT,
    _QR,
    _REVEALED,
    _REVEALED_FOR,
    _TOY,
    _UNDO,
    _UNDO_DRAWS,
    K_ASK,
    K_HEAD,
    K_KEY,
    K_PRESENT,
    K_PRESET,
    K_QUERY,
    MODEL_QUESTIONS,
    SETTING_KEYS,
)

# ---------------------------------------------------------------- writing


def editable(name: str) -> np.ndarray:
    """A writable copy of a canonical matrix to edit, in float64 (a real layer's trained matrices are the
    model's shared float32 arrays: an edit in float32 would round the number typed)."""
    arr = matrix(name)
    return np.array(arr, dtype=np.float64 if arr.dtype.kind == "f" else arr.dtype, copy=True)


def set_matrix(name: str, value: np.ndarray, *, from_editor: bool = False) -> None:
    """Replace a canonical matrix. Changes from outside its editor bump its version (fresh editor)."""
    st.session_state[_MATRICES][name] = _kept(value)
    if not from_editor:
        _bump(name)


def set_setting(name: str, value: Any) -> None:
    """Set a scalar setting by its Example field name (before its widget is drawn in this run)."""
    st.session_state[SETTING_KEYS[name]] = value


def apply_picks(link: Any) -> None:
    """What a link picked on the explorer pages (explorer.sharing.picks.PicksRead: the head shown, the query
    and key tokens, 0-based and inside the example): set, with its messages. Before the pickers are drawn."""
    ss = st.session_state
    for key, value in ((K_HEAD, link.head), (K_QUERY, link.query), (K_KEY, link.key)):
        if value is not None:
            ss[key] = int(value)
    for text in link.messages:
        say("warning", text)


def rerandomize(*names: str) -> None:
    """A new seeded draw of each named weight matrix (its draw counter goes up; reset goes back to draw 0).

    One step for undo(): the edits the new draw replaces can be restored.
    """
    remember_for_undo()
    ss = st.session_state
    for name in names:
        ss[_DRAWS][name] = ss[_DRAWS].get(name, 0) + 1
        _replace_with_default(name)


def reset_matrix(*names: str) -> None:
    """Each named matrix back to the seed's first draw, as one step that undo() can take back."""
    remember_for_undo()
    for name in names:
        st.session_state[_DRAWS][name] = 0
        _replace_with_default(name)


def _replace_with_default(name: str) -> None:
    ex = current()
    default = exm.default_matrices(ex, tokens(), draws())[name]
    set_matrix(name, default)


def apply_example(
    ex: Example, *, remember: bool = True, preset: str | None = None, drawn: dict[str, int] | None = None
) -> None:
    """Make `ex` the current state (presets, links, imports). The old state can be restored by undo().
    `preset`: the preset it is loaded from; `drawn`: its seeded draws (core.apply_whole)."""
    if remember:
        remember_for_undo()
    record = (ex, preset, drawn)
    st.session_state[_APPLYING] = record  # all of it in one write: from here it is applied whole
    apply_whole(*record)


def open_layer(key: str, layer: int, head: int | None = None) -> None:
    """Make layer `layer` (0-based) of real model `key` the explorer's example, on the current sentence:
    its sizes, its trained weights and X = its input (its Layer: explorer.model.layer). Undo, or close_layer, goes back."""
    ss, ex = st.session_state, current()
    if describe(ex).drawn:  # the toy example, kept for "Back to the toy model"
        ss[_TOY] = ex
    new = ex.with_(**layers.of_key(key).settings_of(key, int(layer)))
    model_compute.prepare(new)
    toks, _cut = exm.tokens_for(new)
    if (
        head is not None
    ):  # the page switch replays the picker's old value: the picker takes this one when drawn
        ss[_HEAD_NEXT] = int(head)  # taken by the explorer's head picker (take_picked_head)
    apply_example(new.with_(**exm.default_matrices(new, toks)))
    clamp_ui(len(toks), new.n_heads)
    say("info", _("Opened {layer} in the explorer.", layer=describe(new).title))


def toy_example() -> Example:
    """The toy example: the current one, or while a real layer is open the one kept when it was opened (or a
    new one): what close_layer goes back to."""
    ex = current()
    if describe(ex).drawn:
        return ex
    toy = st.session_state.get(_TOY)
    return toy if toy is not None else Example(sentence=ex.sentence)


def close_layer() -> None:
    """Back to the toy model (as it was before the layer was opened), on the current sentence."""
    ss, ex = st.session_state, current()
    toy = ss.get(_TOY)
    if toy is None:
        toy = Example(sentence=ex.sentence)
    apply_example(exm.conform(toy.with_(sentence=ex.sentence), old_tokens=exm.tokens_for(toy)[0]))
    ss.pop(_TOY, None)  # after: a run stopped half-way (explorer.ui.state) still has the toy to go back to


def remember_for_undo() -> None:
    st.session_state[_UNDO] = current()
    st.session_state[_UNDO_DRAWS] = draws()


def can_undo() -> bool:
    return st.session_state.get(_UNDO) is not None


def undo() -> None:
    """Restore the state saved before the last cell edit, reset, re-randomize, preset or import."""
    ex = st.session_state.get(_UNDO)
    if ex is not None:
        apply_example(ex, remember=False, drawn=st.session_state.get(_UNDO_DRAWS))
        st.session_state[_UNDO] = None  # after: a run stopped before it has the example back (the record)
        say("info", _("Restored the example as it was before."))


def set_preset(name: str) -> None:
    st.session_state[_PRESET_AT] = name  # first: a run stopped between leaves the picker to follow it
    st.session_state[K_PRESET] = name


def set_present(on: bool) -> None:
    st.session_state[K_PRESENT] = bool(on)


def ask() -> int | None:
    """Predict, then reveal: the query token whose weights are hidden until revealed, or None."""
    i = int(st.session_state.get(K_ASK, -1))
    return None if i < 0 else i


def set_ask(i: int | None) -> None:
    """Ask about query i (None: no question); the answer is hidden again."""
    st.session_state[K_ASK] = -1 if i is None else int(i)
    hide_answer()


def model_questions() -> tuple[str, ...]:
    """The real-model pages' questions that are on ("next", "heads"), in a fixed order."""
    return tuple(w for w, key in MODEL_QUESTIONS.items() if st.session_state.get(key, False))


def set_model_questions(words: tuple[str, ...]) -> None:
    """Ask these questions (a link's ask=next,heads); each answer is hidden again."""
    for w, key in MODEL_QUESTIONS.items():
        st.session_state[key] = w in words
    st.session_state[_REVEALED_FOR] = {}


_EVERY = "*"  # revealed whatever the model and sentence (a lesson's Reveal); a `what` is "model:text"


def model_revealed(word: str, what: str) -> bool:
    """The answer of question `word` was revealed for `what` (the model and its sentence)."""
    got = st.session_state.get(_REVEALED_FOR, {}).get(word)
    return got in (_EVERY, what)


def revealed_by_lesson(word: str = "") -> bool:
    """The real-model question `word` ("": the explorer's question, ask=<token>) was revealed by a lesson
    step's Reveal (the lesson's bar says the answer)."""
    if not word:
        return st.session_state.get(_REVEALED) == _EVERY
    return st.session_state.get(_REVEALED_FOR, {}).get(word) == _EVERY


def reveal_every_question() -> None:
    """A lesson step's Reveal: the page's own hidden answers too (its weights, the next word, the head that
    matters most), whatever its model and sentence, until the questions are asked again."""
    st.session_state[_REVEALED] = _EVERY  # truthy: revealed()
    st.session_state[_REVEALED_FOR] = dict.fromkeys(MODEL_QUESTIONS, _EVERY)


def reveal_model(word: str, what: str) -> None:
    st.session_state[_REVEALED_FOR] = {**st.session_state.get(_REVEALED_FOR, {}), word: what}


def revealed() -> bool:
    return bool(st.session_state.get(_REVEALED, False))


def reveal() -> None:
    st.session_state[_REVEALED] = True


def hide_answer() -> None:
    st.session_state[_REVEALED] = False


def open_qr() -> None:
    """The "Show QR code" button's callback: the QR dialog opens on the run it starts (take_qr)."""
    st.session_state[_QR] = True


def take_qr() -> bool:
    """True once after open_qr(): the dialog opens once, and closes for good when it is dismissed."""
    return bool(st.session_state.pop(_QR, False))


def editor_state(key: str) -> dict[str, Any]:
    """The edits a data editor reported (edited_rows etc.), read in its on_change callback."""
    return dict(st.session_state.get(key, {}) or {})


def replace_sentence(text: str) -> None:
    """An example's sentence put in place of the student's (a callback), said, and one Undo away: the sentence
    is every page's, so it never changes without a word."""
    was = str(st.session_state.get(SETTING_KEYS["sentence"]) or "").strip()
    if was == text.strip():
        return
    remember_for_undo()
    st.session_state[SETTING_KEYS["sentence"]] = text
    if was:
        shown = was if len(was) <= 80 else was[:79] + "…"
        say("info", _("The example's sentence replaced yours on every page (it was “{sentence}”): Undo, in the "
                      "sidebar, brings it back.", sentence=shown))  # fmt: skip
