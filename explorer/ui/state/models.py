"""The real-model pages' choices: the model, layer, head, switched-off heads, rankings, the logit lens's
followed token and the induction run."""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer.model import models
from explorer.ui.state.core import say
from explorer.ui.state.keys import (
    _RANKINGS,
    K_FOLLOW,
    K_FOLLOW_AT,
    K_IND_LEN,
    K_IND_SEED,
    K_LAYER,
    K_MODEL,
    K_MODEL_HEAD,
    K_OFF,
    SETTING_KEYS,
)


def model_key() -> str:
    return str(st.session_state.get(K_MODEL, "toy"))


def set_model(key: str) -> None:
    """The real model picked (explorer.model.models.MODELS); "toy": none (the real-model pages show MiniLM)."""
    if key not in models.MODELS:
        raise ValueError(f"not a model: {key!r}")
    st.session_state[K_MODEL] = key


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
    """What a link asked of the real-model pages (explorer.sharing.model_link.LinkRead): set, with its messages."""
    ss = st.session_state
    if link.model is not None:
        ss[K_MODEL] = link.model
    for key, value in ((K_LAYER, link.layer), (K_MODEL_HEAD, link.head)):
        if value is not None:
            ss[key] = value
    if link.off is not None:
        set_off_heads(link.off)
    for key, value in ((K_FOLLOW, link.follow), (K_FOLLOW_AT, link.follow_at), (K_IND_SEED, link.ind_seed),
                       (K_IND_LEN, link.ind_len)):  # fmt: skip
        if value is not None:
            ss[key] = value
    for text in link.messages:
        say("warning", text)


def lens_follow() -> tuple[int | None, int | None]:
    """/logit-lens: (the followed token's id, the position, 0-based); None where the page picks its default."""
    token, at = int(st.session_state.get(K_FOLLOW, -1)), int(st.session_state.get(K_FOLLOW_AT, -1))
    return (None if token < 0 else token), (None if at < 0 else at)


def induction_run() -> tuple[int, int]:
    """/induction: (seed, length) of the random tokens."""
    ss = st.session_state
    return int(ss.get(K_IND_SEED, models.INDUCTION_SEED)), int(ss.get(K_IND_LEN, models.INDUCTION_LENGTH))


def real_model_link() -> dict[str, Any]:
    """The real-model pages' state as explorer.sharing.model_link.params takes it (beside model, layer, head,
    off): the followed token and position, the induction run."""
    (follow, at), (seed, length) = lens_follow(), induction_run()
    return {"follow": follow, "follow_at": at, "ind_seed": seed, "ind_len": length}


def off_heads() -> tuple[tuple[int, int], ...]:
    return tuple(st.session_state.get(K_OFF, ()))


def set_off_heads(pairs: tuple[tuple[int, int], ...]) -> None:
    st.session_state[K_OFF] = tuple(sorted(set(pairs)))


def switch_heads_off(model: str, pairs: tuple[tuple[int, int], ...]) -> None:
    """An experiment's heads of `model` switched off (a callback): that model picked, those heads alone off."""
    set_model(model)
    set_off_heads(pairs)


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
