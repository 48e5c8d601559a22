"""The lesson table (explorer.lessons.routes) is valid: every step's page and part exist, its settings are
link parameters every reader takes without a word, its texts are whole sentences, every lesson ends with an
experiment, and a step opened from a link shows what walking there shows. Pure: no AppTest."""

from __future__ import annotations

import re

import numpy as np
import pytest

from explorer.compute import pipeline
from explorer.lessons import routes
from explorer.model import glossary, models, pairs, patching
from explorer.model.example import Example, conform, tokens_for
from explorer.sharing import lesson_link, model_link, picks, values, view_params
from explorer.sharing import url as links
from explorer.ui import lesson_view, page_table

STEPS = [(r, k, s) for r in routes.ROUTES for k, s in enumerate(r.steps, 1)]
IDS = [f"{r.name}-{k}" for r, k, _ in STEPS]
KNOWN = {
    *values.SHARE_PARAMS,
    "ask",
    *model_link.PARAMS,
    *view_params.PARAMS,
    *picks.PARAMS,
    *patching.LINK_PARAMS,
    *pairs.LINK_PARAMS,
}
TEXTS = ("title", "look", "question", "answer", "meaning")


def test_three_lessons_at_least_each_named_once() -> None:
    names = [r.name for r in routes.ROUTES]
    assert len(names) >= 1 and len(set(names)) == len(names)
    assert all(re.fullmatch(r"[a-z]{2,20}", n) for n in names)
    assert len({r.title for r in routes.ROUTES}) == len(names)


@pytest.mark.parametrize(("route", "k", "step"), STEPS, ids=IDS)
def test_a_step_is_on_a_page_of_the_menu_and_its_part(route, k, step) -> None:
    page = page_table.by_path(step.page)
    assert page is not None, f"{route.name} step {k}: no listed page {step.page!r}"
    if step.part:
        assert step.part in [s.name for s in page.steps], f"{route.name} step {k}: {step.part!r}"


@pytest.mark.parametrize(("route", "k", "step"), STEPS, ids=IDS)
def test_a_step_says_each_thing_in_whole_sentences(route, k, step) -> None:
    for name in TEXTS[1:]:
        text = routes.words(getattr(step, name))  # its numbers filled in (routes.NUMBERS)
        assert text[:1].isupper() or text[:1] in "“n", f"{route.name} step {k}: {name} {text!r}"
        assert text.rstrip("”*").endswith((".", "?", "!")), f"{route.name} step {k}: {name} {text!r}"
    assert step.question.endswith("?"), step.question
    assert step.title and not step.title.endswith(".")
    # presenting, each pair is one line of the bar above the step (explorer.ui.lesson_ui)
    w = routes.words
    look, answer = (
        f"Look: {w(step.look)} Predict: {w(step.question)}",
        f"Answer: {w(step.answer)} {w(step.meaning)}",
    )
    for line in (look, answer):
        assert len(line) <= routes.PRESENT_LINE_CHARS, f"{route.name} step {k}: {len(line)}: {line}"
    assert len(f"Your experiment: {w(step.experiment)}") <= routes.PRESENT_LINE_CHARS


@pytest.mark.parametrize(("route", "k", "step"), STEPS, ids=IDS)
def test_a_steps_part_names_what_the_page_scrolls_to(route, k, step) -> None:
    """On a laptop the page scrolls the step's part to just under the bar (explorer.ui.lesson_view): every
    part a step names has its target; a step without one points at the first chart under the bar."""
    if step.part:
        assert lesson_view.css_keys(step.part), f"{route.name} step {k}: no target for {step.part!r}"
        assert all("." not in key for key in lesson_view.css_keys(step.part))


@pytest.mark.parametrize(("route", "k", "step"), STEPS, ids=IDS)
def test_every_glossary_term_a_step_uses_is_explained_in_its_bar(route, k, step) -> None:
    """The bar's fold (explorer.ui.lesson_ui) lists routes.terms: every term found in any text of the step,
    each with its plain words, none twice."""
    listed = routes.terms(step)
    keys = [t.key for t in listed]
    assert len(keys) == len(set(keys))
    for text in routes.texts(step):
        missing = {t.key for t in glossary.terms_in(text)} - set(keys)
        assert not missing, f"{route.name} step {k}: {missing} in {text!r}"
    fold = glossary.markdown(listed)
    for t in listed:
        assert f"**{t.word}**: {t.plain}" in fold
    assert keys, f"{route.name} step {k} names no term of the trade"


