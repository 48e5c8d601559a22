"""What links and files share: the limits, the link's vocabulary, the value checks and small helpers.

Pure: no Streamlit, and no model is loaded here. Every setting is checked against its row in the settings
table; a value a person sent is quoted in messages by `shown`. What a layer fixes comes from the models
table; its weights and tokens, which its links and files are written against, from the example's layer
(explorer.model.layer), asked only when a link or a file holds one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from explorer import i18n
from explorer.i18n import N_, _, ngettext
from explorer.model import example as exm
from explorer.model import layer as layers
from explorer.model import models
from explorer.model import settings_table as table
from explorer.model.example import MATRIX_NAMES, Example

LINK_LIMIT = 8000  # the longest link the app offers (longer: "use the JSON file")
MAX_STATE_CHARS = 16_000  # the longest s= parameter read (twice what the app ever writes)
MAX_BODY_BYTES = 2_000_000  # the decompressed s= body (the largest dense toy state is about 1.45 MB)
MAX_SENTENCE_CHARS = table.MAX_SENTENCE_CHARS  # a sentence read from a link is cut here (the box too)
MAX_CELLS = table.MAX_HEADS * table.MAX_D_MODEL * table.MAX_D_K  # the largest matrix of the toy model


def layer_cells(row: models.ModelChoice, n: int = table.MAX_TOKENS) -> int:
    """Every cell of one layer of a real model opened in the explorer, at n tokens: W_Q, W_K, W_V (a copy
    per query head), W_O, the feed-forward (W1, W2, and W_up for SwiGLU), the biases, X and P (n, d) and
    the mask (n, n)."""
    h, (d, k, f, ffn) = row.shape[1], row.layer
    return 4 * h * d * k + ffn * d * f + 3 * h * k + 2 * d + f + 2 * n * d + n * n


# The files: a real layer with every cell edited is the largest state the app can reach (SmolLM2: about
# 4.1 million cells). Its matrices are written as the link writes them (explorer.sharing.state_blob: float64
# at most, 8 bytes a cell, and a few bytes a matrix), zlib-compressed (random values do not shrink) and in
# base64 (4 characters per 3 bytes) in the file's "state"; 64 KiB more hold the settings and the tokens.
LARGEST_LAYER_CELLS = max(layer_cells(m) for m in models.MODELS.values() if m.engine)
MAX_FILE_BODY_BYTES = 8 * LARGEST_LAYER_CELLS + 64 * len(MATRIX_NAMES)  # a file's "state", decompressed
MAX_JSON_BYTES = (MAX_FILE_BODY_BYTES * 1001 // 1000 + 64) * 4 // 3 + 64 * 1024  # the import limit
# server.maxUploadSize (.streamlit/config.toml) and the uploader's limit, in megabytes: Streamlit's server
# counts 2**20 bytes to one, its uploader in the browser 1,000,000, so the browser's is the one that binds
UPLOAD_MB = -(-MAX_JSON_BYTES // 1_000_000)
# Above this a file must hold its matrices in "state": a file of nested lists this large would make the
# server build tens of millions of Python objects. The app writes lists only below it (toy examples).
MAX_LIST_JSON_BYTES = 3_000_000
VALUE_LIMIT = table.VALUE_LIMIT  # largest |value| accepted in a matrix (the same rule as the data editors)

# The link's vocabulary and how messages name each setting: the settings table's rows.
PARAM_OF = {s.name: s.param for s in table.SETTINGS}
STATE_PARAM = "s"
SHARE_PARAMS = (*PARAM_OF.values(), STATE_PARAM)
LABELS = {s.name: s.label for s in table.SETTINGS}

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")
INT_RE = re.compile(r"[+-]?[0-9]{1,12}")  # ASCII digits only: "¹" and "١٠" pass str.isdigit() and float()
UINT_RE = re.compile(r"[0-9]{1,12}")  # the same, no sign: layers, heads, token ids
SURROGATES = re.compile("[\ud800-\udfff]")  # halves of UTF-16 pairs: no UTF-8 text (a URL, a file) holds one
FLOAT_RE = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?|[+-]?(?:inf|infinity|nan)", re.I
)


class ShareError(ValueError):
    """A link part or a file that cannot be read; the message is meant for the person: one or more whole
    sentences in the language on screen, each ending in its full stop (a reader says it inside its own
    sentence, "That file could not be opened: {problem} Nothing was changed.")."""


def _from_layers(ex: Example, ask: Any) -> Any:
    """`ask()` of a real layer's source; a model that fails to load just now becomes a ShareError."""
    try:
        return ask()
    except ImportError as exc:  # ModelNotInstalledError: its download or its files failed just now
        engine = models.choice(str(ex.real)).engine
        raise ShareError(
            _(
                "The real model {model} (real=) is not available on this server just now: {why}",
                model=engine,
                why=exc,
            )
        ) from exc


