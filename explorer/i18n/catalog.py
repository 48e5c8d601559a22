"""The catalogs: locale/<code>/LC_MESSAGES/messages.po, read once per process and compiled in memory into
a standard gettext catalog (plural forms from the catalog's own Plural-Forms header). Nothing compiled is
kept in the repository, so a .mo can never lag behind its .po; `pybabel compile` makes the same files for
anyone who wants them. The pseudo-language needs no file: it is made from the strings themselves. Pure.
"""

from __future__ import annotations

import gettext
import math
import re
from functools import lru_cache
from io import BytesIO
from pathlib import Path

from explorer.i18n.languages import PSEUDO, SOURCE

LOCALE_DIR = Path(__file__).resolve().parents[2] / "locale"
DOMAIN = "messages"
OPEN, CLOSE = "⟦", "⟧"  # the pseudo-language's marks around every string it translated
# What the pseudo-language keeps as it is: {placeholders}, `code`, $maths$, :material/icons:, link targets,
# HTML tags and entities, LaTeX commands, symbols (W_Q, d_k, a capital alone: Q, K, V, X): a word is
# accented, never its syntax or the maths.
_KEEP = re.compile(
    r"\{[^{}]*\}|`[^`]*`|\$[^$]*\$|:\w+/\w+:|\]\([^)]*\)|<[^<>]*>|&\w+;|\\[A-Za-z]+|\b\w*_\w*\b|\b[A-Z]\b"
)
_ACCENT = str.maketrans("aeiouAEIOUnNcCyY", "áéíóúÁÉÍÓÚñÑçÇýÝ")


def path(code: str) -> Path:
    return LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"


@lru_cache(maxsize=8)  # a few languages, each read once per process
def translations(code: str) -> gettext.NullTranslations:
    """The catalog of `code`: the source language's strings as they are, the pseudo-language made from them,
    any other read from its .po (untranslated and fuzzy entries fall back to the English string)."""
    if code == SOURCE:
        return gettext.NullTranslations()
    if code == PSEUDO:
        return Pseudo()
    from babel.messages.mofile import write_mo  # imported when a catalog is first read
    from babel.messages.pofile import read_po

    with path(code).open("rb") as f:
        po = read_po(f, locale=code)
    mo = BytesIO()
    write_mo(mo, po, use_fuzzy=False)
    mo.seek(0)
    return gettext.GNUTranslations(mo)


def pseudo(text: str) -> str:
    """`text` in the pseudo-language: letters accented, placeholders and markup kept, 40% longer, marked."""
    out, last = [], 0
    for m in _KEEP.finditer(text):
        out += [text[last : m.start()].translate(_ACCENT), m.group()]
        last = m.end()
    out.append(text[last:].translate(_ACCENT))
    return f"{OPEN}{''.join(out)}{'·' * math.ceil(0.4 * len(text))}{CLOSE}"


class Pseudo(gettext.NullTranslations):
    """Every string in the pseudo-language (the plural picked as English picks it)."""

    def gettext(self, message: str) -> str:
        return pseudo(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return pseudo(msgid1 if n == 1 else msgid2)

    def pgettext(self, context: str, message: str) -> str:
        return pseudo(message)

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return pseudo(msgid1 if n == 1 else msgid2)
