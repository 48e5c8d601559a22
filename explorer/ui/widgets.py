"""Small page-building helpers shared by every page: the opening, the style, charts, readable errors."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from explorer import cache, i18n
from explorer.compute import cached as compute
from explorer.compute.pipeline import Result
from explorer.model import glossary
from explorer.model import settings_table as table
from explorer.model.description import Description
from explorer.model.example import Example, tokens_of
from explorer.ui import chart as explorer_chart
from explorer.ui import lesson_ui, page_table, present, state
from explorer.views import describe, figures
from explorer.views.drawn import Drawn
from explorer.views.text import literal

# About how wide a chart is drawn in half and in a third of the page on a 1280 px laptop screen; the
# heatmaps fit their labels and cell values to it (figures.heatmap width_px).
HALF = figures.HALF_PX
THIRD = figures.THIRD_PX


def style() -> figures.Style:
    """The figure style of this session (presentation mode, palette, light/dark theme)."""
    dark = False
    try:
        dark = st.context.theme.type == "dark"
    except Exception:  # noqa: BLE001 - st.context is unavailable in bare runs; light is the default
        dark = False
    return figures.Style(
        present=state.present(), palette=state.colors(), dark=dark, fit_weights=state.fit_weights()
    )


def step() -> str | None:
    """The step of the step-through this page is showing while presenting (its present.STEPS name), else
    None (not presenting, or a page outside the step-through)."""
    if not state.present():
        return None
    # In a lesson, step= counts the lesson's steps: the lesson's step names the page's part
    name = lesson_ui.part() if "lesson" in st.query_params else st.query_params.get("step")
    i = present.step_index(state.page() or "", name)
    return None if i is None else present.STEPS[i].name


def part() -> str | None:
    """The step of this page a projector shows: presenting, the step; a student following a presenting
    teacher, the teacher's step (their laptop draws the same part, laid out for a laptop); else None (the
    whole page)."""
    return step() or state.classroom.part_shown(state.page())


def shows(*steps: str) -> bool:
    """Whether to draw a part of a page: always, except while presenting a step not among `steps`. While
    presenting, a step fits one 1920 x 1080 screen: its main chart and its controls, nothing else (the
    rest is one click away with presentation mode off). A student following a presenting teacher sees the
    same part, laid out for a laptop."""
    current = part()
    return current is None or current in steps


FOLLOWING_EDITS = i18n.N_(
    "You follow the teacher, so this page shows what the projector shows. Press **Explore on my own** to edit "
    "the matrices yourself; your own edits are kept for when you come back."
)


def opening(title: str, text: str, formula: str | None = None, edits: str | None = None) -> None:
    """Every page opens with what the step does and why, and its formula. While presenting, the step bar
    above says the title and what to look at, so only the formula is drawn. `edits` says what the page's
    editors do; a following student's page draws the projector's part without them, so it says how to get
    them instead."""
    if step() is None:
        st.title(title, anchor=False)
        if edits is None:
            st.markdown(text)
        else:
            st.markdown(f"{text} {edits if part() is None else i18n._(FOLLOWING_EDITS)}")
    if formula:
        st.latex(formula)
    if step() is None:
        words(state.page())


WORDS = i18n.N_(
    "Words on this page"
)  # the fold's label (tests/app/pages/test_glossary_on_pages.py reads past it)


def words(url_path: str | None) -> None:
    """The fold under a page's opening that says, in plain words, what each term the page uses means (the
    glossary's terms of that page). Not while presenting: a step is one screen, and the teacher says it."""
    terms = [] if url_path is None else glossary.on_page(url_path)
    if terms:
        with st.expander(i18n._(WORDS), icon=":material/menu_book:"):
            st.markdown(glossary.markdown(terms))


def setting(name: str, where: object = st, **extra: object) -> object:
    """The widget of setting `name` as its row in the settings table describes it (label, bounds, choices
    and their titles, help), bound to its key; `where` is st or a column; `extra` goes to the widget
    (e.g. disabled=). Numbers get a number_input, choices and titled bools a horizontal radio, bools a toggle.
    """
    row = table.row(name)
    shown = state.description()
    if shown.fixes(name):  # the model fixes it: said as what it is, not offered as a control
        where.markdown(
            i18n._("**{setting}:** {value}", setting=i18n._(row.widget), value=literal(shown.fixed[name])),
            help=i18n._("Fixed by {model}.", model=shown.title),
        )
        return getattr(state.current(), name)
    common: dict[str, object] = {"key": row.key, "persist_state": "session", **extra}
    if row.help:
        common["help"] = i18n._(row.help, **table.TEXT_VALUES)
    if row.kind in ("int", "float"):
        lo, hi = row.bounds
        if row.kind == "int":
            return where.number_input(i18n._(row.widget), int(lo), int(hi), step=1, **common)
        options = {"step": row.step, "format": row.fmt}
        return where.number_input(
            i18n._(row.widget),
            min_value=lo,
            max_value=hi,
            **{k: v for k, v in options.items() if v is not None},
            **common,
        )
    if row.kind == "bool" and not row.titles:
        return where.toggle(i18n._(row.widget), **common)
    options = list(row.choices) if row.kind == "choice" else [False, True]
    # The options' words in this run's language (format_func may be called outside the run)
    titles = {v: i18n._(row.titles.get(v, str(v))) for v in options}
    return where.radio(i18n._(row.widget), options, format_func=titles.get, horizontal=True, **common)


