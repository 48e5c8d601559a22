"""The `s=` parameter of a link: every matrix that is not its seeded draw, in a few hundred characters.

`s=1.<base64url(zlib(records))>` (the wrapping: explorer.sharing.blob_text), where `1` is the format version
and each record is a tiny binary header (matrix, mode, seeded draw, shape) followed by either nothing (the matrix IS a seeded draw, e.g. after
"re-randomize"), the cells that differ from that draw (index deltas + values), every cell, or every cell as
"the seeded value at an earlier size" (history) plus the rest. Values are stored as int8 or float32 when
that is exact bit for bit, float64 otherwise; a mask as bits. The seeded draws are scheme 1
(explorer.model.seeding): format 1 is written and read against it, whatever the app's own defaults become.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

import attention_core as ac
from explorer import i18n
from explorer.i18n import _
from explorer.model import layer as layers
from explorer.model import seeding
from explorer.model import settings_table as table
from explorer.model.example import MATRIX_NAMES, Example
from explorer.sharing import blob_text
from explorer.sharing.values import (
    MAX_BODY_BYTES,
    MAX_CELLS,
    MAX_STATE_CHARS,
    VALUE_LIMIT,
    ShareError,
    bits,
    expected_shapes,
    same,
    seeded,
    with_matrices,
)

# Record modes and value codes of the binary state.
_SEEDED, _SPARSE, _DENSE, _HISTORY = 0, 1, 2, 3
_F64, _F32, _I8, _BITS = 0, 1, 2, 3
_HEAD = struct.Struct("<BBHB")  # matrix index, mode, draw, ndim
_SMALL_CELLS = 65_536  # matrices up to this many cells pick their record by zlib level 6, larger by level 1


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
        return table.MAX_D_MODEL
    if name == "w2":
        return table.MAX_D_FF
    if name == "w_o":
        return table.MAX_HEADS * table.MAX_D_K
    return 0


def _earlier(name: str, ex: Example, draw: int, j: int, shape: tuple[int, ...]) -> NDArray | None:
    """The seeded values of `name` at size parameter j (see _history_top), placed at `shape`; NaN in
    the cells that matrix did not have."""
    if not 1 <= j <= _history_top(name):
        return None
    s = ex.seed
    if name in ("w_q", "w_k", "w_v"):
        m = seeding.projection(s, name, ex.n_heads, j, ex.d_k, draw)
    elif name == "w1":
        m = seeding.ffn_in(s, j, ex.d_ff, draw)
    elif name == "w2":
        m = seeding.ffn_out(s, j, ex.d_model, draw)
    elif name == "w_o":
        h, k = divmod(j - 1, table.MAX_D_K)
        m = seeding.output_projection(s, h + 1, k + 1, ex.d_model, draw)
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
        now, top = (ex.d_ff, table.MAX_D_FF) if name == "w2" else (ex.d_model, table.MAX_D_MODEL)
        base = flat(now)
        yield now, base
        for j in _scale_guesses(now, base, cur, todo, top):
            if j != now and todo.any():
                yield j, flat(j)
    elif name == "w_o":
        rows, kmax, hmax = shape[0], table.MAX_D_K, table.MAX_HEADS
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
        for j in [ex.d_model, *(j for j in range(1, table.MAX_D_MODEL + 1) if j != ex.d_model)]:
            if not todo.any():
                return
            yield j, flat(j)


def _history(name: str, ex: Example, draw: int, flat: NDArray) -> bytes:
    """Each cell as the size parameter whose seeded value it equals (0: none), then the other cells' values."""
    which = np.zeros(flat.size, dtype="<u2")
    todo = np.ones(flat.size, dtype=bool)
    flat_bits = bits(flat)
    for j, cand in _candidates(name, ex, draw, flat, todo):
        hit = todo & (bits(cand) == flat_bits)
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
    diff = np.flatnonzero(bits(flat) != bits(ref)) if flat.dtype != bool else np.flatnonzero(flat != ref)
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
        real = not layers.of(ex).DRAWN  # a trained layer: written against it, no seeded size
        if not real or diff.size * 2 > flat.size:
            dcode, dvals = _values(flat)
            bodies[_DENSE] = struct.pack("<B", dcode) + dvals
        if diff.size > 8 and _history_top(MATRIX_NAMES[index]) and not real:
            bodies[_HISTORY] = _history(MATRIX_NAMES[index], ex, draw, flat)
    if diff.size == flat.size and _DENSE in bodies:
        del bodies[_SPARSE]  # every cell differs: the cells' list is the dense body plus their indices
    level = 6 if flat.size <= _SMALL_CELLS else 1  # a real layer's large matrices: compared quickly
    mode = min(bodies, key=lambda m: len(zlib.compress(bodies[m], level)) if len(bodies) > 1 else 0)
    return _HEAD.pack(index, mode, draw, len(shape)) + dims + bodies[mode]


