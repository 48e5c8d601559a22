"""Every step of the real-model pages, and of the explorer's pages with a real layer open, fits the
projector's screen in Chromium at 1920x1080, as the toy steps do (test_present_screen; the real-model pages'
steps in Spanish, whose words run longer than English): the page is one
screen, the step's own charts are in view; a grid taller than the screen (SmolLM2's 30 layers) scrolls in its
own box whose top, layer 1, is in view; no chart title runs past its chart (test_chart_titles checks the
same at 1280x800). Each model the page takes, the real models themselves: where two models draw a step with
the same charts, CI draws it with one of them and `pytest -m load` with both.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_present_screen import CONTRAST, app_output, no_title_cut
from test_present_screen import STEPS as TOY_STEPS
from test_real_model_browser import CAPITAL, need

from explorer import i18n
from explorer.ui import page_table, present

pytestmark = pytest.mark.e2e

# (url path, step, model, the chart keys the step shows); every step of the real-model pages' rows
REAL = (
    ("model", "model", "minilm", ["model-grid"]),
    ("model", "model", "smollm2", ["model-grid"]),
    *(
        (
            ("head", s, m, k)
            for m in ("minilm", "smollm2")
            for s, k in (
                ("head", ["head-w"]),
                ("head-cell", []),
                ("head-qkv", ["head-q", "head-k", "head-v"]),
            )
        )
    ),
    ("next-token", "next-token", "smollm2", ["next-bars"]),
    ("next-token", "next-token-needs", "smollm2", ["next-occlusion"]),
    ("next-token", "next-token-mask", "smollm2", ["next-mask"]),
    ("ablation", "ablation", "minilm", ["ablation-occlusion"]),
    ("ablation", "ablation", "smollm2", ["ablation-next"]),
    ("ablation", "ablation-layers", "minilm", ["ablation-shift"]),
    ("ablation", "ablation-layers", "smollm2", ["ablation-shift"]),
    ("ablation", "ablation-ranking", "minilm", ["ablation-ranking"]),  # ranked by the test (MiniLM: seconds)
    ("rollout", "rollout", "minilm", ["rollout-single", "rollout-rollout"]),
    ("rollout", "rollout", "smollm2", ["rollout-single", "rollout-rollout"]),
    ("logit-lens", "logit-lens", "smollm2", ["lens-grid"]),
    ("logit-lens", "logit-lens-follow", "smollm2", ["lens-follow"]),
    ("induction", "induction", "smollm2", ["induction-scores", "induction-pattern"]),
    ("induction", "induction-loss", "smollm2", ["induction-loss"]),
)
# The explorer's steps with a real layer open (MiniLM's layer 3, SmolLM2's layer 4): the toy test's steps.
LAYERS = {"minilm": "2", "smollm2": "3"}

# Each chart's box as seen: clipped by the box it scrolls in, if any; the formulas' boxes.
GEOMETRY = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const scroller = (el) => {
    for (let p = el.parentElement; p && p !== main; p = p.parentElement) {
      const s = getComputedStyle(p).overflowY;
      if ((s === 'auto' || s === 'scroll') && p.scrollHeight > p.clientHeight + 1) return p;
    }
    return null;
  };
  const charts = [...document.querySelectorAll('.js-plotly-plot')].map((el) => {
    const holder = el.closest('[class*="st-key-"]');
    const key = [...holder.classList].find((c) => c.startsWith('st-key-')).slice(7);
    const r = el.getBoundingClientRect(), box = scroller(el);
    const b = box ? box.getBoundingClientRect() : r;
    return {key, top: r.top, bottom: Math.min(r.bottom, b.bottom), boxTop: b.top, scrolls: !!box};
  });
  const formulas = [...main.querySelectorAll('.katex-display')].map((el) => {
    const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, right: r.right, width: el.scrollWidth, shown: el.clientWidth};
  });
  return {height: main.scrollHeight, view: window.innerHeight, width: window.innerWidth, charts, formulas};
}"""


