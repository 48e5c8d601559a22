"""Page helpers shared by the real-model pages: the model picker, the opening run, layer and head pickers.

Every real-model page starts with ``begin()``: it says which model is shown (and that SmolLM2 runs 4-bit
weights), says what a visitor can still do when a model is missing (the install command is folded away,
for whoever runs the server), and runs the sentence.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import streamlit as st

from attention_core import analysis
from explorer.compute import jobs, model_compute, patching, timing
from explorer.i18n import N_, _, integer, ngettext
from explorer.model import head_rules, models
from explorer.model.description import Description, of_model
from explorer.ui import page_table, state, waiting
from explorer.ui import widgets as ui
from explorer.views.text import literal

BAR = "model-bar"  # the key of the line that says which model is on screen (class st-key-model-bar)
BAR_PICKER = "frame.model"  # its picker of the real model (a mirror of state.K_MODEL, set before each draw)
NEEDS = {"decoder": N_("this page needs a decoder: it predicts the next word"),
         "encoder": N_("this page needs an encoder: every token reads the whole sentence")}  # fmt: skip


def on_screen(page: Any) -> tuple[str, str | None]:
    """The model a page of the page table shows: its title, and the real model's key (None: the explorer's
    own example, the toy model or a real layer opened in it)."""
    if not page.real_model:
        return state.description().title, None
    key = shown_key(decoder_only=page.needs == "decoder", encoder_only=page.needs == "encoder")
    return models.choice(key).title, key


def bar(page: Any) -> None:
    """One line at the top of every page, above the sentence: the model on screen, always what the page
    shows. On a page of Real model, the picker of the real model (a page that needs one kind names it and
    why); on the explorer's pages, the toy model or the real layer opened in it."""
    if page is None:
        return
    if page.section == page_table.LEARNING:  # /learn: neither the toy nor a real model, its own tiny one
        st.container(key=BAR).markdown(
            _(
                "Model on this page: **a tiny transformer trained here** · two layers of 4 attention heads, no "
                "feed-forward, trained from a fixed seed"
            )
        )
        return
    title, key = on_screen(page)
    box = st.container(key=BAR, horizontal=True, vertical_alignment="center", gap="small")
    if key is None:
        shown = state.description()
        about = shown.about
        box.markdown(_("Model on this page: **{model}** · {about}", model=literal(title), about=about))
        return
    row = models.choice(key)
    if page.needs:
        box.markdown(
            _("Model on this page: **{model}** · {about}", model=row.title, about=_(NEEDS[page.needs])),
            help=row.about,
        )
        return
    state.show(BAR_PICKER, key)
    box.markdown(_("Model on this page:"))
    box.segmented_control(
        _("Model on this page"),
        [k for k in models.MODELS if models.MODELS[k].engine],
        key=BAR_PICKER,
        required=True,
        format_func={k: m.title for k, m in models.MODELS.items()}.get,  # this run's words
        label_visibility="collapsed",
        on_change=_bar_picked,
        help=row.about,
    )


def _bar_picked() -> None:
    state.set_model(str(state.value(BAR_PICKER)))
    _model_changed()


def shown_model(key: str | None = None) -> Description | None:
    """The real model `key`, or the one the real-model pages show (the picked one, or the default while the
    toy is picked); None when it is not installed here, is downloading or failed to load (the page says so)."""
    key = key or models.real_key(state.model_key())
    if models.missing(key) or (models.load_state(key).phase != "ready" and not models.installed(key)):
        return None  # not here, or still downloading: begin() says so on the page
    try:
        return of_model(key)  # loads the model when its files are here (seconds, once per server)
    except ImportError:  # ModelNotInstalledError: its load failed just now; begin() says why
        return None


def _model_changed() -> None:
    state.set_off_heads(())  # switched-off heads belong to the model they were switched off in


def shown_key(*, decoder_only: bool = False, encoder_only: bool = False) -> str:
    """The real model a page shows: the picked one (MiniLM while the toy is picked); a page about the next token
    (decoder_only) shows a decoder, one that needs every token to see the whole sentence (encoder_only) an
    encoder, whichever is picked."""
    key = models.real_key(state.model_key())
    if decoder_only and not models.choice(key).decoder:
        return models.DEFAULT_DECODER
    if encoder_only and models.choice(key).decoder:
        return models.DEFAULT_REAL
    return key


