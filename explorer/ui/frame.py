"""The parts of the frame (app.py) that every page shares: URL, sidebar controls, sentence box, messages."""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer import i18n, sharing
from explorer.i18n import _
from explorer.model import models
from explorer.model import settings_table as table
from explorer.model.example import tokens_for
from explorer.ui import (
    a11y,
    class_ui,
    clicker,
    export_ui,
    grid_guard,
    language_ui,
    layer_choice,
    lesson_ui,
    model_ui,
    page_table,
    present,
    preset_ui,
    reconnect,
    state,
)
from explorer.ui import share_panel as share_panel
from explorer.ui import widgets as ui
from explorer.views.text import literal

NAV = "nav"  # the key of the menu's container (class st-key-nav on the page)


def read_url() -> None:
    """Once per session: take the example from the URL (sync_url then keeps the address bar in step). Read
    is marked after the link is applied: a run stopped half-way (explorer.ui.state) applies it again."""
    if not state.url_read():
        lesson_ui.apply_link({k: st.query_params.get(k) for k in st.query_params})
        state.set_url_read()


def _address() -> tuple[dict[str, str], bool]:
    ex, name = state.current(), preset_ui.active()
    as_loaded = bool(name) and ex.digest() == preset_ui.preset_digest(name)
    return share_panel.address(ex, state.draws(), state.present(), name, as_loaded=as_loaded)


def sync_url(note: Any) -> None:
    """After every run, the address bar holds the whole state, as the Share link does (F5 in class and a
    copied address lose nothing): every setting, the edited matrices, presentation mode and its step. Query
    parameters Streamlit clears on a change of page are written again here; beside them the head and tokens
    picked (h=, q=, k=), the real model's (model=, layer=, head=, off=, follow=, follow_at=, ind_seed=,
    ind_len=) and the pages' display controls (explorer.sharing.view_params). The link is made once, from the state the run ended with; past the
    address bar's length `note` (a placeholder above the page) says what the address keeps."""
    want, fits = wanted()
    if not fits:
        address_note(note)
    if {k: st.query_params.get(k) for k in st.query_params} != want:
        st.query_params.from_dict(want)


def wanted() -> tuple[dict[str, str], bool]:
    """The address bar's parameters for the state as it is now, and whether they hold the whole example
    (sync_url)."""
    want, fits = _address()
    want.update(share_panel.page_params())  # the picks; the real model, layer, head, heads off; the pairs
    asked = ([str(state.ask())] if state.ask() is not None else []) + list(state.model_questions())
    if asked:  # predict, then reveal: a reload keeps the questions (answers hidden again)
        want["ask"] = ",".join(asked)
    if state.classroom.joined() is not None:  # a student's reload, or a replica's death, joins again
        want["join"], want["me"] = state.classroom.joined()[:2]  # type: ignore[index]
    step = st.query_params.get("step")
    if step is not None and state.present():
        want["step"] = step
    return want, fits


def address_note(note: Any) -> None:
    """Past the link's length the address bar keeps the settings, not the edits: say so, once, above the page."""
    with note.container():
        st.warning(
            _(
                "This example's edits are too large for the address bar (at most {limit} characters): a "
                "reload or a copied address keeps the sentence and the settings but not the edited matrices. "
                "To keep them, download the example as a JSON file (Share and export, in the sidebar).",
                limit=i18n.integer(sharing.LINK_LIMIT),
            ),
            icon=":material/link_off:",
        )


def navigation() -> None:
    """The menu of pages at the top of the sidebar, built from the page table: each section's name, then a
    link per page. It replaces Streamlit's own menu (st.navigation position="hidden"), whose items are list
    items outside any list for assistive technology (axe-core: `list`, `listitem`); a page link is a plain
    link, and the current page's is marked by explorer/ui/a11y.js (aria-current). A student following the
    class has none: the teacher picks the page (Explore on my own brings the menu back)."""
    if state.classroom.following():
        return
    with st.sidebar.container(key=NAV):
        lesson_ui.menu()  # the lessons first, the pages below them as a reference
        for section, rows in page_table.sections().items():
            st.caption(_(section) if section else _("Pages"))
            for p in rows:
                st.page_link(p.script, label=_(p.title), icon=p.icon)


