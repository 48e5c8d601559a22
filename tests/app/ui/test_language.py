"""The language on screen in the app (AppTest): a link's lang=, the sidebar's picker (only once more than one
language is offered), a switch that keeps the example, and the pseudo-language over the parts of the frame
marked so far (PSEUDO_COVERS), where any word shown unmarked fails the test."""

from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer.i18n import catalog, languages
from explorer.ui import lesson_ui
from tests.app.fixtures import ROOT, TIMEOUT, open_link

# What the pseudo-language tests read, growing as marking goes: the menu (every page's title and its
# section, the lessons' buttons and their help), the pipeline map on the first page (every title and
# summary), the step bar under the page, the glossary's fold ("Words on this page": every term and what it
# is), a lesson's bars (where the student is, look, predict, the answer once revealed, the way on) and the
# sidebar (every control's label, help and options, the model's sizes), the first page's note on random
# weights, a predict-then-reveal question and its answer; each page's own opening is checked
# page by page in tests/app/i18n/test_catalogs.py (PAGE_PARTS_MARKED).
PSEUDO_COVERS = (
    "menu",
    "pipeline map",
    "step bar",
    "glossary fold",
    "lesson bars",
    "sidebar",
    "weights note",
)


def _app(lang: str | None, sentence: str | None = None) -> AppTest:
    """app.py opened in `lang` (a ?lang= link; None: no such parameter), `sentence` already typed."""
    return open_link(
        None if lang is None else {"lang": lang}, {} if sentence is None else {"sentence": sentence}
    )


def _links(at: AppTest) -> list[str]:
    return [e.proto.label for e in at.get("page_link")]