def check_one_screen(app, keys: list[str] | None, name: str) -> dict:  # noqa: ANN001 - the conftest's App
    got = app.page.evaluate(GEOMETRY)
    app.page.screenshot(path=str(app_output(name)))
    assert got["view"] == 1080
    assert got["height"] <= 1080 + 4, f"the step is {got['height']} px tall"
    drawn = [c["key"] for c in got["charts"]]
    if keys is not None:
        assert drawn == keys, drawn  # the step's own charts, nothing else
    for c in got["charts"]:
        assert c["top"] >= c["boxTop"] - 1 >= -1 and c["bottom"] <= 1080, (
            c
        )  # in view; a scrolling one: its top
    for f in got["formulas"]:  # every formula in view, none running off the right edge
        assert f["top"] >= 0 and f["bottom"] <= 1080 and f["right"] <= got["width"], f
        assert f["width"] <= f["shown"] + 4, f  # (KaTeX draws a display 2 px wider than its box)
    low = [(round(r, 2), t) for r, t in app.page.evaluate(CONTRAST) if r < 4.5]
    assert not low, f"axis text below 4.5:1 contrast: {low[:5]}"
    assert app.exceptions() == []
    return got


def test_the_steps_below_are_every_step_of_the_real_model_pages() -> None:
    """REAL follows the page table: a step added to a real-model page is measured here too (test_patching_browser
    measures /patching and /minimal-pairs)."""
    elsewhere = ("patching", "minimal-pairs")
    declared = {(s.url_path, s.name) for s in present.STEPS if page_table.by_path(s.url_path).real_model}
    assert {(p, s) for p, s in declared if p not in elsewhere} == {(p, s) for p, s, *_ in REAL}


# A step both models draw with the same charts is drawn with one of them in CI (the two alternate) and with
# both under `pytest -m load`; one model's steps run one after the other, in one session (shared_app.visit).
BOTH_UNDER_LOAD = {
    ("head", "minilm"),
    ("head-cell", "smollm2"),
    ("head-qkv", "minilm"),
    ("ablation-layers", "minilm"),
    ("rollout", "minilm"),
}
BY_MODEL = [
    pytest.param(
        *row, id=f"{row[1]}-{row[2]}", marks=[pytest.mark.load] if row[1:3] in BOTH_UNDER_LOAD else []
    )
    for row in sorted(REAL, key=lambda row: row[2])
]


@pytest.mark.parametrize(("path", "step", "model", "keys"), BY_MODEL)
def test_each_real_model_step_fits_one_screen(shared_app, path: str, step: str, model: str, keys) -> None:  # noqa: ANN001
    need(model)
    sentence = CAPITAL if model == "smollm2" else "The cat sat on the mat because it was warm."
    app = shared_app  # one session a model: its link opened once, each step visited in it
    app.visit(path, 0, {"present": "1", "model": model, "sentence": sentence, "lang": "es"}, step=step)
    if step == "ablation-ranking":
        with i18n.using("es"):
            rank = i18n._("Rank the heads")
        app.page.locator(".st-key-ablation-rank").get_by_role("button", name=rank).click()
        app.poll("() => !!document.querySelector('.st-key-ablation-ranking .js-plotly-plot')", timeout=300,
                 what="the ranking")  # fmt: skip
    app.settle(len(keys))
    if keys:  # the step's charts keep their titles whole
        no_title_cut(app, f"{step}-{model}-present")
    got = check_one_screen(app, keys, f"present-real-{step}-{model}")
    if step == "head-cell":  # the step is its formula: q·k, the scaled score, the softmax
        assert len(got["formulas"]) >= 3, got["formulas"]
    if path == "model":  # MiniLM's six layers fit; SmolLM2's thirty scroll in the grid's box
        assert got["charts"][0]["scrolls"] == (model == "smollm2"), got["charts"]


# Each step with a layer of one model in CI (the two alternate), with both under `pytest -m load`; one
# layer's steps one after the other, in one session.
LAYER_STEPS = [
    pytest.param(
        path,
        step,
        keys,
        model,
        id=f"{model}-{path or 'sentence'}-{step}",
        marks=[pytest.mark.load] if (i + m) % 2 else [],
    )
    for m, model in enumerate(LAYERS)
    for i, (path, step, keys) in enumerate(TOY_STEPS)
]


