"""The only module that touches st.session_state.

Layout of the session state:
- widget keys (below, `K_*`): the scalar settings, owned by their widgets; widgets are created without a
  default (`value=`), so the value set here by `init()` is the one they show.
- MATRICES: the canonical matrices (numpy arrays) of the current Example, edited only through
  `set_matrix` / `apply_edits`; their editors are keyed by a version that changes whenever a matrix changes
  from outside its editor (reset, re-randomize, preset, import), so that no stale edit is replayed.
- messages: notes for the person (kept edits, rejected cells, cut sentences), shown once by the frame.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np
import streamlit as st

from explorer.model import example as exm
from explorer.model import settings_table as table
from explorer.model.description import Description, describe, implementation
from explorer.model.example import Example

# Widget keys of the scalar settings (explorer.model.settings_table); each maps to an Example field.
SETTING_KEYS: dict[str, str] = {s.name: s.key for s in table.SETTINGS}
K_SENTENCE = SETTING_KEYS["sentence"]

# UI-only keys (not part of an Example).
K_HEAD = "ui.head"  # the head shown on single-head pages
K_QUERY = "ui.query"  # the query token index on /token and in the formula
K_KEY = "ui.key"  # the key token index in the formula
K_PRESENT = "ui.present"  # presentation mode
K_COLORS = "ui.colors"  # colour scale family
K_FIT = "ui.fit_weights"  # weights coloured over their own range (True) or over 0..1
K_PRESET = "ui.preset"  # name of the preset last loaded (or "")
K_ASK = "ui.ask"  # predict, then reveal: the query whose weights are hidden until revealed (-1: no question)
_REVEALED = "ui.revealed"  # the hidden weights were revealed
# Predict, then reveal on the real-model pages: the question is on (a toggle, or ask=next / ask=heads in a link)
# and its answer stays hidden until revealed for this model and sentence (a new sentence asks again).
K_ASK_NEXT = "ui.ask_next"  # /next-token: which token comes next
K_ASK_HEADS = "ui.ask_heads"  # /ablation: which head matters most
MODEL_QUESTIONS = {"next": K_ASK_NEXT, "heads": K_ASK_HEADS}  # the link's ask= word -> its toggle's key
_REVEALED_FOR = "ui.revealed_for"  # question word -> what its answer was revealed for
# Expanders whose content runs only while they are open (on_change="rerun"): large editors and tables that
# cost most of their page's run at 64 tokens even when nobody looks at them.
K_FFN_EDITORS = "ui.open.ffn_editors"  # /encoder: the W1 and W2 editors
K_TERMS = "ui.open.terms"  # /token: the sum term by term
K_UPLOAD = "share.upload"  # the JSON file uploader (its file is opened in its on_change)
K_SHARE_OPEN = "share.panel"  # "Share and export" is open (the expander's own state: its contents drawn)
# A picker whose choice holds across pages (head, query token, key token) is bound to its key here with
# persist_state="session": the one way a choice is kept when its widget is not on the page.
_QR = "ui.qr_open"  # "Show QR code" was clicked: the frame opens the dialog on this run
_URL_READ = "ui.url_read"  # the session's first run has read the URL
_PAGE = "ui.page"  # the url_path of the page the frame is running (None: a page run alone)

_MATRICES = "m.matrices"  # dict name -> ndarray
_TOKENS = "m.tokens"  # the tokens the matrices were last conformed to
_VERSIONS = "m.versions"  # dict name -> int, part of each editor's key
_DRAWS = "m.draws"  # dict name -> int, the re-randomize counter of each matrix
_SEED = "m.seed"  # the seed the weight matrices were drawn with
_MESSAGES = "m.messages"  # list of (kind, text)
_UNDO = "m.undo"  # the Example before the last cell edit/reset/re-randomize/preset/import, for "undo"
_UNDO_DRAWS = "m.undo_draws"  # the re-randomize counters that went with it

UI_DEFAULTS: dict[str, Any] = {
    K_HEAD: 0,
    K_QUERY: 0,
    K_KEY: 0,
    K_PRESENT: False,
    K_COLORS: "default",
    K_FIT: True,
    K_PRESET: "",
    K_ASK: -1,
    K_ASK_NEXT: False,
    K_ASK_HEADS: False,
}


def init() -> None:
    """Idempotent: default every key (setdefault), then conform the matrices to the current settings."""
    ss = st.session_state
    for s in table.SETTINGS:
        ss.setdefault(s.key, s.default)
    _cut_sentence()
    for key, value in {**UI_DEFAULTS, **MODEL_DEFAULTS}.items():
        ss.setdefault(key, value)
    ss.setdefault(_VERSIONS, {})
    ss.setdefault(_DRAWS, {})
    ss.setdefault(_MESSAGES, [])
    if _MATRICES not in ss:
        ss[_MATRICES] = {}
    _conform()


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
        say("warning", f"The sentence had {len(text):,} characters; it was cut to {limit:,}.")


_BUILT = "m.built"  # (what the last Example was built from, that Example)


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
    tokens, _ = exm.tokens_for(ex)
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


_X_FOR = "m.x_for"  # a real layer open: the sentence its X (the emb table) was computed for


def _say_if_x_edits_go(ex: Example, old_tokens: list[str] | None, tokens: list[str]) -> None:
    """A real layer's X is the model's for the sentence: a new sentence brings a new X. If the student had
    edited X for the old one, say that those edits are gone (never silently)."""
    ss = st.session_state
    model = implementation(ex)
    if model.model_input(ex, ex.sentence) is None:  # X is not the model's: nothing recomputes it
        ss.pop(_X_FOR, None)
        return
    before = ss.get(_X_FOR)
    if before is not None and old_tokens not in (None, tokens):
        x_old = model.model_input(ex, before)
        if x_old.shape == ex.emb.shape and not np.array_equal(x_old, ex.emb):
            say(
                "warning",
                "X is this layer's input for the new sentence, computed by the model: your edits to X were "
                "for the old sentence and are not kept (Undo in the sidebar brings them back).",
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
        f"Seed {seed}: the weights were drawn again (Undo in the sidebar restores those of seed {old}).",
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
    computed once (explorer.model.example)."""
    arr.flags.writeable = False
    return arr


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
        ss[K_HEAD] = int(min(max(ss.pop(_HEAD_NEXT), 0), max(current().n_heads - 1, 0)))