def layer_settings(real: object, layer: object, *, file: bool = False) -> dict[str, object]:
    """The settings a layer named by a link or a file (`real`, `real_layer`) fixes: a real layer's sizes and
    the rest (explorer.model.models.layer_settings: nothing is loaded), none for the toy. ShareError names
    what is wrong, once, with the bounds of the model named (MiniLM: 0 to 5; SmolLM2: 0 to 29), as a link's
    or as a file's (`file`)."""
    text = isinstance(real, str)  # a link's text, or a file's typed value
    key = check_setting(
        "real", real, from_text=text, file=file, label=f"{_(table.row('real').label)} (real=)"
    )
    row = models.choice(str(key))
    n = row.shape[0]
    i = check_setting(
        "real_layer",
        layer,
        from_text=isinstance(layer, str),
        file=file,
        bounds=(0, n - 1),
        why=ngettext(
            "{model} has {n} layer, counted from 0.",
            "{model} has {n} layers, counted from 0.",
            n,
            model=row.engine or _(row.title),
        ),
        label=f"{_(table.row('real_layer').label)} (real_layer=)",
    )
    if models.server_hint(str(key)):
        raise ShareError(
            _("The real model {model} (real=) is not available on this server.", model=row.engine)
        )
    why = models.failure(str(key))
    if why:
        raise ShareError(
            _(
                "The real model {model} (real=) is not available on this server just now: {why}",
                model=row.engine,
                why=why,
            )
        )
    return layers.of_key(str(key)).settings_of(str(key), int(i))


def tokens(ex: Example) -> list[str]:
    model = layers.of(ex)
    return list(_from_layers(ex, lambda: model.tokens(ex))[0])


def seeded(ex: Example, draws: Mapping[str, int] | None = None) -> dict[str, NDArray]:
    """The seeded matrices (scheme 1, explorer.model.seeding) of the example's settings, each at its draw (0 = reset,
    k = the k-th re-randomize), or a real layer's trained weights and X: what links and files are written
    against, whatever the app's defaults are."""
    model, words = layers.of(ex), tokens(ex)
    return _from_layers(ex, lambda: model.reference(ex, words, dict(draws or {})))


def expected_shapes(ex: Example) -> dict[str, tuple[int, ...]]:
    """The shape of every matrix for the example's settings and tokens (explorer.model.example)."""
    model, n = layers.of(ex), len(tokens(ex))
    return _from_layers(ex, lambda: exm.expected_shapes(ex, n, model))


def bits(a: NDArray) -> NDArray:
    """An array's raw bits as float64, so that -0.0 and 0.0 differ (the link is exact bit for bit); a real
    layer's untouched float32 matrices compare by their exact float64 values."""
    if a.dtype == bool:
        return np.ascontiguousarray(a).view(np.uint8)
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def same(a: NDArray, b: NDArray) -> bool:
    """Equal shape, kind (bool or number) and bits."""
    return (
        a.shape == b.shape
        and (a.dtype == bool) == (b.dtype == bool)
        and bool(np.array_equal(bits(a), bits(b)))
    )


def shown(value: object, limit: int = 60) -> str:
    """A value a person sent, quoted for a message and cut to `limit` characters.

    Not escaped here: the frame shows every message as literal text (explorer.views.text.literal).
    """
    text = repr(value) if isinstance(value, str) else str(value)
    return text[: limit - 1] + "…" if len(text) > limit else text


def number_text(text: str) -> str:
    """A float written exactly and briefly: 10000.0 -> '10000', 0.1 -> '0.1'."""
    s = repr(float(text))
    return s[:-2] if s.endswith(".0") else s


def with_matrices(ex: Example, mats: Mapping[str, NDArray]) -> Example:
    return replace(ex, **{n: mats[n] for n in MATRIX_NAMES})


