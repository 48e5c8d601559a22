"""Reading an example from the URL, and writing the link that reproduces one. Pure: query parameters in/out.

Parameters read: ?preset=<name>, ?present=1, ?lang=<code> (the language on screen), the settings and the edited matrices of a shared link (the
vocabulary is `explorer.sharing.values.PARAM_OF` plus `s`), or just ?sentence=. Anything that cannot be read gives
a message and falls back to the current value for that part only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

from explorer import i18n
from explorer.compute import model_compute
from explorer.lessons import PRESETS
from explorer.model.example import Example, conform, tokens_for
from explorer.model.settings_table import MAX_TOKENS
from explorer.sharing import params as link_params
from explorer.sharing import values

MAX_PARAM_CHARS = 256  # preset / present: longer values are not names
LANG_PARAM = "lang"  # the language on screen (explorer.i18n.languages): a teacher's link opens in the class's
MODEL_QUESTION_WORDS = (
    "next",
    "heads",
    "induction",
    "lens",
    "prev",
)  # ask= words of the real-model pages (explorer.ui.state.MODEL_QUESTIONS)


@dataclass
class UrlRead:
    """What the URL asked for: an example to load (or None), display flags, and messages for the person."""

    example: Example | None = None
    preset: str = ""
    present: bool | None = None
    ask: int | None = None  # predict, then reveal: the query asked about (0-based, as the pickers count)
    ask_model: tuple[str, ...] | None = None  # the real-model pages' questions asked ("next", "heads")
    lang: str | None = None  # the language the link asks for, when it is offered (explorer.i18n.offered)
    messages: list[tuple[str, str]] = field(default_factory=list)


def read(params: Mapping[str, str], current: Example) -> UrlRead:
    """Interpret the query parameters (unknown or bad values give a message, never an error). Every message is
    in the link's language when it names one that is offered (the page that shows them is in it)."""
    lang, said = None, ""
    if str(params.get(LANG_PARAM, "") or "").strip():
        lang, said = read_lang(str(params[LANG_PARAM]))
    with i18n.using(lang or i18n.current()):
        out = _read(params, current)
    out.lang = lang
    if said:
        out.messages.append(("warning", said))
    return out


def _read(params: Mapping[str, str], current: Example) -> UrlRead:
    """`read` but the language."""
    out = UrlRead()
    ex = current
    name = str(params.get("preset", "") or "")
    if name:
        if name in PRESETS:
            ex, out.preset = PRESETS[name].build(), name
        else:
            known = ", ".join(PRESETS) or i18n._("none yet")
            out.messages.append(
                (
                    "warning",
                    i18n._(
                        "There is no preset called {name}; the presets are: {known}.",
                        name=values.shown(name),
                        known=known,
                    ),
                )
            )
    if is_shared(params):
        ex, msgs = link_params.from_params(params, ex)
        out.messages += [("warning", m) for m in msgs]
    elif "sentence" in params:
        text = str(params["sentence"] or "")
        msgs: list[str] = []
        # As typed in the box: the matrices follow the new tokens (each embedding row its word, new rows
        # seeded), so the example is the seeded one and its link as short as the typed sentence's
        new = ex.with_(sentence=values.cut_sentence(text, msgs))
        model_compute.prepare(new)
        ex = conform(new, old_tokens=tokens_for(ex)[0])
        out.messages += [("warning", m) for m in msgs]
    present = str(params.get("present", "") or "").strip().lower()
    if present:
        if present in ("1", "true", "yes", "on"):
            out.present = True
        elif present in ("0", "false", "no", "off"):
            out.present = False
        else:
            out.messages.append(
                (
                    "warning",
                    i18n._(
                        "present= takes 1 or 0, not {value}.", value=values.shown(present[:MAX_PARAM_CHARS])
                    ),
                )
            )
    ask = str(params.get("ask", "") or "")
    if ask.strip():
        out.ask, out.ask_model, message = read_ask(ask)
        if message:
            out.messages.append(("warning", message))
    out.example = ex if ex is not current else None
    return out


def read_lang(text: str) -> tuple[str | None, str]:
    """lang=: an offered language's code (any case, "es-MX" read as "es"). Returns it (None when the link's
    is not offered) and the message for a code that is not ("" otherwise)."""
    asked = text[:MAX_PARAM_CHARS].strip().replace("_", "-")
    code = asked.split("-", 1)[0].lower()
    if code in i18n.offered():
        return code, ""
    names = ", ".join(f"{i18n.BY_CODE[c].name} ({c})" for c in i18n.offered())
    return None, i18n._(
        "The link asks for a language this explorer does not offer ({param}={asked}); it offers {names}.",
        param=LANG_PARAM,
        asked=values.shown(asked),
        names=names,
    )


def lang_params(code: str) -> dict[str, str]:
    """The language as a link parameter: only a language other than the source language is written (a link
    without one opens in each visitor's browser language)."""
    return {} if code == i18n.SOURCE else {LANG_PARAM: code}


def read_ask(text: str) -> tuple[int | None, tuple[str, ...] | None, str]:
    """ask=: a token's number (its weights hidden until revealed; 0-based, as the pickers count), and the
    real-model pages' questions (next, heads, induction, lens, prev), comma-separated, at most three parts. Returns the number,
    the words (None when absent) and one message for whatever was left out ("" when nothing was)."""
    parts = [p.strip() for p in text.split(",")]
    words = tuple(dict.fromkeys(p for p in parts[:3] if p in MODEL_QUESTION_WORDS))
    rest = [p for p in parts[:3] if p not in MODEL_QUESTION_WORDS and p]
    number, bad = None, rest[1:] + [p for p in parts[3:] if p]
    if rest:
        try:
            number = values.whole_number("question", rest[0], 0, MAX_TOKENS - 1, signed=False)
        except values.ShareError:
            bad = rest
    if not bad:
        return number, words or None, ""
    kept = ", ".join([*([str(number)] if number is not None else []), *words])
    left = ", ".join(values.shown(b[:MAX_PARAM_CHARS]) for b in bad[:3])
    if len(bad) > 3:
        left = i18n._("{items} and more", items=left)
    said = i18n._(
        "The link's question (ask=) takes a token's number, 0 to {last}, and next, heads, induction, lens or prev "
        "(the real model's questions), at most three, comma-separated: left out {left}.",
        last=MAX_TOKENS - 1,
        left=left,
    )
    then = i18n._("Asked: {kept}.", kept=kept) if kept else i18n._("No question is asked.")
    return number, words or None, f"{said} {then}"  # two sentences


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


def link_query(
    ex: Example,
    draws: Mapping[str, int] | None = None,
    *,
    present: bool = False,
    ask: int | str | None = None,
    limit: int = values.LINK_LIMIT,
) -> tuple[str, bool]:
    """(the query as `query` makes it, True); or, when it would be longer than `limit` characters, (the query
    of the settings alone, without the edited matrices, False): past the limit the app offers the JSON file,
    and the edits are not encoded further than it takes to know (explorer.sharing.state_blob)."""
    params, tail = link_params.settings_params(ex), {}
    if present:
        tail["present"] = "1"
    if ask is not None:
        tail["ask"] = str(int(ask)) if isinstance(ask, int) else str(ask)
    settings = urlencode({**params, **tail}, quote_via=quote, safe="")
    blob = link_params.encode_state(ex, draws, limit)
    if blob is None:
        return settings, False
    if not blob:
        return settings, len(settings) <= limit
    whole = urlencode({**params, values.STATE_PARAM: blob, **tail}, quote_via=quote, safe="")
    return (whole, True) if len(whole) <= limit else (settings, False)


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
