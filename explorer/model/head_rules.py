"""The words of the head labels: each rule of attention_core.analysis.HEAD_RULES by its name, the label shown
and the keys it weighs, marked for the catalogs (the engine keeps its own English words, for programmers).
Tokens ([SEP]) stay as they are. Pure: no Streamlit.
"""

from __future__ import annotations

from explorer.i18n import N_, _

LABELS = {
    "previous": N_("previous token"),
    "next": N_("next token"),
    "self": N_("itself"),
    "same_word": N_("same word"),
    "sep": "[SEP]",
    "first": N_("first token"),
    "broad": N_("broad"),
    "mixed": N_("mixed"),
}
KEYS = {
    "previous": N_("the token just before the query (key i-1)"),
    "next": N_("the token just after the query (key i+1)"),
    "self": N_("the query's own token (key i)"),
    "same_word": N_(
        "the other pieces of the query's word and other occurrences of the same word (not an ordinary first "
        "token: weight there is an attention sink)"
    ),
    "sep": N_("the [SEP] token (from every other query)"),
    "first": N_(
        "the first token, from every other query: [CLS] in an encoder; in a decoder an ordinary word whose "
        "weight works as an attention sink (a place to put weight that changes nothing)"
    ),
}


def label(rule: str) -> str:
    """The label of rule `rule` ("previous", ..., "broad", "mixed") in the language on screen."""
    text = LABELS.get(rule, rule)
    return text if text.startswith("[") else _(text)


def keys(rule: str) -> str:
    """What rule `rule` weighs, in the language on screen."""
    return _(KEYS[rule]) if rule in KEYS else rule
