"""The one-file HTML export, read as text (tests/e2e/test_export_browser.py opens it in Chromium offline)."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest
from plotly.offline import get_plotlyjs

from explorer.compute import pipeline
from explorer.export import html, walkthrough
from explorer.export.walkthrough import STEPS
from explorer.model import glossary
from explorer.model.example import Example, conform
from tests.app.fixtures import charts_json

MAX_BYTES_64 = 12_000_000  # the largest example (64 tokens, 8 heads, d_model 64, d_k 64, d_ff 256)


def page_of(**settings) -> tuple[walkthrough.Walkthrough, str]:
    ex = conform(Example(**settings))
    w = walkthrough.from_example(
        ex, pipeline.run(ex), query=2, head=0, link="https://example.org/app/scores?x=1"
    )
    return w, html.page(w)


def z_of(trace: dict) -> np.ndarray:
    z = trace["z"]
    if isinstance(z, dict):
        arr = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]))
        return arr.reshape([int(s) for s in str(z["shape"]).split(",")]).astype(np.float64)
    return np.array(z, dtype=np.float64)


def test_everything_is_inside_the_file() -> None:
    _, page = page_of()
    assert get_plotlyjs() in page  # plotly.js inline
    assert not re.search(r"""<(script|link|img|iframe)[^>]+(src|href)=["']?(https?:)?//""", page)
    hrefs = re.findall(r'href="([^"]*)"', page.replace(get_plotlyjs(), ""))
    assert hrefs == ["https://example.org/app/scores?x=1"]  # the link back to the app, and nothing else


def test_each_step_has_its_text_formula_and_charts() -> None:
    w, page = page_of(mask_kind="causal", norm_first=True)
    for step in STEPS:
        assert f'<section id="{step.name}">' in page and html.html.escape(step.title) in page
        for part in html.split_formula(w.formula(step.name)):
            assert html.html.escape(part, quote=False) in page  # the LaTeX, kept as the MathML's annotation
    assert page.count("<math") >= 20
    spec = charts_json(page)
    n_drawn = page.count('class="plot"')
    assert n_drawn == len(spec["charts"]) >= 20
    for label, value in w.settings():
        assert html.html.escape(value) in page, label


def test_the_charts_hold_the_apps_numbers_one_variant_per_head() -> None:
    w, page = page_of(n_heads=3, mask_kind="window", window=2, alibi=True)
    keys = re.findall(r'class="plot" id="chart-(\d+)" data-key="([^"]+)"', page)
    spec = charts_json(page)
    index = {key: int(i) for i, key in keys}
    weights = spec["charts"][index["scores.weights"]]
    assert len(weights) == 3
    for h in range(3):
        got = z_of(weights[h]["data"][0])
        shown = np.where(np.isneginf(w.numbers["S_masked"][h]), np.nan, w.numbers["A"][h])
        np.testing.assert_array_equal(got, shown)
    masked = spec["charts"][index["scores.masked"]][1]["data"][0]
    np.testing.assert_array_equal(
        z_of(masked), np.where(np.isneginf(w.numbers["S_masked"][1]), np.nan, w.numbers["S_masked"][1])
    )
    encoder = [k for k in index if k.startswith("encoder.")]
    assert len(encoder) == 8
    np.testing.assert_array_equal(z_of(spec["charts"][index["encoder.7"]][0]["data"][0]), w.numbers["Y"])


def test_what_people_typed_is_escaped() -> None:
    evil = '</script><script>window.pwned=1</script> <img src=x onerror=alert(1)> & "q" $x$'
    w, page = page_of(sentence=evil)
    assert "<script>window.pwned" not in page and "<img src=x" not in page
    assert html.html.escape(evil) in page  # the blockquote shows it, escaped
    block = re.search(r'id="charts-data">(.*?)</script>', page, flags=re.S).group(1)
    assert "<" not in block and ">" not in block  # nothing in the data can close its script block
    assert json.loads(block)


def test_a_link_that_is_not_http_is_not_a_link() -> None:
    ex = conform(Example())
    w = walkthrough.from_example(ex, pipeline.run(ex), link="javascript:alert(1)")
    assert "javascript:alert(1)" not in html.page(w).replace(get_plotlyjs(), "")


@pytest.mark.parametrize("pe_kind", ["learned", "none", "sinusoidal_split"])
def test_positional_kinds_without_curves_still_draw_p(pe_kind: str) -> None:
    _, page = page_of(pe_kind=pe_kind)
    assert ('data-key="pe.curves"' in page) == (pe_kind == "sinusoidal_split")
    assert 'data-key="pe.P"' in page and 'data-key="pe.X"' in page


def test_the_largest_example_stays_bounded() -> None:
    words = " ".join(f"w{i}" for i in range(70))
    _, page = page_of(sentence=words, d_model=64, n_heads=8, d_k=64, d_ff=256, mask_kind="causal")
    size = len(page.encode("utf-8"))
    assert size < MAX_BYTES_64, size
    assert "The tokens were cut to the first 64" in page


def test_the_page_ends_with_the_words_it_uses_from_the_glossary() -> None:
    """The glossary the pages read: its terms the page's text uses, each in plain words, in a last section."""
    _, page = page_of(mask_kind="causal")
    words = page.split('<section id="words">', 1)[1].split("</section>", 1)[0]
    for key in ("softmax", "qkv", "mask", "residual"):
        term = glossary.by_key(key)
        assert f"<dt>{html.html.escape(term.word)}</dt>" in words, key
        assert html.html.escape(term.plain, quote=False) in words or html.html.escape(term.plain) in words
