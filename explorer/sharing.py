"""An Example as a link or a JSON file, and back. Pure: no Streamlit, no pickle, no eval.

Two formats, both versioned, both exact (every matrix comes back bit for bit):

Link (query parameters)
    The scalar settings are plain parameters (`sentence`, `d_model`, `heads`, `d_k`, `seed`, `emb`, `pe`,
    `base`, `pe_scale`, `scale`, `scale_k`, `mask`, `window`, `alibi`, `rope`, `d_ff`, `norm`). The matrices
    that differ from their seeded default go in ONE parameter `s=1.<base64url(zlib(records))>`, where `1` is
    the format version and each record is a tiny binary header (matrix, mode, seeded draw, shape) followed by
    either nothing (the matrix IS a seeded draw, e.g. after "re-randomize"), the cells that differ from that
    draw (index deltas + values), or every cell. Values are stored as int8 or float32 when that is exact
    bit for bit, float64 otherwise; a mask as bits.

JSON file
    {"format": "attention-explorer", "version": 1, "settings": {...}, "tokens": [...],
     "draws": {"w_q": 1}, "matrices": {"w_q": [[[...]]], ...}}
    Every matrix is listed in full while the file stays under the import limit; above it only the matrices
    that differ from their seeded draw are listed (an absent matrix is the seeded draw of `draws`, default 0).
    Floats are written by Python's shortest round-trip repr, so they read back exactly.

Reading never raises on bad input: it returns what it could read and readable messages. A link falls back
to the current value for each part it could not read; a JSON file is refused as a whole.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
import zlib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

import attention_core as ac
from explorer import defaults
from explorer import example as exm
from explorer import settings_table as table
from explorer.example import MATRIX_NAMES, Example

FORMAT = "attention-explorer"
JSON_VERSION = 1
LINK_VERSION = 1

LINK_LIMIT = 8000  # the longest link the app offers (longer: "use the JSON file")
MAX_STATE_CHARS = 16_000  # the longest s= parameter read (twice what the app ever writes)
MAX_BODY_BYTES = 2_000_000  # the decompressed s= body (the largest dense state is about 1.45 MB)
MAX_JSON_BYTES = 1_000_000  # the import limit (server.maxUploadSize = 1 MB)
MAX_SENTENCE_CHARS = table.MAX_SENTENCE_CHARS  # a sentence read from a link is cut here (the box too)
MAX_CELLS = defaults.MAX_HEADS * defaults.MAX_D_MODEL * defaults.MAX_D_K  # the largest matrix
VALUE_LIMIT = table.VALUE_LIMIT  # largest |value| accepted in a matrix (the same rule as the data editors)

# The link's vocabulary and how messages name each setting: the settings table's rows.
PARAM_OF = {s.name: s.param for s in table.SETTINGS}
STATE_PARAM = "s"
SHARE_PARAMS = (*PARAM_OF.values(), STATE_PARAM)
LABELS = {s.name: s.label for s in table.SETTINGS}

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_INT_RE = re.compile(r"[+-]?[0-9]{1,12}")

# Record modes and value codes of the binary state.
_SEEDED, _SPARSE, _DENSE, _HISTORY = 0, 1, 2, 3
_F64, _F32, _I8, _BITS = 0, 1, 2, 3
_HEAD = struct.Struct("<BBHB")  # matrix index, mode, draw, ndim


class ShareError(ValueError):
    """A link part or a file that cannot be read; the message is meant for the person."""


# ---------------------------------------------------------------- helpers


def tokens(ex: Example) -> list[str]:
    return exm.tokens_of(ex.sentence)[0]


def seeded(ex: Example, draws: Mapping[str, int] | None = None) -> dict[str, NDArray]:
    """The seeded matrices of the example's settings (each at its draw: 0 = reset, k = k-th re-randomize)."""
    return exm.default_matrices(ex, tokens(ex), dict(draws or {}))