def chart(fig: Drawn, key: str, *, clickable: bool = False) -> dict | None:
    """A Plotly chart at full width that stays on the page across reruns and redraws in place (explorer.ui.chart);
    its camera button saves a PNG at twice the resolution (for slides), named after the key. clickable: return
    the point a click picked, on the run the click starts (explorer.ui.chart.draw), else None. With "Show
    charts as tables" on, its numbers as tables in its place."""
    beyond_help([fig])
    return explorer_chart.draw(fig, key, clickable=clickable, tables=state.tables())


# Charts drawn by chart_of and token_matrices' rows: a chart's bytes (2-100 KB) with its words, for the last
# pages drawn (each of the two caches)
DRAWN_BYTES = 4 * cache.MB


def chart_of(build: Callable[..., Drawn], /, *args: object, key: str, **kwargs: object) -> None:
    """chart(build(*args, **kwargs), key), for a builder whose figure is drawn as it is built (nothing
    changes it first): a chart drawn before with the same builder, arguments, key and language, by any
    session, is sent without building or encoding its figure again (the students following a class draw
    the teacher's charts on every move). Drawn as tables, or with an argument that has no digest, it is
    built each time."""
    try:
        made = None if state.tables() else cache.digest_of((build.__module__, build.__qualname__, args,
                                                              kwargs, key, i18n.current()))  # fmt: skip
    except TypeError:
        made = None
    if made is None:
        chart(build(*args, **kwargs), key)
        return
    payload, height, title, beyond = _encoded_chart(made, _build=lambda: build(*args, **kwargs), _key=key)
    beyond_line([(title, beyond)])
    explorer_chart.draw_encoded(payload, height, key)


@cache.shared(max_bytes=DRAWN_BYTES)
def _encoded_chart(digest: str, _build: Callable[[], Drawn], _key: str) -> tuple[bytes, int, str, str]:
    fig = _build()
    payload, height = explorer_chart.encode(fig, _key)
    return payload, height, describe.title_of(fig), describe.beyond_of(fig)


# What the circles on a trained layer's charts mean, in one line: the charts' own notes name the largest
# value; the whole story (how many, the range, what a massive activation is) squeezed four charts of a step
# into slivers, so it waits behind the (?).
BEYOND = i18n.N_("Circled or framed: values beyond the colour range, drawn in its end colours.")


def beyond_help(figs: Sequence[Drawn]) -> None:
    """One caption over charts that leave values out of their colour range (none: nothing), each chart's
    whole note on them in its help."""
    beyond_line([(describe.title_of(fig), describe.beyond_of(fig)) for fig in figs])


def beyond_line(notes: Sequence[tuple[str, str]]) -> None:
    """beyond_help's line, from each chart's (title, note on the values beyond its range)."""
    said = [f"**{literal(title)}**: {literal(note)}." for title, note in notes if note]
    # Presenting, a (?) is out of reach of a clicker and the line would push a step's charts below the screen:
    # each chart's own line names its largest value, and its description holds the whole note.
    if said and not state.present():
        st.caption(i18n._(BEYOND), help="\n\n".join(said))


def charts_in_row(
    charts: Sequence[tuple[Drawn, str]],
    columns: int | None = None,
    widths: Sequence[float] | None = None,
) -> None:
    """(figure, key) pairs drawn side by side, one column each of `columns` (default: as many as charts; a
    last row with fewer charts keeps the others' width) or of the relative `widths`, their plots level
    (figures.level: a title that wraps or key labels set on top in one of them move none of the plots)."""
    figures.level([fig.figure for fig, _ in charts])
    figs = [fig for fig, _ in charts]
    beyond_help(figs)  # one line over the row: its charts stay level
    cols = st.columns(list(widths) if widths else columns or len(charts))
    for col, fig, (_, key) in zip(cols, figs, charts, strict=False):
        with col:
            explorer_chart.draw(fig, key, tables=state.tables())


# A chart as its builder makes it: (builder, args, kwargs, key)
Built = tuple[Callable[..., Drawn], tuple[object, ...], dict[str, object], str]


