"""Input checks shared by every public entry point.

The app shows these messages to students verbatim, so each one names the argument, the shape it got and the
shape it expected, in plain words. Every check raises ``ValueError``; ``assert`` is kept for internal
invariants.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.int64]

# Names of the axes, used to say where a bad value sits: "at row 0, column 2", "at head 1, row 0, column 2".
_AXIS_NAMES: dict[int, tuple[str, ...]] = {
    1: ("index",),
    2: ("row", "column"),
    3: ("head", "row", "column"),
}


def shape_str(shape: Sequence[int]) -> str:
    """Format a shape the way numpy prints it: (3,), (3, 4), (2, 3, 4)."""
    return str(tuple(int(s) for s in shape))


def _where(index: tuple[int, ...]) -> str:
    names = _AXIS_NAMES.get(len(index), tuple(f"axis {a} index" for a in range(len(index))))
    return ", ".join(f"{name} {int(i)}" for name, i in zip(names, index, strict=True))


def all_finite(arr: NDArray[np.float64]) -> bool:
    """True when no entry is NaN or ±inf. Fast path: a finite sum proves it (NaN and inf propagate)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.add.reduce(arr, axis=None)):
            return True
    return bool(np.isfinite(arr).all())  # the sum may also have overflowed: look at every entry


def check_finite(name: str, arr: NDArray[np.float64], hint: str = "") -> None:
    """Raise if ``arr`` holds NaN or ±inf.

    Message: "x contains 1 non-finite value (NaN or ±inf) at row 0, column 2".
    """
    if all_finite(arr):
        return
    bad = np.argwhere(~np.isfinite(arr))
    count = len(bad)
    first = tuple(int(i) for i in bad[0])
    if count == 1:
        raise ValueError(f"{name} contains 1 non-finite value (NaN or ±inf) at {_where(first)}{hint}")
    raise ValueError(
        f"{name} contains {count} non-finite values (NaN or ±inf), the first at {_where(first)}{hint}"
    )


def as_float_array(
    name: str,
    value: object,
    ndims: tuple[int, ...],
    expected: str,
    *,
    finite: bool = True,
    hint: str = "",
) -> FloatArray:
    """Convert ``value`` to a float64 array of one of the allowed numbers of dimensions, or raise.

    ``expected`` describes the expected shape in words, e.g. "(n, d_model)". No copy is made when ``value``
    is already a float64 array. Empty arrays and (when ``finite``) NaN or ±inf entries are rejected; ``hint``
    is appended to the non-finite message.
    """
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nested lists, for example
        raise ValueError(f"{name} must be a rectangular array of numbers with shape {expected}") from exc
    if raw.dtype.kind not in "biuf":
        raise ValueError(
            f"{name} must contain real numbers with shape {expected}, got an array of dtype {raw.dtype}"
        )
    if raw.ndim not in ndims:
        dims = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"{name} must be {dims} with shape {expected}, got shape {shape_str(raw.shape)}")
    if raw.size == 0:
        raise ValueError(
            f"{name} is empty (shape {shape_str(raw.shape)}): it needs at least one entry along every axis, "
            f"shape {expected}"
        )
    arr = raw.astype(np.float64, copy=False)
    if finite:
        check_finite(name, arr, hint)
    return arr


def as_bool_array(name: str, value: object, ndims: tuple[int, ...], expected: str) -> BoolArray:
    """Convert ``value`` to a boolean array (True = may attend), rejecting other dtypes and empty arrays."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a rectangular boolean array with shape {expected}") from exc
    if arr.dtype != np.bool_:
        raise ValueError(
            f"{name} must be a boolean array (True = may attend) with shape {expected}, "
            f"got an array of dtype {arr.dtype}"
        )
    if arr.ndim not in ndims:
        dims = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"{name} must be {dims} with shape {expected}, got shape {shape_str(arr.shape)}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {shape_str(arr.shape)}): expected shape {expected}")
    return arr


def as_int(name: str, value: object, minimum: int) -> int:
    """Return ``value`` as a Python int >= ``minimum``; bools, floats and strings are rejected."""
    if isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    try:
        number = operator.index(value)  # ints and numpy integers, not 3.0 or "3"
    except TypeError:
        raise ValueError(f"{name} must be a whole number, got {value!r}") from None
    if number < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {number}")
    return number


def as_real(name: str, value: object, *, positive: bool = False) -> float:
    """Return ``value`` as a finite float (and > 0 when ``positive``)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    number = float(value)
    if not np.isfinite(number):
        raise ValueError(f"{name} must be finite, got {number}")
    if positive and number <= 0:
        raise ValueError(f"{name} must be greater than 0, got {number}")
    return number


def check_result(name: str, arr: NDArray[np.float64], formula: str) -> None:
    """Raise when a computed matrix overflowed float64 although every input was finite."""
    if not all_finite(arr):
        count = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(
            f"{name} overflows: {count} entr{'y' if count == 1 else 'ies'} of {formula} exceed the float64 "
            f"range (about ±1.8e308); use smaller inputs or weights"
        )


def readonly(arr: NDArray[np.generic]) -> NDArray[np.generic]:
    """A read-only view of ``arr`` (the caller's array keeps its own flags)."""
    view = arr.view()
    view.flags.writeable = False
    return view