def _bits(a: NDArray) -> NDArray:
    """An array's raw bits, so that -0.0 and 0.0 differ (the link is exact bit for bit)."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint8) if a.dtype == bool else a.view(np.uint64)


def same(a: NDArray, b: NDArray) -> bool:
    """Equal shape, dtype and bits."""
    return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(_bits(a), _bits(b)))


def shown(value: object, limit: int = 60) -> str:
    """A value a person sent, quoted for a message and cut to `limit` characters.

    Not escaped here: the frame shows every message as literal text (explorer.text.literal).
    """
    text = repr(value) if isinstance(value, str) else str(value)
    return text[: limit - 1] + "…" if len(text) > limit else text


def _number(text: str) -> str:
    """A float written exactly and briefly: 10000.0 -> '10000', 0.1 -> '0.1'."""
    s = repr(float(text))
    return s[:-2] if s.endswith(".0") else s


def _with_matrices(ex: Example, mats: Mapping[str, NDArray]) -> Example:
    return replace(ex, **{n: mats[n] for n in MATRIX_NAMES})


def cut_sentence(text: str, messages: list[str]) -> str:
    if len(text) > MAX_SENTENCE_CHARS:
        messages.append(f"The sentence had {len(text):,} characters; it was cut to {MAX_SENTENCE_CHARS:,}.")
        return text[:MAX_SENTENCE_CHARS]
    return text


# ---------------------------------------------------------------- one setting


def check_setting(name: str, value: object, *, from_text: bool) -> Any:
    """The setting's value if it is valid, else ShareError naming the setting, the value and the rule.

    from_text: the value comes from a URL (a string: '8', '1', 'causal'); else from JSON (typed).
    """
    if name not in table.names():
        raise ShareError(f"there is no setting called {shown(name)}.")
    row = table.row(name)
    label, val = row.label, shown(value)
    if row.kind == "int":
        lo, hi = row.bounds
        if from_text:
            if not isinstance(value, str) or not _INT_RE.fullmatch(value.strip()):
                raise ShareError(f"{label} must be a whole number, not {val}.")
            value = int(value.strip())
        elif isinstance(value, bool) or not isinstance(value, int):
            raise ShareError(f"{label} must be a whole number, not {val}.")
        if not lo <= value <= hi:
            raise ShareError(f"{label} must be between {lo} and {hi}, not {value}.")
        return int(value)
    if row.kind == "float":
        lo, hi = row.bounds
        if (
            isinstance(value, bool)
            or not isinstance(value, str | int | float)
            or (isinstance(value, str) != from_text)
        ):
            raise ShareError(f"{label} must be a number, not {val}.")
        try:
            v = float(value)
        except ValueError:
            raise ShareError(f"{label} must be a number, not {val}.") from None
        if not math.isfinite(v) or not lo <= v <= hi:
            raise ShareError(f"{label} must be a number between {lo:g} and {hi:g}, not {val}.")
        return v
    if row.kind == "bool":
        no, yes = row.words
        if from_text and isinstance(value, str):
            if value.lower() in (no, yes) and row.words != ("0", "1"):
                return value.lower() == yes
            if value.lower() in _TRUE + _FALSE:
                return value.lower() in _TRUE
        elif not from_text and isinstance(value, bool):
            return value
        rule = f"{yes} or {no}" if row.words != ("0", "1") and from_text else "true or false"
        raise ShareError(f"{label} must be {rule}, not {val}.")
    if row.kind == "choice":
        if not isinstance(value, str) or value not in row.choices:
            raise ShareError(f"{label} must be one of {', '.join(row.choices)}, not {val}.")
        return value
    if not isinstance(value, str):
        raise ShareError(f"the {label} must be text, not {val}.")
    return value


# ---------------------------------------------------------------- link: settings


def to_params(ex: Example, draws: Mapping[str, int] | None = None) -> dict[str, str]:
    """Every setting as a query parameter, plus `s` when some matrix differs from its seeded default."""
    out: dict[str, str] = {}
    for row in table.SETTINGS:
        v = getattr(ex, row.name)
        if row.kind == "bool":
            out[row.param] = row.words[1] if v else row.words[0]
        elif row.kind == "float":
            out[row.param] = _number(v)
        else:
            out[row.param] = str(v)
    blob = encode_state(ex, draws)
    if blob:
        out[STATE_PARAM] = blob
    return out


def settings_from_params(params: Mapping[str, str], base: Example) -> tuple[Example, list[str]]:
    """`base` with every setting the parameters give; a bad one keeps base's value and gives a message."""
    changes: dict[str, Any] = {}
    messages: list[str] = []
    for name, param in PARAM_OF.items():
        if param not in params:
            continue
        raw = params[param]
        raw = "" if raw is None else str(raw)
        if name == "sentence":
            changes[name] = cut_sentence(raw, messages)
            continue
        if len(raw) > 40:
            messages.append(
                f"The link's {LABELS[name]} ({param}=) is too long to be a value; kept the default."
            )
            continue
        try:
            changes[name] = check_setting(name, raw, from_text=True)
        except ShareError as e:
            messages.append(f"The link's {e} Kept {LABELS[name]} = {shown(getattr(base, name))}.")
    return replace(base, **changes), messages


