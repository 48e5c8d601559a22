"""The glossary: every word of the trade a page, an export or a lesson shows, in plain words, once.

Pure data (no Streamlit). A term is found in a text by its patterns (whole words, any case); `terms_in`
lists the terms a text uses, in the glossary's order. The pages show the terms they use in a fold under
their opening (explorer.ui.widgets.opening, from ON_PAGE); the notebooks and the HTML export end with the
terms their text uses; a lesson's step can name the terms it needs. tests/app/pages/test_glossary_on_pages.py reads
what each page renders, finds the terms in it, and checks each is explained on that page.
"""

from __future__ import annotations

import re
from functools import lru_cache

from explorer.i18n import N_, _
from explorer.model.glossary import entries, probes
from explorer.model.glossary.entries import Term, term
from explorer.model.glossary.pages import ON_PAGE

TERMS: tuple[Term, ...] = (*entries.TERMS, *probes.TERMS)  # in the glossary's order

__all__ = [
    "ON_PAGE",
    "TERMS",
    "WORDS_TITLE",
    "Term",
    "by_key",
    "markdown",
    "notebook_markdown",
    "on_page",
    "term",
    "terms_in",
]


@lru_cache(maxsize=128)  # one pattern per term, compiled once
def _compiled(key: str) -> re.Pattern[str]:
    t = by_key(key)
    # Whole words: no letter or digit just outside the match where the match's own edge is one.
    lead, trail = r"(?:(?=\W)|(?<!\w))", r"(?:(?<=\W)|(?!\w))"
    return re.compile("|".join(f"{lead}(?:{p}){trail}" for p in t.patterns), re.IGNORECASE)


def by_key(key: str) -> Term:
    for t in TERMS:
        if t.key == key:
            return t
    raise KeyError(f"no glossary term {key!r}")


def terms_in(text: str) -> list[Term]:
    """The glossary's terms that ``text`` uses, in the glossary's order."""
    return [t for t in TERMS if _compiled(t.key).search(text)]


def on_page(url_path: str) -> list[Term]:
    """The terms page ``url_path`` explains, in the glossary's order."""
    keys = set(ON_PAGE.get(url_path, ()))
    return [t for t in TERMS if t.key in keys]


def markdown(terms: list[Term]) -> str:
    """The terms as a Markdown list: each word in bold, then what it is."""
    return "\n".join(_("- **{word}**: {plain}", word=_(t.word), plain=_(t.plain)) for t in terms)


WORDS_TITLE = N_("Words used here")  # the exports' last section (translated where shown)


def notebook_markdown(cells_text: str) -> str | None:
    """A notebook's last Markdown cell: every glossary term its text uses, in plain words (None: none)."""
    terms = terms_in(cells_text)
    return f"## {_(WORDS_TITLE)}\n\n{markdown(terms)}" if terms else None
