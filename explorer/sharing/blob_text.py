"""The wrapping of a link's `s=` parameter around its binary records: `<version>.<base64url(zlib(body))>`,
written as small as a link wants and read back with every bound (its length, what it expands to) checked
before the records are (explorer.sharing.state_blob)."""

from __future__ import annotations

import base64
import binascii
import re
import zlib

from explorer import i18n
from explorer.i18n import _
from explorer.sharing.values import ShareError

LINK_VERSION = 1
_SMALL_BODY = 1_000_000  # bodies up to this (a link, a toy example) get zlib's smallest, level 9


def wrapped(body: bytes) -> str:
    """`body` as the `s` parameter's text: the format version, a dot, the compressed body in base64url."""
    return f"{LINK_VERSION}." + base64.urlsafe_b64encode(_compressed(body)).decode("ascii").rstrip("=")


def _compressed(body: bytes) -> bytes:
    """zlib at its smallest for a link's body; a large body (a file of a real layer's edits) as fast as it
    reads back: stored as it is when a sample shows it does not shrink (random float64 values do not),
    else at level 1 (zlib's level 9 takes about 35 s on 32 MB of two-decimal numbers, level 1 under 1 s)."""
    if len(body) <= _SMALL_BODY:
        return zlib.compress(body, 9)
    step = len(body) // 8
    sample = b"".join(body[i * step : i * step + 65_536] for i in range(8))
    return zlib.compress(body, 0 if len(zlib.compress(sample, 1)) > 0.9 * len(sample) else 1)


def unwrapped(blob: str, limit: int, body_limit: int) -> bytes:
    """The body of an `s` parameter of at most `limit` characters, expanding to at most `body_limit` bytes;
    ShareError (the reason) for anything else."""
    if len(blob) > limit:
        raise ShareError(
            _(
                "The edited matrices are too long ({n} characters; the limit is {limit}).",
                n=i18n.integer(len(blob)),
                limit=i18n.integer(limit),
            )
        )
    version, dot, payload = blob.partition(".")
    if not dot or not re.fullmatch(r"[0-9]{1,4}", version):  # ASCII: "¹".isdigit() is True, int("¹") fails
        raise ShareError(
            _("The edited matrices do not start with a version number (they should look like 1.…).")
        )
    if int(version) != LINK_VERSION:
        if int(version) > LINK_VERSION:
            raise ShareError(
                _(
                    "The edited matrices were written in format {version}, by a newer version of the explorer; "
                    "this explorer reads format 1.",
                    version=str(int(version)),
                )
            )
        raise ShareError(
            _(
                "The edited matrices were written in format {version}, an unknown format; this explorer reads "
                "format 1.",
                version=str(int(version)),
            )
        )
    if not re.fullmatch(r"[A-Za-z0-9_-]*", payload):
        raise ShareError(_("The edited matrices contain characters the explorer never writes there."))
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    except (binascii.Error, ValueError):
        raise ShareError(
            _("The edited matrices are not valid base64 (they were cut short or altered).")
        ) from None
    d = zlib.decompressobj()
    try:
        body = d.decompress(raw, body_limit)
    except zlib.error:
        raise ShareError(
            _("The edited matrices do not decompress (they were cut short or altered).")
        ) from None
    if d.unconsumed_tail:
        raise ShareError(_("The edited matrices expand to more than {n} bytes.", n=i18n.integer(body_limit)))
    if not d.eof or d.unused_data:
        raise ShareError(
            _("The edited matrices are incomplete or have extra data (they were cut short or altered).")
        )
    return body
