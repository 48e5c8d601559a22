"""Every key of the session state, declared once: the widget keys of the settings, the UI keys, the
matrices and their bookkeeping, the real-model pages' keys, with their defaults."""

from __future__ import annotations

from typing import Any

from explorer.model import models
from explorer.model import settings_table as table
from explorer.sharing import view_params

# Widget keys of the scalar settings (explorer.model.settings_table); each maps to an Example field.
SETTING_KEYS: dict[str, str] = {s.name: s.key for s in table.SETTINGS}
K_SENTENCE = SETTING_KEYS["sentence"]

# UI-only keys (not part of an Example).
K_HEAD = "ui.head"  # the head shown on single-head pages
K_QUERY = "ui.query"  # the query token index on /token and in the formula
K_KEY = "ui.key"  # the key token index in the formula
K_PRESENT = "ui.present"  # presentation mode
K_COLORS = "ui.colors"  # colour scale family
K_FIT = "ui.fit_weights"  # weights coloured over their own range (True) or over 0..1 (the default)
K_TABLES = "ui.tables"  # every chart drawn as tables of its numbers (for a screen reader, or exact values)
K_LANG = "ui.lang"  # the language on screen (explorer.i18n): the browser's at first, then the picker's; lang=
K_PRESET = "ui.preset"  # name of the preset last loaded (or "")
K_ASK = "ui.ask"  # predict, then reveal: the query whose weights are hidden until revealed (-1: no question)
_REVEALED = "ui.revealed"  # the hidden weights were revealed
# Predict, then reveal on the real-model pages: the question is on (a toggle, or ask=next / ask=heads in a link)
# and its answer stays hidden until revealed for this model and sentence (a new sentence asks again).
K_ASK_NEXT = "ui.ask_next"  # /next-token: which token comes next
K_ASK_HEADS = "ui.ask_heads"  # /ablation: which head matters most
K_ASK_INDUCTION = "ui.ask_induction"  # /induction: which head copies the earlier token
K_ASK_LENS = "ui.ask_lens"  # /logit-lens: from which layer on the answer is the top token
K_ASK_PREV = "ui.ask_prev"  # /induction: is the head drawn a previous-token head
MODEL_QUESTIONS = {
    "next": K_ASK_NEXT,
    "heads": K_ASK_HEADS,
    "induction": K_ASK_INDUCTION,
    "lens": K_ASK_LENS,
    "prev": K_ASK_PREV,
}  # the link's ask= word -> its toggle's key
_REVEALED_FOR = "ui.revealed_for"  # question word -> what its answer was revealed for
# Expanders whose content runs only while they are open (on_change="rerun"): large editors and tables that
# would cost most of their page's run at 64 tokens even when nobody looks at them.
K_FFN_EDITORS = "ui.open.ffn_editors"  # /encoder: the W1 and W2 editors
K_TERMS = "ui.open.terms"  # /token: the sum term by term
K_VIEWS = "ui.open.patching_views"  # /patching: one prediction, four views
K_UPLOAD = "share.upload"  # the JSON file uploader (its file is opened in its on_change)
K_SHARE_OPEN = "share.panel"  # "Share and export" is open (the expander's own state: its contents drawn)
# A picker whose choice holds across pages (head, query token, key token) is bound to its key here with
# persist_state="session": the one way a choice is kept when its widget is not on the page.
_QR = "ui.qr_open"  # "Show QR code" was clicked: the frame opens the dialog on this run
_URL_READ = "ui.url_read"  # the session's first run has read the URL
_PAGE = "ui.page"  # the url_path of the page the frame is running (None: a page run alone)
_MADE = "ui.made"  # name -> (version, value): what the session made once and keeps (state.made)

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
    K_TABLES: False,
    K_PRESET: "",
    K_ASK: -1,
    K_ASK_NEXT: False,
    K_ASK_HEADS: False,
    K_ASK_INDUCTION: False,
    K_ASK_LENS: False,
    K_ASK_PREV: False,
}