def test_a_link_opens_in_its_language_and_a_switch_keeps_the_example(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(languages.ENV, "en,es")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params["lang"] = "es"
    # an example of the visitor's own: a sentence, a size and a control whose options are worded
    for key, value in {
        "sentence": "The dog chased the ball.",
        "cfg.d_model": 12,
        "ui.colors": "warm",
    }.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    assert "Páginas" in [c.value for c in at.sidebar.caption]
    assert "Oración" in _links(at) and "Sentence" not in _links(at)
    assert at.query_params["lang"] == "es"  # the address bar keeps it: a copied link opens in Spanish
    assert at.selectbox(key="ui.colors").format_func("warm") == "Contraste fuerte"
    emb = at.session_state["m.matrices"]["emb"].copy()
    assert emb.shape[1] == 12
    at.selectbox(key="ui.lang").set_value("en").run()
    assert not at.exception, at.exception
    assert "Sentence" in _links(at) and "Oración" not in _links(at)
    assert at.session_state["sentence"] == "The dog chased the ball."
    assert at.number_input(key="cfg.d_model").value == 12
    assert at.selectbox(key="ui.colors").value == "warm"
    assert at.selectbox(key="ui.colors").format_func("warm") == "Strong contrast"
    np.testing.assert_array_equal(at.session_state["m.matrices"]["emb"], emb)
    assert "lang" not in at.query_params  # English, the source language, is no parameter


def test_without_the_setting_english_and_spanish_are_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(languages.ENV, raising=False)
    at = _app("es")
    pickers = [s for s in at.selectbox if s.key == "ui.lang"]
    assert pickers and pickers[0].value == "es" and set(pickers[0].options) >= {"English", "Español"}
    assert "Oración" in _links(at) and "Sentence" not in _links(at)
    assert not at.warning


def test_a_server_offering_english_alone_says_why_a_spanish_link_opens_in_english(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(languages.ENV, "en")
    at = _app("es")
    assert not [s for s in at.selectbox if s.key == "ui.lang"]  # no picker with one language
    assert "Sentence" in _links(at)
    said = [w.value.replace("\\", "") for w in at.warning]  # shown as literal text (Markdown escaped)
    assert any("lang='es'" in w and "English (en)" in w for w in said)  # not offered: said why


def test_the_pseudo_language_leaves_no_word_unmarked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(languages.ENV, "en,xx")
    at = _app("xx")
    shown = _links(at) + [c.value for c in at.sidebar.caption] + [c.value for c in at.main.caption]
    nav = [c.value for c in at.sidebar.caption if catalog.OPEN in c.value]
    assert len(nav) >= 2 and len(_links(at)) >= 2 * len(nav)  # the menu's sections, the menu and the map
    fold = [e for e in at.expander if e.label.startswith(catalog.OPEN) and "Wórds" in e.label]
    assert len(fold) == 1
    words = [m.value for m in fold[0].markdown]
    assert len(words) == 1 and words[0].count("\n") >= 10  # every term of the first page, one a line
    opening = [m.value for m in at.main.markdown if m.value.startswith(f"{catalog.OPEN}A tráñsfórmér")]
    assert at.title[0].value.startswith(catalog.OPEN) and len(opening) == 1  # the page's title and its text
    note = _texts(_keyed(at, "weights-note"))  # the toy's weights are random: the note and its buttons
    assert len(note) >= 5
    shown += [fold[0].label, *words[0].split("\n"), at.title[0].value, *opening, *note]
    assert [text for text in shown if _unmarked(text)] == []


def test_the_sidebar_in_the_pseudo_language_leaves_no_word_unmarked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every label, help, option and caption of the sidebar, but the language picker's (each language's own
    name, and "Language" in English beside the translated word, for someone who cannot read the page)."""
    monkeypatch.setenv(languages.ENV, "en,xx")
    at = _app("xx")
    at.session_state["share.panel"] = True  # "Share and export" open: its links, files and their help
    at.run()
    sidebar = [
        t for t in _texts(at.sidebar) if "Language" not in t and "Pseudo" not in t and "English" not in t
    ]
    options = [o for box in at.sidebar.selectbox if box.key != "ui.lang" for o in box.options]
    options += [o for r in at.sidebar.radio for o in r.options]
    assert len(sidebar) > 30 and len(options) > 15 and any("ÇSV" in t for t in sidebar)
    assert [text for text in sidebar + options if _unmarked(text)] == []


def test_a_lesson_in_the_pseudo_language_leaves_no_word_unmarked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(languages.ENV, "en,xx")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update(lang="xx", lesson="attention", step="2")
    at.run()
    assert not at.exception, at.exception
    before = _texts(_keyed(at, lesson_ui.BAR)) + _texts(_keyed(at, "lesson-bottom"))
    lessons = [b for b in at.sidebar.button if b.key and b.key.startswith("lesson.open.")]
    assert len(lessons) >= 3 and len(before) >= 5
    at.button(key=lesson_ui.REVEAL).click().run()
    after = _texts(_keyed(at, lesson_ui.BAR))
    assert any("**Áñswér:**" in t for t in after) and not any("**Áñswér:**" in t for t in before)
    shown = before + after + [t for b in lessons for t in (b.label, b.help or "")]
    assert [text for text in shown if _unmarked(text)] == []


def test_a_question_in_the_pseudo_language_leaves_no_word_unmarked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Predict, then reveal on /scores: the question, its hint and the Reveal button, then the answer."""
    monkeypatch.setenv(languages.ENV, "en,xx")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update(lang="xx", ask="1")
    at.run()
    at.switch_page("app_pages/scores.py").run()
    assert not at.exception, at.exception
    asked = _texts(_keyed(at, "ask-box"))
    at.button(key="reveal").click().run()
    answer = [a.value for a in at.success]
    assert len(asked) >= 3 and len(answer) == 1
    assert [text for text in asked + answer if _unmarked(text)] == []


def test_every_explorer_page_runs_in_spanish(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy model's pages, one after the other in one session, in Spanish: no error (a translation whose
    placeholder or format went wrong would raise here), each opening with its Spanish title."""
    from explorer.ui import page_table

    monkeypatch.setenv(languages.ENV, "en,es")
    at = _app("es")
    for page in page_table.sections()[""]:
        at.switch_page(page.script).run()
        assert not at.exception, (page.url_path, at.exception)
        assert at.title and "Oración" in _links(at), page.url_path


def _keyed(at: AppTest, key: str):  # noqa: ANN202 - an AppTest Block
    """The container made with st.container(key=key)."""

    def find(node):  # noqa: ANN001, ANN202
        for child in getattr(node, "children", {}).values():
            if str(getattr(getattr(child, "proto", None), "id", "")).endswith(f"-{key}"):
                return child
            got = find(child)
            if got is not None:
                return got
        return None

    got = find(at._tree)
    assert got is not None, key
    return got


def _texts(node) -> list[str]:  # noqa: ANN001 - an AppTest node
    """Every text a person reads in `node`: Markdown, captions, alerts, labels, help."""
    out = []
    for child in getattr(node, "children", {}).values():
        proto = getattr(child, "proto", None)
        for field in ("body", "label", "help"):
            text = getattr(proto, field, "") if proto is not None and not isinstance(proto, int) else ""
            if isinstance(text, str) and text.strip():
                out.append(text)
        out += _texts(child)
    return out


def _unmarked(text: str) -> str:
    inner = re.compile(f"{catalog.OPEN}[^{catalog.OPEN}{catalog.CLOSE}]*{catalog.CLOSE}")
    while inner.search(text):
        text = inner.sub("", text)
    return "".join(re.findall(r"[A-Za-z]{2,}", text))
