"""The session's example: init (once per run, from app.py), the matrices conformed to the settings,
and reading what the pages show."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import streamlit as st

from explorer import cache, i18n
from explorer.compute import model_compute
from explorer.i18n import _
from explorer.model import example as exm
from explorer.model import layer
from explorer.model import settings_table as table
from explorer.model.description import Description
from explorer.model.example import Example
from explorer.ui.state.keys import (
    _APPLYING,
    _BUILT,
    _DRAWS,
    _HEAD_NEXT,
    _MADE,
    _MATRICES,
    _MESSAGES,
    _PAGE,
    _PRESET_AT,
    _SEED,
    _TOKENS,
    _UNDO,
    _UNDO_DRAWS,
    _URL_READ,
    _VERSIONS,
    _X_FOR,
    K_ASK,
    K_COLORS,
    K_FIT,
    K_HEAD,
    K_KEY,
    K_PRESENT,
    K_PRESET,
    K_QUERY,
    K_SENTENCE,
    K_TABLES,
    K_UPLOAD,
    MODEL_DEFAULTS,
    SETTING_KEYS,
    UI_DEFAULTS,
    VIEW_DEFAULTS,
)
from explorer.ui.state.language import init_language


def init() -> None:
    """Idempotent: default every key (setdefault), then conform the matrices to the current settings."""
    ss = st.session_state
    init_language()
    for s in table.SETTINGS:
        ss.setdefault(s.key, s.default)
    _cut_sentence()
    for key, value in {**UI_DEFAULTS, **MODEL_DEFAULTS, **VIEW_DEFAULTS}.items():
        ss.setdefault(key, value)
    ss.setdefault(_VERSIONS, {})
    ss.setdefault(_DRAWS, {})
    ss.setdefault(_MESSAGES, [])
    if _MATRICES not in ss:
        ss[_MATRICES] = {}
    if ss.get(_APPLYING) is not None:  # a run stopped while it made an example the current one
        apply_whole(*ss[_APPLYING])
    _keep_what_the_layer_fixes()
    _conform()


def apply_whole(ex: Example, preset: str | None = None, draws: dict[str, int] | None = None) -> None:
    """Make `ex` the current example (actions.apply_example has recorded it in one write first): its settings,
    matrices and tokens, the seeded draws (`draws`, none by default) and the preset it was loaded from
    (`preset`; None leaves the picker as it is), then conformed. A run stopped half-way through
    (explorer.ui.state) leaves it recorded, and the next run's init applies it whole: the settings of one
    example never meet the matrices or the tokens of another."""
    ss = st.session_state
    for name, key in SETTING_KEYS.items():
        ss[key] = getattr(ex, name)
    model_compute.prepare(ex)
    tokens_now, _cut = exm.tokens_for(ex)
    ss[_MATRICES] = {name: _kept(getattr(ex, name)) for name in exm.MATRIX_NAMES}
    ss[_TOKENS] = tokens_now
    ss[_DRAWS] = dict(draws or {})
    ss[_SEED] = ex.seed  # the example's matrices go with its seed: nothing to draw again
    for name in exm.MATRIX_NAMES:
        _bump(name)
    if preset is not None:
        ss[_PRESET_AT] = ss[K_PRESET] = preset
    _conform()
    ss.pop(_APPLYING, None)


def _keep_what_the_layer_fixes() -> None:
    """The settings a trained layer fixes (its sizes, its embeddings: settings_table.FIXED_BY_LAYER) stay the
    layer's, whatever a rerun brings for them.

    The browser keeps the last values of the toy's controls for those settings (d_model, emb_source: drawn while
    the toy was on screen, not since a layer opened) and sends them again when it draws the page anew, as when
    presenting hides the sidebar: taken over a layer opened from a file, the toy's d_model 8 met the layer's
    weights of 576 ("operands could not be broadcast together") and the page could not be computed."""
    ss = st.session_state
    real = ss[SETTING_KEYS["real"]]
    try:
        fixed = layer.of_key(real).settings_of(real, int(ss[SETTING_KEYS["real_layer"]]))
    except (KeyError, TypeError, ValueError):  # no trained layer on screen: the toy's controls hold
        return
    for name, value in fixed.items():
        if name in table.FIXED_BY_LAYER and ss[SETTING_KEYS[name]] != value:
            ss[SETTING_KEYS[name]] = value


def _cut_sentence() -> None:
    """The sentence cut to MAX_SENTENCE_CHARS before anything reads it (runs before the box is drawn).

    The box has max_chars (Streamlit cuts what the browser sends there too) and links cut the sentence they
    carry; this catches any other way a longer text reached the state.
    """
    ss, limit = st.session_state, table.MAX_SENTENCE_CHARS
    text = ss[K_SENTENCE]
    if not isinstance(text, str):
        ss[K_SENTENCE] = text = str(text or "")[:limit]
    if len(text) > limit:
        ss[K_SENTENCE] = text[:limit]
        say("warning", _("The sentence had {n} characters; it was cut to {limit}.", n=i18n.integer(len(text)),
                         limit=i18n.integer(limit)))  # fmt: skip


def _settings_example() -> Example:
    """The Example of the session's settings and matrices, built again only when one of them changed (a
    matrix changes only by being replaced: its identity says whether it did)."""
    ss = st.session_state
    values = {name: ss[key] for name, key in SETTING_KEYS.items()}
    values["sentence"] = str(values["sentence"] or "")
    made_from = _made_from(values, ss[_MATRICES])
    built = ss.get(_BUILT)
    if built is not None and built[0] == made_from:
        return built[1]
    ex = Example(**values, **ss[_MATRICES])
    ss[_BUILT] = (made_from, ex)
    return ex


def _made_from(values: dict[str, Any], matrices: dict[str, np.ndarray]) -> tuple[object, ...]:
    return tuple(values.values()), tuple((name, id(m)) for name, m in matrices.items())


def _conform() -> None:
    """Bring every matrix to the shapes of the current settings, keeping what fits."""
    ss = st.session_state
    ex = _settings_example()
    model_compute.prepare(ex)
    tokens, _cut = exm.tokens_for(ex)
    old_tokens = ss.get(_TOKENS)
    shapes_before = {k: v.shape for k, v in ss[_MATRICES].items()}
    _say_if_x_edits_go(ex, old_tokens, tokens)
    new = exm.conform(ex, old_tokens=old_tokens, draws=ss[_DRAWS])
    ss[_MATRICES] = {name: _kept(getattr(new, name)) for name in exm.MATRIX_NAMES}
    ss[_BUILT] = (_made_from(new.settings(), ss[_MATRICES]), new)  # the conformed example is the current one
    _reseed(ex.seed, tokens)
    ss[_TOKENS] = tokens
    for name, arr in ss[_MATRICES].items():
        if shapes_before.get(name) != arr.shape or (name == "emb" and old_tokens != tokens):
            _bump(name)
    clamp_ui(len(tokens), ex.n_heads)


def _say_if_x_edits_go(ex: Example, old_tokens: list[str] | None, tokens: list[str]) -> None:
    """A real layer's X is the model's for the sentence: a new sentence brings a new X. If the student had
    edited X for the old one, say that those edits are gone (never silently)."""
    ss = st.session_state
    model = layer.of(ex)
    if model.model_input(ex, ex.sentence) is None:  # X is not the model's: nothing recomputes it
        ss.pop(_X_FOR, None)
        return
    before = ss.get(_X_FOR)
    if before is not None and old_tokens not in (None, tokens):
        x_old = model.model_input(ex, before)
        if x_old.shape == ex.emb.shape and not np.array_equal(x_old, ex.emb):
            say(
                "warning",
                _(
                    "X is this layer's input for the new sentence, computed by the model: your edits to X were "
                    "for the old sentence and are not kept (Undo in the sidebar brings them back)."
                ),
            )
            ss[_UNDO] = ex.with_(sentence=before)
    ss[_X_FOR] = ex.sentence


RESEEDED = ("w_q", "w_k", "w_v", "w_o", "w1", "w2")  # what a new seed draws again


def _reseed(seed: int, tokens: list[str]) -> None:
    """A new seed draws the weights again ("same seed, same numbers"); the old ones can be restored by undo.

    Hand-set tables (embeddings table, learned positions, custom mask) are kept: they are not random.
    """
    ss = st.session_state
    old = ss.get(_SEED)
    ss[_SEED] = seed
    if old is None or old == seed:
        return
    ss[_UNDO] = Example(**{**_settings_example().settings(), "seed": old}, **ss[_MATRICES])
    ss[_UNDO_DRAWS] = dict(ss[_DRAWS])
    ss[_DRAWS] = {}
    fresh = exm.default_matrices(_settings_example(), tokens)
    for name in RESEEDED:
        ss[_MATRICES][name] = _kept(fresh[name])
        _bump(name)
    say(
        "info",
        _(
            "Seed {seed}: the weights were drawn again (Undo in the sidebar restores those of seed {old}).",
            seed=seed,
            old=old,
        ),
    )


def clamp_ui(n_tokens: int, n_heads: int) -> None:
    """Keep the selected head / query / key inside the current sizes."""
    ss = st.session_state
    ss[K_HEAD] = int(min(max(ss.get(K_HEAD, 0), 0), max(n_heads - 1, 0)))
    for k in (K_QUERY, K_KEY):
        ss[k] = int(min(max(ss.get(k, 0), 0), max(n_tokens - 1, 0)))
    if int(ss.get(K_ASK, -1)) >= n_tokens:  # the question's token is gone: no question
        ss[K_ASK] = -1


def _kept(arr: np.ndarray) -> np.ndarray:
    """A canonical matrix is never changed in place (a change is a new array): read-only, so its digest is
    computed once (explorer.model.example), and one array for the sessions that hold equal ones (a class
    opening the same file: explorer.cache.SHARED_ARRAYS)."""
    arr.flags.writeable = False
    return cache.SHARED_ARRAYS(arr)


def _bump(name: str) -> None:
    versions = st.session_state[_VERSIONS]
    versions[name] = versions.get(name, 0) + 1


# ---------------------------------------------------------------- reading


def current() -> Example:
    """The Example the pages compute from (settings + canonical matrices)."""
    return _settings_example()


def take_picked_head() -> None:
    """Before the head picker is drawn: the head open_layer picked becomes the shown head (once)."""
    ss = st.session_state
    if _HEAD_NEXT in ss:
        ss[K_HEAD] = int(min(max(ss[_HEAD_NEXT], 0), max(current().n_heads - 1, 0)))
        ss.pop(_HEAD_NEXT, None)  # after: a run stopped between the two takes it again (explorer.ui.state)


def description() -> Description:
    """What the explorer's pages show, described once (explorer.model.description)."""
    return layer.describe(current())


