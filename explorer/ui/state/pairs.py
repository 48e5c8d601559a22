"""The two-sentence experiments' choices: /minimal-pairs' second sentence and the word compared (for the
sentence it was picked for), and what links carry of them and of /ablation's second sentence."""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer.ui.state.core import say, sentence
from explorer.ui.state.keys import _PAIR_WORD, K_OTHER, K_PAIR_OTHER, MODEL_DEFAULTS


def pair_word(text: str) -> int | str | None:
    """The position picked for this first sentence, an example's word to find in it, or None."""
    picked = st.session_state.get(_PAIR_WORD)
    return picked[1] if picked is not None and picked[0] == text else None


def set_pair_word(text: str, word: int | str) -> None:
    st.session_state[_PAIR_WORD] = (text, int(word) if isinstance(word, int) else str(word))


def set_pair(first: str, second: str, word: str) -> None:
    """Both sentences of a minimal pair and the word compared (a callback: before the boxes are drawn); the
    first replaces the student's sentence, said and one Undo away."""
    from explorer.ui.state.actions import replace_sentence

    replace_sentence(first)
    st.session_state[K_PAIR_OTHER] = second
    set_pair_word(first, word)


def apply_pair_link(link: Any) -> None:
    """What a link asked of the two-sentence experiments (explorer.model.pairs.PairLink), with its messages."""
    ss = st.session_state
    if link.pair is not None:
        ss[K_PAIR_OTHER] = link.pair
    if link.word is not None:
        set_pair_word(sentence().strip(), link.word)
    if link.other is not None:
        ss[K_OTHER] = link.other
    for text in link.messages:
        say("warning", text)


def pair_link_state() -> tuple[str, int | None, str, str]:
    """(second sentence, word, /ablation's second sentence, its default) as links carry them: the word only
    while its sentence is there and once it is a position."""
    word = pair_word(sentence().strip())
    other = str(st.session_state.get(K_OTHER, MODEL_DEFAULTS[K_OTHER]))
    pair = str(st.session_state.get(K_PAIR_OTHER, ""))
    return pair, word if isinstance(word, int) else None, other, MODEL_DEFAULTS[K_OTHER]