@pytest.mark.parametrize(("path", "step", "keys", "model"), LAYER_STEPS)
def test_each_explorer_step_with_a_real_layer_fits_one_screen(
    shared_app, path: str, step: str, keys, model: str
) -> None:  # noqa: ANN001
    need(model)
    app = shared_app  # one session a layer
    if path == "positional-encoding":  # a trained layer adds no P: its input X alone
        keys = ["pe-x"]
    link = {"present": "1", "real": model, "real_layer": LAYERS[model]}
    app.visit(path, len(keys or [1] * 4), link, **({"step": step} if step else {}))
    app.settle(len(keys or [1] * 4))
    if path != "why-scale":  # (a page of random vectors, not of the layer)
        assert "Real model: " in app.page.inner_text('[data-testid="stMain"]')  # the layer is open
    name = f"{path or 'sentence'}{'-' + step if step else ''}-{model}"
    no_title_cut(app, f"{name}-layer-present")
    got = check_one_screen(app, keys, f"present-layer-{name}")
    if keys is None:
        assert len(got["charts"]) == 4, got["charts"]  # the encoder's four stages


BUTTONS = """() => ['notebook', 'html', 'json', 'csv'].map((k) => {
  const b = document.querySelector(`.st-key-share-${k} button`);
  return b ? b.getBoundingClientRect().height : null;
})"""


def open_share_panel(app, query: dict) -> list[float]:  # noqa: ANN001 - the conftest's App
    """The sidebar's download buttons' heights, the share panel opened, on /scores."""
    app.open("scores", min_charts=1, **query)
    expand = app.page.locator('[data-testid="stExpandSidebarButton"]')
    if expand.count():  # presenting: the sidebar starts collapsed
        expand.first.click()
    app.page.get_by_text("Share and export").first.click()
    app.poll("() => !!document.querySelector('.st-key-share-csv button')", what="the share panel's buttons")
    app.settle()
    return app.page.evaluate(BUTTONS)


def test_presenting_the_sidebars_download_buttons_are_as_tall_as_on_a_laptop(app) -> None:  # noqa: ANN001
    """The projector's larger type is for the room; the sidebar is the teacher's: its download buttons keep
    the laptop's size, two lines at most (their labels wrapped to four lines)."""
    laptop = open_share_panel(app, {})
    presenting = open_share_panel(app, {"present": "1"})
    app.screenshot("present-sidebar")
    assert None not in laptop and None not in presenting, (laptop, presenting)
    assert max(presenting) <= max(laptop) * 1.15, (laptop, presenting)  # two lines at most, as on the laptop


def test_on_a_laptop_the_switches_scroll_in_a_box_above_their_effect(app) -> None:  # noqa: ANN001
    """At 1280x800, SmolLM2's 30 layers of switches scroll in a box: the chart of their effect is within the
    first two screens, not 2,600 px down."""
    need("smollm2")
    app.page.set_viewport_size({"width": 1280, "height": 800})
    app.open("ablation", min_charts=2, model="smollm2", sentence=CAPITAL)
    top = app.page.evaluate(
        "() => document.querySelector('.st-key-ablation-next .js-plotly-plot').getBoundingClientRect().top"
        " + document.querySelector('[data-testid=\"stMain\"]').scrollTop"
    )
    layers = app.page.locator('.st-key-ablation-switches [role="toolbar"]').count()
    app.screenshot("ablation-1280")
    assert layers == 30  # every layer's switches, in the box
    assert top < 2 * 800, f"the effect's chart starts {top:.0f} px down"
    assert app.exceptions() == []