# ---------------------------------------------------------------- link: matrices


def _values(v: NDArray[np.float64]) -> tuple[int, bytes]:
    """The shortest exact encoding of a float64 vector: int8, float32 or float64."""
    v = np.ascontiguousarray(v, dtype=np.float64)
    i8 = v.astype(np.int8) if v.size and np.all(np.abs(v) <= 127) else None
    if i8 is not None and same(i8.astype(np.float64), v):
        return _I8, i8.tobytes()
    with np.errstate(over="ignore"):  # values beyond float32's range simply stay float64
        f32 = v.astype(np.float32)
    if same(f32.astype(np.float64), v):
        return _F32, f32.astype("<f4").tobytes()
    return _F64, v.astype("<f8").tobytes()


def _history_top(name: str) -> int:
    """How many size parameters a matrix's seeded cells may have been drawn at (0: none).

    `conform` keeps the overlapping cells when a size changes, and the seeded scale depends on the size
    (W_Q ~ N(0, 1/d_model)), so after d_model 8 -> 6 every kept cell differs from the new seed's value but
    equals the d_model=8 one. The parameter is d_model (W_Q, W_K, W_V, W1, P), d_ff (W2), or for W_O its
    (heads, d_k) numbered (heads-1)*MAX_D_K + d_k.
    """
    if name in ("w_q", "w_k", "w_v", "w1", "pe_table"):
        return defaults.MAX_D_MODEL
    if name == "w2":
        return defaults.MAX_D_FF
    if name == "w_o":
        return defaults.MAX_HEADS * defaults.MAX_D_K
    return 0


def _earlier(name: str, ex: Example, draw: int, j: int, shape: tuple[int, ...]) -> NDArray | None:
    """The seeded values of `name` at size parameter j (see _history_top), placed at `shape`; NaN in
    the cells that matrix did not have."""
    if not 1 <= j <= _history_top(name):
        return None
    s = ex.seed
    if name in ("w_q", "w_k", "w_v"):
        m = defaults.projection(s, name, ex.n_heads, j, ex.d_k, draw)
    elif name == "w1":
        m = defaults.ffn_in(s, j, ex.d_ff, draw)
    elif name == "w2":
        m = defaults.ffn_out(s, j, ex.d_model, draw)
    elif name == "w_o":
        h, k = divmod(j - 1, defaults.MAX_D_K)
        m = defaults.output_projection(s, h + 1, k + 1, ex.d_model, draw)
    elif name == "pe_table" and shape[0] > 0:
        m = ac.positional_encoding(shape[0], j, kind="sinusoidal")  # as exm.default_matrices draws it
    else:
        return None
    out = np.full(shape, np.nan)
    overlap = tuple(slice(0, min(a, b)) for a, b in zip(m.shape, shape, strict=True))
    out[overlap] = m[overlap]
    return out


