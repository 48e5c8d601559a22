"""Predict, then reveal in Chromium: a link with a question opens the softmax step with the
weights hidden; the clicker's "next" key reveals them, and the next press walks on to the next step."""

from __future__ import annotations

import pytest
from conftest import OUT

pytestmark = pytest.mark.e2e

CAPTION = '.st-key-step-top [data-testid="stMarkdownContainer"] strong'


def press(app, key: str) -> None:  # noqa: ANN001 - the App helper of conftest
    app.page.evaluate("() => document.activeElement && document.activeElement.blur()")
    app.page.keyboard.press(key)


def caption(app) -> str:  # noqa: ANN001
    return app.page.locator(CAPTION).first.inner_text()


def revealed_by_the_clicker(app, chart: str, shots: str) -> str:  # noqa: ANN001
    """The question's screenshot, then the clicker's next key: the text of the answer, once `chart` is drawn."""
    app.page.screenshot(path=str(OUT / f"{shots}-question-1920.png"))
    press(app, "ArrowRight")
    app.poll(f"() => !!document.querySelector('.st-key-{chart} .js-plotly-plot')", what=f"the chart {chart}")
    app.settle(1)
    return app.page.locator(
        '[data-testid="stAlertContentSuccess"] [data-testid="stMarkdownContainer"]'
    ).inner_text()


def test_the_clicker_reveals_the_answer_then_walks_on(app) -> None:  # noqa: ANN001
    app.page.set_viewport_size({"width": 1920, "height": 1080})
    app.open("scores", min_charts=0, preset="pronoun", present="1", step="softmax", ask="7")
    app.poll("() => !!document.querySelector('.st-key-reveal button')", what="the Reveal button")
    assert "part 3 of 3: Softmax" in caption(app)
    assert "scores-weights" not in app.charts()
    question = app.page.locator(".st-key-ask-box h3").inner_text()
    assert question == "Predict: which word will “it” attend to most?"
    answer = revealed_by_the_clicker(app, "scores-weights", "reveal")
    assert "part 3 of 3: Softmax" in caption(app)  # the key revealed; it did not turn the page
    assert answer.startswith("Answer: “it” attends most to “animal” (weight ")
    w = app.z("scores-weights")
    assert answer.split("(weight ")[1].startswith(f"{w[7].max():.2f} in head 1)")
    assert int(w[7].argmax()) == 1  # "animal"
    app.page.screenshot(path=str(OUT / "reveal-answer-1920.png"))
    press(app, "ArrowRight")
    app.poll(
        "() => !!document.querySelector('.st-key-step-top') && "
        "!document.querySelector('.st-key-step-top').innerText.includes('part 3 of 3')",
        what="the next step",
    )
    assert app.exceptions() == []


def test_the_clicker_reveals_the_next_word_on_the_real_model(app) -> None:  # noqa: ANN001
    from attention_core import analysis, pretrained

    try:
        m = pretrained.load("SmolLM2-135M")
    except pretrained.ModelNotInstalledError as exc:  # CI installs it (tests/app/pages/test_model_pages.py)
        pytest.skip(str(exc))
    app.page.set_viewport_size({"width": 1920, "height": 1080})
    app.open("next-token", min_charts=0, model="smollm2", sentence="The capital of France is", present="1",
             ask="next")  # fmt: skip
    app.poll("() => !!document.querySelector('.st-key-reveal button')", what="the Reveal button")
    assert "next-bars" not in app.charts()
    question = app.page.locator(".st-key-ask-box h3").inner_text()
    assert question == "Predict: which word comes next after “The capital of France is”?"
    answer = revealed_by_the_clicker(app, "next-bars", "reveal-next")
    ids, probs = analysis.top_next_tokens(m.run("The capital of France is").logits[-1], k=1)
    assert answer == f"Answer: “␣Paris”, with probability {probs[0]:.2f} (T = 1)."
    assert app.labels("next-bars")[0] == "1. “␣Paris”"
    app.page.screenshot(path=str(OUT / "reveal-next-answer-1920.png"))
    assert app.exceptions() == []
