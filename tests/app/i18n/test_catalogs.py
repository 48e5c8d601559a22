"""The catalogs and the words' plumbing (explorer.i18n), without Streamlit: every marked string is in the
template and in each catalog, placeholders survive translation, plural forms, numbers in each language's
format, the pseudo-language, and the lang= link parameter."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from explorer import i18n
from explorer.i18n import catalog, languages, stats
from explorer.sharing import url as links
from explorer.ui import page_table, present
from tests.app.fixtures import charts_json

ROOT = Path(__file__).resolve().parents[3]
PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")
BUSY = (
    "{title} is busy with other visitors' work: {n} request ahead of you; yours runs after it.",
    "{title} is busy with other visitors' work: {n} requests ahead of you; yours runs after them.",
)


def _key(m) -> tuple[str | None, str]:  # noqa: ANN001 (a babel Message)
    return m.context, m.id if isinstance(m.id, str) else m.id[0]


def _read(path: Path, locale: str | None = None):  # noqa: ANN202
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def test_the_template_holds_every_string_the_code_marks() -> None:
    """locale/messages.pot is what `bash scripts/i18n.sh` extracts from the code now (run it after marking)."""
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    in_code = {
        (ctx, msg if isinstance(msg, str) else msg[0])
        for _file, _line, msg, _comments, ctx in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=DEFAULT_KEYWORDS
        )
    }
    template = {_key(m) for m in _read(ROOT / "locale" / "messages.pot") if m.id}
    assert in_code - template == set(), "marked in the code, missing from the template: run scripts/i18n.sh"
    assert template - in_code == set(), "in the template, no longer in the code: run scripts/i18n.sh"
    assert len(template) > 90  # the page table alone marks this many


@pytest.mark.parametrize("row", [r for r in languages.LANGUAGES if r.code not in (i18n.SOURCE, i18n.PSEUDO)])
def test_each_language_has_a_catalog_of_the_templates_strings(row: languages.Language) -> None:
    po = _read(catalog.path(row.code), row.code)
    template = {_key(m) for m in _read(ROOT / "locale" / "messages.pot") if m.id}
    assert {_key(m) for m in po if m.id} == template
    assert po.num_plurals >= 1 and f"nplurals={po.num_plurals};" in po.plural_forms


@pytest.mark.parametrize("row", [r for r in languages.LANGUAGES if r.code not in (i18n.SOURCE, i18n.PSEUDO)])
def test_a_translation_keeps_every_placeholder_of_its_string(row: languages.Language) -> None:
    """A translator reorders a sentence, never drops or renames a {placeholder} (it would raise on screen)."""
    for m in _read(catalog.path(row.code), row.code):
        if not m.id:
            continue
        ids = (m.id,) if isinstance(m.id, str) else m.id
        strings = (m.string,) if isinstance(m.string, str) else m.string
        want = {p for text in ids for p in PLACEHOLDER.findall(text)}
        for text in strings:
            if text:
                assert set(PLACEHOLDER.findall(text)) <= want, (m.id, text)
                assert set(PLACEHOLDER.findall(text)) >= {p for p in PLACEHOLDER.findall(ids[0]) if p != "n"}
                text.format(**{p: 1.5 for p in PLACEHOLDER.findall(text)})  # its format specs are valid


def test_only_complete_catalogs_are_offered_by_default() -> None:
    """A half-translated language stays behind ATTENTION_EXPLORER_LANGUAGES: no visitor reaches it."""
    counts = {c.code: c for c in stats.counts()}
    for code in languages.DEFAULT_OFFERED:
        assert code == i18n.SOURCE or counts[code].complete, counts.get(code)
    assert i18n.PSEUDO not in languages.DEFAULT_OFFERED


def test_offered_languages_follow_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(languages.ENV, raising=False)
    assert i18n.offered() == languages.DEFAULT_OFFERED
    monkeypatch.setenv(languages.ENV, " ES, zz ,xx")  # unknown codes are left out; English always offered
    assert i18n.offered() == ("en", "es", "xx")
    assert i18n.from_browser("es-MX") == "es" and i18n.from_browser("es_ES") == "es"
    assert i18n.from_browser("de-DE") == "en" and i18n.from_browser(None) == "en"


def test_spanish_plural_forms() -> None:
    with i18n.using("es"):
        one = i18n.ngettext(*BUSY, 1, title="MiniLM")
        two = i18n.ngettext(*BUSY, 2, title="MiniLM")
    assert "1 petición por delante" in one and "MiniLM está ocupado" in one
    assert "2 peticiones por delante" in two
    with i18n.using("en"):
        assert i18n.ngettext(*BUSY, 3, title="M") == "M is busy with other visitors' work: 3 requests ahead of you; " \
            "yours runs after them."  # fmt: skip


def test_the_sizes_line_says_1_cabeza_and_2_cabezas() -> None:
    """Plural forms where the sidebar shows a trained model's sizes (explorer.model.description)."""
    from dataclasses import replace

    from explorer.model import layer
    from explorer.model.example import Example

    one = replace(layer.describe(Example()), n_heads=1, n_kv_heads=1, layer=None, n_layers=2)
    with i18n.using("es"):
        assert "2 capas · d_model 8 · 1 cabeza · d_k 4" in one.sizes_line()
        assert "· 3 cabezas ·" in replace(one, n_heads=3, n_kv_heads=3).sizes_line()
        assert "6 cabezas (2 cabezas de clave/valor)" in replace(one, n_heads=6, n_kv_heads=2).sizes_line()
    with i18n.using("en"):
        assert "2 layers · d_model 8 · 1 head · d_k 4" in one.sizes_line()


