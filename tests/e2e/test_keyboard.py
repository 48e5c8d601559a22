"""A lesson with the keyboard alone, in Chromium: no click, no mouse, only Tab, Shift+Tab, arrows, Space and
Enter. Type a sentence, change the mask, open a head from the /model grid, switch it off, then step through
while presenting. Wherever the focus lands on the way, a focus ring shows it (3:1 against the page, the
contrast WCAG asks of a control's outline); also in dark and presenting.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import LAPTOP

import attention_core as ac
from explorer.ui import present

pytestmark = pytest.mark.e2e

LIGHT_BG, DARK_BG = "#ffffff", "#0e1117"  # .streamlit/config.toml

# The focused element, described (for messages) and tested by a predicate given as a JS function body over `e`.
FOCUSED = """() => { const e = document.activeElement; if (!e) return 'nothing';
  const t = e.closest('[data-testid]');
  return `${e.tagName} role=${e.getAttribute('role')} label=${e.getAttribute('aria-label')} ` +
    `text=${(e.innerText || e.value || '').slice(0, 40)} in=${t ? t.dataset.testid : ''}`; }"""

# The ring around the focused element: the outline of the element or of the nearest ancestor that draws one
# for it (a text box's frame, a switch's label), unless an ancestor clips it away, or a border drawn over it
# (::after, a chart's); and the page's background.
RING = """() => {
  const bg = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor;
  const clipped = (el, grow) => {
    const r = el.getBoundingClientRect();
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const q = a.getBoundingClientRect();
      if (r.left - grow < q.left - 1 || r.right + grow > q.right + 1 || r.top - grow < q.top - 1
          || r.bottom + grow > q.bottom + 1) return true;
    }
    return false;
  };
  const ring = (el) => {
    const c = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    const w = parseFloat(c.outlineWidth);
    if (c.outlineStyle !== 'none' && w >= 2 && !clipped(el, Math.max(0, w + (parseFloat(c.outlineOffset) || 0)))) {
      return {color: c.outlineColor, width: w, w: box.width, h: box.height, on: el.tagName};
    }
    const after = getComputedStyle(el, '::after');
    const bw = parseFloat(after.borderTopWidth);
    if (after.content !== 'none' && after.borderTopStyle !== 'none' && bw >= 2) {
      return {color: after.borderTopColor, width: bw, w: box.width, h: box.height, on: el.tagName + '::after'};
    }
    return null;
  };
  let el = document.activeElement;
  for (let i = 0; el && i < 6; i++, el = el.parentElement) {
    const got = ring(el);
    if (got) return {...got, bg};
  }
  return null;
}"""


def rgb(css: str) -> tuple[float, ...]:
    if css.startswith("#"):
        return tuple(int(css[i : i + 2], 16) for i in (1, 3, 5))
    return tuple(float(v) for v in css[css.index("(") + 1 : css.index(")")].split(",")[:3])


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two CSS colours (#rrggbb or rgb(...))."""

    def lum(c: str) -> float:
        s = np.array(rgb(c)) / 255
        lin = np.where(s <= 0.03928, s / 12.92, ((s + 0.055) / 1.055) ** 2.4)
        return float(lin @ [0.2126, 0.7152, 0.0722])

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def tab_to(app, test: str, *, back: bool = False, limit: int = 160) -> str:  # noqa: ANN001 - the conftest's App
    """Press Tab (Shift+Tab with back=True) until the focused element `e` passes `test` (a JS expression)."""
    js = f"() => {{ const e = document.activeElement; return !!e && !!({test}); }}"
    for _ in range(limit):
        app.page.keyboard.press("Shift+Tab" if back else "Tab")
        if app.page.evaluate(js):
            return app.page.evaluate(FOCUSED)
    raise AssertionError(
        f"{limit} presses of Tab did not reach {test}; the focus is on {app.page.evaluate(FOCUSED)}"
    )


def ring_shows(app, where: str) -> None:  # noqa: ANN001
    ring = app.page.evaluate(RING)
    assert ring is not None, f"no focus ring on {app.page.evaluate(FOCUSED)} ({where})"
    assert ring["width"] >= 2 and ring["w"] > 0 and ring["h"] > 0, ring
    assert contrast(ring["color"], ring["bg"]) >= 3.0, f"{where}: ring {ring['color']} on {ring['bg']}"


