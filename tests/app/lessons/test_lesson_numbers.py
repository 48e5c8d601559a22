"""What the copy and cause lessons say SmolLM2 does, computed: each number of explorer.lessons.routes.NUMBERS
(and each claim the texts make in words) from the engine, through the functions the lessons' pages call, then
compared with the table; and the words a lesson step shows carry the table's numbers, so none can go stale.

Each test runs a few forward passes of a sentence of 5 to 16 tokens (or one of 100 for the induction runs):
a second or less each. The sweeps /patching draws are not rerun whole: the layers and heads a text names,
and the neighbours that make the claim, are."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import analysis as an
from explorer import i18n
from explorer.compute import interp, model_compute
from explorer.lessons import routes
from explorer.model import models
from explorer.sharing import model_link
from tests.core import models as core_models

N = routes.NUMBERS
KEY = "smollm2"


@pytest.fixture(scope="module")
def smol():  # noqa: ANN201 - the engine's model
    return core_models.need(models.choice(KEY).engine)


def off_heads() -> tuple[tuple[int, int], ...]:
    """The induction heads as the lessons' links switch them off (0-based (layer, head))."""
    got = model_link.read({"model": KEY, "off": routes.INDUCTION_HEADS})
    assert got.messages == [] and got.off
    return got.off


def step_text(route: routes.Route, k: int) -> str:
    s = route.steps[k - 1]
    return " ".join(routes.words(t) for t in (s.title, s.look, s.question, s.answer, s.meaning, s.experiment))


def test_the_copy_sentence_puts_d_first_and_the_induction_heads_weaken_it(smol) -> None:
    got = model_compute.compare(KEY, routes.COPY_SENTENCE, off_heads(), "")
    shift = got.next_tokens
    first = int(np.argmax(shift.before))
    assert got.next_strings[first] == " D"  # “␣D”, as the first step and the last say
    assert "“␣D”" in step_text(routes.COPY, 1) and "“␣D”" in step_text(routes.COPY, 6)
    assert round(float(shift.before[first]), 2) == N["p_on"]
    assert round(float(shift.after[first]), 2) == N["p_off"]
    assert int(np.argmax(shift.after)) == first  # "Yes, but weaker": still first with the heads off


def test_the_induction_heads_are_those_the_standard_run_labels_and_copy_the_second_half(smol) -> None:
    scores = interp.standard_induction(KEY)
    labelled = tuple(map(tuple, np.argwhere(scores >= models.INDUCTION_THRESHOLD).tolist()))
    assert labelled == off_heads()
    assert smol.config.n_layers * smol.config.n_heads == N["n_heads"]
    n = models.INDUCTION_LENGTH
    on = interp.induction(KEY, models.INDUCTION_SEED, n).run.losses  # the standard run: cached above
    assert on[n - 1 :].mean() < 0.5 * on[: n - 1].mean()  # "the loss of the second copy falls far below"


def test_without_the_induction_heads_the_second_copy_is_almost_as_hard_as_the_first(smol) -> None:
    n = models.INDUCTION_LENGTH
    off = interp.induction(KEY, models.INDUCTION_SEED, n, off_heads()).run.losses
    first, second = off[: n - 1].mean(), off[n - 1 :].mean()
    assert 0.8 * first < second <= 1.05 * first  # "It climbs back almost to the first copy's"


def test_the_logit_lens_shows_d_come_first_after_the_layers_the_lesson_names(smol) -> None:
    lens = interp.lens(KEY, routes.COPY_SENTENCE)
    d = next(t for t, s in lens.words.items() if s == " D")
    top = lens.reading.ids[:, -1, 0]  # (L + 1,) the first token after each layer at the last "␣Mrs"
    p = interp.follow(KEY, routes.COPY_SENTENCE, d)[:, -1]  # (L + 1,) its probability there
    first = int(np.flatnonzero(top == d)[0])  # row l: after layer l (row 0: the embeddings)
    assert first == N["lens_first"] and p[first - 1] < 0.01  # "from almost nothing to first place"
    assert interp.wins_from(top, d) == N["lens_stays"]


def test_the_answer_lives_at_france_up_to_the_layer_the_lesson_names(smol) -> None:
    pair = an.patch_pair(smol, routes.CLEAN, routes.CORRUPT, " Paris", " Rome")
    france, last = pair.clean_tokens.index(" France"), len(pair.clean_tokens) - 1
    until = N[
        "lives_until"
    ]  # 1-based: rows until - 2 and until - 1 (France restores), until (the last token)
    for layer in (until - 2, until - 1):
        row = an.patch_layer(smol, pair, layer, "resid")
        assert row[france] > 0.9 and abs(row[last]) < 0.1, (layer, row)
    row = an.patch_layer(smol, pair, until, "resid")
    assert row[last] > 0.9 and abs(row[france]) < 0.1, row


def test_one_head_alone_brings_back_most_of_the_answer(smol) -> None:
    pair = an.patch_pair(smol, routes.CLEAN, routes.CORRUPT, " Paris", " Rome")
    row = an.patch_layer(smol, pair, N["mover_layer"] - 1, "head")  # (n_heads,) each head's restored share
    assert int(np.argmax(row)) == N["mover_head"] - 1 and row.max() > 0.5  # "most of it alone"
    others = np.delete(row, N["mover_head"] - 1)
    assert (others < 0.25).all(), row  # "few": no other head of its layer comes near


def test_the_head_the_cause_lesson_shows_gives_france_less_weight_than_the(smol) -> None:
    trace = model_compute.run(KEY, routes.CLEAN)
    layer, head = (int(v) - 1 for v in routes.READS)
    row = np.asarray(trace.attentions[layer][head])[-1]  # the row of "␣is"
    tokens = list(trace.tokens)
    assert tokens[-1] == " is" and row[tokens.index(" France")] < row[tokens.index("The")]


def test_removing_any_token_lowers_paris_about_as_much(smol) -> None:
    delta = an.occlusion(smol, routes.CLEAN, " Paris")
    assert (delta < 0).all() and delta.max() / delta.min() > 0.8, delta  # "They all lower it about as much"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_words_a_step_shows_carry_the_tables_numbers(lang: str) -> None:
    with i18n.using(lang):
        shown = routes.numbers()
        copy = [step_text(routes.COPY, k) for k in range(1, len(routes.COPY.steps) + 1)]
        cause = [step_text(routes.CAUSE, k) for k in range(1, len(routes.CAUSE.steps) + 1)]
    assert shown["p_on"] == i18n.numbers.decimal(N["p_on"], 2, lang)
    assert shown["p_on"] in copy[5] and shown["p_off"] in copy[5]
    assert f"{N['lens_first']}" in copy[4] and f"{N['lens_stays']}" in copy[4]
    assert f"{N['n_heads']}" in copy[3] and f"{len(off_heads())}" in copy[3]
    assert f"{N['lives_until']}" in cause[2] and f"{N['lives_until'] + 1}" in cause[2]
    assert f"{N['mover_head']}" in cause[3] and f"{N['mover_layer']}" in cause[3]
    assert not any("{" in t or "}" in t for t in copy + cause)  # every placeholder filled