def cut_sentence(text: str, messages: list[str]) -> str:
    """The sentence as every way in reads it: cut to MAX_SENTENCE_CHARS (with a message), and any lone
    surrogate (a half of a UTF-16 pair, which no UTF-8 text can hold) replaced by U+FFFD (with a message)."""
    if len(text) > MAX_SENTENCE_CHARS:
        messages.append(
            _(
                "The sentence had {n} characters; it was cut to {limit}.",
                n=i18n.integer(len(text)),
                limit=i18n.integer(MAX_SENTENCE_CHARS),
            )
        )
        text = text[:MAX_SENTENCE_CHARS]
    clean = SURROGATES.sub("\ufffd", text)
    if clean != text:
        messages.append(
            _("The sentence held a broken character (a lone UTF-16 surrogate); it was replaced by �.")
        )
    return clean


# How a reader says a value is refused, in a link (first) and in a file's settings (second): whole sentences,
# the setting and the value sent as placeholders, so a translator words each one as a whole. A rule's bounds
# are written as a link and a file write them (no digit groups, a decimal point), whatever the language.
RULES = {
    "whole": (
        N_("The link's {setting} must be a whole number, not {value}."),
        N_("In the file's settings, {setting} must be a whole number, not {value}."),
    ),
    "digits": (
        N_(
            "The link's {setting} must be a whole number between {lo} and {hi}, in the digits 0 to 9, not {value}."
        ),
        N_("In the file's settings, {setting} must be a whole number between {lo} and {hi}, not {value}."),
    ),
    "between": (
        N_("The link's {setting} must be between {lo} and {hi}, not {value}."),
        N_("In the file's settings, {setting} must be between {lo} and {hi}, not {value}."),
    ),
    "number": (
        N_("The link's {setting} must be a number, not {value}."),
        N_("In the file's settings, {setting} must be a number, not {value}."),
    ),
    "number_between": (
        N_("The link's {setting} must be a number between {lo} and {hi}, not {value}."),
        N_("In the file's settings, {setting} must be a number between {lo} and {hi}, not {value}."),
    ),
    "one_of": (
        N_("The link's {setting} must be one of {choices}, not {value}."),
        N_("In the file's settings, {setting} must be one of {choices}, not {value}."),
    ),
    "text": (
        N_("The link's {setting} must be text, not {value}."),
        N_("In the file's settings, {setting} must be text, not {value}."),
    ),
    "yes_no": (
        N_("The link's {setting} must be {yes} or {no}, not {value}."),
        N_("In the file's settings, {setting} must be {yes} or {no}, not {value}."),
    ),
    "true_false": (
        N_("The link's {setting} must be true or false, not {value}."),
        N_("In the file's settings, {setting} must be true or false, not {value}."),
    ),
}


def refused(rule: str, file: bool, why: str = "", **values: object) -> ShareError:
    """The ShareError of a value a link (or a file's settings, `file`) gives against `rule` (RULES), with
    `why`, a sentence of its own that says what decides the bounds ("MiniLM has 6 layers, counted from 0.")."""
    said = _(RULES[rule][file], **{k: v if isinstance(v, str) else str(v) for k, v in values.items()})
    return ShareError(f"{said} {why}" if why else said)  # two sentences


def whole_number(label: str, text: object, lo: int, hi: int, why: str = "", *, signed: bool = True) -> int:
    """A link's whole number: ASCII digits (with an optional sign when `signed`; spaces around ignored), lo
    to hi.

    Every whole number a link carries is read here (the settings, and the real-model pages' layer=, head=,
    off=, ask= and the rest): "¹", "①" and "٣" pass str.isdigit() (and int() reads "٣" as 3), so they are
    refused by rule, not by accident. ShareError names `label` (in the language on screen) and the rule;
    `why`, a sentence of its own, follows ("MiniLM has 6 layers."). An unsigned number (a layer, a head, a
    token id) says its bounds whatever is wrong.
    """
    shown_text = shown(text)
    ok = isinstance(text, str) and (INT_RE if signed else UINT_RE).fullmatch(text.strip())
    if not signed and (not ok or not lo <= int(text.strip()) <= hi):
        raise refused("digits", False, why, setting=label, lo=lo, hi=hi, value=shown_text)
    if not ok:
        raise refused("whole", False, setting=label, value=shown_text)
    value = int(text.strip())
    if not lo <= value <= hi:
        raise refused("between", False, why, setting=label, lo=lo, hi=hi, value=value)
    return value