def tokens() -> list[str]:
    return list(st.session_state.get(_TOKENS, []))


def matrix(name: str) -> np.ndarray:
    return st.session_state[_MATRICES][name]


def editor_key(name: str, *parts: object) -> str:
    """A data editor's key: namespaced by matrix, part (e.g. head), and the matrix's version."""
    version = st.session_state[_VERSIONS].get(name, 0)
    return ".".join(["ed", name, *map(str, parts), f"v{version}"])


def sentence() -> str:
    return str(st.session_state.get(K_SENTENCE) or "")


def head() -> int:
    """The head shown on single-head pages (0-based)."""
    return int(st.session_state[K_HEAD])


def query() -> int:
    """The query token (row) chosen on /token and /scores (0-based)."""
    return int(st.session_state[K_QUERY])


def picks() -> tuple[int, int, int]:
    """The explorer pages' picks, 0-based: the head shown, the query token and the key token (the picked cell
    of /scores is (query, key))."""
    ss = st.session_state
    return int(ss.get(K_HEAD, 0)), int(ss.get(K_QUERY, 0)), int(ss.get(K_KEY, 0))


def preset() -> str:
    """The name of the preset last loaded, or ""."""
    return str(st.session_state.get(K_PRESET) or "")


def preset_loaded() -> str:
    """The preset the example was loaded from, or "": the picker's value, unless a run stopped before the
    pick's example was recorded (the picker then says this one: preset_ui.picker)."""
    return str(st.session_state.get(_PRESET_AT) or "")