def sidebar(page: page_table.Page | None) -> None:
    """The model's size (controls for the toy, its sizes for a trained model), and the display options."""
    with st.sidebar:
        language_ui.picker()
        if state.classroom.following():
            _following()
        else:
            preset_ui.picker()
            layer_choice.choice()  # random weights (the arithmetic) or a trained layer (the meaning)
            _model_size(page)
            st.divider()
            _display_options()
            if state.can_undo():
                st.button(
                    _("Undo the last change"),
                    on_click=state.undo,
                    key="frame.undo",
                    icon=":material/undo:",
                    help=_("Takes back the last cell edit, reset, re-randomize, preset or imported file."),
                )
            share_panel.panel(None if page is None else page.url_path)
            # The link without presentation mode: students open the example on their laptops.
            export_ui.qr_if_asked(lambda: share_panel.link_for(state.current(), state.draws(), False))
        grid_guard.mount()  # no edit of a data editor lost (explorer/ui/grid_guard.py)
        a11y.mount()  # focus ring, skip link, the menu's landmark (explorer/ui/a11y.js)
        reconnect.mount()  # a tab that moved to another server is rebuilt there (explorer/ui/reconnect.py)


def _following() -> None:
    """A student following the class: the example, the model and the settings are the teacher's (changing
    them is exploring, the class bar's button); how the charts look stays the student's. A class's every
    move runs each student's page: the sidebar's other controls are not drawn for nothing."""
    st.caption(
        _(
            "You follow the teacher: the example, the model and their settings are the teacher's. To change "
            "them, press Explore on my own above the page."
        )
    )
    _look_options()


def _model_size(page: page_table.Page | None) -> None:
    """The model's size: controls for the toy, its sizes for a trained model (the model on screen)."""
    st.subheader(_("Model size"), anchor=False)
    key = None if page is None else model_ui.on_screen(page)[1]  # the sizes of the model on screen
    if key and models.prepare(key).phase in ("loading", "downloading"):
        # Loading (in the background, once per server): the page says so with its time at once; waiting
        # for it here would leave the whole page blank for those seconds.
        st.caption(_("The sizes of {model} show here once it is loaded.", model=models.choice(key).title))
        return
    shown = (model_ui.shown_model(key) if key else None) or state.description()
    if shown.fixes("d_model"):  # a trained model: its sizes, not the toy's controls
        st.markdown(literal(shown.sizes_line()), help=_("The sizes of {model}.", model=shown.title))
    else:
        c1, c2 = st.columns(2)
        for name, col in (("d_model", c1), ("n_heads", c2), ("d_k", c1), ("seed", c2)):
            ui.setting(name, col)


def _display_options() -> None:
    """Presenting (and starting a class), the question to predict, the colours, charts as tables, the weights'
    colour range."""
    st.toggle(
        _("Presentation mode"),
        key=state.K_PRESENT,
        persist_state="session",
        help=_("Large type for a projector."),
    )
    if state.present() and state.classroom.teaching() is None:
        st.button(
            _("Start a class"),
            key="class.start",
            on_click=class_ui.start,
            icon=":material/group_add:",
            help=_(
                "Students join with a code or a QR code: their laptops follow your screen, and they answer "
                "your questions (predict, then reveal) with the count on the projector."
            ),
        )
    toks = state.tokens()
    st.selectbox(
        _("Predict, then reveal"),
        [-1, *range(len(toks))],
        key=state.K_ASK,
        # the words of this run's language (format_func may be called outside the run)
        format_func={
            -1: _("no question"),
            **{i: _("hide what {i}: {token} attends to", i=i, token=t) for i, t in enumerate(toks)},
        }.get,
        on_change=state.hide_answer,
        persist_state="session",
        help=_(
            "Scores and softmax: the weights of this query stay hidden behind a question until Reveal (or the "
            "clicker's next key). The share link and the QR code carry the question."
        ),
    )
    _look_options()


