"""Text placed in a notebook's Markdown as it was given: escaped on one line, or fenced as code."""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|$~&])")


def md(text: object) -> str:
    """Text shown literally in a notebook's Markdown: one line, every character with a meaning escaped
    (emphasis, code, links, HTML, headings, tables, maths); "." and "-" can only act at a line's start."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def fence(code: str) -> str:
    """A Markdown code block of ``code`` (text a person typed inside it): its fence longer than any run of
    backticks in the code, so nothing in it can close the block."""
    runs = [len(r) for r in re.findall(r"`+", code)]
    marks = "`" * max(3, max(runs, default=0) + 1)
    return f"{marks}python\n{code.rstrip()}\n{marks}"
