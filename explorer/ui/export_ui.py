"""The downloads of "Share and export": the example as a notebook and as one offline HTML page.

Each file is made only when its button is pressed (st.download_button with a callable: Streamlit calls it
when the browser asks for the file), never on a rerun. The callables get plain values, not session state:
they run outside the script.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import streamlit as st

from attention_core import analysis
from explorer import i18n
from explorer.compute import cached as compute
from explorer.compute import model_compute, pairs, patching
from explorer.export import experiments as experiments_
from explorer.export import html, layer_notebook, notebook, qr, walkthrough
from explorer.i18n import N_, _
from explorer.model import models
from explorer.model import pairs as pm
from explorer.model.example import Example
from explorer.model.layer import describe
from explorer.sharing import url as links
from explorer.ui import class_ui, model_ui, state

# What a real-model page's experiment was, in plain values (the download runs outside the script, without the
# session): ("patching", model, clean, corrupt, answer, wrong) or ("minimal-pairs", model, first, second, word,
# layer); answer, wrong, word None when not picked (the page's defaults).
Asked = tuple[Any, ...] | None


def asked(url_path: str | None) -> Asked:
    """The experiment of the page ``url_path`` as this session has it, or None (no experiment there)."""
    sentence = state.sentence().strip()
    if url_path == "patching":
        corrupt, answer, wrong = state.patch_link_state()
        return ("patching", model_ui.shown_key(decoder_only=True), sentence, corrupt.strip(), answer, wrong)
    if url_path == "minimal-pairs":
        key = model_ui.shown_key(encoder_only=True)
        return ("minimal-pairs", key, sentence, state.pair_link_state()[0].strip(), state.pair_word(sentence),
                state.layer_head(*models.MODELS[key].shape)[0])  # fmt: skip
    return None


def experiments(what: Asked) -> tuple[experiments_.Experiment, ...]:
    """The experiment as the exports show it, from the caches the page filled (a sweep not run yet is left
    out); none when it cannot be made (a model not installed, a pair the page refused)."""
    if what is None or not what[2] or not what[3] or models.missing(what[1]):
        return ()
    name, key, first, second, a, b = what
    try:
        if name == "patching":
            pair = patching.pair(key, first, second, *patching.answers(key, first, second, a, b))
            sweeps = [
                patching.sweep(key, first, second, pair.answer, pair.wrong, s) for s in ("resid", "head")
            ]
            return (experiments_.patching(pair, *sweeps),)
        runs = model_compute.run(key, first), model_compute.run(key, second)
        differ = (
            analysis.differing(runs[0].tokens, runs[1].tokens) if runs[0].n_tokens == runs[1].n_tokens else ()
        )
        word = pm.pick_word(runs[0].tokens, differ, a)
        return (experiments_.minimal_pair(pairs.shift(key, first, second, word), int(b)),)
    except ValueError:  # the page says why; the export leaves it out
        return ()


def _walkthrough(
    ex: Example, query: int, head: int, link: str, what: Asked = None
) -> walkthrough.Walkthrough:
    w = walkthrough.from_example(ex, compute.run(ex), query=query, head=head, link=link)
    return replace(w, experiments=experiments(what))


def _walkthrough_notebook(ex: Example, query: int, head: int, link: str, what: Asked = None) -> bytes:
    return notebook.to_bytes(_walkthrough(ex, query, head, link, what))


def _layer_notebook(ex: Example, query: int, head: int, link: str, what: Asked = None) -> bytes:
    return layer_notebook.to_bytes(ex, compute.run(ex), head, link)  # the head on screen, its own numbers


# Description.notebook -> (what writes the notebook, its button's help)
NOTEBOOKS = {
    "walkthrough": (
        _walkthrough_notebook,
        N_(
            "A Jupyter notebook that recomputes every step of this example in plain numpy, with every matrix "
            "written out; its last cell checks it gets the app's numbers."
        ),
    ),
    "layer": (
        _layer_notebook,
        N_(
            "A Jupyter notebook that recomputes head {head} of this real layer from its own numbers (X, the "
            "head's W_Q, W_K, W_V and biases), and says where they came from; its last cell checks it gets the "
            "app's numbers."
        ),
    ),
}


def in_language(code: str, make: Callable[..., bytes], *args: Any) -> bytes:
    """A file made in the language on screen when its button was drawn: Streamlit makes it when the browser
    asks, outside the script run, where no session's language is known."""
    with i18n.using(code):
        return make(*args)


def notebook_bytes(ex: Example, query: int, head: int, link: str, what: Asked = None) -> bytes:
    return NOTEBOOKS[describe(ex).notebook][0](ex, query, head, link, what)


