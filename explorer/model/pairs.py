"""Minimal pairs described as data: example pairs, the word compared by default, and the links' parameters of
the experiments with two sentences (/minimal-pairs, and /ablation's second sentence). Pure: no Streamlit.

A minimal pair is the app's sentence and a second sentence of as many tokens with a word changed; the page
compares the attention from one position (the word whose reading the change decides, "it") in both. Links
carry the second sentence as pair= and the position as word= (0-based, as the page's picker counts), beside
sentence=; /ablation's second sentence as other=.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from explorer.i18n import N_, _
from explorer.model import settings_table as table


@dataclass(frozen=True)
class Pair:
    name: str  # the button's label: the words the pair changes, tokens of its sentences (never translated)
    first: str
    second: str
    word: str  # the token compared (its first position in the first sentence)
    about: str  # what it shows, one line (static Markdown, ours; marked, translated where shown)


PAIRS: tuple[Pair, ...] = (
    Pair("tired → wide", "The animal didn't cross the street because it was too tired",
         "The animal didn't cross the street because it was too wide", "it",
         N_("“it” is the animal when it is tired, the street when it is wide")),
    Pair("big → small", "The trophy doesn't fit into the brown suitcase because it is too big",
         "The trophy doesn't fit into the brown suitcase because it is too small", "it",
         N_("“it” is the trophy when it is too big, the suitcase when it is too small")),
    Pair("feared → advocated", "The city councilmen refused the demonstrators a permit because they feared "
         "violence", "The city councilmen refused the demonstrators a permit because they advocated violence",
         "they", N_("“they” are the councilmen who feared violence, the demonstrators who advocated it")),
    Pair("fish → pay", "He went to the bank to fish", "He went to the bank to pay", "bank",
         N_("a river bank to fish from, a bank to pay in")),
)  # fmt: skip

# The words a minimal pair is usually about: the first of them in the first sentence is compared by default.
PRONOUNS = frozenset({"it", "its", "they", "them", "their", "he", "him", "his", "she", "her"})
MAX_WORD_DIGITS = 2  # word= in a link: a position, at most 63
# /ablation's occlusion of the similarity runs MiniLM once per token of the first sentence (n - 2 runs of
# n - 1 tokens): shown for sentences of up to this many tokens ([CLS] and [SEP] included). At 32 tokens it is
# about 0.5 s of CPU, at 64 about 2 s (benchmarks/pairs.py).
MAX_OCCLUSION_TOKENS = 32
LINK_PARAMS = ("pair", "word", "other")


def default_word(tokens: Sequence[str], differ: Sequence[int], word: str = "") -> int:
    """The position compared first: ``word``'s (an example's), else the first pronoun that is not a changed
    word, else the first changed word."""
    shown = [t.strip().lower() for t in tokens]
    if word and word in shown:
        return shown.index(word)
    changed = set(differ)
    pronoun = next((i for i, t in enumerate(shown) if t in PRONOUNS and i not in changed), None)
    return pronoun if pronoun is not None else (min(changed) if changed else 0)


def pick_word(tokens: Sequence[str], differ: Sequence[int], picked: int | str | None) -> int:
    """The position compared: one picked (if it is a position of the sentence), else ``default_word`` (with
    the example's word when ``picked`` is one)."""
    if isinstance(picked, int) and 0 <= picked < len(tokens):
        return picked
    return default_word(tokens, differ, picked if isinstance(picked, str) else "")


@dataclass
class PairLink:
    """What a link asked of the two-sentence experiments (None: not in the link), and messages."""

    pair: str | None = None
    word: int | None = None
    other: str | None = None
    messages: list[str] = field(default_factory=list)


def read_link(params: Mapping[str, str]) -> PairLink:
    """pair=<text>, word=<position>, other=<text>: each read on its own; the texts are cut to the sentence's
    limit of characters, a bad position gives a message and is left out."""
    out = PairLink()
    for name in ("pair", "other"):
        value = params.get(name)
        if value is not None:
            setattr(out, name, str(value)[: table.MAX_SENTENCE_CHARS])
    raw = str(params.get("word", "") or "")[:100].strip()
    if raw:
        if (
            0 < len(raw) <= MAX_WORD_DIGITS
            and raw.isascii()
            and raw.isdigit()
            and int(raw) < table.MAX_TOKENS
        ):
            out.word = int(raw)
        else:
            out.messages.append(_("word= takes a token's position, 0 to {last}; the link's value was left out.",
                                  last=table.MAX_TOKENS - 1))  # fmt: skip
    return out


def link_params(pair: str, word: int | None, other: str, other_default: str) -> dict[str, str]:
    """The link parameters of the two-sentence experiments (empty ones, and the default ``other``, left out)."""
    out = {"pair": pair} if pair else {}
    if pair and word is not None:
        out["word"] = str(int(word))
    if other != other_default:
        out["other"] = other
    return out
