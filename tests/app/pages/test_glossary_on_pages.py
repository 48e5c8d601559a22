"""Words a student knows: every glossary term a page shows is explained on that page, in its fold.

Each page runs (AppTest) with the toy example, and the real-model pages with the models they take; the
page's text is what it renders in its main column (titles, Markdown, captions, messages, formulas, widget
and fold labels, chart titles and axis titles), the fold itself left out. The glossary's terms found in that
text must all be in the fold.
"""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from explorer.model import glossary
from explorer.ui import chart, page_table, state
from explorer.ui import widgets as ui
from tests.app.fixtures import TIMEOUT, page_alone

TEXT = {"Title", "Header", "Subheader", "Markdown", "Caption", "Latex", "Alert", "Info", "Warning", "Error",
        "Success", "Exception"}  # fmt: skip
SENTENCE = "The capital of France is"
# (url_path, model): the explorer's pages with the toy and with a real layer open (SmolLM2's layer 4: its
# RMSNorm, its rotary positions, its massive activations); the real-model pages with each model they take
RUNS = [
    *((p.url_path, m) for p in page_table.listed() if not p.real_model for m in ("toy", "smollm2 layer")),
    *(
        (p.url_path, m)
        for p in page_table.listed()
        if p.real_model
        for m in ("smollm2", "minilm")
        if p.needs != {"smollm2": "encoder", "minilm": "decoder"}[m]
    ),
]


def _label(el: Any) -> str:
    proto = getattr(el, "proto", None)
    for name in ("label", "title"):
        value = getattr(el, name, None) or getattr(proto, name, None)
        if isinstance(value, str) and value:
            return value
    return ""


def _chart_words(el: Any) -> list[str]:
    spec = chart.spec_of(el.proto) if getattr(el, "type", "") == "bidi_component" else None
    if not spec:
        return []
    layout = spec.get("layout", {})
    title = layout.get("title") or {}
    out = [str(title.get("text", "")), str((title.get("subtitle") or {}).get("text", ""))]
    out.extend(str(a.get("text", "")) for a in layout.get("annotations") or ())
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            title = axis.get("title") or {}
            out.append(str(title.get("text", "") if isinstance(title, dict) else title))
            out.extend(str(t) for t in axis.get("ticktext") or ())  # ([CLS] and [SEP] among the tokens)
    return out


def page_text(at: AppTest) -> str:
    """What the page's main column shows as text, the glossary fold left out."""
    out: list[str] = []

    def walk(node: Any) -> None:
        for child in getattr(node, "children", {}).values():
            kind = type(child).__name__
            if kind == "Expander" and _label(child) == ui.WORDS:
                continue
            if kind in TEXT:
                out.append(str(child.value))
            else:
                out.append(_label(child))
                out.extend(_chart_words(child))
            walk(child)

    walk(at.main)
    return "\n".join(s for s in out if s)


def fold(at: AppTest) -> str:
    shown = [e for e in at.expander if _label(e) == ui.WORDS]
    return "\n".join(m.value for e in shown for m in e.markdown)


def run_page(url_path: str, model: str) -> AppTest:
    at = page_alone(page_table.by_path(url_path).script)
    at.default_timeout = TIMEOUT
    at.session_state["ui.page"] = url_path  # as the frame sets it
    if model.endswith(" layer"):
        at.session_state[state.SETTING_KEYS["real"]] = model.split()[0]
        at.session_state[state.SETTING_KEYS["real_layer"]] = 3
    else:
        at.session_state[state.K_MODEL] = model
    at.session_state[state.K_SENTENCE] = SENTENCE
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize(("url_path", "model"), RUNS, ids=[f"{p or 'sentence'}-{m}" for p, m in RUNS])
def test_every_term_a_page_shows_is_explained_on_it(url_path: str, model: str) -> None:
    at = run_page(url_path, model)
    used = {t.key for t in glossary.terms_in(page_text(at))}
    explained = fold(at)
    missing = sorted(t.word for t in glossary.TERMS if t.key in used and f"**{t.word}**:" not in explained)
    assert not missing, f"/{url_path} with {model} shows these words without explaining them: {missing}"


def test_the_glossary_is_one_table_of_whole_sentences() -> None:
    """Each term once, explained in whole sentences; ON_PAGE names only pages and terms that exist."""
    keys = [t.key for t in glossary.TERMS]
    assert len(keys) == len(set(keys))
    for t in glossary.TERMS:
        assert t.plain[0].isupper() and t.plain.endswith("."), t.key
        assert glossary.terms_in(t.word), t.key  # its own word finds it
    paths = {p.url_path for p in page_table.listed()}
    assert set(glossary.ON_PAGE) <= paths
    for terms in glossary.ON_PAGE.values():
        assert set(terms) <= set(keys)
