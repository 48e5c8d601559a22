"""The chart element (explorer/chart): what it sends for a figure, and what AppTest reads back from a page."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from numpy.testing import assert_allclose
from plotly.io.json import to_json_plotly

from explorer.ui import chart
from explorer.views import figures as fg
from explorer.views.drawn import Drawn


def decoded(payload: bytes) -> dict:
    return json.loads(payload.decode("utf-8"))


def drawn(fig: go.Figure) -> Drawn:
    """A figure handed over as a builder would (the chart element takes nothing else)."""
    return Drawn(fig, "A chart", "", "A chart. What it shows.")


def test_a_figure_is_sent_whole_with_typed_arrays_and_without_its_template(kit) -> None:  # noqa: ANN001
    z = np.random.default_rng(0).normal(size=(5, 7))
    for style in (fg.Style(), fg.Style(dark=True, present=True)):
        made = fg.drawn_heatmap(z, list("abcde"), list("abcdefg"), title="t", style=style)
        fig = made.figure
        payload, height = chart.encode(made, "scores.raw")
        msg = decoded(payload)
        assert msg["n"] == "scores_raw"  # the PNG's file name
        assert msg["t"].startswith("templates-") and msg["t"].endswith(".json")
        assert "template" not in msg["f"]["layout"]  # the light or dark template goes once per tab
        assert height == fig.layout.height
        z_sent = msg["f"]["data"][0]["z"]
        assert z_sent["dtype"] == "f8" and "bdata" in z_sent  # numbers as typed arrays, not decimal text
        assert_allclose(kit.array(z_sent), z, rtol=0, atol=0)
        layout = {k: v for k, v in fig.to_plotly_json()["layout"].items() if k != "template"}
        assert msg["f"]["layout"] == json.loads(to_json_plotly(layout))
        assert fig.layout.template is not None  # the figure itself is left as it was


def test_the_templates_file_holds_both_themes() -> None:
    name = chart._templates_file()
    saved = json.loads((chart.assets_dir() / name).read_text(encoding="utf-8"))
    assert saved["light"] == fg.template_of(fg.Style())
    assert saved["dark"] == fg.template_of(fg.Style(dark=True))
    assert saved["light"]["layout"]["paper_bgcolor"] == "white"


def test_every_asset_is_named_by_its_content_and_chart_js_names_plotly_js() -> None:
    """A browser may keep an asset for good: its name changes with its content (and is the same in every
    replica of the app)."""
    names = chart.asset_names()
    for kind, name in names.items():
        data = (chart.assets_dir() / name).read_bytes()
        assert re.fullmatch(r"(chart|plotly|templates)-[0-9a-f]{16}\.(css|js|min\.js|json)", name), name
        if kind in ("plotly", "templates"):
            assert hashlib.sha256(data).hexdigest()[:16] in name, kind
    assert names["css"][:-4] == names["js"][:-3]  # one stem: the loader finds the script from the style sheet
    js = (chart.assets_dir() / names["js"]).read_text(encoding="utf-8")
    assert f"new URL('{names['plotly']}', import.meta.url)" in js and "__PLOTLY_FILE__" not in js
    assert (chart.assets_dir() / names["plotly"]).read_bytes() == chart.PLOTLY_JS.read_bytes()


def test_an_unknown_template_stays_with_its_figure() -> None:
    fig = go.Figure(
        go.Bar(y=[1, 2]), layout={"template": {"layout": {"paper_bgcolor": "pink"}}, "height": 300}
    )
    msg = decoded(chart.encode(drawn(fig), "x")[0])
    assert msg["t"] is None
    assert msg["f"]["layout"]["template"]["layout"]["paper_bgcolor"] == "pink"
    assert chart.encode(drawn(go.Figure()), "y")[1] == 450  # no height: Plotly's default is reserved


def test_a_page_draws_chart_elements_that_read_back_as_figures(kit) -> None:  # noqa: ANN001
    at = kit.open("scores", via_app=True)
    assert not at.exception
    elements = [el for el in at.get("bidi_component") if chart.spec_of(el.proto) is not None]
    assert [chart.key_of(el.proto) for el in elements] == ["scores.raw", "scores.scaled", "scores.weights"]
    assert not at.get("plotly_chart")  # every chart goes through the one element
    for el in elements:
        assert el.proto.component_name == chart.NAME and not el.proto.isolate_styles
        # the script sent with each chart is a short loader of chart-<hash>.js (fetched once per browser)
        assert len(el.proto.js_content) < 220 and "/attention_explorer.chart/chart-" in el.proto.js_content
    ref = kit.reference()
    assert_allclose(kit.z(kit.charts(at)["scores.weights"]), ref.trace.weights[0], rtol=1e-15, atol=0)


def plotly_json(fig: go.Figure) -> dict:
    """What plotly.io writes for the figure (its own encoder), the template left out as explorer.ui.chart does."""
    spec = fig.to_plotly_json()
    spec["layout"] = {k: v for k, v in spec["layout"].items() if k != "template"}
    return json.loads(to_json_plotly(spec))


@pytest.mark.parametrize(
    "url", ["", "positional-encoding", "projections", "scores", "heads", "token", "encoder", "why-scale"]
)
def test_every_figure_a_page_draws_is_sent_as_plotly_writes_it(kit, monkeypatch, url: str) -> None:  # noqa: ANN001
    """explorer.ui.chart writes the figure's JSON itself (Plotly's to_dict walks every key through its array
    checks); what it sends must be exactly what Plotly's own encoder writes, typed arrays included."""
    seen = []
    encode = chart.encode

    def spy(fig: Drawn, key: str, **kw: bool) -> tuple[bytes, int]:
        seen.append((key, fig))
        return encode(fig, key, **kw)

    monkeypatch.setattr(chart, "encode", spy)
    at = kit.open(url, via_app=True, state={"scores.mask_kind": "causal"} if url == "scores" else None)
    assert not at.exception and seen
    for key, fig in seen:
        sent = decoded(encode(fig, key)[0])["f"]
        assert sent == plotly_json(fig.figure), key
        # every array of numbers goes as a typed array (base64 of its bytes), none as decimal text
        assert not number_lists(sent), (key, number_lists(sent)[:3])


