"""/patching and /minimal-pairs in a real Chromium: a sweep started with the page's button draws the engine's
numbers, the address carries the pair, and while presenting each step (the residual sweep, the head sweep,
the two views of a minimal pair) fits one 1920x1080 screen with its own charts in view."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from numpy.testing import assert_allclose
from test_present_screen import CONTRAST, GEOMETRY, app_output
from test_real_model_browser import need, wait_query

from attention_core import analysis
from explorer.compute import patching
from explorer.model import pairs as pm

pytestmark = pytest.mark.e2e

CLEAN, CORRUPT = "The Eiffel Tower is in", "The Colosseum is in"  # 6 tokens: both sweeps in a few seconds
PATCH = {"model": "smollm2", "sentence": CLEAN, "corrupt": CORRUPT}
PAIR = {"sentence": pm.PAIRS[0].first, "pair": pm.PAIRS[0].second, "layer": "4", "model": "minilm"}
KINDS = ("resid", "head")  # the two sweeps, by the name of their chart (patching-resid, patching-head)
SWEEPS = ".st-key-patching-resid .js-plotly-plot, .st-key-patching-head .js-plotly-plot"


def run_sweeps(app, charts: int) -> None:  # noqa: ANN001 - the conftest's App
    """Press "Run the patching" (when the sweeps have not run on this server yet), then wait for ``charts``
    sweep charts on the page."""
    js = f"""() => document.querySelector('.st-key-patching-run button')
      || document.querySelectorAll('{SWEEPS}').length >= {charts}"""
    app.poll(js, what="the run button or the sweeps")
    button = app.page.locator(".st-key-patching-run button")
    if button.count():
        button.click()
    app.poll(
        f"() => document.querySelectorAll('{SWEEPS}').length >= {charts}", timeout=300, what="the sweeps"
    )
    app.settle()


def test_a_sweep_run_in_the_browser_draws_the_engines_numbers(app) -> None:  # noqa: ANN001
    smol = need("smollm2")
    answer, wrong = patching.answers("smollm2", CLEAN, CORRUPT, None, None)  # the page's default answers
    assert smol.token_strings([answer, wrong]) == [" Paris", " Rome"]
    # The engine's two sweeps run here while the browser waits for the page's own.
    with ThreadPoolExecutor(max_workers=1) as engine:
        want = {
            kind: engine.submit(analysis.patch, smol, CLEAN, CORRUPT, answer, wrong, kind) for kind in KINDS
        }
        app.open("patching", min_charts=0, **PATCH)
        run_sweeps(app, 2)
        for kind in KINDS:
            assert_allclose(app.z(f"patching-{kind}"), want[kind].result(), atol=1e-6)
    labels = app.labels("patching-resid", "xaxis")  # the positions whose tokens differ say both
    assert labels == ["The", "␣E/␣Col", "iffel/osse", "␣Tower/um", "␣is", "␣in"]
    wait_query(app, corrupt=CORRUPT, sentence=CLEAN)
    assert not app.page.locator(".st-key-patching-run").count()  # done: the button is gone
    assert app.exceptions() == []
    app.screenshot("patching-1280")


STEPS = (
    ("patching", "patching", PATCH, ["patching-resid"]),
    ("patching", "patching-heads", PATCH, ["patching-head"]),
    ("minimal-pairs", "minimal-pairs", PAIR, ["pairs-first", "pairs-second"]),
    ("minimal-pairs", "minimal-pairs-heads", PAIR, ["pairs-difference", "pairs-ranked"]),
)


@pytest.mark.parametrize(("path", "step", "query", "keys"), STEPS, ids=[s for _, s, _, _ in STEPS])
def test_each_step_fits_one_screen_with_its_charts_in_view(shared_app, path, step, query, keys) -> None:  # noqa: ANN001
    need(query["model"])
    app = shared_app.visit(path, 0, {"present": "1", **query}, step=step)  # a page's two steps: one session
    if path == "patching":
        run_sweeps(app, 1)  # the button is on the left, beside where the sweep goes
    app.settle(len(keys))
    got = app.page.evaluate(GEOMETRY)
    app.page.screenshot(path=str(app_output(f"present-{step}")))
    assert got["view"] == 1080
    assert got["height"] <= 1080 + 4, f"the step is {got['height']} px tall"
    assert [c["key"] for c in got["charts"]] == keys  # the step's own charts, nothing else
    for c in got["charts"]:
        assert c["top"] >= 0 and c["bottom"] <= 1080, c
    low = [(round(r, 2), t) for r, t in app.page.evaluate(CONTRAST) if r < 4.5]
    assert not low, f"axis text below 4.5:1 contrast: {low[:5]}"
    assert app.exceptions() == []
