"""The sidebar's "Share and export": a link to this example, the JSON file (export and import), CSV files.

The formats live in the other modules of explorer.sharing (pure); this one only draws and routes through
explorer.ui.state.
"""

from __future__ import annotations

from functools import partial
from urllib.parse import parse_qsl

import streamlit as st

from explorer import cache, i18n, sharing
from explorer.compute import jobs
from explorer.export import files
from explorer.i18n import N_, _
from explorer.model import pairs, patching
from explorer.model.example import MATRIX_NAMES, Example
from explorer.sharing import lesson_link, model_link, picks, upload, view_params
from explorer.sharing import url as links
from explorer.ui import export_ui, lesson_ui, state
from explorer.ui.present import STEPS, step_index

K_CSV = "share.csv_matrix"  # which matrix the CSV button downloads
# The share-link cache: each entry is at most a link's length (sharing.LINK_LIMIT characters); an example too
# large for a link keeps its length and its settings' query only (_query).
LINK_BYTES = 2 * cache.MB

MATRIX_TITLES = {
    "emb": N_("Embeddings E"),
    "pe_table": N_("Position table P (learned)"),
    "w_q": N_("W_Q (every head)"),
    "w_k": N_("W_K (every head)"),
    "w_v": N_("W_V (every head)"),
    "w_o": N_("W_O"),
    "w1": N_("W1 (feed-forward in)"),
    "w2": N_("W2 (feed-forward out)"),
    "custom_mask": N_("Custom mask (1 = may attend)"),
    "b_q": N_("b_Q (every head)"),
    "b_k": N_("b_K (every head)"),
    "b_v": N_("b_V (every head)"),
    "b_o": N_("b_O"),
    "b1": N_("b1 (feed-forward in)"),
    "b2": N_("b2 (feed-forward out)"),
    "w_up": N_("W_up (SwiGLU's up projection)"),
}


def base_url() -> str:
    """The page's own address as the browser sees it (st.context.url), or "" (then the link is "?...")."""
    try:
        return st.context.url or ""
    except Exception:  # noqa: BLE001 - no browser context (bare runs): a relative link
        return ""


@cache.shared(max_bytes=LINK_BYTES)
def _query(
    digest: str, draws: tuple[tuple[str, int], ...], present: bool, _ex: Example, ask: int | str | None = None
) -> tuple[str, bool]:
    """The query string of the link to `_ex` (`digest` is its content hash: the key), and whether it holds the
    whole example: past sharing.LINK_LIMIT no link is offered (the JSON file carries the example) and the
    query is the settings' alone (links.link_query). A real layer's file would make megabytes of link: its
    edits are encoded only until that is certain, once, and the cache keeps a few hundred characters."""
    return links.link_query(_ex, dict(draws), present=present, ask=ask)


def page_params() -> dict[str, str]:
    """The pages' choices as link parameters: the explorer's head and tokens picked (h=, q=, k=:
    explorer.sharing.picks); the real-model pages' model, layer, head and switched-off heads, the logit lens's
    token and the induction run (explorer.sharing.model_link), /patching's pair and answers (corrupt=,
    answer=, wrong=), the second sentences and the word of the two-sentence experiments (pair=, word=,
    other=), and the pages' display controls (explorer.sharing.view_params: view=, log=, ind_head=, fit=...).
    Each only when it is not the default."""
    out = picks.params(*state.picks())
    picked = model_link.params(
        state.model_key(), *state.picked_head(), state.off_heads(), **state.real_model_link()
    )
    out.update({p: v for p, v in picked.items() if v is not None})
    out.update(patching.link_params(*state.patch_link_state()))
    out.update(pairs.link_params(*state.pair_link_state()))
    out.update(view_params.params(state.view_values()))
    out.update(links.lang_params(state.language()))  # lang=: the link opens in the language on screen
    lesson = lesson_ui.current()
    if lesson is not None:  # the lesson and its step (step= then counts the lesson's steps)
        out.update(lesson_link.params(lesson[0].name, lesson[1]))
    return out


def step_params(url_path: str) -> dict[str, str]:
    """Presenting page ``url_path`` at one of its steps: that step (step=, as the address bar has it)."""
    name = st.query_params.get("step")
    i = step_index(url_path, name) if state.present() and name else None
    return {} if i is None or STEPS[i].name != name else {"step": name}


def link_for(ex: Example, draws: dict[str, int], present: bool, url_path: str | None = None) -> str:
    """The link to this example (with the question asked, if any: it opens with the answer hidden), the pages'
    choices (``page_params``) and, presenting page ``url_path``, its step shown: the address bar's
    parameters, as a link; "" when the example is too large for a link (past sharing.LINK_LIMIT)."""
    asked = ([str(state.ask())] if state.ask() is not None else []) + list(state.model_questions())
    query, whole = _query(ex.digest(), tuple(sorted(draws.items())), present, ex, ",".join(asked) or None)
    extra = {**page_params(), **(step_params(url_path) if present and url_path is not None else {})}
    if extra:
        query += "&" + links.query_of_params(extra)
    url = f"{base_url().split('?', 1)[0]}?{query}"
    return url if whole and not links.too_long(url) else ""


