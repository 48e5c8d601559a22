"""The one chart element: a Plotly figure drawn by a keyed st.components.v2 component that keeps its node.

`st.plotly_chart` gives a chart an identity computed from its figure, so a changed figure is unmounted and
mounted again (and drawn twice). This element uses the key as its identity: its DOM node stays on the page
across reruns and its script (assets/chart.js) redraws in place with `Plotly.react`.

What goes to the browser, once per chart and run (the component's `bytes`, UTF-8 JSON):
    {"f": {"data": [...], "layout": {...}},   the figure; numbers are Plotly's typed arrays {dtype, bdata}
     "n": "scores_raw",                        the PNG download's file name (from the key)
     "t": "templates-<hash>.json" | null,      the shared light/dark templates (file name), when the
                                               figure's own template was one of them (then it is cut)
     "a": {"l": title, "s": sentence},         what the chart shows, for a screen reader (views.describe)
     "tbl": [table, ...]}                      only when drawn as tables: the numbers, in the chart's place
A chart whose figure did not change is sent as the same bytes; the script compares them and does nothing
(Streamlit also replaces a repeated message of 10 KB or more by a reference).

Served by the app itself (never a CDN), from one folder of this process, each under a name that carries its
content's hash (so a browser may keep it for good: a new version is a new name):
    /_stcore/bidi-components/attention_explorer.chart/chart-<hash>.js, chart-<hash>.css   (assets/)
    /_stcore/bidi-components/attention_explorer.chart/plotly-<hash>.min.js       (the plotly package's copy)
    /_stcore/bidi-components/attention_explorer.chart/templates-<hash>.json
Streamlit serves them with "Cache-Control: public" and compresses them on every request; server.py serves
them once compressed, with a year-long immutable cache header (explorer.ui.chart.serve).
The chart follows the Streamlit theme in the browser (light or dark template, Streamlit's chart colours and
fonts), including a switch of theme, without a rerun.

`spec_of(proto)` reads a drawn figure back from the element's proto (AppTest: `at.get("bidi_component")`).
"""

from __future__ import annotations

import atexit
import base64
import functools
import hashlib
import json
import os
import shutil
import stat
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly

from explorer import cache
from explorer.cache import MB
from explorer.views.describe import Table, describe, title_of
from explorer.views.drawn import Drawn

NAME = "attention_explorer.chart"  # the component's name (its assets' URL path)
_HERE = Path(__file__).resolve().parent
_DEFAULT_HEIGHT = 450  # px, Plotly's and Streamlit's default when a figure sets none
_lock = threading.Lock()


def draw(fig: Drawn, key: str, *, clickable: bool = False, tables: bool = False) -> dict[str, Any] | None:
    """Draw `fig` (a figure with its words and tables, views.drawn) as the chart `key` (stable across
    reruns: the same node is redrawn in place).

    clickable: a click on a data point is reported, once, as the return value of the run it starts:
    {"curve": the trace's index, "point": its point index (a heatmap's [row, column])}; None otherwise.
    tables: the chart's numbers as tables in its place (views.describe), for a screen reader or exact values.
    """
    payload, height = encode(fig, key, clickable=clickable, tables=tables)
    return draw_encoded(payload, height, key, clickable=clickable)


def draw_encoded(payload: bytes, height: int, key: str, *, clickable: bool = False) -> dict[str, Any] | None:
    """Draw a chart encoded before (`encode`'s bytes and height) as the chart `key`; as `draw`."""
    if not clickable:
        _mount()(key=key, data=payload, width="stretch", height=height)
        return None
    result = _mount()(key=key, data=payload, width="stretch", height=height, on_click_change=_ignore)
    return _click(getattr(result, "click", None))


def _ignore() -> None:
    """The click's callback: nothing to do before the run (the page reads the click from draw's value)."""


def _click(raw: object) -> dict[str, Any] | None:
    """A click the browser reported, checked (it is visitor input): {"curve": int, "point": int or [int, int]}."""
    if not isinstance(raw, str) or len(raw) > 200:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("curve"), int):
        return None
    point = value.get("point")
    ok = isinstance(point, int) or (
        isinstance(point, list) and len(point) == 2 and all(isinstance(i, int) for i in point)
    )
    return {"curve": value["curve"], "point": point} if ok else None