def test_the_session_language_is_read_through_the_bound_getter() -> None:
    was = i18n._language
    try:
        i18n.bind(lambda: "es")
        assert i18n._("Heads") == "Cabezas"
        with i18n.using("en"):  # a block in one language wins over the session's
            assert i18n._("Heads") == "Heads"
        assert i18n.current() == "es"
    finally:
        i18n.bind(was)
    assert i18n._("Step {page_no} of {pages}: {title}", page_no=1, pages=2, title="T") == "Step 1 of 2: T"


@pytest.mark.parametrize(
    ("value", "places", "en", "es"),
    [
        (0.25, 2, "0.25", "0,25"),
        (-1.5, 1, "-1.5", "-1,5"),
        (1234.5, 1, "1,234.5", "1234,5"),  # Spanish groups digits from five on
        (12345.678, 2, "12,345.68", "12.345,68"),
        (-0.0001, 2, "0.00", "0,00"),  # a rounded -0 is written 0
    ],
)
def test_numbers_in_prose_follow_the_language(value: float, places: int, en: str, es: str) -> None:
    with i18n.using("en"):
        assert i18n.decimal(value, places) == en
    with i18n.using("es"):
        assert i18n.decimal(value, places) == es
    assert float(en.replace(",", "")) == pytest.approx(round(value, places), abs=1e-12)


def test_whole_numbers_in_prose() -> None:
    with i18n.using("es"):
        assert (i18n.integer(1234), i18n.integer(12345), i18n.integer(-7)) == ("1234", "12.345", "-7")
    with i18n.using("en"):
        assert (i18n.integer(1234), i18n.integer(12345)) == ("1,234", "12,345")


def test_links_keep_one_number_format_in_every_language() -> None:
    """A link made in Spanish reads back in English: its numbers are never written in a language's format."""
    from explorer.model.example import conform

    ex = conform(_example().with_(scale_mode="custom", scale_custom=0.25))
    with i18n.using("es"):
        query_es = links.query(ex)
    with i18n.using("en"):
        assert links.query(ex) == query_es
    assert "scale_k=0.25" in query_es


def test_the_pseudo_language_marks_lengthens_and_keeps_the_syntax() -> None:
    text = "Loaded **{name}** :material/edit: with $W_Q$ and W_O, `code`, [docs](https://x.org/a_b)."
    out = catalog.pseudo(text)
    assert out.startswith(catalog.OPEN) and out.endswith(catalog.CLOSE)
    assert len(out) >= 1.4 * len(text)
    for kept in ("{name}", ":material/edit:", "$W_Q$", "W_O", "`code`", "(https://x.org/a_b)", "**"):
        assert kept in out
    assert "Lóádéd" in out and "Loaded" not in out
    assert out.format(name="x")  # still a format string
    with i18n.using(i18n.PSEUDO):
        assert i18n.ngettext(*BUSY, 2, title="T").startswith(catalog.OPEN + "T ")


def test_every_step_line_is_marked() -> None:
    """The step bar's lines (the step-through's caption and what to look at) for every step, in the
    pseudo-language: no word left in English."""
    with i18n.using(i18n.PSEUDO):
        for i, step in enumerate(present.STEPS):
            assert unmarked(present.caption(i)) == "", present.caption(i)
            assert unmarked(i18n._(step.look)) == ""
        for p in page_table.listed():
            assert unmarked(i18n._(p.title)) == unmarked(i18n._(p.summary)) == ""


def test_a_link_asks_for_an_offered_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(languages.ENV, "en,es")
    assert links.read({"lang": "ES-mx"}, _example()).lang == "es"
    got = links.read({"lang": "de"}, _example())
    assert got.lang is None and "lang='de'" in got.messages[0][1] and "Español (es)" in got.messages[0][1]
    assert links.lang_params("es") == {"lang": "es"} and links.lang_params("en") == {}
    monkeypatch.setenv(languages.ENV, "en")
    got = links.read({"lang": "es"}, _example())  # Spanish not offered by this server: English, and why
    assert got.lang is None and "English (en)" in got.messages[0][1]


def _example():  # noqa: ANN202
    from explorer.model.example import Example

    return Example()