def nav_link(title: str) -> str:
    return f"e.closest('.st-key-nav') && e.tagName === 'A' && e.innerText.trim().endsWith({title!r})"


def go_by_keys(app, title: str, path: str) -> None:  # noqa: ANN001
    """The frame's menu, from wherever the focus is below it: Shift+Tab up to the page's link, Enter."""
    tab_to(app, nav_link(title), back=True)
    ring_shows(app, f"the menu's link to {title}")
    app.page.keyboard.press("Enter")
    app.poll("p => location.pathname.replace(/\\/+$/, '') === p", f"/{path}", what=f"/{path}")
    app.settle(min_charts=1)


def caption_is(app, want: str) -> None:  # noqa: ANN001
    app.poll(
        "want => { const s = document.querySelector('.st-key-step-top strong'); return !!s && s.innerText === want; }",
        want,
        what=want,
    )


def test_a_lesson_with_the_keyboard_alone(app) -> None:  # noqa: ANN001
    app.page.set_viewport_size(LAPTOP)
    app.open("", min_charts=1)

    # The first Tab: the skip link, shown while focused; Enter puts the focus on the first chart.
    app.page.keyboard.press("Tab")
    assert app.page.evaluate("() => document.activeElement.id") == "ae-skip"
    box = app.page.locator("#ae-skip").bounding_box()
    assert box is not None and box["y"] >= 0 and box["height"] > 10, "the skip link is not shown when focused"
    ring_shows(app, "the skip link")
    app.page.keyboard.press("Enter")
    assert app.page.evaluate("() => document.activeElement.dataset.testid") == "explorerChart"
    assert app.page.evaluate("() => !!document.activeElement.closest('.st-key-sentence-embeddings')")

    # Type a sentence.
    sentence = "The dog chased the cat because it was hungry"
    tab_to(app, "e.getAttribute('aria-label') === 'Sentence'", back=True)
    ring_shows(app, "the sentence box")
    app.page.keyboard.press("Control+A")
    app.page.keyboard.type(sentence)
    app.page.keyboard.press("Enter")
    app.wait_labels("sentence-embeddings", ac.token_labels(ac.tokenize(sentence)))

    # Change the mask: the radio group's arrow keys pick "causal".
    go_by_keys(app, "Scores, mask, softmax", "scores")
    tab_to(app, "e.type === 'radio' && e.closest('[role=radiogroup]').getAttribute('aria-label') === 'Mask'")
    ring_shows(app, "the mask's radio buttons")
    app.page.keyboard.press("ArrowDown")
    n = len(ac.tokenize(sentence))
    masked = """() => { const el = document.querySelector('.st-key-scores-weights .js-plotly-plot');
      return !!el && el.data.some((t) => t.meta && t.meta.masked_value !== undefined); }"""  # the grey cells
    app.poll(masked, what="the weights under the causal mask (a later key masked)")
    app.settle()
    weights = app.z("scores-weights")
    assert weights.shape == (n, n)
    assert np.isnan(weights[np.triu_indices(n, 1)]).all(), "a later key is not masked"
    np.testing.assert_allclose(np.nansum(weights, axis=1), 1.0, atol=1e-12)

    # Open a head: the /model grid takes the focus, the arrow keys move between heads, Enter opens one.
    go_by_keys(app, "Every layer and head", "model")
    tab_to(app, "e.getAttribute('role') === 'application'")
    ring_shows(app, "the head grid")
    app.screenshot("keyboard-model-grid")
    label = app.page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert "arrow keys" in label and "Enter" in label, label
    for key in ("ArrowRight", "ArrowRight", "ArrowDown"):
        app.page.keyboard.press(key)
    said = app.page.evaluate("() => document.activeElement.querySelector('[aria-live]').textContent")
    assert said.startswith("layer 2, head 3: "), said
    cursor = app.page.locator(".st-key-model-grid .ae-chart-cursor").bounding_box()
    assert cursor is not None and cursor["width"] > 10 and cursor["height"] > 10, "no frame on the head"
    app.page.keyboard.press("Enter")
    app.poll("() => location.pathname.endsWith('/head')", what="/head")
    app.settle(min_charts=1)
    main = "() => document.querySelector('[data-testid=\"stMain\"]').innerText"
    assert "Layer 2, head 3: " in app.page.evaluate(main)

    # Switch it off: layer 2's switches are a toolbar of toggle buttons; Space switches head 3 off.
    go_by_keys(app, "Switch heads off", "ablation")
    on_before = app.page.locator('[role="toolbar"][aria-label="layer 2"] button[aria-pressed="true"]').count()
    assert on_before == 12
    # Tab enters a toolbar at its first button and leaves it at the next; the arrows move inside it.
    tab_to(app, "e.closest('[role=toolbar][aria-label=\"layer 2\"]') && e.innerText.trim() === '1'")
    for _ in range(2):
        app.page.keyboard.press("ArrowRight")
    assert app.page.evaluate("() => document.activeElement.innerText.trim()") == "3"
    ring_shows(app, "a head's switch")
    app.screenshot("keyboard-ablation-switch")
    app.page.keyboard.press("Space")
    app.poll(
        """() => { const b = [...document.querySelectorAll('[role=toolbar][aria-label="layer 2"] button')]
             .find((x) => x.innerText.trim() === '3'); return !!b && b.getAttribute('aria-pressed') === 'false'; }""",
        what="head 3 of layer 2 switched off",
    )
    app.settle()
    assert "Heads switched on (71 of 72)" in app.page.evaluate(main)

    # Step through while presenting: the switch in the sidebar, then the step-through's links and the arrows.
    tab_to(app, "e.getAttribute('role') === 'switch' && e.getAttribute('aria-label') === 'Presentation mode'",
           back=True)  # fmt: skip
    ring_shows(app, "the presentation switch")
    app.page.keyboard.press("Space")
    caption_is(app, present.caption(present.step_index("ablation")))
    app.settle()
    tab_to(app, "e.closest('.st-key-step-next') && e.tagName === 'A'")
    ring_shows(app, "the next step's link")
    app.screenshot("keyboard-presenting-next")
    app.page.keyboard.press("Enter")
    here = present.step_index("ablation")
    caption_is(app, present.caption(here + 1))  # the step after /ablation's first: its second part
    assert present.place(here + 1)[::2] == (present.place(here)[0], present.place(here)[2] + 1)
    app.settle()
    app.page.keyboard.press("ArrowLeft")  # the clicker's "back", the focus on no text box
    caption_is(app, present.caption(present.step_index("ablation")))
    assert app.exceptions() == []