@cache.shared(max_bytes=cache.MB)
def _address(
    digest: str, draws: tuple[tuple[str, int], ...], present: bool, base_chars: int, _ex: Example
) -> tuple[tuple[tuple[str, str], ...], bool]:
    query, whole = _query(digest, draws, present, _ex)
    fits = whole and base_chars + 1 + len(query) <= sharing.LINK_LIMIT  # the Share link would be offered
    params = parse_qsl(query, keep_blank_values=True)
    if not fits:  # the settings only: the edited matrices need the JSON file
        params = [(k, v) for k, v in params if k != sharing.STATE_PARAM]
    return tuple(params), fits


def address(
    ex: Example, draws: dict[str, int], present: bool, preset: str = "", *, as_loaded: bool = False
) -> tuple[dict[str, str], bool]:
    """What the address bar holds, and whether the Share link holds the whole example: the Share link's
    parameters (every setting, the edited matrices, present=1) after preset=<name> when one is loaded, or only
    preset=<name> while the example is that preset's as loaded (`as_loaded`). Past sharing.LINK_LIMIT the
    edited matrices (s=) are left out: the page says they need the JSON file."""
    base = len(base_url().split("?", 1)[0])
    head = {"preset": preset} if preset else {}
    if preset and as_loaded:
        params = {**head, **({"present": "1"} if present else {})}
        return params, True
    params, fits = _address(ex.digest(), tuple(sorted(draws.items())), present, base, ex)
    return {**head, **dict(params)}, fits


def panel(url_path: str | None = None) -> None:
    """Draw the share and export controls (inside the sidebar), while the panel is open; the files of a
    real-model page with an experiment (``url_path``) add it.

    Closed (as it opens), its dozen elements are neither made nor sent: each element on the page costs the
    browser about 0.8 ms of every Enter (benchmarks/element_cost.py). Opening it reruns the app, which draws
    them.
    """
    box = st.expander(
        _("Share and export"), icon=":material/share:", key=state.K_SHARE_OPEN, on_change="rerun"
    )
    if not box.open:
        return
    ex, draws = state.current(), state.draws()
    with box:
        st.markdown(_("**Link to this example**"))
        url = link_for(ex, draws, state.present(), url_path)
        if not url:
            st.warning(
                _(
                    "This example is too large for a link (links stay under {limit} characters): download it "
                    "as a JSON file below and send the file instead.",
                    limit=i18n.integer(sharing.LINK_LIMIT),
                ),
                icon=":material/link_off:",
            )
        else:
            st.code(url, language=None, wrap_lines=True, height=min(80 + len(url) // 6, 220))
            st.caption(
                _(
                    "{chars} characters. Copy it with the button at the top right of the box: it opens this "
                    "page with the same sentence, settings and every edited matrix.",
                    chars=i18n.integer(len(url)),
                )
            )
        export_ui.qr_button(key="share.qr")
        _files(ex, draws, url_path)


def _files(ex: Example, draws: dict[str, int], url_path: str | None) -> None:
    """The panel's files: the notebook and the web page, the example as JSON (and opening one), a matrix as
    CSV."""
    st.markdown(_("**Files**"))
    export_ui.downloads(ex, link_for(ex, draws, False), url_path)
    st.download_button(
        _("Download the example (JSON)"),
        data=partial(files.json_text, ex, dict(draws)),  # a real layer's made in a worker
        file_name="attention-example.json",
        mime="application/json",
        on_click="ignore",
        icon=":material/download:",
        width="stretch",
        key="share.json",
    )
    st.file_uploader(
        _("Open an example (JSON)"),
        type=["json"],
        key=state.K_UPLOAD,
        on_change=_on_upload,
        max_upload_size=sharing.UPLOAD_MB,
        help=_("A file downloaded with the button above. The current example can be restored with Undo."),
    )
    names = [n for n in MATRIX_NAMES if getattr(ex, n).size]  # (the toy model has no biases)
    name = st.selectbox(
        _("Matrix as CSV"), names, key=K_CSV, format_func={n: _(MATRIX_TITLES[n]) for n in names}.get
    )
    st.download_button(
        _("Download the matrix (CSV)"),
        data=partial(_csv, ex, str(name)),
        file_name=f"{name}.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/table:",
        width="stretch",
        key="share.csv",
    )


def _csv(ex: Example, name: str) -> str:
    return sharing.to_csv(ex, name, sharing.tokens(ex))


def _on_upload() -> None:
    data = state.uploaded()
    if data is not None:
        import_json(data)
        state.release_upload()  # read: its bytes leave the upload store (the example holds what it needs)


def import_json(data: bytes) -> bool:
    """Open an exported example; on any problem say why and change nothing. True if it was opened."""
    try:
        ex, notes, refused = upload.read(data)  # read and checked in a worker (explorer.compute.jobs)
    except (jobs.Busy, jobs.Failed) as e:
        state.say("error", str(e))
        return False
    if ex is None:
        state.say("error", refused)
        return False
    state.apply_example(ex)
    state.set_preset("")
    state.say(
        "success", _("Opened the example from the file. Undo (in the sidebar) brings back the one before.")
    )
    for note in notes:
        state.say("warning", note)
    return True