def unmarked(text: str) -> str:
    """What of `text` is neither inside the pseudo-language's marks nor digits, symbols or punctuation."""
    inner = re.compile(f"{catalog.OPEN}[^{catalog.OPEN}{catalog.CLOSE}]*{catalog.CLOSE}")
    while inner.search(text):  # marks inside marks: a translated title inside a translated line
        text = inner.sub("", text)
    return "".join(re.findall(r"[A-Za-z]{2,}", text))


# What of each page's own words is marked so far, page by page (the frame's are read by tests/app/ui/
# test_language.py): the opening (title and text) of every page. The list grows as marking goes.
PAGE_PARTS_MARKED = {p.url_path: ("opening",) for p in page_table.listed()}


@pytest.mark.parametrize("page", page_table.listed(), ids=lambda p: p.url_path or "sentence")
def test_each_page_opens_with_marked_words(page: page_table.Page) -> None:
    """The page's opening (ui.opening: its title and what the step does) goes through the catalogs whole."""
    import ast

    assert "opening" in PAGE_PARTS_MARKED[page.url_path]
    tree = ast.parse((ROOT / page.script).read_text(encoding="utf-8"))
    calls = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "opening"
    ]
    assert len(calls) == 1, page.script
    for arg in calls[0].args[:2]:
        assert isinstance(arg, ast.Call) and getattr(arg.func, "id", "") == "_", ast.unparse(arg)[:60]
        assert isinstance(arg.args[0], ast.Constant)  # a literal: extracted into the catalogs


def test_a_number_in_a_translated_title_is_written_as_the_language_writes_it() -> None:
    """A {placeholder:.4g} of a translated string takes the language's decimal comma; English is unchanged."""
    from explorer.views import chart_specs

    with i18n.using("es"):
        assert chart_specs.scaled_title(0.5, True, True) == (
            "Entrada de la softmax: escalada (×\u00a00,5) + sesgo ALiBi, enmascarada"
        )
        assert chart_specs.token_weights_title("gato", "cabeza 2", 2, 0.99951).endswith("(suma 1,000)")
        assert i18n._("head {n}", n=3) == "cabeza 3"
    with i18n.using("en"):
        assert chart_specs.scaled_title(0.5, False, True) == "Softmax input: scaled (×\u00a00.5), masked"
        assert (
            chart_specs.token_weights_title("cat", "head 2", 1, 1.0)
            == "Weights of “cat” over the keys (sum 1.000)"
        )


def test_a_file_is_made_in_the_language_on_screen_when_its_button_was_drawn() -> None:
    """Downloads are made outside the script run (no session's language there): the button carries it. The
    HTML page's words section and chart titles follow it; its numbers (the data) do not change."""
    from explorer.compute import pipeline
    from explorer.export import html, walkthrough
    from explorer.model.example import Example, conform
    from explorer.ui import export_ui

    assert export_ui.in_language("es", lambda: i18n._("Heads").encode()) == b"Cabezas"
    ex = conform(Example(mask_kind="causal"))
    w = walkthrough.from_example(ex, pipeline.run(ex), query=1, head=0, link="https://example.org/app")
    with i18n.using("es"):
        page = html.page(w)
    assert "Palabras que se usan aquí" in page and "Puntuaciones en bruto Q Kᵀ" in page
    assert "<dt>atención</dt>" in page and "Words used here" not in page
    numbers = re.compile(r'"bdata":\s*"([^"]+)"')  # every array of the charts, as its bytes
    es = numbers.findall(json.dumps(charts_json(page)))
    assert es == numbers.findall(json.dumps(charts_json(html.page(w)))) and len(es) > 10  # the same numbers


def test_a_refused_cell_is_said_in_the_language_on_screen() -> None:
    """The editors' refusals (a toast over the page) are whole sentences, with the value as the person typed
    it and the kept number written as the language writes it."""
    from explorer.ui import editors

    with i18n.using("es"):
        assert editors.parse_cell("abc") == (None, "'abc' no es un número")
        assert editors.parse_cell("1e9")[1] == (
            "1e+09 es demasiado grande (el límite es ±1.000.000: los valores mayores desbordan las puntuaciones)"
        )
    with i18n.using("en"):
        assert editors.parse_cell("2e9")[1].startswith("2e+09 is too large (the limit is ±1,000,000:")


def test_a_language_set_for_a_block_holds_in_its_own_thread_only() -> None:
    """A file made in Spanish (a download, in a thread of its own) changes no other session's language."""
    import threading

    inside, done = threading.Event(), threading.Event()
    seen: list[str] = []

    def download() -> None:
        with i18n.using("es"):
            seen.append(i18n._("Heads"))
            inside.set()
            done.wait(10)

    worker = threading.Thread(target=download)
    worker.start()
    assert inside.wait(10)
    try:
        assert i18n.current() == i18n.SOURCE and i18n._("Heads") == "Heads"  # this thread: untouched
    finally:
        done.set()
        worker.join(10)
    assert seen == ["Cabezas"]