def _scale_guesses(now: int, base: NDArray, cur: NDArray, todo: NDArray, top: int) -> list[int]:
    """Sizes j whose seeded scale turns `base` (drawn at size `now`) into `cur`: value ~ 1/sqrt(size)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        est = np.rint(now * (base[todo] / cur[todo]) ** 2)
    est = est[np.isfinite(est) & (est >= 1) & (est <= top)].astype(np.int64)
    vals, counts = np.unique(est, return_counts=True)
    return [int(v) for v in vals[np.argsort(-counts, kind="stable")][:24]]


def _candidates(name: str, ex: Example, draw: int, cur: NDArray, todo: NDArray):  # noqa: ANN202
    """(j, seeded values at size j) to try for the cells still `todo` (updated in place by the caller)."""
    shape = getattr(ex, name).shape
    flat = lambda j: _earlier(name, ex, draw, j, shape).reshape(-1)  # noqa: E731
    if name in ("w_q", "w_k", "w_v", "w1", "w2"):
        now, top = (ex.d_ff, defaults.MAX_D_FF) if name == "w2" else (ex.d_model, defaults.MAX_D_MODEL)
        base = flat(now)
        yield now, base
        for j in _scale_guesses(now, base, cur, todo, top):
            if j != now and todo.any():
                yield j, flat(j)
    elif name == "w_o":
        rows, kmax, hmax = shape[0], defaults.MAX_D_K, defaults.MAX_HEADS
        for k in [ex.d_k, *(k for k in range(1, kmax + 1) if k != ex.d_k)]:  # the row layout: d_k then
            if not todo.any():
                return
            hb = min(hmax, -(-rows // k))
            base = flat((hb - 1) * kmax + k)
            yield (hb - 1) * kmax + k, base
            for p in _scale_guesses(hb * k, base, cur, todo, hmax * kmax):  # p = heads * d_k
                if p % k == 0 and 1 <= p // k <= hmax and p // k != hb and todo.any():
                    yield (p // k - 1) * kmax + k, flat((p // k - 1) * kmax + k)
    elif name == "pe_table" and shape[0] > 0:
        for j in [ex.d_model, *(j for j in range(1, defaults.MAX_D_MODEL + 1) if j != ex.d_model)]:
            if not todo.any():
                return
            yield j, flat(j)


def _history(name: str, ex: Example, draw: int, flat: NDArray) -> bytes:
    """Each cell as the size parameter whose seeded value it equals (0: none), then the other cells' values."""
    which = np.zeros(flat.size, dtype="<u2")
    todo = np.ones(flat.size, dtype=bool)
    bits = _bits(flat)
    for j, cand in _candidates(name, ex, draw, flat, todo):
        hit = todo & (_bits(cand) == bits)
        which[hit] = j
        todo &= ~hit
    code, vals = _values(flat[todo])
    return struct.pack("<B", code) + which.tobytes() + vals


def _record(index: int, draw: int, current: NDArray, base: NDArray, ex: Example) -> bytes:
    """One matrix: the seeded draw it starts from, then the smallest of: the cells that differ (sparse),
    every cell (dense), or every cell as "the seeded value at an earlier size" plus the rest (history)."""
    shape = current.shape
    dims = struct.pack(f"<{len(shape)}I", *shape)
    flat, ref = current.reshape(-1), base.reshape(-1)
    diff = np.flatnonzero(_bits(flat) != _bits(ref)) if flat.dtype != bool else np.flatnonzero(flat != ref)
    if diff.size == 0:
        return _HEAD.pack(index, _SEEDED, draw, len(shape)) + dims
    deltas = np.diff(diff, prepend=0).astype("<u4").tobytes()
    bodies: dict[int, bytes] = {}
    if current.dtype == bool:
        bodies[_SPARSE] = struct.pack("<IB", diff.size, _BITS) + deltas  # the listed cells are flipped
        bodies[_DENSE] = struct.pack("<B", _BITS) + np.packbits(flat).tobytes()
    else:
        code, vals = _values(flat[diff])
        bodies[_SPARSE] = struct.pack("<IB", diff.size, code) + deltas + vals
        dcode, dvals = _values(flat)
        bodies[_DENSE] = struct.pack("<B", dcode) + dvals
        if diff.size > 8 and _history_top(MATRIX_NAMES[index]):
            bodies[_HISTORY] = _history(MATRIX_NAMES[index], ex, draw, flat)
    mode = min(bodies, key=lambda m: len(zlib.compress(bodies[m], 6)))
    return _HEAD.pack(index, mode, draw, len(shape)) + dims + bodies[mode]


