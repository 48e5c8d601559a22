"""Reading an example from the URL, and writing the link that reproduces one. Pure: query parameters in/out.

Parameters read: ?preset=<name>, ?present=1, the settings and the edited matrices of a shared link (the
vocabulary is `explorer.sharing.values.PARAM_OF` plus `s`), or just ?sentence=. Anything that cannot be read gives
a message and falls back to the current value for that part only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

from explorer.lessons import PRESETS
from explorer.model.example import Example
from explorer.model.settings_table import MAX_TOKENS
from explorer.sharing import params as link_params
from explorer.sharing import values

MAX_PARAM_CHARS = 256  # preset / present: longer values are not names
MODEL_QUESTION_WORDS = (
    "next",
    "heads",
)  # ask= words of the real-model pages (explorer.ui.state.MODEL_QUESTIONS)


@dataclass
class UrlRead:
    """What the URL asked for: an example to load (or None), display flags, and messages for the person."""

    example: Example | None = None
    preset: str = ""
    present: bool | None = None
    ask: int | None = None  # predict, then reveal: the query asked about (0-based, as the pickers count)
    ask_model: tuple[str, ...] | None = None  # the real-model pages' questions asked ("next", "heads")
    messages: list[tuple[str, str]] = field(default_factory=list)


def read(params: Mapping[str, str], current: Example) -> UrlRead:
    """Interpret the query parameters (unknown or bad values give a message, never an error)."""
    out = UrlRead()
    ex = current
    name = str(params.get("preset", "") or "")
    if name:
        if name in PRESETS:
            ex, out.preset = PRESETS[name].build(), name
        else:
            known = ", ".join(PRESETS) or "none yet"
            out.messages.append(
                ("warning", f"There is no preset called {values.shown(name)}; the presets are: {known}.")
            )
    if is_shared(params):
        ex, msgs = link_params.from_params(params, ex)
        out.messages += [("warning", m) for m in msgs]
    elif "sentence" in params:
        text = str(params["sentence"] or "")
        msgs: list[str] = []
        ex = ex.with_(sentence=values.cut_sentence(text, msgs))
        out.messages += [("warning", m) for m in msgs]
    present = str(params.get("present", "") or "").strip().lower()
    if present:
        if present in ("1", "true", "yes", "on"):
            out.present = True
        elif present in ("0", "false", "no", "off"):
            out.present = False
        else:
            out.messages.append(
                ("warning", f"present= takes 1 or 0, not {values.shown(present[:MAX_PARAM_CHARS])}.")
            )
    ask = str(params.get("ask", "") or "").strip()
    if ask:  # a token's number (the weights of that query), "next" (the next token), "heads" (which matters)
        words = tuple(w for w in ask.split(",")[:3] if w in MODEL_QUESTION_WORDS)
        numbers = [w for w in ask.split(",")[:3] if w not in MODEL_QUESTION_WORDS]
        if words:
            out.ask_model = words
        if (
            len(numbers) == 1
            and numbers[0].isdigit()
            and len(numbers[0]) <= 3
            and int(numbers[0]) < MAX_TOKENS
        ):
            out.ask = int(numbers[0])
        elif numbers or len(ask.split(",")) > 3:
            out.messages.append(
                (
                    "warning",
                    f"ask= takes a token's number, 0 to {MAX_TOKENS - 1}, or next or heads (the real model's "
                    f"questions), not {values.shown(ask[:MAX_PARAM_CHARS])}.",
                )
            )
    out.example = ex if ex is not current else None
    return out


def is_shared(params: Mapping[str, str]) -> bool:
    """True when the parameters describe a whole example (a setting other than the sentence, or `s`)."""
    return any(p in params for p in values.SHARE_PARAMS if p != "sentence")


def query(
    ex: Example,
    draws: Mapping[str, int] | None = None,
    *,
    present: bool = False,
    ask: int | str | None = None,
) -> str:
    """The query string ("sentence=...&d_model=...&s=1.…") that reproduces `ex` exactly (and the question
    asked, for predict-then-reveal)."""
    params = link_params.to_params(ex, draws)
    if present:
        params["present"] = "1"
    if ask is not None:
        params["ask"] = str(int(ask)) if isinstance(ask, int) else str(ask)  # "7", or "7,next,heads"
    return urlencode(params, quote_via=quote, safe="")


def query_of_params(params: Mapping[str, str]) -> str:
    return urlencode(params, quote_via=quote, safe="")


def make_url(
    base_url: str | None,
    ex: Example,
    draws: Mapping[str, int] | None = None,
    *,
    present: bool = False,
    ask: int | str | None = None,
) -> str:
    """The whole link: the page's own address (st.context.url) + the query, or just "?..." without one."""
    base = (base_url or "").split("?", 1)[0].split("#", 1)[0]
    return f"{base}?{query(ex, draws, present=present, ask=ask)}"


def too_long(url: str) -> bool:
    """Longer than the explorer offers as a link (then: the JSON file)."""
    return len(url) > values.LINK_LIMIT