def say_model(
    *, decoder_only: bool = False, encoder_only: bool = False, why_not: str | None = None
) -> str | None:
    """The key of the real model a page shows (``shown_key``), said in a caption; None (with a message drawn)
    when it is not installed. why_not: what the page says when the picked model is an encoder and the page
    needs a decoder (static Markdown, ours)."""
    picked = state.model_key()
    key = shown_key(decoder_only=decoder_only, encoder_only=encoder_only)
    row = models.choice(key)
    # A real model picked that this page cannot show: why, in a box; presenting, in the caption's one line (a
    # step is one 1080 px screen).
    needs = why_not and key != picked == models.real_key(picked)
    if needs and not ui.step():
        st.info(why_not, icon=":material/info:")
    missing = models.missing(key)
    if missing:
        st.info(literal(missing), icon=":material/cloud_off:")
        hint = models.server_hint(key)
        if hint:  # not installed (a failed download says its reason above)
            with st.expander(_("For whoever runs this server")):
                st.caption(literal(hint))
        return None
    if not _loaded(key, row):
        return None
    # The frame's bar above the sentence names the model on a laptop; presenting (no bar), this line does, in
    # one line (the step is one screen).
    said = f"**{row.title}**"
    if needs:
        need = _("this page needs a decoder") if decoder_only else _("this page needs an encoder")
        said = f"{said} · {need}"
    st.caption(said if ui.step() else row.about, help=(why_not if needs else row.precise) or None)
    return key


def begin(
    *,
    decoder_only: bool = False,
    encoder_only: bool = False,
    why_not: str | None = None,
    needs: bool = False,
) -> tuple[str, Any] | None:
    """The real model to show and its run on the sentence; None (with a message drawn) when it cannot run.
    needs: the page draws which tokens the top prediction needs, computed with the run (compute.patching's
    run_and_needs)."""
    key = say_model(decoder_only=decoder_only, encoder_only=encoder_only, why_not=why_not)
    if key is None:
        return None
    if ui.nothing_to_read(state.sentence(), "model"):
        return None
    text = state.sentence().strip()
    try:
        with waiting.working(_("Running {model} on your sentence…", model=models.choice(key).title), key):
            trace = (patching.run_and_needs if needs else model_compute.run)(key, text)
    except ValueError as exc:
        st.error(_("The model cannot read this sentence: {why}", why=literal(exc)), icon=":material/warning:")
        return None
    if trace.truncated:
        st.warning(literal(cut_words(trace)), icon=":material/content_cut:")
    return key, trace


def cut_words(trace: Any) -> str:
    """What the page says of a text the model cut (the engine's `trace.message`, in the language on screen)."""
    from attention_core.pretrained import MAX_CHARS, MAX_TOKENS

    said = dict(n=integer(trace.n_text_tokens), model=trace.model, limit=integer(MAX_TOKENS))
    if len(trace.text) == MAX_CHARS:
        return _(
            "The text has {n} tokens in its first {chars} characters; {model} reads only the first {limit} "
            "(this app's limit).",
            chars=integer(MAX_CHARS),
            **said,
        )
    return _("The text has {n} tokens; {model} reads only the first {limit} (this app's limit).", **said)


def _loaded(key: str, row: models.ModelChoice) -> bool:
    """Whether the model is loaded, waiting for it here when its files are on this machine (seconds, once per
    server; the frame above is drawn already). A download first: its progress, and False (the page runs
    again by itself when the model is ready, or says why it failed)."""
    if models.prepare(key).phase == "ready":
        return True
    if models.installed(key):
        with st.spinner(_("Loading {model} (once per server)…", model=row.title), show_time=True):
            try:
                models.model(key)
            except ImportError as exc:  # ModelNotInstalledError: a damaged file, a missing library
                st.warning(_("{model}: {why}", model=row.title, why=literal(exc)), icon=":material/error:")
                return False
        return True
    _download_progress(key, row.title)
    return False


@st.fragment(run_every=1.0)
def _download_progress(key: str, title: str) -> None:
    """The download's progress, redrawn every second; the whole page runs again once the model is ready or
    its download failed (then begin() says why)."""
    now = models.load_state(key)
    if now.phase in ("ready", "failed"):
        st.rerun()
    if now.phase == "downloading" and now.total:
        mb = 2**20
        text = _(
            "Downloading {model}: {done:.0f} of {total:.0f} MB (once per server)",
            model=title,
            done=now.done / mb,
            total=now.total / mb,
        )
        st.progress(min(1.0, now.done / now.total), text=text)
    else:
        st.progress(0.0, text=_("Getting {model} ready (once per server)…", model=title))


