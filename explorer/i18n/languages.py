"""The language table: one row per language the app can speak, and which of them a visitor is offered.
Pure: no Streamlit.

Adding a language is one row here and its catalog, locale/<code>/LC_MESSAGES/messages.po (docs/LANGUAGES.md).
A row is offered to visitors only when ATTENTION_EXPLORER_LANGUAGES names it (default: DEFAULT_OFFERED); a
test keeps DEFAULT_OFFERED to languages whose catalog is complete, so a half-translated language stays behind
that setting, reachable by a translator who sets it and by no visitor.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache

SOURCE = "en"  # the language of the code's strings (the msgids): it needs no catalog
PSEUDO = "xx"  # the pseudo-language: every marked string wrapped and 40% longer (catalog.pseudo)
ENV = "ATTENTION_EXPLORER_LANGUAGES"  # comma-separated codes offered to visitors, e.g. "en,es"
DEFAULT_OFFERED = ("en", "es")  # while ENV is unset; only languages whose catalog is complete (tested)


@dataclass(frozen=True)
class Language:
    code: str  # the catalog's folder under locale/ and the link's lang= value (BCP 47 primary tag)
    name: str  # the language's own name, as the picker shows it whatever the language on screen
    numbers: str  # the Babel locale that writes this language's numbers in prose ("es": 0,25)
    group_from: int  # the smallest number written with digit groups (Spanish: 12 345 grouped, 1234 not)


LANGUAGES: tuple[Language, ...] = (
    Language("en", "English", "en", 1_000),
    Language("es", "Español", "es", 10_000),
    Language(PSEUDO, "Pseudo (xx)", "es", 1_000),  # for finding unmarked strings; never in DEFAULT_OFFERED
)
BY_CODE = {row.code: row for row in LANGUAGES}
assert SOURCE in BY_CODE and len(BY_CODE) == len(LANGUAGES)


def offered() -> tuple[str, ...]:
    """The codes a visitor can pick, in the table's order: ENV's known codes (the source language always)."""
    return _offered(os.environ.get(ENV, ""))


@lru_cache(maxsize=4)  # the environment's one setting (a test may change it)
def _offered(setting: str) -> tuple[str, ...]:
    asked = {c.strip().lower() for c in setting.split(",") if c.strip()} or set(DEFAULT_OFFERED)
    return tuple(row.code for row in LANGUAGES if row.code in asked or row.code == SOURCE)


def from_browser(locale: str | None) -> str:
    """The offered language of a browser's `navigator.language` ("es-MX" -> "es"), else the source language."""
    primary = str(locale or "").replace("_", "-").split("-", 1)[0].strip().lower()
    return primary if primary in offered() else SOURCE
