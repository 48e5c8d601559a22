"""The parts of the frame (app.py) that every page shares: URL, sidebar controls, sentence box, messages."""

from __future__ import annotations

import streamlit as st

from explorer import defaults, links, present, preset_ui, share_ui, sharing, state
from explorer.example import BOUNDS, tokens_of
from explorer.text import literal

_URL_READ = "ui.url_read"


def read_url() -> None:
    """Once per session: take the example from the URL; afterwards keep the URL in step with the state."""
    if not st.session_state.get(_URL_READ):
        st.session_state[_URL_READ] = True
        got = links.read({k: st.query_params.get(k) for k in st.query_params}, state.current())
        if got.example is not None:
            state.apply_example(got.example, remember=False)
        if got.preset:
            state.set_ui(state.K_PRESET, got.preset)
        if got.present is not None:
            state.set_ui(state.K_PRESENT, got.present)
        for kind, text in got.messages:
            state.say(kind, text)
        # The address bar keeps only the sentence (sync_url): the link's other parts are now the state.
        for param in ("preset", *sharing.SHARE_PARAMS):
            if param != "sentence" and param in st.query_params:
                del st.query_params[param]
    sync_url()


def sync_url() -> None:
    """Put the current sentence in the address bar (query params are cleared on page change)."""
    sentence = str(state.get(state.K_SENTENCE))
    if st.query_params.get("sentence") != sentence:
        st.query_params["sentence"] = sentence


def sidebar() -> None:
    """Model size controls shared by every page, and the display options."""
    with st.sidebar:
        preset_ui.picker()
        st.subheader("Model size", anchor=False)
        c1, c2 = st.columns(2)
        lo, hi = BOUNDS["d_model"]
        c1.number_input(
            "d_model",
            lo,
            hi,
            step=1,
            key=state.SETTING_KEYS["d_model"],
            persist_state="session",  # kept even on a page run without the frame
            help="Width of every token vector (embedding, encoding, attention output).",
        )
        lo, hi = BOUNDS["n_heads"]
        c2.number_input(
            "heads",
            lo,
            hi,
            step=1,
            key=state.SETTING_KEYS["n_heads"],
            persist_state="session",  # kept even on a page run without the frame
            help="Number of attention heads, each with its own W_Q, W_K, W_V.",
        )
        lo, hi = BOUNDS["d_k"]
        c1.number_input(
            "d_k = d_v",
            lo,
            hi,
            step=1,
            key=state.SETTING_KEYS["d_k"],
            persist_state="session",  # kept even on a page run without the frame
            help="Width of each head's queries, keys and values.",
        )
        lo, hi = BOUNDS["seed"]
        c2.number_input(
            "seed",
            lo,
            hi,
            step=1,
            key=state.SETTING_KEYS["seed"],
            persist_state="session",  # kept even on a page run without the frame
            help="Seed of the random embeddings and weights: same seed, same numbers.",
        )
        st.divider()
        st.toggle(
            "Presentation mode",
            key=state.K_PRESENT,
            persist_state="session",
            help="Large type for a projector.",
        )
        from explorer.figures import PALETTES

        st.selectbox(
            "Colours",
            list(PALETTES),
            key=state.K_COLORS,
            format_func=lambda p: PALETTES[p][2],
            persist_state="session",
        )
        if state.can_undo():
            st.button("Undo the last reset / re-randomize / preset", on_click=state.undo, key="frame.undo")
        share_ui.panel()


def sentence_box() -> None:
    """The sentence, above every page: typing and pressing Enter updates every chart."""
    st.text_input(
        "Sentence",
        key=state.K_SENTENCE,
        persist_state="session",
        max_chars=defaults.MAX_SENTENCE_CHARS,  # Streamlit also cuts what a browser sends to this length
        placeholder="Type a sentence and press Enter",
        help=f"Words and punctuation become tokens (at most {defaults.MAX_TOKENS}).",
    )
    sentence = str(state.get(state.K_SENTENCE) or "")
    toks, cut = tokens_of(sentence)
    if cut:
        st.warning(
            f"The sentence has more than {defaults.MAX_TOKENS} tokens: the explorer uses the first "
            f"{defaults.MAX_TOKENS}. Shorten it to see the rest.",
            icon="✂️",
        )
    elif sentence and not toks:
        st.info("The sentence has no tokens (only spaces): type a few words.", icon="✏️")


def show_messages() -> None:
    """Messages queued by callbacks (refused edits, restored state) shown once, as plain text.

    They quote what people typed, pasted or put in a URL, so they are never read as Markdown (text.literal).
    """
    for kind, text in state.take_messages():
        {"info": st.info, "warning": st.warning, "error": st.error, "success": st.success}.get(kind, st.info)(
            literal(text)
        )


def presentation_css() -> None:
    """While presenting: the static projector CSS (larger type, full width; never any user text)."""
    if state.present():
        st.html(present.CSS)


def step_controls(pages: list, current, *, top: bool = False) -> None:  # noqa: ANN001 - st.Page objects
    """Previous / next step: walk the pipeline in order, like slides (present.STEPS).

    At the bottom of every page; with top=True (presentation mode) also above the page, large, with what
    to look at in this step.
    """
    i = present.step_index(current.url_path, st.query_params.get("step"))
    if i is None:
        return
    by_path = {p.url_path: p for p in pages}
    prev, nxt = present.neighbours(i)
    step = present.STEPS[i]
    box = st.container(key="step-top" if top else "step-bottom")
    if not top:
        box.divider()
    left, mid, right = box.columns([1, 2, 1], vertical_alignment="center")
    for col, target, label in ((left, prev, "← {}"), (right, nxt, "{} →")):
        if target is not None and target.url_path in by_path:
            col.page_link(
                by_path[target.url_path],
                label=label.format(target.title),
                query_params=present.query_of(target) or None,
                width="stretch",
            )
    n = len(present.STEPS)
    if top:
        mid.markdown(f"**Step {i + 1} of {n} · {step.title}**  \n{step.look}")
    else:
        mid.caption(f"Step {i + 1} of {n}: {step.title}")


PIPELINE = [
    ("pages/sentence.py", "Sentence", "tokens and their embeddings E"),
    ("pages/positional-encoding.py", "Positional encoding", "X = E + P: where each token stands"),
    ("pages/projections.py", "Q, K, V projections", "Q = X W_Q, K = X W_K, V = X W_V per head"),
    ("pages/scores.py", "Scores, mask, softmax", "softmax(Q K^T / sqrt(d_k) + mask)"),
    ("pages/heads.py", "Heads and W_O", "every head, concatenated, times W_O"),
    ("pages/token.py", "One token's view", "one output row as a weighted sum of values"),
    ("pages/encoder.py", "Encoder block", "residual, layer norm, feed-forward"),
    ("pages/why-scale.py", "Why divide by sqrt(d_k)?", "variance and saturation as d_k grows"),
]


def pipeline_map() -> None:
    """Links to every step, in order (plain text where the page registry is not there, e.g. a bare run)."""
    cols = st.columns(4)
    for i, (path, title, what) in enumerate(PIPELINE):
        with cols[i % 4]:
            try:
                st.page_link(path, label=f"{i + 1}. {title}")
            except Exception:  # noqa: BLE001 - a page run on its own has no navigation to link into
                st.markdown(f"**{i + 1}. {title}**")
            st.caption(what)