def head_pickers(n_layers: int, n_heads: int, page: str) -> tuple[int, int]:
    """Layer and head selectors bound to the shared picked head (1-based for people, 0-based inside)."""
    layer, head = state.layer_head(n_layers, n_heads)
    a, b = st.columns(2)
    for col, name, label, option, count, value, shared in (
        (a, "layer", _("Layer"), N_("layer {n}"), n_layers, layer, state.K_LAYER),
        (b, "head", _("Head"), N_("head {n}"), n_heads, head, state.K_MODEL_HEAD),
    ):
        widget = state.show(f"{page}.{name}", value)
        col.selectbox(
            label,
            list(range(count)),
            format_func={i: _(option, n=i + 1) for i in range(count)}.__getitem__,  # this run's words
            key=widget,
            on_change=state.pick_back,
            args=(widget, shared),
        )
    return state.layer_head(n_layers, n_heads)


def label_rules() -> None:
    """The rules behind the head labels, as a table (from analysis.HEAD_RULES)."""
    with st.expander(_("How the labels are measured")):
        rows = [
            {
                _("label"): head_rules.label(r.name),
                _("the weight on"): head_rules.keys(r.name),
                _("at least"): r.threshold,
                _("and × uniform"): r.min_lift,
            }
            for r in analysis.HEAD_RULES
        ]
        st.dataframe(rows, hide_index=True)
        st.markdown(
            _(
                "A head's score for a rule is the weight its queries put on those keys, averaged over the "
                "queries for which the rule picks some but not all of the keys they may see. The label is the "
                "passing rule with the highest score. None passes: **{broad}** when the rows are spread out "
                "(mean entropy ÷ log(keys seen) ≥ {threshold}), else **{mixed}**. The labels describe this "
                "sentence only.",
                broad=head_rules.label("broad"),
                mixed=head_rules.label("mixed"),
                threshold=analysis.BROAD_THRESHOLD,
            )  # fmt: skip
        )


def switch_grid(n_layers: int, n_heads: int, off: tuple[tuple[int, int], ...]) -> None:
    """One row of head switches per layer (selected = on), bound to the switched-off heads in state."""
    off_set = set(off)
    for layer in range(n_layers):
        widget = state.show(
            f"ablation.switch.{layer}", [h for h in range(n_heads) if (layer, h) not in off_set]
        )
        st.pills(
            _("layer {n}", n=layer + 1),
            list(range(n_heads)),
            selection_mode="multi",
            format_func={  # this run's words
                h: str(h + 1) if (layer, h) not in off_set else _("{n} off", n=h + 1) for h in range(n_heads)
            }.__getitem__,
            key=widget,
            on_change=_switched,
            args=(layer, n_heads),
        )


def _switched(layer: int, n_heads: int) -> None:
    on = set(state.value(f"ablation.switch.{layer}") or [])
    others = [p for p in state.off_heads() if p[0] != layer]
    state.set_off_heads(tuple(others) + tuple((layer, h) for h in range(n_heads) if h not in on))


RANKING_HOW = {  # marked: translated where shown
    False: N_("Each of the heads is switched off alone and the sentence run again; a head matters as much as "
              "the sentence's embedding turns away from the untouched one (1 − cosine)."),
    True: N_("Each layer is switched off whole first (one run per layer), then each head of the three layers "
             "that mattered most alone; a head matters as much as the share of next-token probability that "
             "moves."),
}  # fmt: skip


def ranking(key: str, text: str) -> Any:
    """The "which heads matter" ranking of this sentence: a button runs it with a progress bar; the finished
    ranking is kept for the session. Returns the last RankingStep, or None before it has run."""
    done = state.ranking(key, text)
    L, H = models.shape(key)
    runs = L + 3 * H if models.choice(key).decoder else L * H  # analysis.rank_heads' runs (top_layers=3)
    units = runs * (len(text.split()) + 2)  # about a token a word, and the model's own tokens around them
    cost = timing.words("ranking", units)
    slot = st.empty()  # the button, then the progress bar in its place, then nothing above the ranking
    if done is None and slot.button(_("Rank the heads"), key="ablation.rank", icon=":material/leaderboard:",
                                    help=_("{runs} runs of the model, each with heads switched off: {wait}.",
                                           runs=runs, wait=cost)):  # fmt: skip
        title = models.choice(key).title
        bar = slot.progress(0.0, text=_("Switching heads off one by one and running {model} again ({wait})…",
                                        model=title, wait=cost))  # fmt: skip
        began = time.monotonic()

        def show(now: jobs.Status) -> None:
            if now.state == "queued":
                bar.progress(0.0, text=ngettext(
                    "{title} is busy with other visitors' work: {n} request ahead of you.",
                    "{title} is busy with other visitors' work: {n} requests ahead of you.", now.ahead,
                    title=title))  # fmt: skip
            else:
                bar.progress(now.done, text=jobs.words(now.message) or None)

        try:
            with jobs.for_visitor(waiting.visitor(), show):
                done = model_compute.rank(key, text)
        except (jobs.Busy, jobs.Failed) as exc:
            slot.warning(str(exc), icon=":material/hourglass_top:")
            return None
        timing.record("ranking", time.monotonic() - began, units)  # what the next ranking's wait is said from
        slot.empty()
        state.set_ranking(key, text, done)
    return done