def _look_options() -> None:
    """How charts look: the colours, charts as tables, the weights' colour range."""
    from explorer.views.figures import PALETTES

    st.selectbox(
        _("Colours"),
        list(PALETTES),
        key=state.K_COLORS,
        format_func={p: _(PALETTES[p][2]) for p in PALETTES}.get,  # words of this run's language
        persist_state="session",
        help=_(
            "Colour-blind safe: Viridis and red-blue. Washed-out projector: Cividis and purple-orange. Strong "
            "contrast: Inferno and red-yellow-blue. Greyscale: grey weights for printing, signed values "
            "purple-green."
        ),
    )
    st.toggle(
        _("Show charts as tables"),
        key=state.K_TABLES,
        persist_state="session",
        help=_(
            "Every chart as tables of its numbers, rows and columns named by the tokens, rounded as the chart "
            "prints them, under a sentence that says what it shows: for a screen reader, or to read exact "
            "values."
        ),
    )
    st.toggle(
        _("Weights: colours from min to max"),
        key=state.K_FIT,
        persist_state="session",
        help=_(
            "On: the colours of attention weights span their lowest to highest value (written on the colour "
            "bar), so a pattern shows even when every weight is near 1/n. Off: a fixed 0 to 1 scale."
        ),
    )


def model_bar(page: page_table.Page | None) -> None:
    """Above the sentence, on a laptop: the model on screen and, on a page of Real model, its picker
    (explorer.ui.model_ui.bar). Presenting, the step's own line says it (every pixel of 1080 is the step's)."""
    if not state.present():
        model_ui.bar(page)


def sentence_box(page: page_table.Page | None = None) -> None:
    """The sentence, above every page that reads it: typing and pressing Enter updates every chart. A page
    that does not (/induction runs random tokens) shows no box: it would change nothing there."""
    if page is not None and not page.sentence:
        return
    row = table.row("sentence")
    st.text_input(
        _(row.widget),
        key=row.key,
        persist_state="session",
        max_chars=table.MAX_SENTENCE_CHARS,  # Streamlit also cuts what a browser sends to this length
        placeholder=_("Type a sentence and press Enter"),
        help=_(row.help, **table.TEXT_VALUES),
        label_visibility="collapsed" if state.present() else "visible",  # the projector's screen is short
    )
    sentence = state.sentence()
    if not ui.visible(sentence):  # the page says so, once (ui.nothing_to_read), whatever the model's tokens
        return
    kept, cut = tokens_for(state.current())  # the layer's own limit (the tiny model reads 32)
    if len(sentence) >= table.MAX_SENTENCE_CHARS:  # the box cuts a longer paste without a word: say so
        st.info(
            _(
                "The sentence is at its limit of {n} characters: anything longer (typed, pasted, in a link or "
                "a file) was cut there.",
                n=i18n.integer(table.MAX_SENTENCE_CHARS),
            ),
            icon=":material/content_cut:",
        )
    if cut:
        st.warning(
            _(
                "The sentence has more than {n} tokens: the explorer uses the first {n}. Shorten it to see the "
                "rest.",
                n=len(kept),
            ),
            icon=":material/content_cut:",
        )


def show_messages() -> None:
    """Messages queued by callbacks (refused edits, restored state) shown once, as plain text; a refused
    cell as a toast, which does not push the page down (an alert above the page moved the editor away).

    They quote what people typed, pasted or put in a URL, so they are never read as Markdown (text.literal).
    """
    for kind, text in state.take_messages():
        if kind == "refused":  # a refused cell: in a corner until closed, the page stays where it is
            st.toast(literal(text), icon=":material/block:", duration="infinite")
            continue
        {"info": st.info, "warning": st.warning, "error": st.error, "success": st.success}.get(kind, st.info)(
            literal(text)
        )


