"""The controls of /logit-lens and /induction: which position and token to follow, the random tokens' seed and
length. Each is bound to its key in explorer.ui.state with persist_state="session", so it holds across pages
and the address bar carries it (follow=, follow_at=, ind_seed=, ind_len=)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from explorer.model import models
from explorer.ui import state
from explorer.views.model_figures import show_token

LAST = -1  # the pickers' "the last position" and "the model's own answer"


def position_picker(labels: Sequence[str], where: object = st) -> int:
    """The position whose prediction is followed (the last by default): labels, the n token labels."""
    ss, n = st.session_state, len(labels)
    if int(ss.get(state.K_FOLLOW_AT, LAST)) >= n:  # a shorter sentence than the one the position was for
        ss[state.K_FOLLOW_AT] = LAST
    at = where.selectbox(  # type: ignore[attr-defined]
        "Position", [LAST, *range(n)], key=state.K_FOLLOW_AT, persist_state="session",
        format_func=lambda i: f"the last: {labels[-1]}" if i == LAST else f"{i}: {labels[i]}",
        help="The prediction after this token: what the model would say comes next.",
    )  # fmt: skip
    return n - 1 if at == LAST else int(at)


def token_picker(options: list[int], word: Callable[[int], str], where: object = st) -> int:
    """The token followed (the model's own answer by default): options, the token ids offered
    (compute.interp.candidates, the model's answer first); word: id -> display string."""
    picked = int(st.session_state.get(state.K_FOLLOW, LAST))
    if picked != LAST and picked not in options:  # a token from a link, or picked at another position
        options = [*options, picked]
    token = where.selectbox(  # type: ignore[attr-defined]
        "Token to follow", [LAST, *options], key=state.K_FOLLOW, persist_state="session",
        format_func=lambda t: f"the model's answer: “{show_token(word(options[0]))}”" if t == LAST
        else f"“{show_token(word(t))}”",
        help="The model's own top five here, then every token that some layer puts first.",
    )  # fmt: skip
    return options[0] if token == LAST else int(token)


def induction_controls(left: object = st, right: object = st) -> tuple[int, int]:
    """The random tokens' seed and length (how many, each repeated once), drawn in ``left`` and ``right``."""
    left.number_input(  # type: ignore[attr-defined]
        "Seed", *models.INDUCTION_SEEDS, step=1, key=state.K_IND_SEED, persist_state="session",
        help="Which random tokens: the same seed gives the same tokens on every machine.",
    )  # fmt: skip
    right.slider(  # type: ignore[attr-defined]
        "Tokens (each comes twice)", *models.INDUCTION_LENGTHS, key=state.K_IND_LEN, persist_state="session",
        help=f"The standard run, which labels heads on Every layer and head: {models.INDUCTION_LENGTH} tokens, "
        f"seed {models.INDUCTION_SEED}.",
    )  # fmt: skip
    return state.induction_run()
