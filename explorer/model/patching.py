"""/patching described as data: example pairs, the bound on a pair's length, and the page's link parameters.

A patching experiment is the clean sentence (the app's sentence), a corrupt sentence of as many tokens, and
two token ids: the answer (one of the clean sentence's likely next tokens) and the wrong one (one of the
corrupt sentence's). Links carry them as corrupt=, answer= and wrong= beside sentence=. Pure: no Streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from explorer.i18n import N_, _
from explorer.model import settings_table as table

# Both sweeps run the model's later layers once per (layer, position) and per (layer, head): about
# 30 x n x 15 layer runs of n tokens for the residual stream. Past this many tokens a sweep takes too long
# to wait for on a shared server (benchmarks/patching.py: at 14 tokens the residual sweep takes about 7 s
# of CPU, against 1.8 s at 6 tokens).
MAX_PATCH_TOKENS = 16
# Occlusion runs the whole model once per token of the sentence (n runs of n - 1 tokens): /next-token shows it
# for sentences of up to this many tokens (16: about half a second of CPU).
MAX_OCCLUSION_TOKENS = 16
CANDIDATES = 5  # the answers offered: each sentence's most likely next tokens
MAX_ID_DIGITS = 6  # a token id in a link: at most this many ASCII digits (SmolLM2 has 49,152 tokens)


@dataclass(frozen=True)
class Pair:
    name: str  # the button's label: the words the pair changes, tokens of its sentences (never translated)
    clean: str  # the sentences the model reads: never translated
    corrupt: str
    about: str  # what it shows, one line (static Markdown, ours; marked)


PAIRS: tuple[Pair, ...] = (
    Pair("France → Italy", "The capital of France is", "The capital of Italy is",
         N_("a fact recalled from the subject: where does “France” travel to the last position?")),
    Pair("Eiffel Tower → Colosseum", "The Eiffel Tower is in", "The Colosseum is in",
         N_("a subject of several tokens: its last token carries the fact")),
    Pair("Mary → John", "When Mary and John went to the store, John gave a drink to",
         "When Mary and John went to the store, Mary gave a drink to",
         N_("who gets the drink: the name that was not repeated (indirect object identification)")),
)  # fmt: skip

LINK_PARAMS = ("corrupt", "answer", "wrong")


@dataclass
class PatchLink:
    """What a link asked of /patching (None: not in the link), and messages for the person."""

    corrupt: str | None = None
    answer: int | None = None
    wrong: int | None = None
    messages: list[str] = field(default_factory=list)


def read_token_id(raw: str) -> int | None:
    """A token id written as at most MAX_ID_DIGITS ASCII digits, else None (no sign, space or other digit)."""
    if 0 < len(raw) <= MAX_ID_DIGITS and raw.isascii() and raw.isdigit():
        return int(raw)
    return None


def read_link(params: Mapping[str, str]) -> PatchLink:
    """corrupt=<text>, answer=<token id>, wrong=<token id>: each read on its own; a bad id gives a message and
    is left out. The corrupt sentence is cut to the sentence's limit of characters."""
    out = PatchLink()
    corrupt = params.get("corrupt")
    if corrupt is not None:
        out.corrupt = str(corrupt)[: table.MAX_SENTENCE_CHARS]
    for name in ("answer", "wrong"):
        raw = str(params.get(name, "") or "")[:100].strip()
        if not raw:
            continue
        value = read_token_id(raw)
        if value is None:
            out.messages.append(
                _(
                    "{param}= takes a token id (up to {digits} digits); the link's value was left out.",
                    param=name,
                    digits=MAX_ID_DIGITS,
                )
            )
        setattr(out, name, value)
    return out


def link_params(corrupt: str, answer: int | None, wrong: int | None) -> dict[str, str]:
    """The link parameters of /patching's state (empty ones left out)."""
    out = {"corrupt": corrupt} if corrupt else {}
    for name, value in (("answer", answer), ("wrong", wrong)):
        if value is not None:
            out[name] = str(int(value))
    return out


def default_ids(clean: list[int], corrupt: list[int]) -> tuple[int, int]:
    """The answers offered first: the clean sentence's top next token, and the corrupt sentence's most likely
    next token that is a different token (its second when both sentences' top tokens agree)."""
    answer = clean[0]
    return answer, next((t for t in corrupt if t != answer), corrupt[0])