# A table's toolbar (full screen, download, search) appears on hover just above its top right corner, 44 px
# high: room above every table for it, so it never covers the heading over the table (the heading's 16 px of
# padding + 36 px of room: 8 px clear of the heading's last line).
TABLE_ROOM_CSS = (
    "<style>.stElementContainer:has(> div > [data-testid='stDataFrame']) { margin-top: 2.25rem; }</style>"
)


def presentation_css() -> None:
    """While presenting: the static projector CSS (larger type, full width; never any user text). Otherwise
    room above each table for its toolbar (presenting lays out its own screen)."""
    if state.present():
        st.html(present.CSS)
    else:
        st.html(TABLE_ROOM_CSS)


def step_controls(current, *, top: bool = False) -> None:  # noqa: ANN001 - the st.Page running
    """Previous / next step: walk the pipeline in order, like slides (present.STEPS).

    At the bottom of every page; with top=True (presentation mode) also above the page, large, with what
    to look at in this step.
    """
    i = present.step_index(current.url_path, st.query_params.get("step"))
    if not top and (state.present() or state.classroom.following()):
        return  # presenting: the controls above the page (and the clicker's keys); following: the teacher's
    if i is None:
        return
    # Presenting, the parts of a page are slides; on a laptop the page shows them all: the links go to pages.
    prev, nxt = present.neighbours(i) if top else present.page_neighbours(i)
    step = present.STEPS[i]
    box = st.container(key="step-top" if top else "step-bottom")
    if not top:
        box.divider()
    # At the bottom, the links take the width a title needs at 1280 px ("Attention through the layers →"
    # was cut to "Attention through the laye"); presenting, the bar above has a 1920 px screen.
    left, mid, right = box.columns([1, 2, 1] if top else [5, 4, 5], vertical_alignment="center")
    for col, target, label, key in (
        (left, prev, "← {}", clicker.BACK_LINK),
        (right, nxt, "{} →", clicker.NEXT_LINK),
    ):
        page = None if target is None else page_table.by_path(target.url_path)
        if page is not None:
            # In a keyed container: the clicker's keys follow this very link (explorer.ui.clicker).
            col.container(key=key).page_link(
                page.script,
                label=label.format(_(target.title if top else page.title)),  # off the projector: a page
                icon=page.icon,
                query_params=(present.query_of(target) if top else None) or None,
                width="stretch",
            )
    if top:  # the step, then what to look at across the whole width (one line on a 1920 px projector)
        mid.markdown(f"**{present.caption(i)}**")
        fixed = step.look_if_fixed and state.description().fixes(step.look_if_fixed[0])
        box.container(key="step-look").markdown(_(step.look_if_fixed[1] if fixed else step.look))
        with box:  # students scan it and open the same example; placed over the bar's corner (present.CSS)
            export_ui.qr_button("present.qr", label="QR")
        if state.classroom.teaching() is None:
            with box:  # over the bar's other corner: the class's laptops follow this screen
                st.button(
                    _("Start a class"),
                    key="present.class",
                    on_click=class_ui.start,
                    icon=":material/group_add:",
                )
        with box:
            clicker.listen()
    else:
        mid.caption(present.caption(i, with_part=False))  # the whole page: no part


def lesson_bar(route: lesson_ui.Route, k: int) -> None:
    """A lesson's bar above the page (explorer.ui.lesson_ui.bar); presenting, with the QR code over its corner
    and the clicker's keys following its links."""
    box = lesson_ui.bar(route, k)
    if state.present():
        with box:
            export_ui.qr_button("present.qr", label="QR")
            clicker.listen()


def pipeline_map() -> None:
    """Links to every step, in order (plain text where the page registry is not there, e.g. a bare run), three
    a row: at 1280 px four a row cut "13. Attention through the layers" short."""
    cols = st.columns(3)
    for i, p in enumerate(page_table.listed()):
        with cols[i % 3]:
            try:
                st.page_link(p.script, label=f"{i + 1}. {_(p.title)}")
            except Exception:  # noqa: BLE001 - a page run on its own has no navigation to link into
                st.markdown(f"**{i + 1}. {_(p.title)}**")
            st.caption(_(p.summary))