def uploaded() -> bytes | None:
    """The JSON file just given to the uploader, or None. Once the app has let go of a file (release_upload),
    the uploader's value may come back as a deleted file (the browser sends its id again when the uploader is
    drawn anew, as when presenting hides the sidebar): that is no file."""
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    upload = st.session_state.get(K_UPLOAD)
    return upload.getvalue() if isinstance(upload, UploadedFile) else None


def page() -> str | None:
    """The url_path of the page the frame runs in this rerun (None when a page runs without the frame)."""
    return st.session_state.get(_PAGE)


T = TypeVar("T")


def made(name: str, version: object, make: Callable[[], T]) -> T:
    """`make()`, made once per session and `version` (the language on screen, say) and kept in its state:
    for what the frame draws alike on every run of a session, and may not share with another session."""
    ss = st.session_state
    if _MADE not in ss:
        ss[_MADE] = {}
    have = ss[_MADE].get(name)
    if have is None or have[0] != version:
        have = ss[_MADE][name] = (version, make())
    return have[1]


def set_page(url_path: str) -> None:
    st.session_state[_PAGE] = url_path


def url_read() -> bool:
    """Whether the session has taken its example from the URL (once per session: set_url_read)."""
    return bool(st.session_state.get(_URL_READ))


def set_url_read() -> None:
    st.session_state[_URL_READ] = True


