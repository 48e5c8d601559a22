"""Helpers shared by the AppTest tests (tests/app/*/): open the app or a page (alone or through app.py),
the steps a person takes (go to a page, edit a data editor's cells through its real on_change, open "Share
and export"), read the Plotly figures a page drew, and compute what they must show straight from
attention_core. The pytest fixtures built on them live in tests/app/conftest.py.

Figures reach AppTest as the bytes of the chart element's proto (explorer.ui.chart: a components v2 element,
`at.get("bidi_component")`), read back with `explorer.ui.chart.spec_of`; arrays in them are Plotly's typed-array
encoding ({"dtype": "f8", "bdata": <base64>, "shape": "n, m"}), decoded by `array_of`.

`StopAtWrite` stops a run at a chosen write of the session's state, as a visitor's newer request does
(explorer.ui.state); `view_of` is what the keys of a view or a link hold, to compare a stopped run with a whole one.
"""

from __future__ import annotations

import ast
import asyncio
import base64
import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.runtime.state.safe_session_state import SafeSessionState
from streamlit.testing.v1 import AppTest

import attention_core as ac
from attention_core import pretrained
from explorer.export import notebook
from explorer.model import bridge
from explorer.model import example as exm
from explorer.model.example import DEFAULT_SENTENCE, MATRIX_NAMES, Example, conform
from explorer.ui import chart, page_table, state
from explorer.ui.state import SETTING_KEYS
from explorer.ui.state.classroom import VIEW_KEYS
from tests.core import models as core_models

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
PAGES = tuple(p.script for p in page_table.listed()[1:])  # every page after the first, in the menu's order


def page_scripts() -> dict[str, str]:
    """url_path -> page script (relative to the repo root), in the menu's order: the page table's rows."""
    return {p.url_path: p.script for p in page_table.listed()}


def open_app(sentence: str | None = None) -> AppTest:
    """app.py after its first run (the first page, with the frame), optionally on a given sentence."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    if sentence is not None:
        at.session_state["sentence"] = sentence
    at.run()
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


# ------------------------------------------------------------------ steps a person takes


def home(at: AppTest) -> AppTest:
    """Back to the first page through app.py (the frame: sentence box, messages, sidebar with Undo)."""
    at.switch_page("app_pages/sentence.py")
    at.run()
    assert not at.exception, at.exception
    return at


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, (page, at.exception)
    return at


def editor_key(at: AppTest, name: str, *parts: object) -> str:
    """The current key of the data editor of matrix `name` (keys carry a version: ed.<name>.<parts>.v<n>)."""
    prefix = ".".join(["ed", name, *map(str, parts)]) + ".v"
    return next(e.key for e in at.data_editor if e.key.startswith(prefix))


def edit_cells(at: AppTest, key: str, edited_rows: dict[str, dict[str, Any]]) -> AppTest:
    """Run `at` as if the browser had reported these edits of the data editor `key`: its on_change runs.

    The editor's widget state (the JSON the browser sends: edited_rows by row position and column id) is
    added to the widget states of the next run, where the browser's would be.
    """
    node = next(e for e in at.data_editor if e.key == key)
    states = at._tree.get_widget_states()
    value = {"edited_rows": edited_rows, "added_rows": [], "deleted_rows": []}
    states.widgets.append(WidgetState(id=node.proto.id, string_value=json.dumps(value)))
    at._tree.get_widget_states = lambda: states  # one run only: the run builds a new tree
    at.run()
    return at


def matrix(at: AppTest, name: str) -> np.ndarray:
    return np.array(at.session_state["m.matrices"][name], copy=True)


def editor_values(at: AppTest, key: str) -> np.ndarray:
    """What the data editor `key` shows (its input table)."""
    node = next(e for e in at.data_editor if e.key == key)
    return node.value.to_numpy(dtype=float)


def open_share(at: AppTest) -> AppTest:
    """Open the sidebar's "Share and export" (as a click on it does: its contents are drawn only while open)."""
    at.session_state[state.K_SHARE_OPEN] = True
    at.run()
    assert not at.exception, at.exception
    return at


# ------------------------------------------------------------------ the real models' layers


ENGINE = {"minilm": "all-MiniLM-L6-v2", "smollm2": "SmolLM2-135M"}


MODEL_TIMEOUT = 120  # seconds per AppTest run of a real model's page


CAPITAL = "The capital of France is"


CAT = "The cat sat on the mat because it was warm."


def need(key: str) -> pretrained.Model:
    """The engine's model behind the models table's `key`, or skip (locally) / fail (in CI) when it is not
    installed (tests.core.models.need)."""
    return core_models.need(ENGINE[key])


