"""From the back of a room: presenting at 1920x1080, every number a student must read on /model, /induction
and /patching (tick labels, cell numbers, the grid's labels) is drawn at 18 px or more; what does not fit at
that size is thinned (every other label) or left to the hover, never shrunk below it.
"""

from __future__ import annotations

import numpy as np
import pytest

from explorer.views import figures as fg
from explorer.views import model_figures
from explorer.views import patching as pv
from explorer.views.style import PRESENT_TICK_PX

PRESENT = fg.Style(present=True)
rng = np.random.default_rng(0)


def sizes(fig) -> list[float]:  # noqa: ANN001 - a Plotly figure
    """Every text size a figure sets: its axes' ticks and the text of its traces."""
    spec = fig.to_plotly_json()
    out = []
    for name, axis in spec["layout"].items():
        if name.startswith(("xaxis", "yaxis")) and axis.get("visible", True) is not False:
            size = (axis.get("tickfont") or {}).get("size")
            if size and (axis.get("tickvals") is not None or axis.get("ticktext") is not None):
                out.append(size)
    for trace in spec["data"]:
        if trace.get("text") is not None or trace.get("texttemplate"):
            size = (trace.get("textfont") or {}).get("size")
            if size:
                out.append(size)
    return out


def weights(n: int) -> np.ndarray:
    w = rng.random((n, n))
    return w / w.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(("n", "width"), [(100, fg.HALF_PX), (64, fg.FULL_PX), (30, fg.HALF_PX)])
def test_a_heatmap_presenting_labels_at_18_px_or_more(n: int, width: int) -> None:
    labels = [str(i) for i in range(n)]
    fig = fg.heatmap(weights(n), labels, labels, style=PRESENT, title="t", cells=fg.Cells(weights=True), axes=fg.Axes(width_px=int(width * 2.2), height_px=420))  # fmt: skip
    got = sizes(fig)
    assert got and min(got) >= PRESENT_TICK_PX, got
    shown = fig.layout.yaxis.ticktext
    assert 1 < len(shown) <= n  # thinned, not shrunk


@pytest.mark.parametrize(("L", "H", "n"), [(6, 12, 13), (30, 9, 13)])
def test_the_model_grid_presenting_labels_at_18_px_or_more(L: int, H: int, n: int) -> None:
    att = np.stack([np.stack([weights(n) for _ in range(H)]) for _ in range(L)])
    rules = np.full((L, H), "broad", dtype=object)
    fig = model_figures.model_grid(att, [f"t{i}" for i in range(n)], rules, np.zeros((L, H)), style=PRESENT,
                                   title="g", width_px=1800, fit_px=700)  # fmt: skip
    got = sizes(fig)
    assert got and min(got) >= PRESENT_TICK_PX, got


def test_the_patching_sweeps_presenting_at_18_px_or_more() -> None:
    toks = ["The", " capital", " of", " France", " is"]
    resid = pv.resid_sweep(rng.random((30, 5)), toks, toks, style=PRESENT, width_px=int(fg.HALF_PX * 2.2))
    heads = pv.head_sweep(rng.random((30, 9)), style=PRESENT, width_px=int(fg.HALF_PX * 2.2))
    for fig in (resid.figure, heads.figure):
        got = sizes(fig)
        assert got and min(got) >= PRESENT_TICK_PX, got


def test_a_presenting_sweep_fits_beside_its_controls_with_every_layer_labelled() -> None:
    """Presenting, /patching draws its step's sweep PRESENT_SWEEP_PX tall (from under the sentence box to the
    foot of a 1080 px screen): each of 30 layers keeps its label at 18 px or more, the positions' upright."""
    clean, corrupt = (
        ["The", " E", "iffel", " Tower", " is", " in"],
        ["The", " Col", "osse", "um", " is", " in"],
    )
    resid = pv.resid_sweep(rng.random((30, 6)), clean, corrupt, style=PRESENT, width_px=fg.HALF_PX,
                           height_px=pv.PRESENT_SWEEP_PX)  # fmt: skip
    heads = pv.head_sweep(
        rng.random((30, 9)), style=PRESENT, width_px=fg.HALF_PX, height_px=pv.PRESENT_SWEEP_PX
    )
    for fig in (resid.figure, heads.figure):
        assert fig.layout.height == pv.PRESENT_SWEEP_PX
        assert list(fig.layout.yaxis.ticktext) == [str(i) for i in range(1, 31)]
        assert (
            fig.layout.yaxis.tickfont.size >= PRESENT_TICK_PX
            and fig.layout.xaxis.tickfont.size >= PRESENT_TICK_PX
        )
        assert fig.layout.xaxis.tickangle == 0
        rows = (fig.layout.height - fig.layout.margin.t - fig.layout.margin.b) / 30
        assert rows >= fig.layout.yaxis.tickfont.size + 2  # a line for each label
