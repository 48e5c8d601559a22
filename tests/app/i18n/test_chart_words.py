"""Words made below the pages, in the language on screen: the heads grid's subplot titles (a layout cached
per language), a chart's text alternative with the language's decimal sign, the class store's refusals (worded
where they are read), a wait said in words, and a probability in prose."""

from __future__ import annotations

import numpy as np

from explorer import i18n
from explorer.classroom import store
from explorer.compute import timing
from explorer.views import describe
from explorer.views import figures as fg
from explorer.views.text import probability


def _subplot_titles(drawn: fg.Drawn) -> list[str]:
    return [
        a["text"]
        for a in drawn.figure.to_plotly_json()["layout"]["annotations"]
        if a["text"].endswith(("1", "2"))
    ]


def test_the_heads_grids_subplot_titles_follow_the_language_though_its_layout_is_cached() -> None:
    w = np.full((2, 3, 3), 1 / 3)
    drawn = {}
    for code in ("en", "es", "en", "es"):  # each language twice: the second from the cached layout
        with i18n.using(code):
            drawn.setdefault(code, []).append(
                _subplot_titles(fg.drawn_head_grid(w, ["a", "b", "c"], style=fg.Style(), title="T"))
            )
    assert drawn["en"] == [["head 1", "head 2"]] * 2
    assert drawn["es"] == [["cabeza 1", "cabeza 2"]] * 2


def test_a_charts_text_alternative_is_in_the_language_on_screen_with_its_decimal_sign() -> None:
    z = np.array([[0.25, 0.75], [0.5, 0.5]])
    labels = describe.Labels(["x", "y"], ["x", "y"], "query", "key", queries=True)
    with i18n.using("es"):
        said, _tables = describe.matrix_text("Pesos", [describe.Panel("", z)], labels, 2, True, "", False)
    assert (
        said
        == "Pesos. 2 filas (query) por 2 columnas (key); el mayor peso, 0,75, es el que «x» pone en «y»; cada fila suma 1."
    )
    with i18n.using("en"):
        said, _tables = describe.matrix_text("W", [describe.Panel("", z)], labels, 2, True, "", False)
    assert (
        said
        == "W. 2 query rows by 2 key columns; the largest weight, 0.75, is what “x” puts on “y”; every row sums to 1."
    )


def test_a_refusal_of_the_class_store_is_worded_where_it_is_read() -> None:
    refused = store.ClassError(store.FULL, most=store.MAX_STUDENTS)
    with i18n.using("es"):
        assert str(refused) == f"Esta clase está llena ({store.MAX_STUDENTS} estudiantes)."
    with i18n.using("en"):
        assert str(refused) == f"This class is full ({store.MAX_STUDENTS} students)."


def test_a_wait_and_a_tiny_probability_are_said_in_the_language_on_screen() -> None:
    with i18n.using("es"):
        said = timing.words("patching", 100)
        assert (
            said.endswith("(en una máquina de 2 núcleos ocupada; menos en una rápida)")
            or "según lo medido" in said
        )
        assert probability(4.2e-4) == "0,00042 (aproximadamente 1 de cada 2400)"
        assert probability(2.1e-72) == "2,1e-72 (prácticamente cero)"
    with i18n.using("en"):
        assert probability(4.2e-4) == "0.00042 (about 1 in 2,400)"