def sync_layer(widget: str) -> None:
    """A page's own layer widget -> the shared picked layer."""
    state.pick_back(widget, state.K_LAYER)


def open_in_explorer(key: str, layer: int, head: int) -> None:
    """The bridge's button: layer `layer` of model `key` becomes the explorer's example (explorer.model.bridge), and
    the scores page opens on head `head` with the layer's real numbers, every weight editable."""
    label = _("Open layer {layer} in the explorer", layer=layer + 1)
    help_ = _(
        "Loads this layer's input X, its W_Q, W_K, W_V, W_O and feed-forward into the explorer's pages "
        "(Projections, Scores, Heads, One token, Encoder block), where every weight can be edited."
    )
    clicked = st.button(
        label, key="bridge.open", icon=":material/open_in_new:", help=help_, on_click=state.open_layer,
        args=(key, layer, head),
    )  # fmt: skip
    if clicked:  # the layer was opened by the callback (before any widget of this run): go to its scores
        switch_to("app_pages/scores.py")


def toy_run(text: str) -> tuple[Any, Any]:
    """The explorer's toy example on `text` (its settings and weights as the student left them; a fresh one
    while a real layer is open), and its traced run: for showing toy heads beside real ones."""
    from explorer.compute import cached as compute
    from explorer.model import example as exm

    ex = state.toy_example()
    ex = exm.conform(ex.with_(sentence=text), old_tokens=exm.tokens_for(ex)[0])
    return ex, compute.run(ex)


def toy_head(text: str, head: int, sty: Any) -> None:
    """The toy model's head `head` (or its last) on the same sentence, beside a real head (/head)."""
    from explorer.views import figures as fg

    toy_ex, toy = toy_run(text)
    if toy.attention is None:
        st.info(_("The toy model cannot run on this sentence: {why}", why=_(toy.error)))
        return
    th = min(head, toy_ex.n_heads - 1)
    tw = np.asarray(toy.attention.weights[th], dtype=np.float64)
    title = _("Toy model, head {n} (rows sum to 1)", n=th + 1)
    fig = fg.drawn_heatmap(
        tw,
        toy.labels,
        toy.labels,
        style=sty,
        title=title,
        cells=fg.Cells(weights=True, row_sums=True, masked=toy.blocked),
        axes=fg.Axes(width_px=ui.HALF),
    )
    ui.chart(fig, "head.toy_w")
    st.caption(
        _(
            "The explorer's toy model (head {head} of {heads}, d_model {d_model}, random weights, its own word "
            "tokens): a pattern it shows comes from positions and word vectors, not from training.",
            head=th + 1, heads=toy_ex.n_heads, d_model=toy_ex.d_model,
        )
        if toy_ex.emb_source == "random"
        else _(
            "The explorer's toy model (head {head} of {heads}, d_model {d_model}, hand-set weights, its own "
            "word tokens): a pattern it shows comes from positions and word vectors, not from training.",
            head=th + 1, heads=toy_ex.n_heads, d_model=toy_ex.d_model,
        )
    )  # fmt: skip


def switch_to(path: str) -> None:
    """Go to another page of the app (the model, layer and head travel in the session state)."""
    try:
        st.switch_page(path)
    except Exception:  # noqa: BLE001 - a page run on its own (tests) has no navigation to switch in
        st.rerun()


def page_link(path: str, label: str) -> None:
    """A link to another page of the app (the model, layer and head travel in the session state)."""
    try:
        st.page_link(path, label=label, icon=":material/zoom_in:")
    except Exception:  # noqa: BLE001 - a page run on its own (tests) has no navigation to link into
        st.markdown(f"**{label}**")


def layer_slider(n_layers: int, n_heads: int, page: str) -> int:
    """A layer slider bound to the shared picked layer."""
    layer, _head = state.layer_head(n_layers, n_heads)
    widget = state.show(f"{page}.layer", layer)
    st.select_slider(
        _("Layer"),
        list(range(n_layers)),
        format_func={i: _("layer {n}", n=i + 1) for i in range(n_layers)}.get,  # this run's words
        key=widget,
        on_change=sync_layer,
        args=(widget,),
    )
    return state.layer_head(n_layers, n_heads)[0]
