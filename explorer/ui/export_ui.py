"""The downloads of "Share and export": the example as a notebook and as one offline HTML page.

Each file is made only when its button is pressed (st.download_button with a callable: Streamlit calls it
when the browser asks for the file), never on a rerun. The callables get plain values, not session state:
they run outside the script.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

import streamlit as st

from explorer.compute import cached as compute
from explorer.export import html, layer_notebook, notebook, qr, walkthrough
from explorer.model.description import describe
from explorer.model.example import Example
from explorer.sharing import url as links
from explorer.ui import state


def _walkthrough(ex: Example, query: int, head: int, link: str) -> walkthrough.Walkthrough:
    return walkthrough.from_example(ex, compute.run(ex), query=query, head=head, link=link)


def notebook_bytes(ex: Example, query: int, head: int, link: str) -> bytes:
    if describe(ex).trained:  # a trained layer: the head on screen, from the layer's own numbers
        return layer_notebook.to_bytes(ex, compute.run(ex), head, link)
    return notebook.to_bytes(_walkthrough(ex, query, head, link))


def html_bytes(ex: Example, query: int, head: int, link: str) -> bytes:
    w = _walkthrough(ex, query, head, link)
    shown = describe(ex)
    if shown.trained:  # say where the numbers come from
        said = f"Real model: {shown.banner()} The formulas are this layer's; every chart shows this layer's own numbers."
        w = replace(w, notes=(said, *w.notes))
    return html.to_bytes(w)


def downloads(ex: Example, link: str) -> None:
    """The notebook and HTML buttons (inside the share panel); a note instead when nothing can be computed."""
    res = compute.run(ex)
    if res.n == 0 or res.error:
        st.caption("The notebook and the web page need an example that computes: type a sentence.")
        return
    query, head = state.query(), state.head()
    link = "" if links.too_long(link) else link  # too long to be a link: the files carry the example
    st.download_button(
        "Download as notebook (.ipynb)",
        data=partial(notebook_bytes, ex, query, head, link),
        file_name="attention-example.ipynb",
        mime="application/x-ipynb+json",
        on_click="ignore",
        icon=":material/code:",
        width="stretch",
        key="share.notebook",
        help=f"A Jupyter notebook that recomputes head {head + 1} of this real layer from its own numbers "
        "(X, the head's W_Q, W_K, W_V and biases), and says where they came from; its last cell checks it "
        "gets the app's numbers."
        if describe(ex).trained
        else "A Jupyter notebook that recomputes every step of this example in plain numpy, with every "
        "matrix written out; its last cell checks it gets the app's numbers.",
    )
    st.download_button(
        "Download as a web page (.html)",
        data=partial(html_bytes, ex, query, head, link),
        file_name="attention-example.html",
        mime="text/html",
        on_click="ignore",
        icon=":material/language:",
        width="stretch",
        key="share.html",
        help="One file with every step's charts (interactive), formulas and settings, and a link back "
        "here. It opens in any browser without a network: to e-mail, or to put on a course site "
        "(about 5 MB: the chart library is inside).",
    )


QR_WIDTH_PX = 720  # the code in its dialog: about 6 px a module at version 26, for the back of a room
# Static CSS (no user text): on a short screen (a 1280 x 800 laptop) the code shrinks to stay in view.
QR_CSS = "<style>.st-key-qr-code img { max-width: min(100%, 64vh) !important; height: auto; }</style>"


@st.dialog("Open this example on your laptop", width="large")
def qr_dialog(link: str) -> None:
    """The QR code of the share link, large; Esc or a click outside closes it."""
    image = qr.svg(link)
    if image is None:
        reason = "there is no link" if not link else f"the link has {len(link):,} characters"
        st.warning(
            f"No QR code: {reason}, and a QR code holds at most {qr.MAX_LINK_BYTES:,}. Share the link or "
            "the JSON file from the sidebar instead.",
            icon=":material/qr_code_2:",
        )
        return
    with st.container(key="qr-code", horizontal_alignment="center"):
        st.image(image, width=QR_WIDTH_PX)
    st.caption(
        f"Scan with a phone camera: it opens this sentence, these settings and every edited matrix "
        f"({len(link):,} characters, a {qr.modules(link)} x {qr.modules(link)} code)."
    )


def qr_button(key: str, *, label: str = "Show QR code") -> None:
    """A button that opens the QR dialog (through state: the frame opens it, see qr_if_asked)."""
    st.button(
        label,
        key=key,
        icon=":material/qr_code_2:",
        on_click=state.open_qr,
        help="A QR code of the link to this example, large: students scan it and open the same example.",
    )


def qr_if_asked(link: Callable[[], str]) -> None:
    """Open the QR dialog of the link `link()` makes, on the run a QR button started (called once per run, by
    the frame; the link is made only then: a new sentence's link is a few ms to encode)."""
    if state.take_qr():
        st.html(QR_CSS)  # outside the dialog: a <style> alone is not drawn inside one
        qr_dialog(link())
