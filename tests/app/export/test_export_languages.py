"""The files and the readers' messages in the language of the session that asked for them.

In the pseudo-language every marked string comes out accented between ⟦ and ⟧ (explorer.i18n.catalog), so
three plain English words in a row left over in a notebook's Markdown or the offline page's own text are a
sentence nobody marked. In Spanish the files say so (`<html lang="es">`) and read the catalog's words.
"""

from __future__ import annotations

import re

import pytest

from explorer import i18n
from explorer.classroom.store import Question
from explorer.compute import pipeline
from explorer.export import class_notebook, html, layer_notebook, learn_notebook, notebook, walkthrough
from explorer.i18n import languages
from explorer.i18n.catalog import CLOSE, OPEN
from explorer.model.example import Example, conform
from explorer.sharing import from_params, upload, url
from tests.app.fixtures import layer_opened

ENGLISH = re.compile(r"[A-Za-z][a-z']+(?:\s+[A-Za-z][a-z']*){2,}")  # three plain English words in a row
MARKED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
# The toy examples: a sentence of no three words in a row (what a person typed is never translated)
EXAMPLES = {
    "causal, post-norm": dict(sentence="cat 42", mask_kind="causal"),
    "window, pre-norm, ALiBi, RoPE": dict(
        sentence="cat 42", mask_kind="window", norm_first=True, alibi=True, rope=True
    ),
    "learned positions, no mask": dict(sentence="cat 42", pe_kind="learned", mask_kind="none"),
}


def left_in_english(text: str) -> list[str]:
    """The runs of plain English words in `text` outside its marked strings, its maths and its links."""
    while MARKED.search(text):
        text = MARKED.sub(" ", text)
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$|<[^>]*>|`[^`]*`", " ", text, flags=re.S)
    return ENGLISH.findall(text)


def markdown(nb) -> str:  # noqa: ANN001 - an nbformat notebook
    return "\n\n".join(str(c.source) for c in nb.cells if c.cell_type == "markdown")


def page_text(page: str) -> str:
    """The offline page's own words: no scripts, styles, formulas, code, or the charts' descriptions (the
    views' text for a chart, explorer.views.describe, checked with the pages)."""
    for tag in ("script", "style", "math", "pre", "figcaption"):
        page = re.sub(rf"<{tag}\b.*?</{tag}>", " ", page, flags=re.S)
    return re.sub(r"<[^>]+>", " ", page)


def walk(settings: dict) -> walkthrough.Walkthrough:
    ex = conform(Example(**settings))
    return walkthrough.from_example(ex, pipeline.run(ex), link="http://localhost:8501/?d_model=8")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_sentence_of_the_notebook_and_the_page_is_marked(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The formulas' own words are the views' (explorer.views.formulas, checked on the pages); the
    # pseudo-language's marks are no LaTeX, so the page is written here without its MathML.
    monkeypatch.setattr(html, "mathml", lambda tex: "")
    with i18n.using(i18n.PSEUDO):
        w = walk(EXAMPLES[name])
        assert left_in_english(markdown(notebook.notebook(w))) == []
        assert left_in_english(page_text(html.page(w))) == []


CHART_TEXT = re.compile(r'"text":\s*"((?:[^"\\]|\\.)*)"')  # a title's text in the page's Plotly figures


def test_every_chart_title_of_the_page_is_marked() -> None:
    """The offline page's charts (their titles, axes and colour bars, inside its Plotly figures) in the
    language asked for: what is left unmarked is a formula's symbols ("H = LN(X + MHA(X))"), never words."""
    with i18n.using(i18n.PSEUDO):
        page = html.page(walk(EXAMPLES["causal, post-norm"]))
    texts = {t for t in CHART_TEXT.findall(page) if OPEN not in t}
    assert texts, "the page's figures have titles"
    words = {t for t in texts if re.search(r"[a-z]{4,}", t)}  # a word, not a symbol like MHA, FFN, LN
    assert words == set()


def test_the_other_notebooks_are_marked_too() -> None:
    asked = [
        (Question("q1", "Which?", ("cat", "dog"), truth=1), (3, 5)),
        (Question("q2", "Next?", ("a", "b")), (1, 0)),
    ]
    with i18n.using(i18n.PSEUDO):
        ex = layer_opened("tiny", 1, sentence="cat 42")
        files = {
            "layer": markdown(layer_notebook.of_example(ex, pipeline.run(ex), 0, link="http://x/")),
            "learn": markdown(learn_notebook.notebook("http://x/learn")),
            "class": "\n\n".join(
                str(c.source) for c in class_notebook.cells(asked) if c.cell_type == "markdown"
            ),
            "no class": str(class_notebook.cells([])[0].source),
        }
    assert {name: left_in_english(text) for name, text in files.items()} == dict.fromkeys(files, [])


def test_a_spanish_session_gets_spanish_files() -> None:
    with i18n.using("es"):
        w = walk(EXAMPLES["causal, post-norm"])
        nb, page = markdown(notebook.notebook(w)), html.page(w)
        title, step = i18n._("Self-attention, step by step"), i18n._(walkthrough.STEP["tokens"].title)
        words = i18n._("Words used here")
    assert (title, step, words) == (
        "La autoatención, paso a paso",
        "Tokens e incrustaciones",
        "Palabras que se usan aquí",
    )
    assert page.startswith('<!doctype html>\n<html lang="es">') and f"<h1>{title}</h1>" in page
    assert f"## 1. {step}" in nb and f"## {words}" in nb
    # the glossary's terms are found in the Spanish text too: as many as in the English notebook (English
    # also reads "cosines" in the positional encoding as the cosine of cosine similarity)
    english = markdown(notebook.notebook(walk(EXAMPLES["causal, post-norm"])))
    assert english.count("\n- **") - 1 <= nb.count("\n- **") <= english.count("\n- **")
    assert nb.count("\n- **") > 10 and "- **cabeza**" in nb and "- **máscara causal**" in nb


def test_the_readers_refuse_in_the_visitors_language() -> None:
    with i18n.using("es"):
        _, messages = from_params({"d_model": "ocho"}, Example())
    assert messages == [
        "El valor de d_model del enlace debe ser un número entero, no 'ocho'. Se mantiene d_model = 8."
    ]
    example, notes, refused = upload.read_job(b'{"format": "attention-explorer", "version": 7}', "es")
    assert example is None and notes == []
    assert refused == (
        "No se pudo abrir ese archivo: El archivo es de la versión 7, de una versión más nueva del explorador; "
        "este explorador lee la versión 1. No se cambió nada."
    )


def test_a_links_messages_are_in_the_language_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """The link is read before its lang= reaches the session: its messages are worded in the link's language."""
    monkeypatch.setenv(languages.ENV, "en,es")
    got = url.read({"d_model": "ocho", "lang": "es"}, Example())
    assert got.lang == "es"
    assert got.messages == [
        (
            "warning",
            "El valor de d_model del enlace debe ser un número entero, no 'ocho'. Se mantiene d_model = 8.",
        )
    ]
    monkeypatch.setenv(languages.ENV, "en")  # Spanish not offered: English, and the link told so
    got = url.read({"d_model": "ocho", "lang": "es"}, Example())
    assert got.lang is None and got.messages[0] == (
        "warning",
        "The link's d_model must be a whole number, not 'ocho'. Kept d_model = 8.",
    )
    assert "does not offer" in got.messages[1][1]
