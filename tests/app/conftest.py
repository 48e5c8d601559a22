"""Helpers for the AppTest tests: open a page (alone or through app.py), read the Plotly figures a page drew,
and compute what they must show straight from attention_core.

Figures reach AppTest as the bytes of the chart element's proto (explorer.ui.chart: a components v2 element,
`at.get("bidi_component")`), read back with `explorer.ui.chart.spec_of`; arrays in them are Plotly's typed-array
encoding ({"dtype": "f8", "bdata": <base64>, "shape": "n, m"}), decoded by `array_of`.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention_core as ac
from explorer.model.example import DEFAULT_SENTENCE, Example, conform
from explorer.ui import chart, page_table

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60  # seconds per AppTest run: generous for a loaded 2-core CI machine

# The fixed URL paths of the pages (links and tests use them) and the charts each must draw.
PAGE_CHARTS: dict[str, tuple[str, ...]] = {
    "": ("sentence.embeddings",),
    "positional-encoding": ("pe.curves", "pe.matrix", "pe.similarity", "pe.e", "pe.p", "pe.x"),
    "projections": ("projections.w_q", "projections.w_k", "projections.w_v"),
    "scores": ("scores.raw", "scores.scaled", "scores.weights"),
    "heads": ("heads.grid", "heads.concat", "heads.output"),
    "token": ("token.weights", "token.stack"),
    "encoder": ("encoder.X (input)", "encoder.Output = LN(H + FFN(H))"),
    "why-scale": ("why.variance", "why.maxweight", "why.entropy"),
}
URL_PATHS = tuple(PAGE_CHARTS)


def page_scripts() -> dict[str, str]:
    """url_path -> page script (relative to the repo root), in the menu's order: the page table's rows."""
    return {p.url_path: p.script for p in page_table.listed()}


def open_app() -> AppTest:
    """app.py after its first run (the default page, as a person opening the app sees it)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    return at


def page_alone(script: str) -> AppTest:
    """One page script run without the frame: the session state initialised as app.py does, then the page."""
    source = (
        "import runpy\nfrom explorer.ui import state\n"
        f"state.init()\nrunpy.run_path({str(ROOT / script)!r}, run_name='__main__')\n"
    )
    return AppTest.from_string(source, default_timeout=TIMEOUT)


def model_page(
    name: str, model: str, sentence: str | None = None, timeout: float = TIMEOUT, **values: object
) -> AppTest:
    """app_pages/<name>.py alone after its run: the model picked, the sentence typed (when given) and any
    other session values set, as a person's earlier choices would be."""
    from explorer.ui import state

    at = page_alone(f"app_pages/{name}.py")
    at.default_timeout = timeout
    at.session_state[state.K_MODEL] = model
    if sentence is not None:
        at.session_state[state.K_SENTENCE] = sentence
    for key, value in values.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def messages_text(at: AppTest) -> str:
    """The page's info, warning and error messages as one text (Markdown escapes and word joiners gone)."""
    return (
        " ".join(m.value for m in [*at.info, *at.warning, *at.error]).replace("\\", "").replace("\u2060", "")
    )


def opened_from_link(link: dict[str, str], script: str, timeout: float = TIMEOUT) -> AppTest:
    """app.py opened from a link (`link`: its query parameters), then page `script`, after their runs."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    for key, value in link.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(script).run()
    return at


def open_page(url_path: str, *, via_app: bool, state: dict[str, Any] | None = None) -> AppTest:
    """Run one page: alone (AppTest.from_file on the page script) or from app.py then switch_page.

    `state` is put in session state before the (last) run, as a person's earlier choices would be.
    """
    script = page_scripts()[url_path]
    if via_app:
        at = open_app()
        at.switch_page(script)
    else:
        at = page_alone(script)
    for key, value in (state or {}).items():
        at.session_state[key] = value
    return at.run()


def charts(at: AppTest) -> dict[str, dict[str, Any]]:
    """Every chart on the page: its key (the id after the "$$ID-<hash>-" prefix) -> the figure it draws."""
    return dict(chart_specs(at))


def chart_specs(at: AppTest) -> list[tuple[str, dict[str, Any]]]:
    """(key, figure) of every chart on the page, in page order: the chart elements (explorer.ui.chart) and any
    st.plotly_chart (none is left; a page that drew one would still be read)."""
    out = []
    for el in at.get("bidi_component"):
        spec = chart.spec_of(el.proto)
        if spec is not None:
            out.append((chart.key_of(el.proto), spec))
    out += [(chart.key_of(el.proto), json.loads(el.proto.spec)) for el in at.get("plotly_chart")]
    return out


def array_of(value: Any) -> np.ndarray:
    """A Plotly data array (a plain list, or the typed-array dict with base64 "bdata") as numpy."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            arr = arr.reshape([int(s) for s in str(shape).split(",")])
        return arr.astype(np.float64)
    return np.array(value, dtype=np.float64)


def z_of(spec: dict[str, Any], trace: int = 0) -> np.ndarray:
    return array_of(spec["data"][trace]["z"])


def row_labels(spec: dict[str, Any], axis: str = "yaxis") -> list[str]:
    """The tick labels a heatmap shows along an axis (tick text on numeric positions)."""
    return list(spec["layout"][axis]["ticktext"])


@dataclass(frozen=True)
class Reference:
    """What the pages must show for an example, computed with attention_core directly."""

    ex: Example
    tokens: list[str]
    labels: list[str]
    emb: np.ndarray
    pe: np.ndarray
    x: np.ndarray
    trace: ac.AttentionTrace
    encoder: ac.EncoderTrace


def reference(
    sentence: str = DEFAULT_SENTENCE, mask_kind: str = "none", *, changed: bool = False, **settings: Any
) -> Reference:
    """The core's numbers for a sentence with the seeded default matrices (sinusoidal P, 1/sqrt(d_k)).

    changed=True: the sizes in `settings` were changed in the app after it opened on the defaults, so the
    matrices keep the values that still fit and only new cells are seeded (what `conform` promises).
    """
    if changed:
        ex = conform(conform(Example(sentence=sentence, mask_kind=mask_kind)).with_(**settings))
    else:
        ex = conform(Example(sentence=sentence, mask_kind=mask_kind, **settings))
    tokens = ac.tokenize(sentence)
    n = len(tokens)
    emb = ac.embed(tokens, ex.d_model, seed=ex.seed)
    pe = ac.positional_encoding(n, ex.d_model, kind="sinusoidal", base=10000.0)
    x = emb + pe
    mask = {"none": None, "causal": ac.causal_mask(n)}[mask_kind]
    scale = 1.0 / np.sqrt(ex.d_k)
    trace = ac.multi_head_attention(x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, mask=mask, scale=scale)
    enc = ac.encoder_layer(x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, ex.w1, ex.w2, mask=mask, scale=scale)
    return Reference(ex, tokens, ac.token_labels(tokens), emb, pe, x, trace, enc)


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers above, for the test modules (conftest modules are not imported by name)."""
    return SimpleNamespace(
        open=open_page,
        app=open_app,
        charts=charts,
        array=array_of,
        z=z_of,
        labels=row_labels,
        reference=reference,
        scripts=page_scripts,
        page_charts=PAGE_CHARTS,
    )


@pytest.fixture(autouse=True, scope="session")
def _full_error_details() -> None:
    """AppTest failures show the app's real error message (.streamlit/config.toml redacts it for visitors)."""
    from streamlit import config

    config.set_option("client.showErrorDetails", "full")