# The encoded charts of the last pages drawn (a chart's bytes are 2-100 KB): every student following a class
# draws the teacher's charts, the same figures, on each move.
ENCODED_BYTES = 4 * MB


def encode(fig: Drawn, key: str, *, clickable: bool = False, tables: bool = False) -> tuple[bytes, int]:
    """The bytes sent for `fig` (a figure with its words and tables, views.drawn) and the height (px) reserved
    for it on the page. A figure encoded before, by any session, is not encoded again: its fingerprint (the
    figure's own data and layout, its words) finds the bytes; drawn as tables it is encoded each time."""
    print_ = None if tables else fingerprint(fig)
    if print_ is None:
        return _encode(fig, key, clickable=clickable, tables=tables)
    return _encoded(print_, key, clickable, _fig=fig)


def fingerprint(fig: Drawn) -> str | None:
    """A digest of everything `encode` reads of `fig` (its figure's traces and layout, its title and
    sentence: explorer.cache.digest_of); None when the figure holds a value the digest does not know (it is
    then encoded each time)."""
    try:
        return cache.digest_of((_spec(fig.figure), fig.title, fig.summary))
    except TypeError:
        return None


@cache.shared(max_bytes=ENCODED_BYTES)
def _encoded(fingerprint: str, key: str, clickable: bool, _fig: Drawn) -> tuple[bytes, int]:
    return _encode(_fig, key, clickable=clickable, tables=False)


def _encode(fig: Drawn, key: str, *, clickable: bool = False, tables: bool = False) -> tuple[bytes, int]:
    data, layout = _spec(fig.figure)
    templates = None
    if layout.get("template") in _known_templates().values():
        layout.pop("template")
        templates = _templates_file()
    height = layout.get("height")
    summary, numbers = describe(fig, tables)
    payload = {"f": {"data": data, "layout": layout}, "n": key.replace(".", "_"), "t": templates,
               "a": {"l": title_of(fig), "s": summary}}  # fmt: skip
    if clickable:
        payload["c"] = 1  # chart.js reports a click on a point (draw's return value)
    if tables and numbers:
        payload["tbl"] = [t.as_dict() for t in numbers]  # chart.js shows them in the chart's place
        height = table_height(numbers)
    try:
        text = json.dumps(_plain(payload), separators=(",", ":"), allow_nan=False, default=_refuse)
    except (TypeError, ValueError):  # something only Plotly's own encoder knows (NaN as a number, dates, ...)
        text = to_json_plotly(payload)
    return text.encode("utf-8"), int(height) if isinstance(
        height, int | float
    ) and height > 0 else _DEFAULT_HEIGHT


TABLE_ROW_PX = 31  # one row of a table as chart.css draws it
TABLE_MAX_PX = 720  # a longer table scrolls inside the chart's place


def table_height(numbers: list[Table]) -> int:
    """The height reserved for a chart's tables: each one's caption, header and rows, up to TABLE_MAX_PX."""
    px = 70 + sum(TABLE_ROW_PX * (len(t.rows) + 2) + 16 for t in numbers)
    return int(min(px, TABLE_MAX_PX))


# Plotly's typed arrays: numpy dtype -> plotly.js dtype (the ones plotly.js reads; 64-bit integers are narrowed
# first, as Plotly does); keys whose arrays Plotly sends as plain lists.
_TYPED = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4", "uint32": "u4"}
_TYPED |= {"float32": "f4", "float64": "f8"}
_AS_LISTS = {"geojson", "layer", "layers", "range"}


def _spec(fig: go.Figure) -> tuple[list[Any], dict[str, Any]]:
    """The figure's traces and layout as plain dicts, through Plotly's public per-object copies (under a
    millisecond for the /model grid); Figure.to_dict would also walk every key through Plotly's array
    checks."""
    return [trace.to_plotly_json() for trace in fig.data], fig.layout.to_plotly_json()