_PROBE = 65_536  # bytes of a body compressed to judge, before the rest is encoded, that it is past a limit


def encode_state(ex: Example, draws: Mapping[str, int] | None = None, limit: int | None = None) -> str | None:
    """The `s` parameter: every matrix that is not the seed's first draw, or "" when there is none.

    limit: None when the parameter would be longer than `limit` characters. The matrices are then encoded
    only until that is certain (_past): a real layer's file, tens of megabytes of link, stops after its
    first matrix instead of encoding them all."""
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
        kind = (
            bool if ref.dtype == bool else np.float64
        )  # a trained layer's float32 matrix is edited in float64
        records.append(_record(i, d, cur.astype(kind, copy=False), ref, ex))
        if limit is not None and _past(b"".join(records), limit):
            return None
    if not records:
        return ""
    text = blob_text.wrapped(b"".join(records))
    return None if limit is not None and len(text) > limit else text


def _past(body: bytes, limit: int) -> bool:
    """Whether a parameter whose body starts with `body` is surely longer than `limit` characters: its first
    _PROBE bytes alone, at zlib's smallest, take more than twice the limit. (No zlib level makes the whole
    shorter than its start by anything near that factor; a body nearer the limit is encoded whole.)"""
    if 3 * len(body) <= 4 * limit:  # uncompressed, the body would fit twice over: nothing to judge yet
        return False
    return 4 * len(zlib.compress(body[:_PROBE], 9)) > 3 * 2 * limit


class _Reader:
    """Bounds-checked reads from the decompressed body (running past its end = a truncated link)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ShareError(
                _("The edited matrices end in the middle of a matrix (they were cut short or altered).")
            )
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
        raise ShareError(_("The edited matrices use an unknown value code {code}.", code=str(code)))
    v = v.astype(np.float64)
    if not np.all(np.isfinite(v)) or np.any(np.abs(v) > VALUE_LIMIT):
        raise ShareError(
            _(
                "The edited matrices hold a value that is not a finite number up to ±{limit}.",
                limit=f"{VALUE_LIMIT:g}",
            )
        )
    return v


def _decode(
    blob: str, ex: Example, limit: int, body_limit: int
) -> tuple[dict[str, NDArray], list[tuple[str, str, str]], str]:
    """The matrices of `blob` over the seeded ones, what did not fit (a matrix of another shape: kept
    seeded) and the damage that stopped the reading ("" when none: the matrices after it stay seeded).
    ShareError when the blob cannot be read at all."""
    mats = seeded(ex)
    want = expected_shapes(ex)
    r = _Reader(blob_text.unwrapped(blob, limit, body_limit))
    misfits: list[tuple[str, str, str]] = []  # a matrix of another shape: its name, its shape, the one wanted
    seen: set[int] = set()
    try:
        while not r.done():
            idx, mode, draw, ndim = r.unpack(_HEAD.format)
            if ndim > 3:
                raise ShareError(_("A matrix in the edited matrices has {n} axes.", n=str(ndim)))
            shape = r.unpack(f"<{ndim}I")
            if idx >= len(MATRIX_NAMES) or idx in seen or mode not in (_SEEDED, _SPARSE, _DENSE, _HISTORY):
                raise ShareError(_("The edited matrices list an unknown or repeated matrix."))
            seen.add(idx)
            name = MATRIX_NAMES[idx]
            if math.prod(shape) > max(MAX_CELLS, math.prod(want[name])):
                raise ShareError(
                    _("The matrix {name} claims {n} cells.", name=name, n=i18n.integer(math.prod(shape)))
                )
            value = _read_matrix(r, mode, draw, shape, ex, mats[name], name)
            if tuple(shape) != want[name]:
                misfits.append((name, str(tuple(shape)), str(want[name])))
                continue
            mats[name] = value
    except ShareError as e:
        return mats, misfits, str(e)
    except struct.error:
        return (
            mats,
            misfits,
            _("The edited matrices end in the middle of a matrix (they were cut short or altered)."),
        )
    return mats, misfits, ""


def decode_state(
    blob: str, ex: Example, limit: int = MAX_STATE_CHARS, body_limit: int = MAX_BODY_BYTES
) -> tuple[Example, list[str]]:
    """`ex` (its settings) with the matrices of the `s` parameter; any matrix that cannot be used stays
    at its seeded default, with a message. A damaged parameter keeps every seeded default. `limit`: the
    longest blob read; `body_limit`: the most bytes it may expand to."""
    try:
        mats, misfits, damage = _decode(blob, ex, limit, body_limit)
    except ShareError as e:
        return with_matrices(ex, seeded(ex)), [
            _(
                "The link's edited matrices (s=) could not be read. {problem} Using the seeded ones.",
                problem=e,
            )
        ]
    messages = [
        _(
            "The link's {name} has shape {shape}, but its settings ask for {want}: using the seeded one.",
            name=name,
            shape=shape,
            want=want,
        )
        for name, shape, want in misfits
    ]
    if damage:
        messages.append(
            _(
                "The link's edited matrices (s=) are damaged. {problem} The rest use the seeded ones.",
                problem=damage,
            )
        )
    return with_matrices(ex, mats), messages


def read_state(blob: str, ex: Example, limit: int, body_limit: int) -> Example:
    """`ex` with the matrices of `blob`, all of them or none: ShareError (the reason) for any problem. A
    file's "state" is read so: a file is refused as a whole, never opened in part."""
    mats, misfits, damage = _decode(blob, ex, limit, body_limit)
    if damage:
        raise ShareError(damage)
    if misfits:
        name, shape, want = misfits[0]
        raise ShareError(
            _(
                "The matrix {name} has shape {shape}, but its settings ask for {want}.",
                name=name,
                shape=shape,
                want=want,
            )
        )
    return with_matrices(ex, mats)


