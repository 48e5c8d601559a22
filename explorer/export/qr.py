"""A QR code of the share link: students scan it and open the same example.

Pure (segno, no Streamlit): the link in, an SVG or the module matrix out. The lowest error level that fits
(L, raised by segno while the symbol does not grow) keeps the symbol small, so each module is large on a
projector; a link longer than a QR code can hold gets None, and the page says so.
"""

from __future__ import annotations

import functools

import numpy as np
import segno
from numpy.typing import NDArray

MAX_LINK_BYTES = 2953  # a version 40 symbol at error level L holds 2,953 bytes
QUIET = 4  # the white border a scanner needs, in modules


@functools.lru_cache(maxsize=32)
def code(link: str) -> segno.QRCode | None:
    """The QR code of `link` (byte mode, not Micro QR), or None when the link is empty or too long."""
    if not link or len(link.encode("utf-8")) > MAX_LINK_BYTES:
        return None
    return segno.make(link, error="l", boost_error=True, micro=False, mode="byte")


def svg(link: str) -> str | None:
    """An SVG of the code that scales to any width (a viewBox, no fixed size), black on white."""
    qr = code(link)
    if qr is None:
        return None
    return qr.svg_inline(scale=1, border=QUIET, dark="#000", light="#fff", omitsize=True)


def matrix(link: str) -> NDArray[np.uint8] | None:
    """The modules with the quiet zone, shape (size + 8, size + 8): 1 = dark, rows from the top."""
    qr = code(link)
    if qr is None:
        return None
    return np.array([list(row) for row in qr.matrix_iter(scale=1, border=QUIET)], dtype=np.uint8)


def modules(link: str) -> int:
    """The symbol's width in modules without the quiet zone (0 when there is no code)."""
    qr = code(link)
    return 0 if qr is None else qr.symbol_size(scale=1, border=0)[0]