def description() -> Description:
    """What the explorer's pages show, described once (explorer.model.description)."""
    return describe(current())


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


def preset() -> str:
    """The name of the preset last loaded, or ""."""
    return str(st.session_state.get(K_PRESET) or "")


def uploaded() -> bytes | None:
    """The JSON file just given to the uploader, or None."""
    upload = st.session_state.get(K_UPLOAD)
    return None if upload is None else upload.getvalue()


def page() -> str | None:
    """The url_path of the page the frame runs in this rerun (None when a page runs without the frame)."""
    return st.session_state.get(_PAGE)


def set_page(url_path: str) -> None:
    st.session_state[_PAGE] = url_path


def first_run() -> bool:
    """True on the session's first run only (then the frame reads the URL); False ever after."""
    if st.session_state.get(_URL_READ):
        return False
    st.session_state[_URL_READ] = True
    return True


def present() -> bool:
    return bool(st.session_state[K_PRESENT])


def colors() -> str:
    return str(st.session_state[K_COLORS])


def fit_weights() -> bool:
    return bool(st.session_state.get(K_FIT, True))


def draws() -> dict[str, int]:
    return dict(st.session_state[_DRAWS])


# ---------------------------------------------------------------- writing


def editable(name: str) -> np.ndarray:
    """A writable copy of a canonical matrix to edit, in float64 (a real layer's trained matrices are the
    model's shared float32 arrays: an edit in float32 would round the number typed)."""
    arr = matrix(name)
    return np.array(arr, dtype=np.float64 if arr.dtype.kind == "f" else arr.dtype, copy=True)


def set_matrix(name: str, value: np.ndarray, *, from_editor: bool = False) -> None:
    """Replace a canonical matrix. Changes from outside its editor bump its version (fresh editor)."""
    st.session_state[_MATRICES][name] = _kept(value)
    if not from_editor:
        _bump(name)


def set_setting(name: str, value: Any) -> None:
    """Set a scalar setting by its Example field name (before its widget is drawn in this run)."""
    st.session_state[SETTING_KEYS[name]] = value


def rerandomize(*names: str) -> None:
    """A new seeded draw of each named weight matrix (its draw counter goes up; reset goes back to draw 0).

    One step for undo(): the edits the new draw replaces can be restored.
    """
    remember_for_undo()
    ss = st.session_state
    for name in names:
        ss[_DRAWS][name] = ss[_DRAWS].get(name, 0) + 1
        _replace_with_default(name)


def reset_matrix(*names: str) -> None:
    """Each named matrix back to the seed's first draw, as one step that undo() can take back."""
    remember_for_undo()
    for name in names:
        st.session_state[_DRAWS][name] = 0
        _replace_with_default(name)


def _replace_with_default(name: str) -> None:
    ex = current()
    default = exm.default_matrices(ex, tokens(), draws())[name]
    set_matrix(name, default)


