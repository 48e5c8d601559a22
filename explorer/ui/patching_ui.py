"""/patching's widgets: the corrupt sentence and example pairs, the two answers, the sweeps' button with its
progress bar; and the occlusion strip of /next-token. The compute is explorer.compute.patching."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import streamlit as st

from attention_core import analysis
from explorer import i18n
from explorer.compute import jobs, timing
from explorer.compute import model_compute as mc
from explorer.compute import patching as pc
from explorer.i18n import N_, _, ngettext
from explorer.model import models
from explorer.model import patching as pm
from explorer.ui import state, waiting
from explorer.ui import widgets as ui
from explorer.views import patching as pv
from explorer.views.model_figures import show_token
from explorer.views.text import literal

# The sweeps left to run: the button's label and what they cost (runs, wait), per set of sites
TO_RUN = {
    ("resid", "head"): (
        N_("Run the patching: residual stream and heads"),
        N_("Residual stream and heads: {runs} runs of the model from the patched layer on, {wait}; a pair "
           "someone has run already shows at once."),
    ),
    ("resid",): (
        N_("Run the patching: residual stream"),
        N_("Residual stream: {runs} runs of the model from the patched layer on, {wait}; a pair someone has "
           "run already shows at once."),
    ),
    ("head",): (
        N_("Run the patching: heads"),
        N_("Heads: {runs} runs of the model from the patched layer on, {wait}; a pair someone has run already "
           "shows at once."),
    ),
}  # fmt: skip
RUN_FIRST = {
    "resid": N_("Run the patching (on the left) to see the residual stream here."),
    "head": N_("Run the patching (on the left) to see the heads here."),
}

HOW_TO_READ = N_(
    "**How to read it.** Each cell is one experiment: the corrupt sentence runs again with that one activation "
    "taken from the clean run. **1** (the strongest colour) means that activation alone brings back the clean "
    "answer's whole lead over the wrong token; **0** means it changes nothing; below 0 it helps the wrong token. "
    "In the residual stream, look for the word that differs early on (the information is still where the word "
    "is) and the last position late (it has been moved there, where the next token is read off); the layers "
    "where the strong cell jumps from one to the other are where attention moves it, and the head sweep names "
    "the heads that do. Attention maps show where heads look; patching shows what the answer needs."
)


# The Run button's key: the clicker's next key presses it first (explorer.ui.clicker.RUN)
RUN = "patching.run"


def columns() -> tuple[Any, Any]:
    """Where the controls and the sweeps go: one above the other, or, while presenting, side by side (the
    controls on the left, the step's sweep as tall as the screen allows on the right: one screen)."""
    if ui.step():
        return tuple(st.columns(2, gap="medium"))  # type: ignore[return-value]
    return st.container(), st.container()


def corrupt_box() -> str:
    """Example pairs (each sets both sentences) and the corrupt sentence's box; returns it, stripped."""
    row = st.container(horizontal=True, gap="small")  # each name whole ("Eiffel Tower → Colosseum"), wrapped
    for pair in pm.PAIRS:
        row.button(pair.name, key=f"patching.pair.{pair.name}", help=_(pair.about), width="content",
                   on_click=state.set_patch_pair, args=(pair.clean, pair.corrupt))  # fmt: skip
    text = st.text_input(
        _("Corrupt sentence: the sentence above with a word changed"),
        key=state.K_PATCH_CORRUPT,
        max_chars=500,
        help=_("As many tokens as the sentence above, so that positions line up: change a name or a place."),
        placeholder=_("e.g. the sentence above with one name or place changed"),
        persist_state="session",  # kept while another page is open (links and the share panel carry it)
    )
    return str(text).strip()


def _picker(which: str, key: str, sentence: str, label: str, default: int) -> int:
    """A select box of the sentence's most likely next tokens (and the one a link picked), bound to state."""
    ids, strings, probs = pc.candidates(key, sentence, pm.CANDIDATES)
    vocab = models.model(key).config.vocab_size
    value = state.patch_id(which, sentence)
    if value is not None and value >= vocab:
        st.warning(_("The link's {param}= is not a token id of this model (0 to {last}): the most likely next "
                     "token is picked instead.", param=which, last=vocab - 1), icon=":material/link_off:")  # fmt: skip
    if value is None or value >= vocab:
        value = default
    options = list(ids) + ([value] if value not in ids else [])
    shown = dict(zip(ids, strings, strict=True)) | {value: models.model(key).token_strings([value])[0]}
    p = dict(zip(ids, probs, strict=True))
    if value not in p:
        p[value] = float(mc.run(key, sentence).next_token_probs()[value])
    widget = state.show(f"patching.{which}", value)
    st.selectbox(label, options, key=widget, format_func={t: f"“{show_token(shown[t])}”  p = {i18n.decimal(p[t], 3)}" for t in options}.__getitem__,
                 on_change=_picked, args=(which, sentence, widget),
                 help=_("One of the {n} most likely next tokens after that sentence.", n=pm.CANDIDATES))  # fmt: skip
    return value


def _picked(which: str, sentence: str, widget: str) -> None:
    state.set_patch_id(which, sentence, int(state.value(widget)))


def experiment(key: str, clean: Any, corrupt: str) -> analysis.PatchPair | None:
    """The answers and the checked pair (with both runs' logit differences), or None with a message drawn."""
    if not corrupt:
        st.info(_("Type a corrupt sentence, or pick an example pair above."), icon=":material/edit:")
        return None
    try:
        with waiting.working(_("Running the corrupt sentence…"), key):
            other = mc.run(key, corrupt)
    except ValueError as exc:
        st.error(
            _("The model cannot read the corrupt sentence: {why}", why=literal(exc)),
            icon=":material/warning:",
        )
        return None
    longest = max(clean.n_tokens, other.n_tokens)
    if longest > pm.MAX_PATCH_TOKENS:
        st.warning(_("Patching runs the model's later layers once per layer and token: here sentences of up to "
                     "{most} tokens (these have {clean} and {corrupt}).", most=pm.MAX_PATCH_TOKENS,
                     clean=clean.n_tokens, corrupt=other.n_tokens), icon=":material/timer:")  # fmt: skip
        return None
    first = pc.answers(key, clean.text, corrupt, None, None)
    a, b = st.columns(2)
    with a:
        answer = _picker("answer", key, clean.text, _("Answer (of the clean sentence)"), first[0])
    with b:
        wrong = _picker("wrong", key, corrupt, _("Wrong (of the corrupt sentence)"), first[1])
    try:
        with waiting.working(_("Running both sentences…"), key):
            pair = pc.pair(key, clean.text, corrupt, answer, wrong)
    except ValueError as exc:
        st.warning(_("This pair cannot be patched: {why}", why=literal(exc)), icon=":material/warning:")
        return None
    lead = f"logit(“{show_token(pair.answer_text)}”) − logit(“{show_token(pair.wrong_text)}”)"
    m1, m2 = st.columns(2)
    m1.metric(_("clean: {lead}", lead=lead), i18n.decimal(pair.ld_clean, 3))
    m2.metric(_("corrupt: {lead}", lead=lead), i18n.decimal(pair.ld_corrupt, 3))
    return pair


def sweeps(key: str, pair: analysis.PatchPair) -> dict[str, Any]:
    """Both sweeps of the pair: cached ones at once; the others behind a button that runs them with a
    progress bar, one sweep at a time per session. site -> (n_layers, n | n_heads) or None."""
    args = (key, pair.clean, pair.corrupt, pair.answer, pair.wrong)
    pc.collect(*args)  # sweeps that finished while the visitor was on another step
    got = {site: pc.sweep(*args, site) for site in analysis.PATCH_SITES}
    todo = tuple(s for s, v in got.items() if v is None)
    # A patched run for each layer and each position (residual stream) or head (heads).
    L, H = models.shape(key)
    runs = sum(L * (pair.n_tokens if s == "resid" else H) for s, v in got.items() if v is None)
    slot = st.empty()  # the button, gone once the sweeps are done
    # Asked for before and not drawn yet (the clicker moved on mid-sweep): the job ran on; it is taken up
    # again at once, its progress (or its result) shown, never its work thrown away.
    again = bool(todo) and state.sweeps_asked(args)
    label, cost = TO_RUN.get(todo, TO_RUN[("resid", "head")])
    if not todo or not (again or slot.button(_(label), key=RUN, icon=":material/play_arrow:",
                                             type="primary")):  # fmt: skip
        if todo:
            st.caption(_(cost, runs=i18n.integer(runs), wait=timing.words("patching", runs)))
        return got
    state.set_sweeps_asked(args)
    lock = state.sweep_lock()
    if not lock.acquire(blocking=False):
        st.info(_("A sweep is already running in this session: its result shows here when it is done."),
                icon=":material/hourglass_top:")  # fmt: skip
        return got
    try:
        bar = st.progress(
            0.0,
            text=_("Getting the two sentences' runs ready ({wait})…", wait=timing.words("patching", runs)),
        )
        began = time.monotonic()

        def show(now: jobs.Status) -> None:
            if now.state == "queued":
                bar.progress(0.0, text=ngettext(
                    "The server is busy with other visitors' work: {n} request ahead of you.",
                    "The server is busy with other visitors' work: {n} requests ahead of you.", now.ahead))  # fmt: skip
            elif now.message:
                bar.progress(min(now.done, 1.0), text=jobs.words(now.message))

        try:
            with jobs.for_visitor(waiting.visitor(), show):
                pc.run_sweeps(*args)
        except (jobs.Busy, jobs.Failed) as exc:
            bar.empty()
            state.set_sweeps_asked(None)
            st.warning(str(exc), icon=":material/hourglass_top:")
            return got
        if not again:  # what the next pair's wait is said from (taken up again: part of it went elsewhere)
            timing.record("patching", time.monotonic() - began, runs)
        state.set_sweeps_asked(None)
        bar.empty()
        slot.empty()
    finally:
        lock.release()
    return {site: pc.sweep(*args, site) for site in analysis.PATCH_SITES}


def draw(pair: analysis.PatchPair, done: dict[str, Any]) -> None:
    """The sweeps that have run, side by side, and how to read them; presenting, the step's sweep alone."""
    sty = ui.style()
    if ui.step():
        site = "head" if ui.step() == "patching-heads" else "resid"
        if done[site] is None:
            st.info(_(RUN_FIRST[site]), icon=":material/science:")
        elif site == "resid":
            fig = pv.resid_sweep(done["resid"], pair.clean_tokens, pair.corrupt_tokens, style=sty,
                                 width_px=ui.HALF, height_px=pv.PRESENT_SWEEP_PX)  # fmt: skip
            ui.chart(fig, "patching.resid")
        else:
            fig = pv.head_sweep(done["head"], style=sty, width_px=ui.HALF, height_px=pv.PRESENT_SWEEP_PX)
            ui.chart(fig, "patching.head")
        return
    charts = []
    if done["resid"] is not None:
        fig = pv.resid_sweep(
            done["resid"], pair.clean_tokens, pair.corrupt_tokens, style=sty, width_px=ui.HALF
        )
        charts.append((fig, "patching.resid"))
    if done["head"] is not None:
        charts.append((pv.head_sweep(done["head"], style=sty, width_px=ui.HALF), "patching.head"))
    if charts:
        ui.charts_in_row(charts, 2)
        st.markdown(_(HOW_TO_READ))


FOUR_VIEWS = N_(
    "**Why they disagree.** Attention and rollout say where the last token *looks*: a head may look hard at a "
    "token whose value it then barely passes on, and much of the weight lands on the first token as a resting "
    "place (a sink). Occlusion removes a token and shifts every later one, so it mixes what the token says with "
    "where the others stand. Switching a head off measures how much the output needs that head at all, for "
    "any reason; patching it measures how much of the *difference* between the two sentences flows through it. "
    "Only the two experiments that change the run (occlusion, and above all patching) answer “what caused "
    "it”; the attention views describe the route, not the cause."
)


def four_views(key: str, pair: analysis.PatchPair, heads: Any) -> None:
    """One prediction, four views, in an expander that computes only while it is open (not while presenting:
    a step is one screen)."""
    if ui.step():
        return
    with st.expander(_("One prediction, four views: attention, rollout, occlusion, heads switched off and "
                       "patched"), key=state.K_VIEWS, on_change="rerun") as box:  # fmt: skip
        if not box.open:
            return
        with waiting.working(_("Removing each token, then each head, in turn"), key):
            v = pc.views(key, pair.clean, pair.answer)
        sty, answer = ui.style(), show_token(pair.answer_text)
        rows = [(_("attention, last layer (mean of heads)"), v.attention), (_("attention rollout"), v.rollout),
                (_("occlusion: p(“{answer}”) lost without it", answer=answer), v.occlusion)]  # fmt: skip
        ui.chart(pv.token_views(pair.clean_tokens, rows, style=sty), "patching.views.tokens")
        charts = [(pv.head_view(v.ablation, _("Switched off alone: the next-token probability that moves"),
                                _("total variation"), style=sty, width_px=ui.HALF), "patching.views.ablation")]  # fmt: skip
        if heads is not None:
            charts.append((pv.head_view(heads, _("Patched: the restored fraction (the sweep above)"),
                                        _("restored fraction"), style=sty, width_px=ui.HALF), "patching.views.patched"))  # fmt: skip
        ui.charts_in_row(charts, 2)
        st.markdown(_(FOUR_VIEWS))


def occlusion(key: str, trace: Any, target: int, target_text: str) -> None:
    """/next-token: the sentence as tokens coloured by how much each matters for ``target`` (occlusion)."""
    if trace.n_tokens < 2:
        return
    if trace.n_tokens > pm.MAX_OCCLUSION_TOKENS:
        st.caption(_("Which tokens matter (each removed in turn): shown for sentences of up to {most} tokens.",
                     most=pm.MAX_OCCLUSION_TOKENS))  # fmt: skip
        return
    with waiting.working(_("Removing each token in turn and running the sentence again…"), key):
        delta = pc.occlusion(key, trace.text, target)
    fig = pv.occlusion_strip(trace.tokens, np.asarray(delta), target_text, style=ui.style())
    ui.chart(fig, "next.occlusion")
    st.caption(
        _(
            "Each token removed in turn (the others keep their order) and the sentence run again: the colour "
            "is how p(“{token}”) changes without it. A token whose removal lowers the probability helped the "
            "prediction; one whose removal raises it held it back. This measures what the prediction needs, "
            "which is not always where the attention goes.",
            token=literal(show_token(target_text)),
        )
    )