@pytest.mark.parametrize(("route", "k", "step"), STEPS, ids=IDS)
def test_a_steps_settings_are_read_without_a_word(route, k, step) -> None:
    """Each setting is a link parameter, and every reader of a link takes it as it is (no message)."""
    params = routes.settings_at(route, k)
    assert set(dict(step.settings)) <= KNOWN, set(dict(step.settings)) - KNOWN
    ex = conform(Example())
    got = links.read(params, ex)
    assert got.messages == []
    shown = got.example or ex
    if "ask" in params:
        assert got.ask is not None or got.ask_model
        if got.ask is not None:
            assert got.ask < len(tokens_for(shown)[0]), "the question asks about a token past the sentence"
    link = model_link.read(params, "toy")
    assert link.messages == []
    if link.model is not None:
        assert link.model in models.MODELS
    assert view_params.read(params).messages == []
    assert patching.read_link(params).messages == []
    assert pairs.read_link(params).messages == []
    assert picks.read(params, shown.n_heads, len(tokens_for(shown)[0])).messages == []


@pytest.mark.parametrize("route", routes.ROUTES, ids=[r.name for r in routes.ROUTES])
def test_every_lesson_ends_with_an_experiment(route) -> None:
    *before, last = route.steps
    assert len(route.steps) >= 3
    assert last.experiment.strip().endswith("."), last.experiment
    assert not any(s.experiment for s in before), "the experiment is the lesson's end"


@pytest.mark.parametrize("route", routes.ROUTES, ids=[r.name for r in routes.ROUTES])
def test_a_step_opened_from_its_neighbour_shows_what_a_link_to_it_shows(route) -> None:
    """Walking on or back applies a step's own settings only (what the student changed stays): each step sets
    every value in which it differs from its neighbours, so the walk and a link agree."""
    n = len(route.steps)
    for k in range(1, n + 1):
        whole = routes.settings_at(route, k)
        for came in (k - 1, k + 1):
            if 1 <= came <= n:
                before = {
                    p: v for p, v in routes.settings_at(route, came).items() if p not in routes.PER_STEP
                }
                walked = {**before, **routes.settings_at(route, k, came)}
                assert walked == whole, (route.name, came, k)


def test_a_lesson_link_is_read_and_bounded() -> None:
    first = routes.ROUTES[0]
    n = len(first.steps)
    assert lesson_link.read({}).name is None
    got = lesson_link.read({"lesson": first.name.upper(), "step": "2"})
    assert (got.name, got.step, got.messages) == (first.name, 2, [])
    assert lesson_link.read({"lesson": first.name}).step == 1
    past = lesson_link.read({"lesson": first.name, "step": str(n + 5)})
    assert past.step == n and f"between 1 and {n}" in past.messages[0]
    for bad in ("0", "-1", "x", "٣", "2.5"):
        got = lesson_link.read({"lesson": first.name, "step": bad})
        assert got.step == 1 and len(got.messages) == 1, bad
    none = lesson_link.read({"lesson": "nope<b>"})
    assert none.name is None and "There is no lesson called" in none.messages[0]
    assert first.name in none.messages[0]
    assert lesson_link.params(first.name, 3) == {"lesson": first.name, "step": "3"}
    assert routes.by_name("x" * 10_000) is None


# ------------------------------------------------------------- what the first lesson says, computed


def shown_at(route, k: int):  # noqa: ANN001, ANN201 - a Route; the pipeline's Result
    """The example a link to step k opens (from the explorer's default one), and its traced run."""
    ex = links.read(routes.settings_at(route, k), conform(Example())).example
    assert ex is not None
    return ex, pipeline.run(ex)


def step_on(route, page: str, part: str = "") -> int:  # noqa: ANN001
    return next(k for k, s in enumerate(route.steps, 1) if s.page == page and s.part == part)


def test_the_first_lesson_says_what_its_pages_show() -> None:
    route = routes.ATTENTION
    ex, res = shown_at(route, 1)  # a repeated word: the same embedding row each time, different rows of X
    the = [i for i, t in enumerate(res.tokens) if t == "the"]
    assert len(the) == 3 and "three times" in route.steps[0].question
    np.testing.assert_array_equal(res.emb[the[0]], res.emb[the[1]])
    assert not np.allclose(res.x[the[0]], res.x[the[1]])
    assert ex.real == "toy" and ex.mask_kind == "none"
    ex, res = shown_at(route, step_on(route, "scores", "masking"))  # causal: the first token sees one key
    assert ex.mask_kind == "causal" and res.mask[0].sum() == 1
    k = step_on(route, "scores", "softmax") + 1  # the trained head's question, answered by its rule
    step = route.steps[k - 1]
    ex, res = shown_at(route, k)
    assert ex.real == "tiny"
    params = dict(step.settings)
    head, query = int(params["h"]) - 1, int(params["ask"])
    assert res.tokens[query] == "dog" and res.tokens.index("dog") < query  # the second "dog"
    key = res.strongest_key(head, query)
    assert key == res.tokens.index("dog") + 1 and f"“{res.tokens[key]}”" in step.answer
    rows = res.attention.weights  # (heads, n, n): heads 1 and 4 rest on the first word
    for h in (0, 3):
        assert (rows[h].argmax(axis=1) == 0).mean() >= 0.8, h
    assert f"head {head + 1} looks one word past an earlier copy" in route.steps[k].answer
    assert "heads 1 and 4 rest on the first word" in route.steps[k].answer