# Every text a student reads, at the size it is drawn (a chart's text at its font size times any scale Plotly
# gives it: bar labels shrunk to their bars), in the lesson's bar and in the charts; the boxes of the legend
# and of the x axis's title.
_READ = """() => {
  const out = [];
  document.querySelectorAll('.js-plotly-plot text').forEach((t) => {
    const r = t.getBoundingClientRect();
    if (!t.textContent.trim() || r.width === 0) return;
    const m = t.getScreenCTM();
    out.push([parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b), t.textContent.slice(0, 24)]);
  });
  document.querySelectorAll('.st-key-lesson-bar p').forEach((p) => {
    if (p.innerText.trim()) out.push([parseFloat(getComputedStyle(p).fontSize), p.innerText.slice(0, 24)]);
  });
  const box = (sel) => { const e = document.querySelector(sel); if (!e) return null;
    const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  return {texts: out, legend: box('.js-plotly-plot .legend'), xtitle: box('.js-plotly-plot .g-xtitle text'),
          picked: Object.fromEntries([...document.querySelectorAll('[data-testid="stSelectbox"]')].map(
            (s) => [s.querySelector('label').innerText.trim(), s.querySelector('input').value]))};
}"""


def test_the_copy_lessons_experiment_reads_from_the_back_row(shared_app) -> None:  # noqa: ANN001
    """Presenting the copy lesson's last step (/ablation): every number and word at 18 px or more (the bars'
    0.640 and 0.456 were printed at 11 px), the legend clear of the axis title, and the layer and head pickers
    on the experiment's layers (the first induction head), not on layer 1."""
    from explorer.lessons import routes
    from explorer.views.style import PRESENT_TICK_PX

    need("smollm2")
    route = routes.COPY
    k = len(route.steps)
    app = shared_app.open(route.steps[k - 1].page, min_charts=1, present="1", lesson=route.name, step=str(k))
    app.poll(
        "() => !!document.querySelector('.st-key-ablation-next .legend')", what="the bars and their legend"
    )
    got = app.page.evaluate(_READ)
    app.page.screenshot(path=str(app_output("present-lesson-copy-6")))
    small = [(round(px, 1), text) for px, text in got["texts"] if px < PRESENT_TICK_PX - 0.5]
    assert not small, f"text under {PRESENT_TICK_PX} px at 1920x1080: {small}"
    assert any(text.startswith("0.640") for _, text in got["texts"]), got["texts"]
    (lx0, ly0, lx1, ly1), (tx0, ty0, tx1, ty1) = got["legend"], got["xtitle"]
    assert lx1 <= tx0 or tx1 <= lx0 or ly1 <= ty0 or ty1 <= ly0, got  # the two boxes do not meet
    layer, head = routes.FIRST_HEAD
    assert (got["picked"]["Layer"], got["picked"]["Head"]) == (f"layer {layer}", f"head {head}"), got[
        "picked"
    ]


# The decoder-only steps a class measured past 1080 px (1116 to 1168) with MiniLM chosen: the page says it
# shows SmolLM2 instead, and still fits.
DECODER_STEPS = (
    ("logit-lens", "logit-lens-follow", ["lens-follow"]),
    ("induction", "induction-loss", ["induction-loss"]),
)


@pytest.mark.parametrize(("path", "step", "keys"), DECODER_STEPS, ids=[s for _, s, _ in DECODER_STEPS])
def test_a_decoder_step_with_minilm_chosen_fits_one_screen(shared_app, path: str, step: str, keys) -> None:  # noqa: ANN001
    need("smollm2")
    link = {"present": "1", "model": "minilm", "sentence": CAPITAL, "lang": "es"}
    app = shared_app.visit(path, 0, link, step=step)
    app.settle(len(keys))
    check_one_screen(app, keys, f"present-real-{step}-minilm-chosen")


def test_the_cause_lessons_first_step_opens_with_its_chart_drawn(shared_app) -> None:  # noqa: ANN001
    """A link to the cause lesson's first step, presenting: the causal mask chart it talks about is drawn (a
    class saw it blank once), for the step's sentence, one row a token."""
    from explorer.lessons import routes

    need("smollm2")
    route = routes.CAUSE
    app = shared_app.open(route.steps[0].page, min_charts=1, present="1", lesson=route.name, step="1")
    app.poll(
        "() => !!document.querySelector('.st-key-next-mask .js-plotly-plot')", what="the causal mask chart"
    )
    app.settle(1)
    rows = app.labels("next-mask")
    assert rows[-1].replace("␣", " ").strip() == routes.CLEAN.split()[-1], rows
    z = app.z("next-mask")
    assert z.shape == (len(rows), len(rows)) and np.isfinite(np.diag(z)).all(), z