def _read_matrix(
    r: _Reader, mode: int, draw: int, shape: tuple[int, ...], ex: Example, base0: NDArray, name: str
) -> NDArray:
    """Read one record's cells (always consumed, so the next record lines up even if this one is unused)."""
    size = math.prod(shape)
    is_mask = base0.dtype == bool
    if tuple(shape) == base0.shape:
        ref = seeded(ex, {name: draw})[name] if draw else base0
        out = np.array(ref, dtype=bool if is_mask else np.float64, copy=True).reshape(-1)
    else:
        out = np.zeros(size, dtype=bool if is_mask else np.float64)
    if mode == _SPARSE:
        (count, code) = r.unpack("<IB")
        if count > size:
            raise ShareError(_("The matrix {name} lists more cells than it has.", name=name))
        deltas = np.frombuffer(r.take(4 * count), dtype="<u4").astype(np.int64)
        where = np.cumsum(deltas)
        if count and (where[-1] >= size or (count > 1 and np.any(deltas[1:] == 0))):
            raise ShareError(_("The matrix {name} lists a cell outside itself.", name=name))
        if is_mask:
            if code != _BITS:
                raise ShareError(_("The matrix {name} has the wrong kind of values.", name=name))
            out[where] = ~out[where]
        else:
            out[where] = _read_values(r, code, count)
    elif mode == _DENSE:
        (code,) = r.unpack("<B")
        if is_mask:
            if code != _BITS:
                raise ShareError(_("The matrix {name} has the wrong kind of values.", name=name))
            out = np.unpackbits(np.frombuffer(r.take((size + 7) // 8), dtype=np.uint8))[:size].astype(bool)
        else:
            out = _read_values(r, code, size)
    elif mode == _HISTORY:
        (code,) = r.unpack("<B")
        if is_mask:
            raise ShareError(_("The matrix {name} has the wrong kind of values.", name=name))
        which = np.frombuffer(r.take(2 * size), dtype="<u2").astype(np.int64)
        rest = which == 0
        values = _read_values(r, code, int(rest.sum()))
        if tuple(shape) == base0.shape:  # (a record that does not fit is read past, not built)
            for j in np.unique(which[~rest]).tolist():
                cand = _earlier(name, ex, draw, j, shape)
                cells = which == j
                if cand is None or np.isnan(cand.reshape(-1)[cells]).any():
                    raise ShareError(_("The matrix {name} refers to a size it never had.", name=name))
                out[cells] = cand.reshape(-1)[cells]
            out[rest] = values
    return out.reshape(shape)