def number_lists(value: object, path: str = "") -> list[str]:
    """Where `value` holds a list of 8 or more numbers (flat, or rows of numbers): JSON decimal text."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in number_lists(v, f"{path}.{k}")]
    if not isinstance(value, list):
        return []
    flat = [x for row in value for x in row] if value and all(isinstance(r, list) for r in value) else value
    if len(flat) >= 8 and all(isinstance(x, int | float) and not isinstance(x, bool) for x in flat):
        return [path]
    return [p for i, v in enumerate(value) for p in number_lists(v, f"{path}[{i}]")]


def test_number_lists_finds_numbers_sent_as_text() -> None:
    assert number_lists(
        {"data": [{"z": [[0.5] * 4] * 2, "x": ["a"] * 9, "y": {"dtype": "f8", "bdata": ""}}]}
    ) == [".data[0].z"]
    assert number_lists(decoded(chart.encode(drawn(go.Figure(go.Scatter(y=[0.5] * 8))), "k")[0])) == [
        ".f.data[0].y"
    ]


def test_unusual_figures_are_sent_as_plotly_writes_them() -> None:
    figs = [
        go.Figure(
            go.Heatmap(z=np.arange(12, dtype=np.int64).reshape(3, 4), x=np.arange(4), y=["a", "b", "c"])
        ),
        go.Figure(go.Bar(x=np.array([1e10, 2e10], dtype=np.int64), y=np.array([True, False]))),
        go.Figure(
            go.Scatter(x=np.array([], dtype=float), y=[np.float32(1.5)]),
            layout={"xaxis": {"range": np.array([0, 1])}},
        ),
        go.Figure(go.Scatter(x=[1, 2], y=[float("nan"), 1.0])),  # NaN as a number: Plotly's encoder (null)
        go.Figure(go.Heatmap(z=np.array([[1.0, np.nan], [np.inf, -1.0]]))),  # in a typed array: as it is
    ]
    for fig in figs:
        sent = decoded(chart.encode(drawn(fig), "k")[0])["f"]
        sent["layout"].pop("template")  # Plotly's default template, not one of ours: it goes with the figure
        assert sent == plotly_json(fig)


def test_a_figure_is_encoded_once_for_every_session_and_again_when_it_changes() -> None:
    """Students following a class draw the teacher's figures: the same figure, built again by another session,
    gets the bytes encoded first; a figure changed after it was built (a row's levelled margins, a colour
    bar switched off), another key, or a figure drawn as tables is encoded for what it is."""
    z = np.random.default_rng(1).normal(size=(4, 3))

    def made() -> Drawn:
        return fg.drawn_heatmap(z, list("abcd"), list("xyz"), title="shared", style=fg.Style())

    first, again = made(), made()
    assert first.figure is not again.figure
    sent = chart.encode(first, "pe.p")
    assert chart.encode(again, "pe.p")[0] is sent[0]  # the bytes encoded for the first session
    changed = made()
    changed.figure.update_traces(showscale=False, selector=0)
    other = chart.encode(changed, "pe.p")[0]
    assert other != sent[0] and decoded(other)["f"]["data"][0]["showscale"] is False
    assert "showscale" not in decoded(sent[0])["f"]["data"][0]
    assert decoded(chart.encode(made(), "pe.x")[0])["n"] == "pe_x"  # the key is part of what is sent
    tables = chart.encode(made(), "pe.p", tables=True)[0]
    assert tables is not sent[0] and decoded(tables)["tbl"]


def _chart_of_script() -> None:
    import numpy as np
    import streamlit as st

    from explorer.ui import state
    from explorer.ui import widgets as ui
    from explorer.views import figures as fg

    st.session_state.setdefault(state.K_PRESENT, False)
    z = np.array(st.session_state.get("z", [[0.25, 0.75], [0.5, 0.5]]))
    ui.chart_of(fg.drawn_heatmap, z, ["a", "b"], ["c", "d"], title="shared", style=fg.Style(), key="t.z")


def test_a_chart_drawn_as_built_is_shared_by_sessions_and_built_again_for_other_numbers() -> None:
    """ui.chart_of: a second session drawing the same builder with the same arguments gets the chart the
    first one built (nothing built again); other numbers, or the chart as tables, are built for what they are."""
    from streamlit.testing.v1 import AppTest

    from explorer.ui import state, widgets

    def z_of(at: AppTest) -> np.ndarray:
        (el,) = [e for e in at.get("bidi_component") if e.proto.component_name == chart.NAME]
        sent = chart.spec_of(el.proto)["data"][0]["z"]
        return np.frombuffer(base64.b64decode(sent["bdata"]), dtype="<f8").reshape(2, 2)

    store = widgets._encoded_chart.cache
    store.clear()
    first, second = (AppTest.from_function(_chart_of_script, default_timeout=60) for _ in range(2))
    first.run()
    misses = store.misses
    second.run()
    assert not first.exception and not second.exception
    assert store.misses == misses and store.hits >= 1  # the second session's chart was the first's
    assert_allclose(z_of(second), [[0.25, 0.75], [0.5, 0.5]])
    second.session_state["z"] = [[1.0, 0.0], [0.0, 1.0]]
    second.run()
    assert store.misses == misses + 1
    assert_allclose(z_of(second), [[1.0, 0.0], [0.0, 1.0]])
    assert_allclose(z_of(first.run()), [[0.25, 0.75], [0.5, 0.5]])  # the first session's numbers stay its own
    second.session_state[state.K_TABLES] = True
    second.run()
    (el,) = [e for e in second.get("bidi_component") if e.proto.component_name == chart.NAME]
    assert chart.text_of(el.proto)["tbl"]  # as tables: built and encoded for this session


def test_the_digest_tells_apart_what_the_bytes_sent_would_tell_apart() -> None:
    """The digest a figure's fingerprint is (explorer.cache.digest_of) changes with any number, its dtype or
    shape, the kind of a container or the type of a value, and an array of objects by its values (not by
    the pointers it holds); it stays the same for equal values built again."""
    import numpy as np

    from explorer.cache import digest_of

    a = np.arange(6.0).reshape(2, 3)
    assert digest_of({"x": [1, 2], "z": a}) == digest_of({"x": [1, 2], "z": a.copy()})
    assert digest_of(np.array(["a", None], dtype=object)) == digest_of(np.array(["a", None], dtype=object))
    differ = [
        {"z": a},
        {"z": a.T.copy()},
        {"z": a.astype(np.float32)},
        {"z": a + 1e-12},
        {"z": a.reshape(3, 2)},
        {"z": np.float64(3.0)},
        {"z": [1, 2]},
        {"z": (1, 2)},
        {"z": ["1", 2]},
        {"z": [True, 2]},
        {"z": None},
        {"z": np.array(["a", "b"], dtype=object)},
        {"z": np.array(["a", "c"], dtype=object)},
    ]
    assert len({digest_of(v) for v in differ}) == len(differ)


def test_a_killed_processs_assets_folder_is_removed_by_the_next_and_no_other(tmp_path) -> None:  # noqa: ANN001
    """A server stopped by SIGTERM (uvicorn raises it again once the server stopped) or SIGKILL runs no exit
    handler: the next process to make its folder removes it, and keeps every running process's."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    make = "from explorer.ui import chart; print(chart.assets_dir(), flush=True); chart.asset_names()"
    killed = subprocess.run(  # noqa: S603
        [sys.executable, "-c", f"{make}; import os, signal; os.kill(os.getpid(), signal.SIGKILL)"],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL
    left = Path(killed.stdout.strip())
    assert left.parent == tmp_path and (left / chart.asset_names()["plotly"]).is_file()
    running = tmp_path / f"{chart.ASSETS_PREFIX}{os.getpid()}-running"  # this test's process runs
    other = tmp_path / f"{chart.ASSETS_PREFIX}kept"  # not one of ours (no process id)
    running.mkdir()
    other.mkdir()

    second = subprocess.run(  # noqa: S603
        [sys.executable, "-c", make], env=env, capture_output=True, text=True, check=True
    )
    made = Path(second.stdout.strip())
    assert not left.exists()
    assert running.is_dir() and other.is_dir()
    assert not made.exists()  # the second ended normally: its exit handler removed its own
