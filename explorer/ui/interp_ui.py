"""The controls of /logit-lens and /induction: which position and token to follow, the random tokens' seed and
length. Each is bound to its key in explorer.ui.state with persist_state="session", so it holds across pages
and the address bar carries it (follow=, follow_at=, ind_seed=, ind_len=). And the line view's chart with its
token picker (/head, /model): a click on a token keeps only its lines."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st
from numpy.typing import NDArray

from explorer.i18n import _, ngettext
from explorer.model import models
from explorer.ui import state
from explorer.ui import widgets as ui
from explorer.views import line_view as lv
from explorer.views.model_figures import show_token

LAST = -1  # the pickers' "the last position" and "the model's own answer"


def position_picker(labels: Sequence[str], where: object = st) -> int:
    """The position whose prediction is followed (the last by default): labels, the n token labels."""
    n = len(labels)
    state.keep_within(state.K_FOLLOW_AT, [LAST, *range(n)], LAST)  # a shorter sentence than the position's
    at = where.selectbox(  # type: ignore[attr-defined]
        _("Position"), [LAST, *range(n)], key=state.K_FOLLOW_AT, persist_state="session",
        format_func={LAST: _("the last: {token}", token=labels[-1]), **{i: f"{i}: {labels[i]}" for i in range(n)}}.__getitem__,
        help=_("The prediction after this token: what the model would say comes next."),
    )  # fmt: skip
    return n - 1 if at == LAST else int(at)


def token_picker(options: list[int], word: Callable[[int], str], where: object = st) -> int:
    """The token followed (the model's own answer by default): options, the token ids offered
    (compute.interp.candidates, the model's answer first); word: id -> display string."""
    picked = int(state.value(state.K_FOLLOW, LAST))
    if picked != LAST and picked not in options:  # a token from a link, or picked at another position
        options = [*options, picked]
    token = where.selectbox(  # type: ignore[attr-defined]
        _("Token to follow"), [LAST, *options], key=state.K_FOLLOW, persist_state="session",
        format_func={LAST: _("the model's answer: “{token}”", token=show_token(word(options[0]))),
                     **{t: f"“{show_token(word(t))}”" for t in options}}.__getitem__,  # this run's words
        help=_("The model's own top five here, then every token that some layer puts first."),
    )  # fmt: skip
    return options[0] if token == LAST else int(token)


def induction_controls(left: object = st, right: object = st) -> tuple[int, int]:
    """The random tokens' seed and length (how many, each repeated once), drawn in ``left`` and ``right``."""
    left.number_input(  # type: ignore[attr-defined]
        _("Seed"), *models.INDUCTION_SEEDS, step=1, key=state.K_IND_SEED, persist_state="session",
        help=_("Which random tokens: the same seed gives the same tokens on every machine."),
    )  # fmt: skip
    right.slider(  # type: ignore[attr-defined]
        _("Tokens (each comes twice)"), *models.INDUCTION_LENGTHS, key=state.K_IND_LEN, persist_state="session",
        help=_("The standard run, which labels heads on Every layer and head: {length} tokens, seed {seed}.",
               length=models.INDUCTION_LENGTH, seed=models.INDUCTION_SEED),
    )  # fmt: skip
    return state.induction_run()


def lines_chart(
    weights: NDArray[np.floating],
    labels: Sequence[str],
    heads: Sequence[str],
    key: str,
    title: str,
    colours: Sequence[int] | None = None,
) -> None:
    """The line view (views.line_view) of weights (m, n, n) under a picker of whose lines to keep: every
    token's, or one query's or one key's; a click on a token in the chart picks it (a second click, all)."""
    widget, pending, n = f"{key}.focus", f"{key}.focus_pick", len(labels)
    options = ["all", *(f"q{i}" for i in range(n)), *(f"k{j}" for j in range(n))]
    state.take_pending(widget, pending)  # a click of the last run: applied before the picker is drawn
    state.keep_within(widget, options, "all")
    choice = st.selectbox(
        _("Lines of"), options, key=widget, persist_state="session",  # in the link (view_params: lines_of=)
        format_func={"all": _("every token"), **{f"q{i}": _("query {i}: {token}", i=i, token=labels[i]) for i in range(n)},
                     **{f"k{j}": _("key {i}: {token}", i=j, token=labels[j]) for j in range(n)}}.__getitem__,  # this run's words
        help=_("Or click a token in the chart (click it again for every token)."),
    )  # fmt: skip
    focus = None if choice == "all" else ("query" if choice[0] == "q" else "key", int(choice[1:]))
    fig = lv.drawn_line_view(
        weights, labels, heads, style=ui.style(), title=title, focus=focus, colours=colours
    )
    picked = lv.picked_token(fig, ui.chart(fig, key, clickable=True))
    if picked is not None:
        state.set_pending(pending, "all" if picked == focus else f"{picked[0][0]}{picked[1]}")
        st.rerun()


def induction_experiment(
    key: str, heads: tuple[tuple[int, int], ...], off: tuple[tuple[int, int], ...]
) -> None:
    """The lesson's experiment in one button: switch the induction heads off (those labelled on the standard
    run), and the second copy's loss above shows whether the copy fails; the same heads open on Switch heads
    off. With heads off, the way back (every head on) and the link."""
    if not heads:
        return
    named = ", ".join(f"{layer + 1}.{h + 1}" for layer, h in heads)
    left, right = st.columns(2, vertical_alignment="center")
    if tuple(sorted(off)) != heads:
        left.button(
            ngettext(
                "Switch the {n} induction head off ({heads})",
                "Switch the {n} induction heads off ({heads})",
                len(heads),
                heads=named,
            ),  # fmt: skip
            key="induction.switch_off",
            icon=":material/toggle_off:",
            on_click=state.switch_heads_off,
            args=(key, heads),
            help=_(
                "Runs the same tokens with these heads' outputs removed: does the second copy still get "
                "easy? The heads stay off on Switch heads off, where you can switch any of them back on."
            ),
        )
    else:
        left.button(
            _("Switch every head back on"),
            key="induction.switch_on",
            icon=":material/toggle_on:",
            on_click=state.switch_heads_off,
            args=(key, ()),
        )
    if off:
        label = ngettext("See the {n} head switched off on Switch heads off",
                         "See the {n} heads switched off on Switch heads off", len(off))  # fmt: skip
        try:
            right.page_link("app_pages/ablation.py", label=label, icon=":material/toggle_off:")
        except Exception:  # noqa: BLE001 - a page run on its own (tests) has no navigation to link into
            right.markdown(f"**{label}**")
