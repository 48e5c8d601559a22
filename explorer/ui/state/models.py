"""The real-model pages' choices: the model, layer, head, switched-off heads, rankings."""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer.ui.state.core import say
from explorer.ui.state.keys import _RANKINGS, K_LAYER, K_MODEL, K_MODEL_HEAD, K_OFF, SETTING_KEYS


def model_key() -> str:
    return str(st.session_state.get(K_MODEL, "toy"))


def layer_head(n_layers: int, n_heads: int) -> tuple[int, int]:
    """The picked (layer, head) of the real model, kept inside its sizes."""
    ss = st.session_state
    layer = int(min(max(int(ss.get(K_LAYER, 0)), 0), n_layers - 1))
    head = int(min(max(int(ss.get(K_MODEL_HEAD, 0)), 0), n_heads - 1))
    ss[K_LAYER], ss[K_MODEL_HEAD] = layer, head
    return layer, head


def picked_head() -> tuple[int, int]:
    """The picked (layer, head) of the real model, 0-based, as stored."""
    return int(st.session_state.get(K_LAYER, 0)), int(st.session_state.get(K_MODEL_HEAD, 0))


def set_picked(key: str, value: int) -> None:
    """Set the picked layer (K_LAYER) or head (K_MODEL_HEAD) of the real model, 0-based."""
    if key not in (K_LAYER, K_MODEL_HEAD):
        raise ValueError(f"not a picked layer or head key: {key!r}")
    st.session_state[key] = int(value)


def apply_model_link(link: Any) -> None:
    """What a link asked of the real-model pages (explorer.model.models.LinkRead): set, with its messages."""
    ss = st.session_state
    if link.model is not None:
        ss[K_MODEL] = link.model
    for key, value in ((K_LAYER, link.layer), (K_MODEL_HEAD, link.head)):
        if value is not None:
            ss[key] = value
    if link.off is not None:
        set_off_heads(link.off)
    for text in link.messages:
        say("warning", text)


def off_heads() -> tuple[tuple[int, int], ...]:
    return tuple(st.session_state.get(K_OFF, ()))


def set_off_heads(pairs: tuple[tuple[int, int], ...]) -> None:
    st.session_state[K_OFF] = tuple(sorted(set(pairs)))


def ranking(model: str, text: str) -> Any:
    """The finished ranking of this model and sentence in this session, or None."""
    return st.session_state.setdefault(_RANKINGS, {}).get((model, text))


def set_ranking(model: str, text: str, step: Any) -> None:
    rankings = st.session_state.setdefault(_RANKINGS, {})
    if len(rankings) >= 8:  # a few sentences' rankings per session, no more
        rankings.pop(next(iter(rankings)))
    rankings[(model, text)] = step


def append_to_sentence(token: str) -> None:
    """Append a predicted token to the sentence (a callback: before the sentence box is drawn)."""
    key = SETTING_KEYS["sentence"]
    st.session_state[key] = str(st.session_state.get(key) or "") + token
