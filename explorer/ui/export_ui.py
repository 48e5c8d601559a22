"""The downloads of "Share and export": the example as a notebook and as one offline HTML page.

Each file is made only when its button is pressed (st.download_button with a callable: Streamlit calls it
when the browser asks for the file), never on a rerun, and in a worker (explorer.export.files). The callables
get plain values, not session state: they run outside the script.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import streamlit as st

from explorer import i18n
from explorer.compute import cached as compute
from explorer.export import files, qr
from explorer.i18n import N_, _
from explorer.model import models
from explorer.model.example import Example
from explorer.model.layer import describe
from explorer.sharing import url as links
from explorer.ui import class_ui, model_ui, state

Asked = files.Asked
experiments, notebook_bytes, html_bytes = files.experiments, files.notebook_bytes, files.html_bytes


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


# Description.notebook -> its button's help
NOTEBOOK_HELP = {
    "walkthrough": N_(
        "A Jupyter notebook that recomputes every step of this example in plain numpy, with every matrix "
        "written out; its last cell checks it gets the app's numbers."
    ),
    "layer": N_(
        "A Jupyter notebook that recomputes head {head} of this real layer from its own numbers (X, the "
        "head's W_Q, W_K, W_V and biases), and says where they came from; its last cell checks it gets the "
        "app's numbers."
    ),
}


def in_language(code: str, make: Callable[..., bytes], *args: Any) -> bytes:
    """A file made in the language on screen when its button was drawn: Streamlit makes it when the browser
    asks, outside the script run, where no session's language is known."""
    with i18n.using(code):
        return make(*args)


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
    notebook_help = _(NOTEBOOK_HELP[describe(ex).notebook], head=head + 1)
    made = (  # (label, which file, file name, type, icon, key, help): made in a worker when the button is pressed
        (_("Download as notebook (.ipynb)"), "notebook", "attention-example.ipynb", "application/x-ipynb+json",
         ":material/code:", "share.notebook", notebook_help),
        (_("Download as a web page (.html)"), "html", "attention-example.html", "text/html",
         ":material/language:", "share.html", _(HTML_HELP)),
    )  # fmt: skip
    teaching = state.classroom.teaching()  # the teacher's notebook ends with the class's answers
    code = i18n.current()
    for label, which, name, mime, icon, key, help_ in made:
        make = partial(files.make, which, code)
        make = partial(class_ui.with_answers, teaching, make) if which == "notebook" else make
        st.download_button(
            label, data=partial(make, ex, query, head, link, what),
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
