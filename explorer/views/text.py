"""Text shown literally where Streamlit renders Markdown (pure: strings in, strings out, no Streamlit).

Streamlit renders Markdown in st.markdown, st.caption, st.info / warning / error / success, st.subheader,
widget labels and radio / segmented-control options. Its Markdown goes well beyond CommonMark: KaTeX maths
(`$x^2$`), colour directives (`:red[...]`), emoji and icon shortcodes (`:smile:`, `:material/home:`,
`:streamlit:`) and bare URLs or e-mail addresses turned into links. Anything a person typed, pasted or put in
a URL goes through `literal()` before it reaches one of those places, so it is shown as exactly what they
wrote. (Streamlit never renders raw HTML there without unsafe_allow_html, which this app never uses.)

Plotly labels have their own escaping: `explorer.views.figures.esc`.
"""

from __future__ import annotations

import re

from explorer import i18n
from explorer.i18n import _

# ASCII punctuation with a meaning in Streamlit's Markdown; CommonMark lets any of it be backslash-escaped.
# Quotes, commas, semicolons, question marks, % and @ mean nothing there and stay as they are.
_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:&=/^])")
# Sequences Streamlit turns into links or logos even when their punctuation is escaped (they are found in
# the text after escapes are resolved): a word joiner (U+2060, invisible) breaks them without changing what
# is seen.
_WJ = "\u2060"
_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto|xmpp|www)(?=[:.])")
_LOGO = re.compile(r"(?i):(?=streamlit:)")


def literal(text: object) -> str:
    """Markdown source that Streamlit displays as exactly `text` (whitespace runs shown as one space).

    "**hi** $x$" -> "\\*\\*hi\\*\\* \\$x\\$"; line breaks become spaces, so a pasted value cannot start a
    heading, list, quote or code block.
    """
    s = " ".join(str(text).split())
    s = _AUTOLINK.sub(lambda m: m.group(1) + _WJ, s)
    s = _LOGO.sub(":" + _WJ, s)
    s = s.replace("@", _WJ + "@")
    return _SPECIAL.sub(r"\\\1", s)


def tail(text: str, limit: int = 40) -> str:
    """The end of `text` in at most about `limit` characters, for a title: cut before a whole word, with "…"
    in front when anything was cut ("The cat sat on the mat" -> "…on the mat" at limit 12). A last word
    longer than the limit is cut inside it (still with "…")."""
    s = " ".join(str(text).split())
    if len(s) <= limit:
        return s
    end = s[-limit:]
    if s[-limit - 1] != " " and " " in end:  # the cut fell inside a word: start at the next one
        end = end.split(" ", 1)[1]
    return "…" + end.lstrip()


def probability(p: float, digits: int = 3) -> str:
    """A probability as a person reads it: 0.223 as it is; one too small for its digits in short form with
    what it means, "2.1e-72 (practically zero)"; below one in a thousand, "0.00042 (about 1 in 2,400)"."""
    p = float(p)
    if p >= 10.0**-digits or p == 0.0:
        return i18n.decimal(p, digits)
    if p < 1e-6:
        return _("{p:.2g} (practically zero)", p=p)
    return _("{p:.2g} (about 1 in {count})", p=p, count=_round_count(1.0 / p))


def _round_count(n: float) -> str:
    """n rounded to two significant figures, with the language's digit groups: 2,400 (2400 in Spanish)."""
    return i18n.integer(round(float(f"{n:.2g}")))