@pytest.mark.parametrize(
    ("mode", "context", "query", "bg"),
    [
        ("dark", {"viewport": LAPTOP, "color_scheme": "dark"}, {}, DARK_BG),
        ("presenting", {"color_scheme": "light"}, {"present": "1"}, LIGHT_BG),
    ],
)
def test_the_focus_ring_shows_in_dark_and_presenting(
    app, mode: str, context: dict, query: dict, bg: str
) -> None:  # noqa: ANN001
    # The module's tab (App.forget leaves it 1920x1080 and light), set as the context would be made.
    if "viewport" in context:
        app.page.set_viewport_size(context["viewport"])
    app.page.emulate_media(color_scheme=context["color_scheme"])
    app.open("scores", min_charts=1, **query)
    assert (
        contrast(
            app.page.evaluate(
                "() => getComputedStyle(document.querySelector('[data-testid=\"stApp\"]')).backgroundColor"
            ),
            bg,
        )
        < 1.01
    )
    app.page.keyboard.press("Tab")
    ring_shows(app, f"{mode}: the skip link")
    for what, test in (
        ("the sentence box", "e.getAttribute('aria-label') === 'Sentence'"),
        ("a radio button", "e.type === 'radio'"),
        ("a switch", "e.getAttribute('role') === 'switch'"),
    ):
        tab_to(app, test)
        ring_shows(app, f"{mode}: {what}")
        app.screenshot(f"keyboard-{mode}-{what.split()[-1]}")