def encode_state(ex: Example, draws: Mapping[str, int] | None = None) -> str:
    """The `s` parameter: every matrix that is not the seed's first draw, or "" when there is none."""
    draws = {n: int(draws.get(n, 0)) if draws else 0 for n in MATRIX_NAMES}
    draws = {n: d if 0 <= d <= 0xFFFF else 0 for n, d in draws.items()}
    base0 = seeded(ex)
    based = seeded(ex, draws) if any(draws.values()) else base0
    records = []
    for i, name in enumerate(MATRIX_NAMES):
        cur = np.ascontiguousarray(getattr(ex, name))
        if same(cur, base0[name]):
            continue
        d = draws[name]
        ref = based[name] if d else base0[name]
        if cur.shape != ref.shape:
            raise ValueError(f"{name} has shape {cur.shape}, its settings ask for {ref.shape}")
        records.append(_record(i, d, cur.astype(ref.dtype, copy=False), ref, ex))
    if not records:
        return ""
    body = zlib.compress(b"".join(records), 9)
    return f"{LINK_VERSION}." + base64.urlsafe_b64encode(body).decode("ascii").rstrip("=")


class _Reader:
    """Bounds-checked reads from the decompressed body (running past its end = a truncated link)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ShareError("it ends in the middle of a matrix (the link was cut short or altered)")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str) -> tuple:
        s = struct.Struct(fmt)
        return s.unpack(self.take(s.size))

    def done(self) -> bool:
        return self.pos >= len(self.data)


def _read_values(r: _Reader, code: int, n: int) -> NDArray[np.float64]:
    if code == _F64:
        v = np.frombuffer(r.take(8 * n), dtype="<f8")
    elif code == _F32:
        v = np.frombuffer(r.take(4 * n), dtype="<f4")
    elif code == _I8:
        v = np.frombuffer(r.take(n), dtype=np.int8)
    else:
        raise ShareError(f"it uses an unknown value code {code}")
    v = v.astype(np.float64)
    if not np.all(np.isfinite(v)) or np.any(np.abs(v) > VALUE_LIMIT):
        raise ShareError(f"it holds a value that is not a finite number up to ±{VALUE_LIMIT:g}")
    return v


def _decode_body(blob: str) -> bytes:
    if len(blob) > MAX_STATE_CHARS:
        raise ShareError(f"it is too long ({len(blob):,} characters; the limit is {MAX_STATE_CHARS:,})")
    version, dot, payload = blob.partition(".")
    if not dot or not version.isdigit():
        raise ShareError("it does not start with a version number (it should look like s=1.…)")
    if int(version) != LINK_VERSION:
        newer = int(version) > LINK_VERSION
        why = "a newer version of the explorer" if newer else "an unknown format"
        raise ShareError(f"it was written in format {int(version)}, {why}; this explorer reads format 1")
    if not re.fullmatch(r"[A-Za-z0-9_-]*", payload):
        raise ShareError("it contains characters a link of the explorer never has")
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    except (binascii.Error, ValueError):
        raise ShareError("it is not valid base64 (the link was cut short or altered)") from None
    d = zlib.decompressobj()
    try:
        body = d.decompress(raw, MAX_BODY_BYTES)
    except zlib.error:
        raise ShareError("it does not decompress (the link was cut short or altered)") from None
    if d.unconsumed_tail:
        raise ShareError(f"it expands to more than {MAX_BODY_BYTES:,} bytes")
    if not d.eof or d.unused_data:
        raise ShareError("it is incomplete or has extra data (the link was cut short or altered)")
    return body


def decode_state(blob: str, ex: Example) -> tuple[Example, list[str]]:
    """`ex` (its settings) with the matrices of the `s` parameter; any matrix that cannot be used stays
    at its seeded default, with a message. A damaged parameter keeps every seeded default."""
    mats = seeded(ex)
    want = exm.expected_shapes(ex, len(tokens(ex)))
    try:
        r = _Reader(_decode_body(blob))
    except ShareError as e:
        return _with_matrices(ex, mats), [
            f"The link's edited matrices could not be read: {e}. Using the seeded ones."
        ]
    messages: list[str] = []
    seen: set[int] = set()
    try:
        while not r.done():
            idx, mode, draw, ndim = r.unpack(_HEAD.format)
            if ndim > 3:
                raise ShareError(f"a matrix has {ndim} axes")
            shape = r.unpack(f"<{ndim}I")
            if idx >= len(MATRIX_NAMES) or idx in seen or mode not in (_SEEDED, _SPARSE, _DENSE, _HISTORY):
                raise ShareError("it lists an unknown or repeated matrix")
            seen.add(idx)
            name = MATRIX_NAMES[idx]
            if math.prod(shape) > MAX_CELLS:
                raise ShareError(f"{name} claims {math.prod(shape):,} cells")
            value = _read_matrix(r, mode, draw, shape, ex, mats[name], name)
            if tuple(shape) != want[name]:
                messages.append(
                    f"The link's {name} has shape {tuple(shape)} but its settings ask for {want[name]}; "
                    "using the seeded one."
                )
                continue
            mats[name] = value
    except (ShareError, struct.error) as e:
        messages.append(f"The link's edited matrices are damaged ({e}); the rest use the seeded ones.")
    return _with_matrices(ex, mats), messages


def _read_matrix(
    r: _Reader, mode: int, draw: int, shape: tuple[int, ...], ex: Example, base0: NDArray, name: str
) -> NDArray:
    """Read one record's cells (always consumed, so the next record lines up even if this one is unused)."""
    size = math.prod(shape)
    is_mask = base0.dtype == bool
    if tuple(shape) == base0.shape:
        ref = seeded(ex, {name: draw})[name] if draw else base0
        out = np.array(ref, copy=True).reshape(-1)
    else:
        out = np.zeros(size, dtype=base0.dtype)
    if mode == _SPARSE:
        (count, code) = r.unpack("<IB")
        if count > size:
            raise ShareError(f"{name} lists more cells than it has")
        deltas = np.frombuffer(r.take(4 * count), dtype="<u4").astype(np.int64)
        where = np.cumsum(deltas)
        if count and (where[-1] >= size or (count > 1 and np.any(deltas[1:] == 0))):
            raise ShareError(f"{name} lists a cell outside the matrix")
        if is_mask:
            if code != _BITS:
                raise ShareError(f"{name} has the wrong kind of values")
            out[where] = ~out[where]
        else:
            out[where] = _read_values(r, code, count)
    elif mode == _DENSE:
        (code,) = r.unpack("<B")
        if is_mask:
            if code != _BITS:
                raise ShareError(f"{name} has the wrong kind of values")
            out = np.unpackbits(np.frombuffer(r.take((size + 7) // 8), dtype=np.uint8))[:size].astype(bool)
        else:
            out = _read_values(r, code, size)
    elif mode == _HISTORY:
        (code,) = r.unpack("<B")
        if is_mask:
            raise ShareError(f"{name} has the wrong kind of values")
        which = np.frombuffer(r.take(2 * size), dtype="<u2").astype(np.int64)
        rest = which == 0
        values = _read_values(r, code, int(rest.sum()))
        if tuple(shape) == base0.shape:  # (a record that does not fit is read past, not built)
            for j in np.unique(which[~rest]).tolist():
                cand = _earlier(name, ex, draw, j, shape)
                cells = which == j
                if cand is None or np.isnan(cand.reshape(-1)[cells]).any():
                    raise ShareError(f"{name} refers to a size it never had")
                out[cells] = cand.reshape(-1)[cells]
            out[rest] = values
    return out.reshape(shape)


def from_params(params: Mapping[str, str], base: Example) -> tuple[Example, list[str]]:
    """The Example a link describes: settings over `base`, then the matrices (seeded + the `s` edits).

    Matrices of `base` are dropped when the link sets anything (the link describes a whole example).
    """
    ex, messages = settings_from_params(params, base)
    blob = params.get(STATE_PARAM)
    if blob is None:
        return _with_matrices(ex, seeded(ex)), messages
    ex, more = decode_state(str(blob), ex)
    return ex, messages + more


# ---------------------------------------------------------------- JSON


def _listed(ex: Example, draws: Mapping[str, int] | None, everything: bool) -> dict[str, list]:
    base = seeded(ex, draws)
    out: dict[str, list] = {}
    for name in MATRIX_NAMES:
        m = np.ascontiguousarray(getattr(ex, name))
        if everything or not same(m, base[name]):
            out[name] = m.tolist()
    return out


def to_json(ex: Example, draws: Mapping[str, int] | None = None) -> str:
    """The example as a human-readable JSON text (every matrix while that stays under the import limit)."""
    draws = {n: int(d) for n, d in (draws or {}).items() if int(d) and n in MATRIX_NAMES}
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": JSON_VERSION,
        "settings": plain_settings(ex),
        "tokens": tokens(ex),
        "draws": draws,
        "matrices": _listed(ex, draws, everything=True),
    }
    text = json.dumps(doc, ensure_ascii=False, allow_nan=False)
    if len(text.encode()) > MAX_JSON_BYTES:
        doc["matrices"] = _listed(ex, draws, everything=False)
        text = json.dumps(doc, ensure_ascii=False, allow_nan=False)
    return text


def plain_settings(ex: Example) -> dict[str, Any]:
    """The settings as plain JSON types (a preset may hold numpy scalars)."""
    out: dict[str, Any] = {}
    for row in table.SETTINGS:
        out[row.name] = row.pytype(getattr(ex, row.name))
    return out


def _reject_constant(name: str) -> float:
    raise ShareError(f"it contains {name}, which is not a number a matrix can hold")


def from_json(data: bytes | str) -> Example:
    """The Example a JSON export describes; ShareError (a readable reason) for anything wrong."""
    size = len(data.encode() if isinstance(data, str) else data)
    if size > MAX_JSON_BYTES:
        raise ShareError(f"the file is too large ({size:,} bytes; the limit is {MAX_JSON_BYTES:,})")
    try:
        text = data if isinstance(data, str) else data.decode("utf-8-sig")
        doc = json.loads(text, parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise ShareError("the file is not UTF-8 text") from None
    except RecursionError:
        raise ShareError("the file is nested too deeply") from None
    except json.JSONDecodeError as e:
        raise ShareError(f"the file is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ShareError(f'this is not an Attention Explorer file (it needs "format": "{FORMAT}")')
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ShareError('the file has no "version" number')
    if version != JSON_VERSION:
        newer = "a newer version of the explorer" if version > JSON_VERSION else "an unknown version"
        raise ShareError(f"the file is version {version}, from {newer}; this explorer reads version 1")
    ex = _json_settings(doc.get("settings"))
    draws = _json_draws(doc.get("draws", {}))
    mats = seeded(ex, draws)
    want = exm.expected_shapes(ex, len(tokens(ex)))
    listed = doc.get("matrices", {})
    if not isinstance(listed, dict):
        raise ShareError('"matrices" must be an object: name -> nested lists of numbers')
    for name, value in listed.items():
        if name not in MATRIX_NAMES:
            raise ShareError(f"there is no matrix called {shown(name)} (known: {', '.join(MATRIX_NAMES)})")
        mats[name] = _json_matrix(name, value, want[name], mats[name].dtype)
    return _with_matrices(ex, mats)


def _json_settings(settings: object) -> Example:
    if not isinstance(settings, dict):
        raise ShareError('the file has no "settings" object')
    known = table.names()
    unknown = [k for k in settings if k not in known]
    if unknown:
        raise ShareError(f"unknown setting {shown(unknown[0])} (known: {', '.join(known)})")
    values: dict[str, Any] = {}
    for name, value in settings.items():
        try:
            values[name] = check_setting(name, value, from_text=False)
        except ShareError as e:
            raise ShareError(f"in the settings, {e}") from None
    if "sentence" in values and len(values["sentence"]) > MAX_SENTENCE_CHARS:
        raise ShareError(f"the sentence is longer than {MAX_SENTENCE_CHARS:,} characters")
    return Example(**values)


def _json_draws(draws: object) -> dict[str, int]:
    if not isinstance(draws, dict):
        raise ShareError('"draws" must be an object: matrix name -> draw number')
    out = {}
    for name, d in draws.items():
        if name not in MATRIX_NAMES or isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 0xFFFF:
            raise ShareError(f'"draws" has a bad entry {shown(name)}: {shown(d)}')
        out[name] = d
    return out


def _json_matrix(name: str, value: object, shape: tuple[int, ...], dtype: np.dtype) -> NDArray:
    if not isinstance(value, list):
        raise ShareError(f"{name} must be nested lists of numbers")
    try:
        arr = np.array(value, dtype=object)
    except ValueError:
        raise ShareError(f"{name} has rows of different lengths") from None
    if arr.shape != shape:
        raise ShareError(f"{name} has shape {arr.shape}, but its settings ask for {shape}")
    cells = arr.reshape(-1).tolist()
    if dtype.kind == "b":
        if not all(isinstance(c, bool) or (type(c) is int and c in (0, 1)) for c in cells):
            raise ShareError(f"{name} must hold true/false (or 1/0)")
        return np.array(cells, dtype=bool).reshape(shape)
    if not all(isinstance(c, int | float) and not isinstance(c, bool) for c in cells):
        raise ShareError(f"{name} must hold numbers only")
    try:
        out = np.array(cells, dtype=np.float64).reshape(shape)
    except OverflowError:
        raise ShareError(f"{name} holds a number too large for a float") from None
    if not np.all(np.isfinite(out)) or np.any(np.abs(out) > VALUE_LIMIT):
        raise ShareError(f"{name} holds a value beyond ±{VALUE_LIMIT:g} (too large for the scores)")
    return out


# ---------------------------------------------------------------- CSV


def to_csv(ex: Example, name: str, row_labels: list[str] | None = None) -> str:
    """One matrix as CSV text, exact (repr floats); 3-D matrices get a head column, the mask 1/0."""
    m = np.asarray(getattr(ex, name))
    labels = row_labels or [str(i) for i in range(m.shape[-2] if m.ndim >= 2 else 0)]
    per_token = name in ("emb", "pe_table", "custom_mask")
    first = ["token"] if per_token else ["row"]
    cols = [str(j) for j in range(m.shape[-1])] if m.ndim else []
    lines = []
    if m.ndim == 3:
        lines.append(",".join(["head", *first, *cols]))
        for h in range(m.shape[0]):
            for i in range(m.shape[1]):
                lines.append(",".join([str(h + 1), str(i), *(_cell(v) for v in m[h, i])]))
    else:
        lines.append(",".join([*first, *cols]))
        for i in range(m.shape[0]):
            lab = _csv_text(labels[i]) if per_token and i < len(labels) else str(i)
            lines.append(",".join([lab, *(_cell(v) for v in m[i])]))
    return "\n".join(lines) + "\n"


def _cell(v: object) -> str:
    if isinstance(v, np.bool_ | bool):
        return "1" if v else "0"
    return repr(float(v))


def _csv_text(s: str) -> str:
    """A CSV field, quoted; a leading =, +, - or @ is prefixed with ' so spreadsheets never run it."""
    if s[:1] in ("=", "+", "-", "@", "\t", "\r"):
        s = "'" + s
    return '"' + s.replace('"', '""') + '"'