def present() -> bool:
    return bool(st.session_state[K_PRESENT])


def colors() -> str:
    return str(st.session_state[K_COLORS])


def fit_weights() -> bool:
    return bool(st.session_state.get(K_FIT, False))


def tables() -> bool:
    """Charts drawn as tables of their numbers (the sidebar's "Show charts as tables")."""
    return bool(st.session_state.get(K_TABLES, False))


def draws() -> dict[str, int]:
    return dict(st.session_state[_DRAWS])


# ---------------------------------------------------------------- messages


def say(kind: str, text: str) -> None:
    """Queue a message (kind: info, warning, error, success) for the frame to show once, as plain text
    (never Markdown: messages quote what people typed, so `**`, `$`, links and `:red[...]` stay literal)."""
    st.session_state.setdefault(_MESSAGES, []).append((kind, text))


def take_messages() -> list[tuple[str, str]]:
    msgs = list(st.session_state.get(_MESSAGES, []))
    st.session_state[_MESSAGES] = []
    return msgs


def release_upload() -> None:
    """Let go of the uploaded file in Streamlit's upload store once it has been read: the store keeps a
    session's files until the session ends (a class's largest files would hold gigabytes once opened).
    The uploader shows no file from the next run on. The store is the one the running script reads its
    files from (the server's, or a test's), not the server runtime's by name: a run without that runtime
    (AppTest) lets go of the file all the same."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    ctx, upload = get_script_run_ctx(), st.session_state.get(K_UPLOAD)
    if ctx is None or not isinstance(upload, UploadedFile):
        return
    ctx.uploaded_file_mgr.remove_file(ctx.session_id, upload.file_id)
    # The uploader's value (this file) stays in the session until its next run: emptied, it lets go of its
    # bytes now (a class that opened a 43 MB file and reads the page held 43 MB per student).
    upload.seek(0)
    upload.truncate()
