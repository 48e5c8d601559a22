"""An Example as a JSON file, and back. Pure: no Streamlit, no pickle, no eval.

{"format": "attention-explorer", "version": 1, "settings": {...}, "tokens": [...],
 "draws": {"w_q": 1}, "matrices": {"w_q": [[[...]]], ...}}
A toy example's matrices are listed in full while the file stays under MAX_LIST_JSON_BYTES (3 MB); above it
only the matrices that differ from their seeded draw (scheme 1, explorer.model.seeding) are listed (an absent
matrix is the seeded draw of `draws`, default 0). Floats are written by Python's shortest round-trip repr,
so they read back exactly. When even that is over (the largest toy example with every cell edited: about
3.9 MB), and always for a real model's layer, the matrices are written as the link writes them, {"state":
"1.…"} (explorer.sharing.state_blob: the cells that differ, float64 at most, compressed, in base64); a real
layer with nothing edited has no "state" (and "state": "" reads as nothing edited). The import limit,
MAX_JSON_BYTES, is derived from the largest state the app can reach (every cell of a SmolLM2 layer edited:
about 43 MB), so every file the app writes opens again, exactly (tests/app/sharing/test_real_files.py).
A file that cannot be read is refused as a whole, with the reason: also a number of more than 30 digits
(whole or not),
a key given twice ("version": 2, "version": 1), a broken character (a lone surrogate) in the sentence, or
a file over MAX_LIST_JSON_BYTES whose matrices are lists. A sentence longer than the box allows is cut,
with a message, as a link's is.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from explorer import i18n
from explorer.i18n import _
from explorer.model import example as exm
from explorer.model import layer as layers
from explorer.model import settings_table as table
from explorer.model.example import MATRIX_NAMES, Example
from explorer.sharing.state_blob import encode_state, read_state
from explorer.sharing.values import (
    MAX_FILE_BODY_BYTES,
    MAX_JSON_BYTES,
    MAX_LIST_JSON_BYTES,
    SURROGATES,
    VALUE_LIMIT,
    ShareError,
    check_setting,
    cut_sentence,
    expected_shapes,
    layer_settings,
    plain_settings,
    same,
    seeded,
    shown,
    tokens,
    with_matrices,
)

FORMAT = "attention-explorer"
JSON_VERSION = 1
# Digits of one number in a file: a whole number (a draw, a size, a seed) has at most 10, a float as Python
# writes it at most 20 (17 significant, 3 of exponent). Python reads up to 4,300 digits of a whole number and
# any number of a float (a 10,001-digit one in 3 ms): both are bounded here.
MAX_DIGITS = 30
# The commas a file over MAX_LIST_JSON_BYTES may hold: one written with "state" has a few dozen in its
# settings, and at most a few hundred in its sentence (500 characters) and its tokens (64).
MAX_LIST_ITEMS = 10_000


def _listed(ex: Example, draws: Mapping[str, int] | None, everything: bool) -> dict[str, list]:
    base = seeded(ex, draws)
    out: dict[str, list] = {}
    for name in MATRIX_NAMES:
        m = np.ascontiguousarray(getattr(ex, name))
        if m.size == 0 and name in exm.LAYER_ONLY:  # the toy model has no biases, no W_up: nothing to list
            continue
        if everything or not same(m, base[name]):
            out[name] = m.tolist()
    return out


def to_json(ex: Example, draws: Mapping[str, int] | None = None) -> str:
    """The example as a JSON text: every matrix as lists while that stays under MAX_LIST_JSON_BYTES (a toy
    example), else the edited matrices as the link writes them (always for a real layer)."""
    draws = {n: int(d) for n, d in (draws or {}).items() if int(d) and n in MATRIX_NAMES}
    seeded = layers.of(ex).DRAWN
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": JSON_VERSION,
        "settings": plain_settings(ex),
        "tokens": tokens(ex),
        "draws": draws,
        "matrices": _listed(ex, draws, everything=True) if seeded else {},
    }
    if seeded:  # a toy example: lists while they stay small
        text = json.dumps(doc, ensure_ascii=False, allow_nan=False)
        if len(text.encode()) <= MAX_LIST_JSON_BYTES:
            return text
        doc["matrices"] = _listed(ex, draws, everything=False)
        text = json.dumps(doc, ensure_ascii=False, allow_nan=False)
        if len(text.encode()) <= MAX_LIST_JSON_BYTES:
            return text
    del doc["matrices"], doc["draws"]
    blob = encode_state(ex, draws)
    if blob:  # a real layer as it is in the model has nothing to write: no "state"
        doc["state"] = blob
    return json.dumps(doc, ensure_ascii=False, allow_nan=False)


def refusal(reason: ShareError) -> str:
    """What the person reads when a file is refused: the reason, and that nothing was changed."""
    return _("That file could not be opened: {problem} Nothing was changed.", problem=reason)


def _reject_constant(name: str) -> float:
    raise ShareError(_("The file contains {name}, which is not a number a matrix can hold.", name=name))


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        n = len(digits.lstrip("-"))
        raise ShareError(_("The file contains a whole number of {n} digits.", n=i18n.integer(n)))
    return int(digits)


def _bounded_float(text: str) -> float:
    if len(text) > MAX_DIGITS and (n := sum(c.isdigit() for c in text)) > MAX_DIGITS:
        raise ShareError(_("The file contains a number of {n} digits.", n=i18n.integer(n)))
    return float(text)


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ShareError(_("The file gives {key} twice in one object.", key=shown(key)))
        out[key] = value
    return out


def from_json(data: bytes | str, messages: list[str] | None = None) -> Example:
    """The Example a JSON export describes; ShareError (a readable reason) for anything wrong. What was read
    but changed (a sentence cut to the box's length) is said in `messages`."""
    size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    if size > MAX_JSON_BYTES:
        raise ShareError(
            _(
                "The file is too large ({n} bytes; the limit is {limit}).",
                n=i18n.integer(size),
                limit=i18n.integer(MAX_JSON_BYTES),
            )
        )
    doc = _parsed(data, size)
    _check_kind(doc)
    ex = _json_settings(doc.get("settings"), [] if messages is None else messages)
    if "state" in doc:
        return _json_state(ex, doc)
    return _json_matrices(ex, doc)


def _parsed(data: bytes | str, size: int) -> Any:
    """The JSON document in `data` (`size` bytes), read with every bound; ShareError for what is not."""
    try:
        text = data if isinstance(data, str) else data.decode("utf-8-sig")
        if size > MAX_LIST_JSON_BYTES and text.count(",") > MAX_LIST_ITEMS:
            raise ShareError(
                _(
                    "The file is large ({n} bytes) and holds its matrices as lists: the explorer writes lists "
                    'only up to {limit} bytes, larger examples in "state".',
                    n=i18n.integer(size),
                    limit=i18n.integer(MAX_LIST_JSON_BYTES),
                )
            )
        return json.loads(
            text,
            parse_constant=_reject_constant,
            parse_int=_bounded_int,
            parse_float=_bounded_float,
            object_pairs_hook=_no_repeats,
        )
    except ShareError:
        raise
    except UnicodeDecodeError:
        raise ShareError(_("The file is not UTF-8 text.")) from None
    except RecursionError:
        raise ShareError(_("The file is nested too deeply.")) from None
    except json.JSONDecodeError as e:
        raise ShareError(
            _(
                "The file is not valid JSON (line {line}, column {column}: {why}).",
                line=i18n.integer(e.lineno),
                column=i18n.integer(e.colno),
                why=e.msg,
            )
        ) from None


def _check_kind(doc: Any) -> None:
    """ShareError unless `doc` is an explorer file of the version this explorer reads."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ShareError(
            _('This is not an Attention Explorer file (it needs "format": "{format}").', format=FORMAT)
        )
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ShareError(_('The file has no "version" number.'))
    if version != JSON_VERSION:
        if version > JSON_VERSION:
            raise ShareError(
                _(
                    "The file is version {version}, from a newer version of the explorer; this explorer reads "
                    "version 1.",
                    version=str(version),
                )
            )
        raise ShareError(
            _(
                "The file is version {version}, an unknown version; this explorer reads version 1.",
                version=str(version),
            )
        )


def _json_matrices(ex: Example, doc: dict[str, Any]) -> Example:
    """`ex` with the matrices the file lists (nested lists of numbers), the others drawn from its seeds."""
    draws = _json_draws(doc.get("draws", {}))
    mats = seeded(ex, draws)
    want = expected_shapes(ex)
    listed = doc.get("matrices", {})
    if not isinstance(listed, dict):
        raise ShareError(_('The file\'s "matrices" must be an object: name -> nested lists of numbers.'))
    for name, value in listed.items():
        if name not in MATRIX_NAMES:
            raise ShareError(
                _(
                    "There is no matrix called {name} (known: {known}).",
                    name=shown(name),
                    known=", ".join(MATRIX_NAMES),
                )
            )
        mats[name] = _json_matrix(name, value, want[name], mats[name].dtype)
    return with_matrices(ex, mats)


def _json_state(ex: Example, doc: dict[str, Any]) -> Example:
    """The matrices written compactly, as a link writes them; "" is nothing edited. The file is refused
    as a whole if any of it cannot be read."""
    if "matrices" in doc or "draws" in doc:
        raise ShareError(_('The file has both "state" and "matrices" or "draws".'))
    blob = doc["state"]
    if not isinstance(blob, str):
        raise ShareError(_('The file\'s "state" must be text (as the s= of a link).'))
    if not blob:
        return with_matrices(ex, seeded(ex))
    try:
        return read_state(blob, ex, limit=MAX_JSON_BYTES, body_limit=MAX_FILE_BODY_BYTES)
    except ShareError as e:
        raise ShareError(
            _('The file\'s edited matrices ("state") cannot be read. {problem}', problem=e)
        ) from None


def _json_settings(settings: object, messages: list[str]) -> Example:
    if not isinstance(settings, dict):
        raise ShareError(_('The file has no "settings" object.'))
    known = table.names()
    unknown = [k for k in settings if k not in known]
    if unknown:
        raise ShareError(
            _(
                "The file's settings hold an unknown setting, {name} (known: {known}).",
                name=shown(unknown[0]),
                known=", ".join(known),
            )
        )
    values: dict[str, Any] = {}
    fixed: dict[str, Any] = {}
    if "real" in settings:  # a real model's layer fixes its sizes and more (the toy: nothing)
        fixed = layer_settings(settings["real"], settings.get("real_layer", 0), file=True)
    for name, value in settings.items():
        if fixed and name in (*table.FIXED_BY_LAYER, "real", "real_layer"):
            continue
        values[name] = check_setting(name, value, from_text=False)
    if "sentence" in values:
        if SURROGATES.search(values["sentence"]):
            raise ShareError(_("The file's sentence holds a broken character (a lone UTF-16 surrogate)."))
        values["sentence"] = cut_sentence(values["sentence"], messages)
    return Example(**{**fixed, **values})  # the file's mask and window over the layer's


def _json_draws(draws: object) -> dict[str, int]:
    if not isinstance(draws, dict):
        raise ShareError(_('The file\'s "draws" must be an object: matrix name -> draw number.'))
    out = {}
    for name, d in draws.items():
        if name not in MATRIX_NAMES or isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 0xFFFF:
            raise ShareError(
                _('The file\'s "draws" has a bad entry {name}: {value}.', name=shown(name), value=shown(d))
            )
        out[name] = d
    return out


def _json_matrix(name: str, value: object, shape: tuple[int, ...], dtype: np.dtype) -> NDArray:
    if not isinstance(value, list):
        raise ShareError(_("The file's {name} must be nested lists of numbers.", name=name))
    try:
        arr = np.array(value, dtype=object)
    except ValueError:
        raise ShareError(_("The file's {name} has rows of different lengths.", name=name)) from None
    if arr.size == 0 and math.prod(shape) == 0:  # no tokens: [] for a (0, d_model) matrix (written as [])
        return np.zeros(shape, dtype=dtype)
    if arr.shape != shape:
        raise ShareError(
            _(
                "The file's {name} has shape {shape}, but its settings ask for {want}.",
                name=name,
                shape=str(arr.shape),
                want=str(shape),
            )
        )
    cells = arr.reshape(-1).tolist()
    if dtype.kind == "b":
        if not all(isinstance(c, bool) or (type(c) is int and c in (0, 1)) for c in cells):
            raise ShareError(_("The file's {name} must hold true/false (or 1/0).", name=name))
        return np.array(cells, dtype=bool).reshape(shape)
    if not all(isinstance(c, int | float) and not isinstance(c, bool) for c in cells):
        raise ShareError(_("The file's {name} must hold numbers only.", name=name))
    try:
        out = np.array(cells, dtype=np.float64).reshape(shape)
    except OverflowError:
        raise ShareError(_("The file's {name} holds a number too large for a float.", name=name)) from None
    if not np.all(np.isfinite(out)) or np.any(np.abs(out) > VALUE_LIMIT):
        raise ShareError(
            _(
                "The file's {name} holds a value beyond ±{limit} (too large for the scores).",
                name=name,
                limit=f"{VALUE_LIMIT:g}",
            )
        )
    return out