def page(name: str, model: str, sentence: str | None = None, **extra: object) -> AppTest:
    return model_page(name, model, sentence, MODEL_TIMEOUT, **extra)


def opened_in_explorer(key: str, sentence: str, layer: int, head: int) -> AppTest:
    """/head on (model, layer, head), then its "Open layer … in the explorer" button clicked."""
    at = open_app(sentence)
    for k, v in ((state.K_MODEL, key), (state.K_LAYER, layer), (state.K_MODEL_HEAD, head)):
        at.session_state[k] = v
    go(at, "app_pages/head.py")
    button = next(b for b in at.button if b.key == "bridge.open")
    assert button.label == f"Open layer {layer + 1} in the explorer"
    button.click().run()
    assert not at.exception, at.exception
    # In the browser the button then switches to /scores (tests/e2e/test_bridge_browser.py); AppTest does not
    # follow st.switch_page, so the test goes there itself.
    return go(at, "app_pages/scores.py")


def layer_example(key: str, layer: int, sentence: str = CAT) -> Example:
    return conform(Example(sentence=sentence).with_(**bridge.settings_of(key, layer)))


def layer_opened(key: str, layer: int, sentence: str = CAT) -> Example:
    """Layer `layer` of `key` as "Open layer L in the explorer" makes it the example (explorer.ui.state)."""
    ex = Example(sentence=sentence).with_(**bridge.settings_of(key, layer))
    return ex.with_(**exm.default_matrices(ex, exm.tokens_for(ex)[0]))


def example_of(at: AppTest) -> Example:
    """The session's current example, read from its session state."""
    settings = {name: at.session_state[key] for name, key in SETTING_KEYS.items()}
    return Example(**settings, **at.session_state["m.matrices"])


def messages(at: AppTest) -> list[str]:
    """Warnings and errors on the page, with the Markdown escapes of explorer.views.text.literal removed."""
    return [m.value.replace("\\", "").replace("\u2060", "") for m in [*at.warning, *at.error]]


def assert_identical(a: Example, b: Example) -> None:
    assert a.settings() == b.settings()
    for name in MATRIX_NAMES:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y) and x.tobytes() == y.tobytes(), name
    assert a.digest() == b.digest()


