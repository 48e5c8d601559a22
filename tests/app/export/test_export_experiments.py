"""The Share link, the QR code and the take-home files of a real-model experiment: the link carries the pair and
the answers (corrupt=, answer=, wrong=; pair=, word=, other=), the HTML page adds a section with the experiment's
numbers and the charts it ran (the engine's numbers), the notebook the pair and the Python that repeats it."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

from attention_core import analysis, pretrained
from explorer.compute import patching
from explorer.export import experiments, qr
from explorer.model import pairs as pm
from explorer.ui import export_ui, state
from tests.app.fixtures import (
    array_of,
    charts_json,
    exported,
    open_share,
    opened_from_link,
    pair_link,
    shown_svg,
    svg_modules,
)

ROOT = Path(__file__).resolve().parents[3]
CLEAN, CORRUPT = "The capital of France is", "The capital of Italy is"
TIRED, WIDE = pm.PAIRS[0].first, pm.PAIRS[0].second


@pytest.fixture(scope="module")
def smol() -> pretrained.Model:
    from tests.core.models import need

    return need("SmolLM2-135M")


def params(link: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(link).query, keep_blank_values=True).items()}


def test_the_share_link_and_its_qr_code_carry_the_pair_and_the_answers(smol) -> None:  # noqa: ANN001
    paris, london = smol.tokenizer.encode(" Paris")[0], smol.tokenizer.encode(" London")[0]
    link = pair_link(paris, london)
    at = opened_from_link(link, "app_pages/patching.py", timeout=300)
    open_share(at).button(key="share.qr").click().run()
    assert not at.exception, at.exception
    shared = next(c.value for c in at.code if "sentence=" in c.value)
    assert {k: params(shared)[k] for k in link} == link
    np.testing.assert_array_equal(svg_modules(shown_svg(at)), qr.matrix(shared))  # the code is that link


def test_the_share_link_carries_a_minimal_pair_and_its_word(kit) -> None:  # noqa: ANN001
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["sentence"] = "The cat sat"
    at.run()
    at.switch_page("app_pages/minimal-pairs.py").run()
    at.button(key=f"pairs.example.{pm.PAIRS[0].name}").click().run()
    at.selectbox(key="pairs.word").select(2).run()  # "animal"
    shared = next(c.value for c in open_share(at).code if "sentence=" in c.value)
    got = params(shared)
    assert (got["sentence"], got["pair"], got["word"]) == (TIRED, WIDE, "2")
    assert "other" not in got  # /ablation's second sentence as it came: left out
    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in got.items():
        fresh.query_params[key] = value
    fresh.run()
    fresh.switch_page("app_pages/minimal-pairs.py").run()
    assert not fresh.exception, fresh.exception
    assert fresh.text_input(key=state.K_PAIR_OTHER).value == WIDE
    assert fresh.selectbox(key="pairs.word").value == 2


def test_a_bad_word_in_a_link_gets_a_message_and_is_left_out() -> None:
    got = pm.read_link({"pair": "x" * 900, "word": "٣", "other": "b"})
    assert got.pair == "x" * 500 and got.word is None and got.other == "b"
    assert got.messages == ["word= takes a token's position, 0 to 63; the link's value was left out."]
    assert pm.read_link({"word": "64"}).word is None and pm.read_link({"word": " 10 "}).word == 10
    assert pm.link_params("b", 3, "A cat was sitting on the rug.", "A cat was sitting on the rug.") == {
        "pair": "b", "word": "3"
    }  # fmt: skip


def test_the_files_add_the_patching_experiment_and_say_it_has_not_run_yet(smol) -> None:  # noqa: ANN001
    corrupt = "The capital of Japan is"  # a pair no other test sweeps (/patching's sweep Germany)
    what = ("patching", "smollm2", CLEAN, corrupt, None, None)
    page, nb = exported(what)
    answer, wrong = patching.answers("smollm2", CLEAN, corrupt, None, None)
    pair = analysis.patch_pair(smol, CLEAN, corrupt, answer, wrong)
    assert '<section id="patching">' in page and experiments.NOT_HELD in page
    assert f"<td>{pair.ld_clean:.4f}</td>" in page and f"<td>{pair.ld_corrupt:.4f}</td>" in page
    # The file opens with the experiment (after its title and imports), the explorer's example below it.
    first = nb[2]
    assert first.startswith("## What caused the answer?") and f"ANSWER, WRONG = {answer}, {wrong}" in first
    assert page.index('<section id="patching">') < page.index('<section id="tokens">')
    # The files of an experiment the app has run carry its sweeps: tests/app/pages/test_patching_page.py
    # exports them right after the page ran them (a sweep here too would double the minutes for no new check).


def test_the_files_add_the_minimal_pair_and_leave_out_one_that_cannot_be_made() -> None:
    from tests.core.models import need

    minilm = need("all-MiniLM-L6-v2")
    page, nb = exported(("minimal-pairs", "minilm", TIRED, WIDE, "it", 3))
    it = minilm.run(TIRED).tokens.index("it")
    got = analysis.pair_shift(minilm, TIRED, WIDE, it)
    charts = charts_json(page)["charts"]
    keys = re.findall(r'data-key="([^"]+)"', page)
    assert_allclose(array_of(charts[keys.index("pairs.first")][0]["data"][0]["z"]).T, got.a[3], atol=1e-7)
    assert f"got = analysis.pair_shift(model, first, second, {it})" in nb[2]
    (experiment,) = export_ui.experiments(("minimal-pairs", "minilm", TIRED, WIDE, "it", 3))
    ran: dict = {}
    exec(experiment.code, ran)  # noqa: S102 - the code the files give, run as a student would
    assert_allclose(ran["got"].moved, got.moved, atol=0)
    for bad in (
        ("minimal-pairs", "minilm", "a cat", "a big cat", None, 0),
        ("patching", "smollm2", "a", "", 1, 2),
    ):
        page, nb = exported(bad)
        assert '<section id="minimal-pairs">' not in page and '<section id="patching">' not in page
        assert not any(c.startswith("## What caused") or c.startswith("## Minimal") for c in nb)


def test_the_files_name_each_sweep_they_lack_and_only_those() -> None:
    """A file with one sweep says the other is missing; with both, says nothing is (a hand-built model: the
    rows do not depend on the model)."""
    from tests.core.models import circuit_model

    model = circuit_model("circuit (export rows)")
    pair = analysis.patch_pair(model, "x a y", "x b y", "a", "b")
    resid, heads = (analysis.patch(model, "x a y", "x b y", "a", "b", site) for site in ("resid", "head"))

    def lacking(r, h) -> list[str]:  # noqa: ANN001 - a sweep or None
        return [
            what for what, value in experiments.patching(pair, r, h).rows if experiments.NOT_HELD in value
        ]

    assert lacking(None, None) == ["residual-stream sweep", "head sweep"]
    assert lacking(resid, None) == ["head sweep"]
    assert lacking(None, heads) == ["residual-stream sweep"]
    assert lacking(resid, heads) == []