def html_bytes(ex: Example, query: int, head: int, link: str, what: Asked = None) -> bytes:
    w = _walkthrough(ex, query, head, link, what)
    shown = describe(ex)
    if shown.banner:  # say where the numbers come from
        said = i18n._("{source}: {banner} The formulas are this layer's; every chart shows this layer's own "
                      "numbers.", source=shown.source, banner=shown.banner)  # fmt: skip
        w = replace(w, notes=(said, *w.notes))
    return html.to_bytes(w)


def downloads(ex: Example, link: str, url_path: str | None = None) -> None:
    """The notebook and HTML buttons (inside the share panel); a note instead when nothing can be computed.
    On a real-model page with an experiment (``url_path``: /patching, /minimal-pairs) both files add it."""
    res = compute.run(ex)
    if res.n == 0 or res.error:
        st.caption(_("The notebook and the web page need an example that computes: type a sentence."))
        return
    query, head = state.query(), state.head()
    link = "" if links.too_long(link) else link  # too long to be a link: the files carry the example
    what = asked(url_path)
    notebook_help = _(NOTEBOOKS[describe(ex).notebook][1], head=head + 1)
    files = (  # (label, bytes, file name, type, icon, key, help): made only when the button is pressed
        (_("Download as notebook (.ipynb)"), notebook_bytes, "attention-example.ipynb", "application/x-ipynb+json",
         ":material/code:", "share.notebook", notebook_help),
        (_("Download as a web page (.html)"), html_bytes, "attention-example.html", "text/html",
         ":material/language:", "share.html", _(HTML_HELP)),
    )  # fmt: skip
    teaching = state.classroom.teaching()  # the teacher's notebook ends with the class's answers
    for label, make, name, mime, icon, key, help_ in files:
        made = partial(class_ui.with_answers, teaching, make) if make is notebook_bytes else make
        st.download_button(
            label, data=partial(in_language, i18n.current(), made, ex, query, head, link, what),
            file_name=name, mime=mime,
            on_click="ignore", icon=icon, width="stretch", key=key, help=help_,
        )  # fmt: skip


HTML_HELP = N_(
    "One file with every step's charts (interactive), formulas and settings, and a link back here. It opens in "
    "any browser without a network: to e-mail, or to put on a course site (about 5 MB: the chart library is "
    "inside)."
)


QR_WIDTH_PX = 720  # the code in its dialog: about 6 px a module at version 26, for the back of a room
# Static CSS (no user text): on a short screen (a 1280 x 800 laptop) the code shrinks to stay in view.
QR_CSS = "<style>.st-key-qr-code img { max-width: min(100%, 64vh) !important; height: auto; }</style>"


def qr_dialog(link: str) -> None:
    """The QR code of the share link, large, in a dialog titled in the language on screen; Esc or a click
    outside closes it."""
    st.dialog(_("Open this example on your phone"), width="large")(_qr_code)(link)


def _qr_code(link: str) -> None:
    image = qr.svg(link)
    if image is None:
        most = i18n.integer(qr.MAX_LINK_BYTES)
        st.warning(
            _(
                "No QR code: there is no link, and a QR code holds at most {most} characters. Share the JSON "
                "file from the sidebar instead.",
                most=most,
            )
            if not link
            else _(
                "No QR code: the link has {chars} characters, and a QR code holds at most {most}. Share the "
                "link or the JSON file from the sidebar instead.",
                chars=i18n.integer(len(link)),
                most=most,
            ),
            icon=":material/qr_code_2:",
        )
        return
    with st.container(key="qr-code", horizontal_alignment="center"):
        st.image(image, width=QR_WIDTH_PX)
    st.caption(
        _(
            "Scan with a phone camera: it opens this sentence, these settings and every edited matrix ({chars} "
            "characters, a {n} x {n} code). On a laptop: open the address below and type the sentence (the "
            "settings and edits travel in the link only).",
            chars=i18n.integer(len(link)),
            n=qr.modules(link),
        )
    )
    if _site(link):
        st.code(_site(link), language=None)


def _site(link: str) -> str:
    """The address to type for those who cannot scan: the link's site and page, without its parameters."""
    return link.split("?", 1)[0].split("://", 1)[-1].rstrip("/")


def qr_button(key: str, *, label: str | None = None) -> None:
    """A button that opens the QR dialog (through state: the frame opens it, see qr_if_asked)."""
    st.button(
        _("Show QR code") if label is None else label,
        key=key,
        icon=":material/qr_code_2:",
        on_click=state.open_qr,
        help=_("A QR code of the link to this example, large: students scan it and open the same example."),
    )


def qr_if_asked(link: Callable[[], str]) -> None:
    """Open the QR dialog of the link `link()` makes, on the run a QR button started (called once per run, by
    the frame; the link is made only then: a new sentence's link is a few ms to encode)."""
    if state.take_qr():
        st.html(QR_CSS)  # outside the dialog: a <style> alone is not drawn inside one
        qr_dialog(link())
