"""The words the app shows, in the visitor's language: gettext catalogs read through Babel. Pure: no
Streamlit; the session's language comes from the one module that owns session state (explorer.ui.state binds
its getter with `bind`), so the pure floors below ui/ translate without knowing about sessions.

languages.py   the language table (code, own name, number format) and which languages are offered
catalog.py     the .po catalogs, compiled in memory once per process; the pseudo-language
numbers.py     numbers in prose as each language writes them

In code: `_("Step {k} of {n}", k=2, n=5)`; `ngettext("{n} head", "{n} heads", n)` (n is a placeholder of
its own); `pgettext("menu", "Model")` where one English word needs two translations; `N_("...")` marks a
string declared in a table and translated where it is shown (`_(row.title)`). Placeholders are named, and a
sentence is never glued from pieces: a translator reorders the whole. Tokens and formula symbols are never
passed through `_`. Extraction: `bash scripts/i18n.sh` (docs/LANGUAGES.md).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import Any

import numpy as np

from explorer.i18n import numbers
from explorer.i18n.catalog import translations
from explorer.i18n.languages import BY_CODE, DEFAULT_OFFERED, LANGUAGES, PSEUDO, SOURCE, from_browser, offered

__all__ = [
    "BY_CODE",
    "DEFAULT_OFFERED",
    "LANGUAGES",
    "N_",
    "PSEUDO",
    "SOURCE",
    "_",
    "bind",
    "current",
    "decimal",
    "from_browser",
    "integer",
    "ngettext",
    "offered",
    "pgettext",
    "using",
]


def _source() -> str:
    return SOURCE


_language: Callable[[], str] = _source  # the session's language (explorer.ui.state binds its getter, once)
# `using`: a language set for a block of code (a file made outside the script run, a test). A context
# variable: each thread (each session's run, each download) sees only its own block's.
_fixed: ContextVar[str | None] = ContextVar("explorer_i18n_fixed", default=None)


def bind(language: Callable[[], str]) -> None:
    """Where the session's language is read from (explorer.ui.state); called once per process."""
    global _language
    _language = language


def current() -> str:
    """The language strings are translated into now."""
    fixed = _fixed.get()
    return fixed if fixed is not None else _language()


class using:  # noqa: N801 (used as `with i18n.using("es"):`)
    """Translate into `code` inside the block, whatever the session's language (a file made in one)."""

    def __init__(self, code: str) -> None:
        self.code = code
        self._token: Token[str | None] | None = None

    def __enter__(self) -> str:
        self._token = _fixed.set(self.code)
        return self.code

    def __exit__(self, *exc: object) -> None:
        assert self._token is not None
        _fixed.reset(self._token)


class _Numbers(string.Formatter):
    """str.format, numbers written with the current language's symbols ({p:.2f}: 0.25, 0,25)."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        if isinstance(value, int | float | np.floating | np.integer) and not isinstance(value, bool):
            return numbers.formatted(value, format_spec, current())
        return super().format_field(value, format_spec)


_NUMBERS = _Numbers()


def _format(text: str, values: dict[str, Any]) -> str:
    return _NUMBERS.vformat(text, (), values) if values else text


def _(message: str, /, **values: Any) -> str:
    """`message` in the current language, its {placeholders} filled from `values`."""
    return _format(translations(current()).gettext(message), values)


def ngettext(singular: str, plural: str, n: int, /, **values: Any) -> str:
    """The form for `n` in the current language ("1 cabeza", "2 cabezas"); {n} is filled with n."""
    return _format(translations(current()).ngettext(singular, plural, n), {"n": n, **values})


def pgettext(context: str, message: str, /, **values: Any) -> str:
    """`message` where the same English word needs another translation in `context`."""
    return _format(translations(current()).pgettext(context, message), values)


def N_(message: str, /) -> str:  # noqa: N802 (gettext's name for a marker)
    """Marks a string for extraction where it is declared (a table); `_()` translates it where it is shown."""
    return message


def decimal(value: float, places: int = 2) -> str:
    """A number in prose in the current language ("0.25" / "0,25"); never for editors, links or files."""
    return numbers.decimal(value, places, current())


def integer(value: int) -> str:
    """A whole number in prose in the current language (1,234 / 1234; 12,345 / 12.345)."""
    return numbers.integer(value, current())