def charts_in_row_of(charts: Sequence[Built], columns: int | None = None) -> None:
    """charts_in_row of figures each drawn as its builder makes it, `(build, args, kwargs, key)`: a row drawn
    before with the same builders, arguments, keys and language, by any session, is sent without building,
    levelling or encoding its figures again (the students following a class draw the projector's row on every
    move). Drawn as tables, or with an argument that has no digest, it is built each time."""
    try:
        made = None if state.tables() else cache.digest_of((
            [(b.__module__, b.__qualname__, args, kwargs, key) for b, args, kwargs, key in charts], i18n.current()
        ))  # fmt: skip
    except TypeError:
        made = None
    if made is None:
        charts_in_row([(build(*args, **kwargs), key) for build, args, kwargs, key in charts], columns)
        return
    drawn = _encoded_row(made, _charts=charts)
    beyond_line([(title, beyond) for _, _, title, beyond in drawn])
    for col, (payload, height, _, _), (*_, key) in zip(
        st.columns(columns or len(charts)), drawn, charts, strict=False
    ):
        with col:
            explorer_chart.draw_encoded(payload, height, key)


@cache.shared(max_bytes=DRAWN_BYTES)
def _encoded_row(digest: str, _charts: Sequence[Built]) -> list[tuple[bytes, int, str, str]]:
    figs = [build(*args, **kwargs) for build, args, kwargs, _ in _charts]
    figures.level([fig.figure for fig in figs])  # as charts_in_row draws them
    out = []
    for fig, (*_, key) in zip(figs, _charts, strict=True):
        payload, height = explorer_chart.encode(fig, key)
        out.append((payload, height, describe.title_of(fig), describe.beyond_of(fig)))
    return out


def pair_width(n_tokens: int, sty: figures.Style) -> int:
    """The width two n x n charts are drawn at: half each, side by side, while every label fits in half the
    width; a long sentence, or a projector, gets the whole width (numbers large enough for the back of the
    room), one chart above the other."""
    return HALF if n_tokens <= 16 and not sty.present else figures.FULL_PX


# A table of tokens wider than this scrolled sideways at 1280 px (33 tokens: 3 screens); a projector's 1920 px
# hold more, and the step must stay one screen.
TOKENS_PER_TABLE = 12
TOKENS_PER_TABLE_PRESENTING = 16


def token_table(tokens: list[str], labels: list[str], ids: list[int] | None = None) -> None:
    """Each token and its label in the charts (and its id, where the layer's vocabulary is shown), by
    position, in tables of TOKENS_PER_TABLE positions (more while presenting) one under the other: every
    token in view, none behind a scroll bar."""
    per = TOKENS_PER_TABLE_PRESENTING if state.present() else TOKENS_PER_TABLE
    rows = [tokens, labels] + ([[str(i) for i in ids]] if ids is not None else [])
    names = [i18n._("token"), i18n._("label in charts")] + ([i18n._("token id")] if ids is not None else [])
    for start in range(0, len(tokens), per):
        end = min(start + per, len(tokens))
        st.dataframe(
            pd.DataFrame(
                [r[start:end] for r in rows],
                index=names,
                columns=[str(i) for i in range(start, end)],
            ),
            width="stretch",
        )


# A sentence whose every character is a space, a control or a zero-width character: the toy tokenizer finds
# no token in it (attention_core.tokenize drops whitespace and keeps everything visible), and neither the
# explorer's pages nor the real-model pages run it (a byte-level model would read 900 invisible tokens).
NOTHING_VISIBLE = (
    "The sentence has no words, only spaces or invisible characters (such as zero-width or control "
    "characters): type a few words in the box above"
)  # how both messages below begin
# What to do with no sentence (EMPTY) or nothing visible in it (INVISIBLE), by what the page then shows
EMPTY = {
    "tokens": i18n.N_("Type a sentence in the box above to see its tokens go through self-attention."),
    "model": i18n.N_("Type a sentence in the box above to see what the model does with it."),
}
INVISIBLE = {
    "tokens": i18n.N_(
        "The sentence has no words, only spaces or invisible characters (such as zero-width or control "
        "characters): type a few words in the box above to see its tokens go through self-attention."
    ),
    "model": i18n.N_(
        "The sentence has no words, only spaces or invisible characters (such as zero-width or control "
        "characters): type a few words in the box above to see what the model does with it."
    ),
}


def visible(sentence: str) -> bool:
    """The sentence has something to read: a token of the toy tokenizer (whatever model runs it)."""
    return bool(tokens_of(sentence)[0])