def open_at(page: str = "scores", **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.switch_page(f"app_pages/{page}.py")
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def chart_ids(at: AppTest) -> set[str]:
    return {str(getattr(el.proto, "id", "")).rsplit("-", 1)[-1] for el in at.get("bidi_component")}


def printed_numbers(nb: nbformat.NotebookNode, cell_has: str = "results = {") -> dict[str, np.ndarray]:
    """What the notebook printed after "== name (shape)" in its cell holding `cell_has`: each array, with its
    shape."""
    cell = next(c for c in nb.cells if c.cell_type == "code" and cell_has in c.source)
    text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    out = {}
    for block in text.split(notebook.PRINT_MARK)[1:]:
        head, _, body = block.partition("\n")
        name, shape = head.split(" ", 1)
        nums = re.findall(r"-?inf|nan|[-+]?\d+\.?\d*(?:e[-+]?\d+)?", body)
        values = np.array([float(x) for x in nums], dtype=np.float64)
        out[name] = values.reshape(ast.literal_eval(shape))
    return out


def errors(nb: nbformat.NotebookNode) -> list[str]:
    return [
        f"{o.ename}: {o.evalue}"
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]


def execute(nb: nbformat.NotebookNode, km) -> nbformat.NotebookNode:  # noqa: ANN001 - a KernelManager
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    nb.cells.insert(0, nbformat.v4.new_code_cell("%reset -f"))
    NotebookClient(nb, km=km, timeout=120, allow_errors=True).execute()
    return nb


# ------------------------------------------------------------------ links, files and exports


PATCH_CLEAN, PATCH_CORRUPT = "The capital of France is", "The capital of Italy is"  # /patching's pair


def charts_json(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="charts-data">(.*?)</script>', page, flags=re.S)
    assert m
    return json.loads(m.group(1))


def exported(what: tuple) -> tuple[str, list[str]]:
    """The HTML page and the notebook's cells (their text) of the toy example with the real-model experiment
    ``what`` (the share panel's tuple: page, model, sentence, ...)."""
    from explorer.ui import export_ui

    ex = conform(Example(sentence=what[2]))
    page = export_ui.html_bytes(ex, 0, 0, "https://example.org/app/patching?x=1", what).decode("utf-8")
    cells = json.loads(export_ui.notebook_bytes(ex, 0, 0, "", what))["cells"]
    return page, ["".join(c["source"]) for c in cells]


def exported_charts(page: str) -> dict[str, dict]:
    """The charts of an exported HTML page by their key: key -> the first variant's figure."""
    charts = charts_json(page)["charts"]
    keys = re.findall(r'data-key="([^"]+)"', page)
    return {key: charts[i][0] for i, key in enumerate(keys)}


def svg_modules(svg: str) -> np.ndarray:
    """The dark modules an SVG from segno draws, read from its path (M x y, h n, m dx dy): 1 = dark."""
    size = int(re.search(r'viewBox="0 0 (\d+) \d+"', svg).group(1))
    path = re.search(r'class="qrline"[^>]* d="([^"]+)"', svg).group(1)
    out, x, y = np.zeros((size, size), dtype=np.uint8), 0.0, 0.0
    for op, args in re.findall(r"([Mmh])([-\d. ]+)", path):
        nums = [float(v) for v in args.split()]
        if op == "M":
            x, y = nums
        elif op == "m":
            x, y = x + nums[0], y + nums[1]
        else:
            out[int(y - 0.5), int(x) : int(x + nums[0])] = 1
            x += nums[0]
    return out


def shown_svg(at: AppTest) -> str:
    (image,) = at.get("image")
    (img,) = image.proto.imgs
    head, data = img.url.split(",", 1)
    assert head == "data:image/svg+xml;base64"
    return base64.b64decode(data).decode("utf-8")


def pair_link(answer: int, wrong: int) -> dict[str, str]:
    """A link to /patching's pair PATCH_CLEAN / PATCH_CORRUPT with its two answers (token ids)."""
    return {
        "model": "smollm2",
        "sentence": PATCH_CLEAN,
        "corrupt": PATCH_CORRUPT,
        "answer": str(answer),
        "wrong": str(wrong),
    }


def import_script() -> None:
    """A page that imports the bytes a test put in session state, then shows the messages."""
    import streamlit as st

    from explorer import sharing
    from explorer.ui import frame, state
    from explorer.ui import share_panel as share_ui

    state.init()
    data = st.session_state.pop("test.upload", None)
    if data is not None:
        share_ui.import_json(data)
    st.session_state["test.export"] = sharing.to_json(state.current(), state.draws())
    frame.show_messages()


def import_session(upload: bytes | None = None, matrices: dict | None = None) -> AppTest:
    at = AppTest.from_function(import_script, default_timeout=TIMEOUT)
    if matrices is not None:
        at.run()
        at.session_state["m.matrices"] = matrices
    if upload is not None:
        at.session_state["test.upload"] = upload
    at.run()
    assert not at.exception, at.exception
    return at


def open_link(params: dict[str, str] | None = None, state: dict[str, object] | None = None) -> AppTest:
    """app.py opened from a link (`params`: its query parameters; `state`: session values already set), after
    its first run."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    for key, value in (state or {}).items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def run_async(coro: Any) -> Any:
    """asyncio.run(coro) in a thread of its own: a test worker that ran the browser tests has Playwright's
    event loop running in its main thread (pytest-xdist's worksteal hands a worker any test), where
    asyncio.run refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


class StopAtWrite:
    """Streamlit stops a run at a touch of the session's state when a newer request of the same visitor has
    come (SafeSessionState's yield check), and the write it stopped at is not made: a tab that reconnects
    to another replica sends two. Armed, the `n`-th write from then on stops the run so, once."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.left: int | None = None
        self.stopped = 0
        setitem = SafeSessionState.__setitem__

        def stopping(state: SafeSessionState, key: str, value: object) -> None:
            if self.left is not None and not key.startswith("$$"):  # Streamlit's own, after the script
                self.left -= 1
                if self.left == 0:
                    self.left, self.stopped = None, self.stopped + 1
                    raise StopException()
            setitem(state, key, value)

        monkeypatch.setattr(SafeSessionState, "__setitem__", stopping)

    def arm(self, n: int = 1) -> None:
        self.left = n

    def after(self, obj: object, name: str, monkeypatch: pytest.MonkeyPatch, n: int = 1) -> None:
        """Armed the first time `obj.name` returns: its caller's n-th write from there stops the run."""
        real, calls = getattr(obj, name), [0]

        def then_stop(*args: object, **kw: object) -> object:
            got = real(*args, **kw)
            calls[0] += 1
            if calls[0] == 1:
                self.arm(n)
            return got

        monkeypatch.setattr(obj, name, then_stop)


def view_of(at: AppTest) -> dict[str, object]:
    """What the keys a view or a link sets hold (plain values; the matrices follow from them): what a run
    stopped half-way must end with (StopAtWrite)."""
    got = {}
    for key in VIEW_KEYS:
        if key == "m.built":  # made from the rest (an Example, its matrices by identity)
            continue
        try:
            value = at.session_state[key]
        except KeyError:
            continue
        if value is None or isinstance(value, (bool, int, float, str, tuple)):
            got[key] = value
    return got