_BUILT = "m.built"  # (what the last Example was built from, that Example)
_X_FOR = "m.x_for"  # a real layer open: the sentence its X (the emb table) was computed for
_HEAD_NEXT = "m.head_next"  # the head open_layer picked, made the shown head at the start of the next run
# The example being made the current one, with its preset and draws: the next run applies it if this one stops
_APPLYING = "m.applying"
# The preset the example was loaded from: the picker's value, unless a stopped run lost the load
_PRESET_AT = "ui.preset_at"
_TOY = "m.toy"  # the toy example as it was when a real model's layer was opened (restored by close_layer)


K_MODEL = "rm.model"  # "toy" | "minilm" | "smollm2" (explorer.model.models.MODELS); link model=
K_LAYER = "rm.layer"  # 0-based layer on /head and /rollout; link layer= (1-based)
K_MODEL_HEAD = "rm.head"  # 0-based head on /head; link head= (1-based)
K_OFF = "rm.off"  # the switched-off heads of the picked model, ((layer, head), ...) 0-based; link off=
K_TEMPERATURE = "rm.temperature"  # /next-token; link temp=
K_OTHER = "rm.other"  # /ablation: the second sentence (MiniLM's cosine)
K_FOLLOW = "rm.follow"  # /logit-lens: the followed token's id, -1: the model's own answer; link follow=
K_FOLLOW_AT = "rm.follow_at"  # /logit-lens: the position followed, 0-based, -1: the last; link follow_at=
K_IND_SEED = "rm.ind_seed"  # /induction: the random tokens' seed; link ind_seed=
K_IND_LEN = "rm.ind_len"  # /induction: how many random tokens are repeated; link ind_len=
_RANKINGS = "rm.rankings"  # (model, text) -> the finished "which heads matter" RankingStep
K_PATCH_CORRUPT = (
    "rm.patch.corrupt"  # /patching: the corrupt sentence (the clean one is the sentence); corrupt=
)
_PATCH_IDS = (
    "rm.patch.ids"  # "answer" | "wrong" -> (the sentence it was picked for, token id); answer=, wrong=
)
_PATCH_LOCK = "rm.patch.lock"  # held while this session runs a patching sweep: one sweep at a time
_PATCH_ASKED = "rm.patch.asked"  # the experiment whose sweeps this session asked for (a tuple), until drawn
_LEARN_RUN = "learn.live.run"  # /learn's "Train it yourself": (its job's key, the visitor's place at the job)
K_PAIR_OTHER = "rm.pair.other"  # /minimal-pairs: the second sentence (the first is the sentence); pair=
_PAIR_WORD = "rm.pair.word"  # (the sentence it was picked for, its position or an example's word); word=

MODEL_DEFAULTS: dict[str, Any] = {
    K_MODEL: "toy",
    K_LAYER: 0,
    K_MODEL_HEAD: 0,
    K_OFF: (),
    K_OTHER: "A cat was sitting on the rug.",
    K_FOLLOW: -1,
    K_FOLLOW_AT: -1,
    K_IND_SEED: models.INDUCTION_SEED,
    K_IND_LEN: models.INDUCTION_LENGTH,
    K_PATCH_CORRUPT: "",
    K_PAIR_OTHER: "",
}

# The pages' display controls (explorer.sharing.view_params: heatmap or lines, a log scale, the head drawn, the
# weights' colour range, the temperature...), each with its default and its link parameter, declared there.
VIEW_DEFAULTS: dict[str, Any] = {v.key: v.default for v in view_params.VIEWS if v.default is not None}
assert K_FIT in VIEW_DEFAULTS and K_TEMPERATURE in VIEW_DEFAULTS
_VIEWS_ASKED = "ui.views_asked"  # widget key -> the position a link asked for, until its page bounds it
