"""The explorer pages' picks in a link: the head shown on single-head pages (h=, 1-based, as the picker shows
it), the query token (q=) and the key token of the picked cell (k=) (0-based, as the token pickers count).
Pure.

A pick is written only when it differs from the first head or token (links stay short), and read against the
example the link opens: its heads and its tokens. A number past the example's last head or token is clamped
to it, anything else is left out; either way one message says what the link asked and what is shown.
Reading never raises, and reads the first MAX_PICK_CHARS characters of each parameter (as model_link does).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from explorer.i18n import N_, _
from explorer.sharing.values import UINT_RE, ShareError, refused, shown, whole_number

PARAMS = ("h", "q", "k")  # beside the settings: the head shown, the query token, the key token
MAX_PICK_CHARS = 40  # the characters read of each part: a head or a token is a few digits


@dataclass
class PicksRead:
    """What a link picked (0-based; None: not in the link, or not readable), and messages for the person."""

    head: int | None = None
    query: int | None = None
    key: int | None = None
    messages: list[str] = field(default_factory=list)


def params(head: int, query: int, key: int) -> dict[str, str]:
    """The picks (0-based) as link parameters, each only when it is not the first head or token."""
    out: dict[str, str] = {}
    if head:
        out["h"] = str(head + 1)
    if query:
        out["q"] = str(query)
    if key:
        out["k"] = str(key)
    return out


# What a message says of a head or a token, for each noun: whole sentences (a translator words each noun's
# own, "cabeza" and "token" agree differently).
KEPT = {"head": N_("Kept head {kept}."), "token": N_("Kept token {kept}.")}
SHOWING = {"head": N_("Showing head {value}."), "token": N_("Showing token {value}.")}
ASKS = {
    "head": N_("The link's {setting} asks for head {asked}."),
    "token": N_("The link's {setting} asks for token {asked}."),
}
HAS_ONE = {"head": N_("This example has one head."), "token": N_("This example has one token.")}
HAS = {
    "head": N_("This example's heads are {lo} to {hi}."),
    "token": N_("This example's tokens are {lo} to {hi}."),
}


def _one(raw: str, label: str, bounds: tuple[int, int], noun: str, kept: int) -> tuple[int | None, str]:
    """One pick as the link writes it (a head from 1, a token from 0: `bounds`), as written, and a message (""
    when read as written). A number past the bounds is clamped to them; anything else keeps `kept`."""
    lo, hi = bounds
    text = raw[:MAX_PICK_CHARS]
    # "heads are 1 to 1" reads as a slip: a single head (or token) is said as one
    has = _(HAS_ONE[noun]) if lo == hi else _(HAS[noun], lo=str(lo), hi=str(hi))
    keep = _(KEPT[noun], kept=str(kept))
    try:  # the reader every link uses: ASCII digits only
        return whole_number(label, text, lo, hi, signed=False), ""
    except ShareError as e:
        if not UINT_RE.fullmatch(text.strip()):
            if lo == hi:
                return None, f"{refused('whole', False, has, setting=label, value=shown(text))} {keep}"
            return None, f"{e} {keep}"  # whole sentences
    asked = int(text.strip())
    value = min(max(asked, lo), hi)
    said = _(ASKS[noun], setting=label, asked=str(asked))
    return value, f"{said} {has} {_(SHOWING[noun], value=str(value))}"


def read(
    link: Mapping[str, str | None], n_heads: int, n_tokens: int, picked: tuple[int, int, int] = (0, 0, 0)
) -> PicksRead:
    """h=2 (1-based), q=3, k=1 (0-based), each on its own, against an example of `n_heads` heads and
    `n_tokens` tokens. `picked`: the head, query and key shown before the link (0-based: what a part that
    cannot be read keeps). With no tokens (an empty sentence) the token picks are left out without a word:
    the page says there is nothing to read."""
    out = PicksRead()
    head, query, key = picked
    last = n_tokens - 1
    parts = (  # attribute, parameter, what it is, bounds as written, noun, kept as written, 1-based
        ("head", "h", _("head") + " (h=)", (1, n_heads), "head", head + 1, 1),  # marked outside the
        ("query", "q", _("query token") + " (q=)", (0, last), "token", query, 0),  # f-string: extracted
        ("key", "k", _("key token") + " (k=)", (0, last), "token", key, 0),
    )
    for name, param, what, bounds, noun, kept, base in parts:
        raw = str(link.get(param) or "")
        if not raw.strip() or bounds[1] < bounds[0]:
            continue
        value, message = _one(raw, what, bounds, noun, kept)
        setattr(out, name, None if value is None else value - base)
        if message:
            out.messages.append(message)
    return out