def apply_example(ex: Example, *, remember: bool = True) -> None:
    """Make `ex` the current state (presets, links, imports). The old state can be restored by undo()."""
    if remember:
        remember_for_undo()
    ss = st.session_state
    for name, key in SETTING_KEYS.items():
        ss[key] = getattr(ex, name)
    tokens_now, _ = exm.tokens_for(ex)
    ss[_MATRICES] = {f.name: _kept(getattr(ex, f.name)) for f in fields(ex) if f.name in exm.MATRIX_NAMES}
    ss[_TOKENS] = tokens_now
    ss[_DRAWS] = {}
    ss[_SEED] = ex.seed  # the example's matrices go with its seed: nothing to draw again
    for name in exm.MATRIX_NAMES:
        _bump(name)
    _conform()


_HEAD_NEXT = "m.head_next"  # the head open_layer picked, made the shown head at the start of the next run
_TOY = "m.toy"  # the toy example as it was when a real model's layer was opened (restored by close_layer)


def open_layer(key: str, layer: int, head: int | None = None) -> None:
    """Make layer `layer` (0-based) of real model `key` the explorer's example, on the current sentence:
    its sizes, its trained weights and X = its input (explorer.model.bridge). Undo, or close_layer, goes back."""
    from explorer.model import bridge

    ss, ex = st.session_state, current()
    if describe(ex).seeded:  # the toy example, kept for "Back to the toy model"
        ss[_TOY] = ex
    new = ex.with_(**bridge.settings_of(key, int(layer)))
    toks, _ = exm.tokens_for(new)
    apply_example(new.with_(**exm.default_matrices(new, toks)))
    if (
        head is not None
    ):  # the page switch replays the picker's old value: the picker takes this one when drawn
        ss[_HEAD_NEXT] = int(head)  # taken by the explorer's head picker (take_picked_head)
    clamp_ui(len(toks), new.n_heads)
    say("info", f"Opened {describe(new).title} in the explorer.")


def toy_example() -> Example:
    """The toy example: the current one, or while a real layer is open the one kept when it was opened (or a
    new one): what close_layer goes back to."""
    ex = current()
    if describe(ex).seeded:
        return ex
    toy = st.session_state.get(_TOY)
    return toy if toy is not None else Example(sentence=ex.sentence)


def close_layer() -> None:
    """Back to the toy model (as it was before the layer was opened), on the current sentence."""
    ss, ex = st.session_state, current()
    toy = ss.pop(_TOY, None)
    if toy is None:
        toy = Example(sentence=ex.sentence)
    apply_example(exm.conform(toy.with_(sentence=ex.sentence), old_tokens=exm.tokens_for(toy)[0]))


def remember_for_undo() -> None:
    st.session_state[_UNDO] = current()
    st.session_state[_UNDO_DRAWS] = draws()


def can_undo() -> bool:
    return st.session_state.get(_UNDO) is not None


def undo() -> None:
    """Restore the state saved before the last cell edit, reset, re-randomize, preset or import."""
    ex = st.session_state.get(_UNDO)
    if ex is not None:
        st.session_state[_UNDO] = None
        apply_example(ex, remember=False)
        st.session_state[_DRAWS] = dict(st.session_state.get(_UNDO_DRAWS) or {})
        say("info", "Restored the example as it was before.")


def set_preset(name: str) -> None:
    st.session_state[K_PRESET] = name


def set_present(on: bool) -> None:
    st.session_state[K_PRESENT] = bool(on)


def ask() -> int | None:
    """Predict, then reveal: the query token whose weights are hidden until revealed, or None."""
    i = int(st.session_state.get(K_ASK, -1))
    return None if i < 0 else i


def set_ask(i: int | None) -> None:
    """Ask about query i (None: no question); the answer is hidden again."""
    st.session_state[K_ASK] = -1 if i is None else int(i)
    hide_answer()


def model_questions() -> tuple[str, ...]:
    """The real-model pages' questions that are on ("next", "heads"), in a fixed order."""
    return tuple(w for w, key in MODEL_QUESTIONS.items() if st.session_state.get(key, False))


def set_model_questions(words: tuple[str, ...]) -> None:
    """Ask these questions (a link's ask=next,heads); each answer is hidden again."""
    for w, key in MODEL_QUESTIONS.items():
        st.session_state[key] = w in words
    st.session_state[_REVEALED_FOR] = {}


def model_revealed(word: str, what: str) -> bool:
    """The answer of question `word` was revealed for `what` (the model and its sentence)."""
    return st.session_state.get(_REVEALED_FOR, {}).get(word) == what


def reveal_model(word: str, what: str) -> None:
    st.session_state[_REVEALED_FOR] = {**st.session_state.get(_REVEALED_FOR, {}), word: what}


def revealed() -> bool:
    return bool(st.session_state.get(_REVEALED, False))


def reveal() -> None:
    st.session_state[_REVEALED] = True


def hide_answer() -> None:
    st.session_state[_REVEALED] = False