def _plain(value: Any, key: str | None = None) -> Any:
    """JSON-ready: numpy arrays under a dict key as Plotly's typed arrays {dtype, bdata, shape} (what
    plotly.io.to_json writes), in lists as lists; numpy scalars as numbers."""
    if isinstance(value, dict):
        return {k: _plain(v, k) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [v.tolist() if isinstance(v, np.ndarray) else _plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist() if key in _AS_LISTS else _typed(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def _typed(a: np.ndarray) -> Any:
    if a.size == 0:
        return a.tolist()
    if a.dtype.kind in "iu" and a.dtype.itemsize == 8:
        for small in (
            (np.int8, np.int16, np.int32) if a.dtype.kind == "i" else (np.uint8, np.uint16, np.uint32)
        ):
            info = np.iinfo(small)
            if info.min <= a.min() and a.max() <= info.max:
                a = a.astype(small)
                break
    name = _TYPED.get(a.dtype.name)
    if name is None:
        return a.tolist()
    a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
    spec = {"dtype": name, "bdata": base64.b64encode(a.tobytes()).decode("ascii")}
    if a.ndim > 1:
        spec["shape"] = ", ".join(str(n) for n in a.shape)
    return spec


def _refuse(value: Any) -> Any:
    raise TypeError(f"not JSON: {type(value).__name__}")


def text_of(proto: Any) -> dict[str, Any] | None:
    """What a chart element says of its chart: {"l": its title, "s": the sentence a screen reader reads,
    "tbl": its tables (when drawn as tables)}; None for another component."""
    if getattr(proto, "component_name", None) != NAME or proto.WhichOneof("data") != "bytes":
        return None
    payload = json.loads(proto.bytes.decode("utf-8"))
    return {**payload.get("a", {}), "tbl": payload.get("tbl")}


def spec_of(proto: Any) -> dict[str, Any] | None:
    """The figure (plain JSON: data and layout) that a chart element's proto carries; None for another
    component. Its template, when cut, is the light or dark one of explorer.views.figures."""
    if getattr(proto, "component_name", None) != NAME or proto.WhichOneof("data") != "bytes":
        return None
    return json.loads(proto.bytes.decode("utf-8"))["f"]


def key_of(proto: Any) -> str:
    """The key a chart was drawn with (its element id is "$$ID-<hash>-<key>")."""
    return proto.id.split("-", 2)[-1] if proto.id.startswith("$$ID-") else proto.id


# ------------------------------------------------------------------------------------------ registration


@functools.cache
def _known_templates() -> dict[str, Any]:
    """The templates the figure builders use (light and dark): sent once per tab as a file, not per chart."""
    from explorer.views import figures

    return {
        "light": figures.template_of(figures.Style()),
        "dark": figures.template_of(figures.Style(dark=True)),
    }


ASSETS_PREFIX = "attention-explorer-chart-"  # then the process's id and mkdtemp's letters


@functools.cache
def assets_dir() -> Path:
    """A private directory (this process's) holding the chart's assets, removed when the process exits.
    A stopped server leaves its own behind: uvicorn ends a SIGTERM by raising the signal again, which ends
    the process without its exit handlers (as SIGKILL does). So each new directory's creator first removes
    the ones whose process is gone."""
    remove_left_behind(Path(tempfile.gettempdir()))
    path = Path(tempfile.mkdtemp(prefix=f"{ASSETS_PREFIX}{os.getpid()}-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def remove_left_behind(parent: Path) -> list[Path]:
    """Remove the assets directories in `parent` of this user's processes that no longer run; those."""
    gone = []
    for path in parent.glob(f"{ASSETS_PREFIX}*-*"):
        pid = path.name.removeprefix(ASSETS_PREFIX).partition("-")[0]
        try:
            info = path.lstat()
            if not pid.isdigit() or info.st_uid != os.getuid() or not stat.S_ISDIR(info.st_mode):
                continue
            os.kill(int(pid), 0)  # no signal is sent: only whether the process exists
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
            gone.append(path)
        except OSError:  # another user's process (it runs), or the directory went meanwhile
            continue
    return gone


def _write(name: str, data: bytes) -> None:
    """Write an asset whole or not at all (a reader never sees half a file)."""
    part = assets_dir() / f".{name}.part"
    part.write_bytes(data)
    part.replace(assets_dir() / name)


# plotly.js's cartesian build, of the version the plotly package ships (npm plotly.js-cartesian-dist-min, MIT):
# every trace type the app draws (heatmap, scatter, bar) in a third of the full build's bytes, so a browser
# that has not yet compiled it evaluates it in about half the time (python -m benchmarks first_open --eval).
PLOTLY_JS = _HERE / "assets" / "vendor" / "plotly-cartesian.min.js"
TRACE_TYPES = frozenset({"bar", "box", "contour", "heatmap", "histogram", "histogram2d", "histogram2dcontour",
                         "image", "pie", "scatter", "scatterternary", "violin"})  # what that build draws  # fmt: skip


def _hashed(stem: str, suffix: str, data: bytes) -> str:
    """Write `data` to the assets directory as <stem>-<its hash><suffix>; the name."""
    name = f"{stem}-{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    _write(name, data)
    return name


def asset_names() -> dict[str, str]:
    """The assets' names, written once per process: css, js (chart.js naming plotly.js), plotly, templates.
    A name carries its content's hash, so every replica of the app gives the same file the same name."""
    with _assets_lock:  # the first sessions (and server.py's start) may ask at once: written once
        return _asset_names()


_assets_lock = threading.Lock()


@functools.cache
def _asset_names() -> dict[str, str]:
    plotly_js = PLOTLY_JS.read_bytes()
    names = {"plotly": _hashed("plotly", ".min.js", plotly_js)}
    text = json.dumps(_known_templates(), separators=(",", ":"), sort_keys=True)
    names["templates"] = _hashed("templates", ".json", text.encode("utf-8"))
    css, js = ((_HERE / "assets" / f"chart.{ext}").read_bytes() for ext in ("css", "js"))
    js = js.replace(b"__PLOTLY_FILE__", names["plotly"].encode("ascii"))
    # chart.css and chart.js share one name (the loader finds the script from the style sheet's address)
    stem = f"chart-{hashlib.sha256(css + js).hexdigest()[:16]}"
    for ext, data in (("css", css), ("js", js)):
        _write(f"{stem}.{ext}", data)
        names[ext] = f"{stem}.{ext}"
    return names


def _templates_file() -> str:
    """The templates file's name: its content's hash, so a changed template is a new URL (no stale cache)."""
    return asset_names()["templates"]


def _register(manager: Any) -> None:
    """Declare the assets directory on a component manager (what a pyproject.toml manifest would declare for
    an installed package; this app is not one) and the chart component itself."""
    from streamlit.components.v2.manifest_scanner import ComponentConfig, ComponentManifest

    base, name = NAME.split(".")
    folder = assets_dir()
    manager.register_from_manifest(
        ComponentManifest(base, "1", [ComponentConfig(name, folder.name)]), folder.parent
    )


def _mount() -> Any:
    """The component's mount function, with its assets declared on the running Streamlit runtime (each
    AppTest has a runtime, and a component manager, of its own)."""
    from streamlit.runtime import Runtime

    if Runtime.exists():
        manager = Runtime.instance().bidi_component_registry
        with _lock:
            if manager.get_component_path(NAME) is None:
                _register(manager)
                manager.register(
                    manager.build_definition_with_validation(
                        component_key=NAME, html=None, css=asset_names()["css"], js=_LOADER
                    )
                )
    return _component()


# The component's script, sent with every chart (so it is kept short): the first time, it imports
# chart-<hash>.js from the address Streamlit gave the element's style sheet (the <link> it puts in the element
# before the script runs, so the app's base URL is respected); chart.js then leaves its entry point on window,
# and every later call goes straight to it (no import, so no task and maybe a frame between the data and the
# draw). Inline, Streamlit imports this loader once per tab; as a file (js="chart.js") it would add a <script>
# tag and wait for its load event on every update.
_LOADER = (  # two lines: Streamlit takes a one-line string with a "/" for a file's path
    "export default c=>window.__explorerChart?window.__explorerChart(c):import(c.parentElement.querySelector(\n"
    "'link[href*=\"/attention_explorer.chart/chart-\"]').href.slice(0,-3)+'js').then(m=>m.default(c))"
)


@functools.cache
def _component() -> Any:
    import streamlit as st

    # isolate_styles=False: the chart is in the page's DOM, not a shadow root, so Plotly's own style sheet
    # (added to document.head) applies to it and the browser tests find it with document.querySelector.
    return st.components.v2.component(NAME, css=asset_names()["css"], js=_LOADER, isolate_styles=False)