def check_setting(
    name: str,
    value: object,
    *,
    from_text: bool,
    bounds: tuple[int, int] | None = None,
    why: str = "",
    label: str = "",
    file: bool | None = None,
) -> Any:
    """The setting's value if it is valid, else ShareError naming the setting, the value and the rule.

    from_text: the value comes from a URL (a string: '8', '1', 'causal'); else from JSON (typed).
    bounds: a whole number's bounds where the example decides them (a real model's layer: its own count),
    and `why`, a sentence saying what decides them ("MiniLM has 6 layers, counted from 0."); `label`: how
    the message names the setting, when not by its row's label; `file`: whether a file's settings hold the
    value (the message says so), by default when it is not text.
    """
    file = not from_text if file is None else file
    if name not in table.names():
        raise ShareError(_("There is no setting called {name}.", name=shown(name)))
    row = table.row(name)
    label, val = label or _(row.label), shown(value)
    if row.kind == "int":
        return _whole(label, value, bounds or row.bounds, from_text, why, file)
    if row.kind == "float":
        return _real(label, value, row.bounds, from_text, file)
    if row.kind == "bool":
        return _yes_no(label, value, row.words, from_text, file)
    if row.kind == "choice":
        if not isinstance(value, str) or value not in row.choices:
            raise refused("one_of", file, setting=label, choices=", ".join(row.choices), value=val)
        return value
    if not isinstance(value, str):
        raise refused("text", file, setting=label, value=val)
    return value


def _whole(label: str, value: object, bounds: tuple[Any, Any], from_text: bool, why: str, file: bool) -> int:
    """A whole-number setting's value within `bounds` (`why` says what decides them), or ShareError."""
    lo, hi = bounds
    if from_text and not file:
        return whole_number(label, value, int(lo), int(hi), why)
    if (
        from_text
    ):  # a file's text where a number belongs ("0" for a layer): read as a link's, said as a file's
        try:
            return whole_number(label, value, int(lo), int(hi), why)
        except ShareError:
            raise refused("digits", True, why, setting=label, lo=lo, hi=hi, value=shown(value)) from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise refused("whole", file, setting=label, value=shown(value))
    if not lo <= value <= hi:
        raise refused("between", file, why, setting=label, lo=lo, hi=hi, value=value)
    return int(value)


def _real(label: str, value: object, bounds: tuple[Any, Any], from_text: bool, file: bool) -> float:
    """A number setting's finite value within `bounds` (text from a URL, a number from JSON), or ShareError."""
    lo, hi, val = bounds[0], bounds[1], shown(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, str | int | float)
        or (isinstance(value, str) != from_text)
    ):
        raise refused("number", file, setting=label, value=val)
    if isinstance(value, str) and not FLOAT_RE.fullmatch(value.strip()):
        raise refused("number", file, setting=label, value=val)
    try:
        v = float(value)
    except (ValueError, OverflowError):
        raise refused("number", file, setting=label, value=val) from None
    if not math.isfinite(v) or not lo <= v <= hi:
        raise refused("number_between", file, setting=label, lo=f"{lo:g}", hi=f"{hi:g}", value=val)
    return v


def _yes_no(label: str, value: object, words: tuple[str, str], from_text: bool, file: bool) -> bool:
    """A true/false setting's value: its own words (no, yes) or true/false words from a URL, a bool from JSON."""
    no, yes = words
    if from_text and isinstance(value, str):
        if value.lower() in (no, yes) and words != ("0", "1"):
            return value.lower() == yes
        if value.lower() in TRUE_WORDS + FALSE_WORDS:
            return value.lower() in TRUE_WORDS
    elif not from_text and isinstance(value, bool):
        return value
    if words != ("0", "1") and from_text:
        raise refused("yes_no", file, setting=label, yes=yes, no=no, value=shown(value))
    raise refused("true_false", file, setting=label, value=shown(value))


def plain_settings(ex: Example) -> dict[str, Any]:
    """The settings as plain JSON types (a preset may hold numpy scalars)."""
    out: dict[str, Any] = {}
    for row in table.SETTINGS:
        out[row.name] = row.pytype(getattr(ex, row.name))
    return out
