"""Tokens: split a sentence into words and punctuation, and give every token a unique display label."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

__all__ = ["tokenize", "token_labels", "token_index_labels"]

# Characters that separate tokens without being tokens: zero-width spaces, joiners on their own, the byte
# order mark and control characters. Whitespace (\s, Unicode-aware) separates tokens as well.
_SEPARATORS = "\x00-\x1f\x7f\u200b\u200c\u200d\u2060\ufeff"
# CJK ideographs: each one is a token of its own (Chinese and Japanese put no spaces between words).
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
# Joiners kept inside a word: apostrophes (It's, don’t) and hyphens (state-of-the-art).
_JOINERS = "'\u2019\\-\u2010\u2011"
# Emoji skin-tone modifiers and tag characters (subdivision flags) extend the symbol before them.
_EMOJI_EXTEND = "\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f"


def _char_class(codepoints: list[int]) -> str:
    """A regex character class body for sorted ``codepoints``, written as ranges."""
    parts: list[str] = []
    start = prev = codepoints[0]
    for cp in [*codepoints[1:], -2]:
        if cp != prev + 1:
            parts.append(re.escape(chr(start)) + ("" if prev == start else "-" + re.escape(chr(prev))))
            start = cp
        prev = cp
    return "".join(parts)


@functools.cache
def _pattern() -> re.Pattern[str]:
    """The tokenizer's regex, built once: ``re`` has no \\p{M}, so the combining marks are listed."""
    marks = [cp for cp in range(0x20000) if unicodedata.category(chr(cp)) in ("Mn", "Mc", "Me")]
    marks += range(0xE0100, 0xE01F0)  # variation selectors supplement
    mark = f"[{_char_class(marks)}]"
    letter = f"(?:[^\\W_{_CJK}]|{mark})"  # letters and digits (not '_', not CJK) or a combining mark
    symbol = f"(?:_|[^\\s\\w{_SEPARATORS}])"  # any other visible character: punctuation, emoji, ...
    alternatives = [
        r"\[[A-Z]+\]",  # special tokens: [PAD], [CLS], [SEP], [MASK]
        "[\U0001f1e6-\U0001f1ff]{2}",  # a flag emoji is a pair of regional indicators
        f"[{_CJK}]{mark}*",  # one CJK ideograph
        f"{letter}+(?:[{_JOINERS}]{letter}+)*",  # a word, with internal apostrophes and hyphens
        f"{symbol}(?:{mark}|[{_EMOJI_EXTEND}]|\u200d{symbol})*",  # punctuation or an emoji sequence
    ]
    return re.compile("|".join(alternatives))


def tokenize(sentence: str) -> list[str]:
    """Split ``sentence`` into word and punctuation tokens.

    Rules, in order of priority:
      - ``[PAD]``, ``[CLS]``, ``[SEP]``, ``[MASK]`` (any capitals in square brackets) stay one token;
      - a word is a run of Unicode letters, digits and combining marks, and keeps internal apostrophes and
        hyphens whole: "It's", "don’t", "state-of-the-art";
      - each CJK ideograph is a token of its own;
      - every other visible character is its own token (".", ",", "!"), an emoji with its modifiers,
        variation selectors and zero-width-joined parts (a family emoji) is one token;
      - whitespace of any kind separates tokens and is dropped; nothing visible is dropped.

    "It's snowing outside." -> ["It's", "snowing", "outside", "."]; "" -> [].

    Args:
        sentence: str, the text to split.

    Returns:
        list[str] of n tokens, in order.
    """
    if not isinstance(sentence, str):
        raise ValueError(f"sentence must be a string, got {type(sentence).__name__}")
    return _pattern().findall(sentence)


def token_labels(tokens: Sequence[str]) -> list[str]:
    """Unique display labels, one per token, each containing the token's text.

    Rule: a token whose text occurs once keeps its text; every occurrence of a repeated text gets the suffix
    " ·i", with i its 0-based position: "the cat sat on the mat" -> ["the ·0", "cat", "sat", "on", "the ·4",
    "mat"]. If labels still collide (adversarial tokens such as ["a ·1", "a", "a"]), the colliding labels get
    their position appended again until every label is unique.

    Args:
        tokens: sequence of n strings.

    Returns:
        list[str] of n distinct labels.
    """
    tokens = _check_tokens(tokens)
    counts = Counter(tokens)
    labels = [tok if counts[tok] == 1 else f"{tok} ·{i}" for i, tok in enumerate(tokens)]
    for _ in range(len(labels)):
        counts = Counter(labels)
        if len(counts) == len(labels):
            return labels
        labels = [lab if counts[lab] == 1 else f"{lab} ·{i}" for i, lab in enumerate(labels)]
    # Always unique: a label's trailing digits after its last "·" are its own position.
    return [f"{tok} ·{i}" for i, tok in enumerate(tokens)]


def token_index_labels(tokens: Sequence[str]) -> list[str]:
    """Labels "0 the", "1 cat", ...: the 0-based position, a space, the token. Always unique (for axes).

    Args:
        tokens: sequence of n strings.

    Returns:
        list[str] of n labels.
    """
    return [f"{i} {tok}" for i, tok in enumerate(_check_tokens(tokens))]


def _check_tokens(tokens: Sequence[str]) -> list[str]:
    if isinstance(tokens, str):
        raise ValueError(
            "tokens must be a list of strings, got a single string: use tokenize(sentence) first"
        )
    try:
        tokens = list(tokens)
    except TypeError:
        raise ValueError(f"tokens must be a list of strings, got {type(tokens).__name__}") from None
    for i, tok in enumerate(tokens):
        if not isinstance(tok, str):
            raise ValueError(f"tokens must be strings, but token {i} is {type(tok).__name__} {tok!r}")
    return tokens