def open_qr() -> None:
    """The "Show QR code" button's callback: the QR dialog opens on the run it starts (take_qr)."""
    st.session_state[_QR] = True


def take_qr() -> bool:
    """True once after open_qr(): the dialog opens once, and closes for good when it is dismissed."""
    return bool(st.session_state.pop(_QR, False))


def editor_state(key: str) -> dict[str, Any]:
    """The edits a data editor reported (edited_rows etc.), read in its on_change callback."""
    return dict(st.session_state.get(key, {}) or {})


# ---------------------------------------------------------------- messages


def say(kind: str, text: str) -> None:
    """Queue a message (kind: info, warning, error, success) for the frame to show once, as plain text
    (never Markdown: messages quote what people typed, so `**`, `$`, links and `:red[...]` stay literal)."""
    st.session_state.setdefault(_MESSAGES, []).append((kind, text))


def take_messages() -> list[tuple[str, str]]:
    msgs = list(st.session_state.get(_MESSAGES, []))
    st.session_state[_MESSAGES] = []
    return msgs


# ---------------------------------------------------------------- the real-model pages

K_MODEL = "rm.model"  # "toy" | "minilm" | "smollm2" (explorer.model.models.MODELS); link model=
K_LAYER = "rm.layer"  # 0-based layer on /head and /rollout; link layer= (1-based)
K_MODEL_HEAD = "rm.head"  # 0-based head on /head; link head= (1-based)
K_OFF = "rm.off"  # the switched-off heads of the picked model, ((layer, head), ...) 0-based; link off=
K_TEMPERATURE = "rm.temperature"  # /next-token
K_OTHER = "rm.other"  # /ablation: the second sentence (MiniLM's cosine)
_RANKINGS = "rm.rankings"  # (model, text) -> the finished "which heads matter" RankingStep

MODEL_DEFAULTS: dict[str, Any] = {
    K_MODEL: "toy",
    K_LAYER: 0,
    K_MODEL_HEAD: 0,
    K_OFF: (),
    K_TEMPERATURE: 1.0,
    K_OTHER: "A cat was sitting on the rug.",
}


def model_key() -> str:
    return str(st.session_state.get(K_MODEL, "toy"))


def layer_head(n_layers: int, n_heads: int) -> tuple[int, int]:
    """The picked (layer, head) of the real model, kept inside its sizes."""
    ss = st.session_state
    layer = int(min(max(int(ss.get(K_LAYER, 0)), 0), n_layers - 1))
    head = int(min(max(int(ss.get(K_MODEL_HEAD, 0)), 0), n_heads - 1))
    ss[K_LAYER], ss[K_MODEL_HEAD] = layer, head
    return layer, head


def picked_head() -> tuple[int, int]:
    """The picked (layer, head) of the real model, 0-based, as stored."""
    return int(st.session_state.get(K_LAYER, 0)), int(st.session_state.get(K_MODEL_HEAD, 0))


def set_picked(key: str, value: int) -> None:
    """Set the picked layer (K_LAYER) or head (K_MODEL_HEAD) of the real model, 0-based."""
    if key not in (K_LAYER, K_MODEL_HEAD):
        raise ValueError(f"not a picked layer or head key: {key!r}")
    st.session_state[key] = int(value)


def apply_model_link(link: Any) -> None:
    """What a link asked of the real-model pages (explorer.model.models.LinkRead): set, with its messages."""
    ss = st.session_state
    if link.model is not None:
        ss[K_MODEL] = link.model
    for key, value in ((K_LAYER, link.layer), (K_MODEL_HEAD, link.head)):
        if value is not None:
            ss[key] = value
    if link.off is not None:
        set_off_heads(link.off)
    for text in link.messages:
        say("warning", text)


def off_heads() -> tuple[tuple[int, int], ...]:
    return tuple(st.session_state.get(K_OFF, ()))


def set_off_heads(pairs: tuple[tuple[int, int], ...]) -> None:
    st.session_state[K_OFF] = tuple(sorted(set(pairs)))


def ranking(model: str, text: str) -> Any:
    """The finished ranking of this model and sentence in this session, or None."""
    return st.session_state.setdefault(_RANKINGS, {}).get((model, text))


def set_ranking(model: str, text: str, step: Any) -> None:
    rankings = st.session_state.setdefault(_RANKINGS, {})
    if len(rankings) >= 8:  # a few sentences' rankings per session, no more
        rankings.pop(next(iter(rankings)))
    rankings[(model, text)] = step


def append_to_sentence(token: str) -> None:
    """Append a predicted token to the sentence (a callback: before the sentence box is drawn)."""
    key = SETTING_KEYS["sentence"]
    st.session_state[key] = str(st.session_state.get(key) or "") + token
