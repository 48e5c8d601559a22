"""Formulas survive many navigations on a projector: presenting in dark with a SmolLM2 layer open, the
clicker walks the steps forward and back (formulas replaced in place between a page's parts and swapped
between pages); no step shows React's "Failed to execute 'removeChild' on 'Node'" in place of a formula,
and every node of every formula is React's own (a script that replaces nodes under React makes React's
next update of that formula fail).
"""

from __future__ import annotations

import pytest

from attention_core import pretrained

pytestmark = pytest.mark.e2e

CAPTION = """() => {
  const top = document.querySelector('.st-key-step-top [data-testid="stMarkdownContainer"] strong');
  return top ? top.innerText : '';
}"""

# Every element inside a formula carries React's fiber (a property __reactFiber$...): React made it. A node a
# script made in its place has none.
FOREIGN = """() => {
  const out = [];
  document.querySelectorAll('[data-testid="stMain"] .katex').forEach((k, i) => {
    k.querySelectorAll('*').forEach((el) => {
      if (!Object.keys(el).some((p) => p.startsWith('__reactFiber'))) out.push(`formula ${i}: <${el.tagName}>`);
    });
  });
  return out;
}"""

ERRORS = """() => {
  const text = document.body.innerText;
  return ['removeChild', 'insertBefore', 'NotFoundError'].filter((w) => text.includes(w));
}"""


def test_formulas_survive_the_clicker_forward_and_back(app) -> None:  # noqa: ANN001
    try:
        pretrained.load("SmolLM2-135M")
    except pretrained.ModelNotInstalledError as exc:
        pytest.skip(str(exc))
    app.page.emulate_media(color_scheme="dark")  # (the module's tab: App.forget sets light again after)
    app.open("projections", min_charts=1, present="1", real="smollm2", real_layer="3")
    seen, walked = [], 0
    for key in ["ArrowRight"] * 6 + ["ArrowLeft"] * 6:
        before = app.page.evaluate(CAPTION)
        app.page.evaluate("() => document.activeElement && document.activeElement.blur()")
        app.page.keyboard.press(key)
        app.poll(f"() => ({CAPTION})() && ({CAPTION})() !== {before!r}", what=f"the step after {before!r}")
        app.settle()
        walked += 1
        caption = app.page.evaluate(CAPTION)
        seen.append(caption)
        assert app.page.evaluate(ERRORS) == [], f"{caption}: an error in place of the page"
        assert app.exceptions() == [], caption
        assert app.page.evaluate(FOREIGN) == [], f"{caption}: nodes inside a formula that React did not make"
    assert walked == 12 and seen[-1].startswith("Step 3 of"), seen
    assert any("Softmax" in s for s in seen) and any("Encoder" in s or "encoder" in s for s in seen), seen