def nothing_to_read(sentence: str, then: str) -> bool:
    """True, with the one message that says why, when there is no sentence or nothing visible in it; `then`
    says what typing one shows: "tokens" (the explorer's pages) or "model" (a real model's)."""
    if not sentence:
        st.info(i18n._(EMPTY[then]), icon=":material/edit:")
    elif not visible(sentence):
        st.info(i18n._(INVISIBLE[then]), icon=":material/edit:")
    else:
        return False
    return True


def result() -> tuple[Example, Result | None]:
    """The current example and its traced result; shows the reason and returns None if it cannot run.

    On a page that shows the attention trace (its row in the page table), in pre-norm: say that attention
    reads LN(X).
    """
    ex = state.current()
    shown = state.description()
    page = page_table.by_path(state.page())
    reads = page is not None and page.attention  # a page of the attention trace
    if shown.banner:
        layer_banner(shown, reads)
    then = "tokens"
    if nothing_to_read(ex.sentence, then):
        return ex, None
    res = compute.run(ex)
    if res.n == 0:
        nothing_to_read("", then)
        return ex, None
    if res.error:
        st.error(
            i18n._("This example cannot be computed: {why}", why=literal(i18n._(res.error))),
            icon=":material/error:",
        )
        return ex, None
    if res.attention_input != "X" and reads and not (shown.banner and step()):  # presenting: in the banner
        st.info(
            i18n._(
                "Pre-norm: attention reads {x}, each token's vector of X normalised (page Encoder block), so the "
                "numbers on this page are computed from {x}, not X.",
                x=res.attention_input,
            ),
            icon=":material/info:",
        )
    return ex, res


def layer_banner(shown: Description, reads: bool = False) -> None:
    """Above an explorer page showing a trained layer: which model and layer, what stays the model's, and
    the way back to the toy model. Presenting: one line, no frame, that also says what attention reads in
    pre-norm on a page of the attention trace (reads)."""
    if step() is not None:
        left, right = st.columns([4, 1], vertical_alignment="center")
        said = i18n._(
            "**{source}: {layer}** (trained weights, editable)",
            source=shown.source,
            layer=literal(shown.title),
        )
        if reads and shown.norm_first:
            said = i18n._("{said} · attention reads {norm}(X), each token's vector normalised", said=said,
                          norm=shown.norm_name)  # fmt: skip
        left.markdown(said)
        right.button(i18n._("Back to the toy model"), key="layer.close", on_click=state.close_layer, icon=":material/undo:",
                     type="tertiary")  # fmt: skip
        return
    with st.container(border=True):
        left, right = st.columns([3, 1], vertical_alignment="center")
        left.markdown(i18n._("**{source}:** {banner}", source=shown.source, banner=literal(shown.banner)))
        right.button(
            i18n._("Back to the toy model"),
            key="layer.close",
            on_click=state.close_layer,
            icon=":material/undo:",
        )


# Presenting a trained layer, its one-line banner and the settings it fixes take lines the toy model's step
# does not: its charts are this much shorter, and the step stays one screen.
REAL_LAYER_PX = 150


def chart_px(less: int = 0) -> int | None:
    """The height of a step's chart while presenting a trained layer, `less` px shorter still (for notes the
    page adds above its charts); None otherwise (the chart's own)."""
    if step() is None or not state.description().banner:
        return None
    return figures.PRESENT_CHART_PX - REAL_LAYER_PX - less


def head_picker(n_heads: int) -> int:
    """The head selector (1-based for people, 0-based inside), bound to the shared head (state.K_HEAD).

    Like the token pickers it keeps its choice across pages (persist_state): one choice, every page.
    """
    if n_heads <= 1:
        return 0
    state.take_picked_head()
    st.segmented_control(
        i18n._("Head"),
        list(range(n_heads)),
        format_func={h: i18n._("head {n}", n=h + 1) for h in range(n_heads)}.get,  # this run's words
        key=state.K_HEAD,
        required=True,  # a head is always chosen (a second click does not clear it)
        persist_state="session",
        label_visibility="collapsed" if step() is not None else "visible",  # "head 1" says it
    )
    return state.head()


def keep_among(key: str, options: Sequence[object], said: str) -> None:
    """Before a picker of a position (a token, a head) whose value a link may carry: kept among `options`, and
    a link that asked for one past them says so here, above the picker (`said`: how the page names them)."""
    message = state.keep_among(key, options, said)
    if message:
        st.warning(literal(message), icon=":material/link:")


def token_picker(label: str, labels: list[str], key: str) -> int:
    """A selectbox over token positions showing the (escaped-by-Streamlit) labels, bound to a shared choice
    (state.K_QUERY or state.K_KEY) and kept across pages like the head picker."""
    idx = st.selectbox(
        label,
        list(range(len(labels))),
        format_func=lambda i: f"{i}: {labels[i]}",
        key=key,
        persist_state="session",  # the chosen token stays chosen on the way to another page and back
    )
    return int(idx or 0)
