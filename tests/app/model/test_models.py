"""explorer.views.model_figures and explorer.model.models: the real-model figures and the model table (no Streamlit)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from explorer.model import models
from explorer.sharing import model_link
from explorer.views import grid_geometry
from explorer.views import model_figures as mf
from explorer.views.figures import Style
from explorer.views.style import PRESENT_TICK_PX


def _grid_inputs(L: int = 2, H: int = 3, n: int = 4) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    A = rng.random((L, H, n, n))
    A /= A.sum(axis=-1, keepdims=True)
    tokens = ["[CLS]", "a", "<b>x</b>", "[SEP]"][:n]
    rules = np.full((L, H), "broad", dtype=object)
    rules[1, 2] = "previous"
    return A, tokens, rules, np.full((L, H), 0.8)


def test_model_grid_is_one_heatmap_whose_panels_hold_every_heads_weights() -> None:
    A, tokens, rules, scores = _grid_inputs()
    fig = mf.model_grid(A, tokens, rules, scores, style=Style(), title="grid", width_px=1200)
    go.Figure(fig.to_plotly_json())  # a valid Plotly figure
    heat, text = fig.data
    assert (heat.type, text.type) == ("heatmap", "scatter")
    L, H, n, gap, band = fig.layout.meta["grid"]
    assert (L, H, n) == (2, 3, 4) and gap >= 1 and band >= 1
    z, x, y = np.asarray(heat.z, dtype=float), list(heat.x), list(heat.y)
    assert z.shape == (L * (band + n), H * n + (H - 1) * gap) == (len(y), len(x))
    np.testing.assert_allclose(mf.panels(z, fig.layout.meta["grid"]), A, rtol=1e-6)
    for layer in range(L):  # the category names say where a cell is (the hover shows them)
        assert y[layer * (band + n) + band + 1] == f"layer {layer + 1} · query 1 a"
        for head in range(H):
            col = x.index(f"head {head + 1} · key 0 [CLS]")
            np.testing.assert_allclose(
                z[layer * (band + n) + band, col : col + n], A[layer, head, 0], rtol=1e-6
            )
    # every cell of the label bands and between panels is empty, so the hover never names one
    assert np.isnan(z).sum() == z.size - L * H * n * n
    assert heat.zmin == 0.0 and heat.zmax == 1.0 and heat.hoverongaps is False
    # labels: one per head, the short form, in its layer's band; tokens escaped in the category names
    assert list(text.text).count("← previous") == 1 and list(text.text).count("broad") == 5
    assert all(y.index(v) % (band + n) < band for v in text.y)
    assert any("&lt;b&gt;x&lt;/b&gt;" in c for c in x) and not any("<b>" in c for c in x)


def test_a_click_on_the_grid_picks_the_head_under_it() -> None:
    A, tokens, rules, scores = _grid_inputs()
    fig = mf.model_grid(A, tokens, rules, scores, style=Style(), title="g")
    L, H, n, gap, band = fig.layout.meta["grid"]
    row = 1 * (band + n) + band + 2  # layer 2, query 2
    assert mf.picked_head(fig, {"curve": 0, "point": [row, 2 * (n + gap) + 3]}) == (1, 2)  # head 3, key 3
    assert mf.picked_head(fig, {"curve": 0, "point": [band - 1, 0]}) == (0, 0)  # the band: the label's head
    assert mf.picked_head(fig, {"curve": 0, "point": [row, n]}) is None  # a gap between two heads
    assert mf.picked_head(fig, {"curve": 1, "point": 4}) == (1, 1)  # a label: layer 2, head 2
    assert mf.picked_head(fig, {"curve": 1, "point": L * H}) is None
    assert mf.picked_head(fig, None) is None


def test_model_grid_shows_the_first_tokens_of_a_long_sentence() -> None:
    assert (
        mf.grid_tokens(6, 12, 64) == 52
        and mf.grid_tokens(30, 9, 64) == 27
        and mf.grid_tokens(6, 12, 11) == 11
    )
    A = np.full((30, 9, 40, 40), 1 / 40)
    fig = mf.model_grid(A, [f"t{i}" for i in range(40)], np.full((30, 9), "broad", dtype=object), np.ones((30, 9)),
                        style=Style(), title="g")  # fmt: skip
    assert len(fig.data) == 2 and fig.layout.meta["grid"][2] == 27
    assert mf.panels(fig.data[0].z, fig.layout.meta["grid"]).shape == (30, 9, 27, 27)


@pytest.mark.parametrize(("L", "H"), [(6, 12), (30, 9)])
@pytest.mark.parametrize("present", [False, True])
def test_model_grid_draws_at_every_size_in_both_modes(L: int, H: int, present: bool) -> None:
    """A valid figure at every size: each label band at least one row and as tall as its label's font, the
    panels where panels() finds them (/model once failed in presentation mode on both models)."""
    for n in (2, 7, 11, 27):
        for width in (1000, 1800):
            A = np.random.default_rng(n).random((L, H, n, n))
            fig = mf.model_grid(A, [f"t{i}" for i in range(n)], np.full((L, H), "broad", dtype=object),
                                np.ones((L, H)), style=Style(present=present), title="g", width_px=width)  # fmt: skip
            go.Figure(fig.to_plotly_json())
            _, _, _, _, band = fig.layout.meta["grid"]
            margin = fig.layout.margin
            row_px = (fig.layout.height - margin.t - margin.b) / (L * (band + n))
            assert band >= 1 and band * row_px >= fig.data[1].textfont.size * 1.5
            # fixed ranges, first row on top: autorange padded them for the labels (a tall empty strip)
            rows, cols = np.asarray(fig.data[0].z).shape
            assert list(fig.layout.yaxis.range) == [rows - 0.5, -0.5] and list(fig.layout.xaxis.range) == [
                -0.5,
                cols - 0.5,
            ]
            np.testing.assert_allclose(mf.panels(fig.data[0].z, fig.layout.meta["grid"]), A, rtol=1e-6)


@pytest.mark.parametrize(("L", "H", "fits"), [(4, 12, True), (6, 12, True), (30, 9, False)])
def test_model_grid_fitted_to_a_height_shrinks_its_panels_to_a_floor(L: int, H: int, fits: bool) -> None:
    """Presenting, /model asks for a grid at most fit_px tall: four layers of twelve heads fit, panels
    flatter, never below MIN_PANEL_PX, and labels never under PRESENT_TICK_PX (read from the back of a
    room); MiniLM's six layers fit with the labels' band tight around them; SmolLM2's thirty would not fit
    even so and keep their full size (they scroll in their box). The panels are still where panels() reads them."""
    n, fit = 13, 570
    A = np.random.default_rng(L).random((L, H, n, n))
    args = ([f"t{i}" for i in range(n)], np.full((L, H), "broad", dtype=object), np.ones((L, H)))
    sty = Style(present=True)
    free = mf.model_grid(A, *args, style=sty, title="g", width_px=1800)
    fitted = mf.model_grid(A, *args, style=sty, title="g", width_px=1800, fit_px=fit)
    assert free.layout.height > fit  # too tall unfitted
    assert (fitted.layout.height <= fit) == fits
    _, _, _, _, band = fitted.layout.meta["grid"]
    margin = fitted.layout.margin
    panel_px = (fitted.layout.height - margin.t - margin.b) / (L * (band + n)) * n
    assert panel_px >= grid_geometry.MIN_PANEL_PX - 1 and fitted.data[1].textfont.size >= PRESENT_TICK_PX
    if not fits:  # unchanged: full size, to scroll
        assert (
            fitted.layout.height == free.layout.height
            and fitted.layout.meta["grid"] == free.layout.meta["grid"]
        )
    np.testing.assert_allclose(mf.panels(fitted.data[0].z, fitted.layout.meta["grid"]), A, rtol=1e-6)


def test_model_grid_frames_the_selected_head_and_greys_switched_off_heads() -> None:
    A, tokens, rules, scores = _grid_inputs()
    off = np.zeros((2, 3), dtype=bool)
    off[0, 1] = True
    fig = mf.model_grid(A, tokens, rules, scores, style=Style(), title="g", selected=(1, 2), off=off)
    _, _, n, gap, band = fig.layout.meta["grid"]
    shapes = fig.layout.shapes
    assert len(shapes) == 2
    grey, frame = shapes
    assert grey.fillcolor is not None and frame.fillcolor is None
    x, y = list(fig.data[0].x), list(fig.data[0].y)
    assert x[int(frame.x0 + 0.5)] == "head 3 · key 0 [CLS]" and frame.x1 - frame.x0 == n
    assert y[int(frame.y0 + 0.5)] == "layer 2 · query 0 [CLS]" and frame.y1 - frame.y0 == n
    assert (
        x[int(grey.x0 + 0.5)] == "head 2 · key 0 [CLS]" and y[int(grey.y0 + 0.5)] == "layer 1 · query 0 [CLS]"
    )
    assert list(fig.data[-1].text)[1] == "off"


def test_token_bars_print_each_probability_and_show_spaces() -> None:
    fig = mf.token_bars([" Paris", "the"], np.array([0.773, 0.065]), style=Style(), title="next")
    bar = fig.data[0]
    assert list(bar.text) == ["0.773", "0.065"]
    assert "“␣Paris”" in fig.layout.yaxis.ticktext[0]
    fig = mf.token_bars(["a"], np.array([0.5]), style=Style(), title="t", after=np.array([0.1]))
    assert [list(b.x) for b in fig.data] == [[0.5], [0.1]]


def test_value_bars_in_the_given_order() -> None:
    fig = mf.value_bars(["L1 H2", "L3 H1"], np.array([0.5, 0.25]), style=Style(), title="t", x_title="effect")
    assert list(fig.layout.yaxis.ticktext) == ["L1 H2", "L3 H1"] and list(fig.data[0].text) == [
        "0.500",
        "0.250",
    ]


def test_model_table_and_head_links() -> None:
    assert list(models.MODELS) == ["toy", "tiny", "minilm", "smollm2"]
    assert models.picked_keys() == ("toy", "minilm", "smollm2")  # the tiny model opens in the explorer only
    assert models.choice("smollm2").decoder and "Q4_1" in models.choice("smollm2").precise
    assert models.real_key("toy") == "minilm" and models.real_key("smollm2") == "smollm2"
    with pytest.raises(ValueError, match="choose one of toy, tiny, minilm, smollm2"):
        models.choice("gpt2")
    off = ((2, 5), (0, 0))
    assert model_link.format_heads(off) == "1.1,3.6"
    assert model_link.parse_heads("1.1, 3.6,9.9,x,3.6", (6, 12)) == (((0, 0), (2, 5)), ["9.9", "x"])
    assert models.head_mask((2, 2), ()) is None
    np.testing.assert_array_equal(models.head_mask((2, 2), [(1, 0)]), [[1, 1], [0, 1]])
    assert models.off_pairs(models.off_matrix((2, 2), [(1, 0), (0, 1)])) == ((0, 1), (1, 0))


def test_read_link_takes_each_part_on_its_own() -> None:
    got = model_link.read({"model": "SmolLM2", "layer": "16", "head": "5", "off": "16.5,1.1"})
    assert (got.model, got.layer, got.head, got.off, got.messages) == (
        "smollm2",
        15,
        4,
        ((0, 0), (15, 4)),
        [],
    )
    got = model_link.read({"model": "gpt2", "layer": "7"})  # unknown model: the pages show MiniLM (6 layers)
    assert got.model is None and got.layer is None and len(got.messages) == 2
    got = model_link.read({"model": "minilm", "layer": "7", "head": "12", "off": "1.13,2.1"})
    assert (got.layer, got.head, got.off) == (None, 11, ((1, 0),))
    assert "between 1 and 6" in got.messages[0] and "all-MiniLM-L6-v2 has layers 1 to 6." in got.messages[0]
    assert "1.13" in got.messages[1]


def test_link_params_round_trip() -> None:
    params = model_link.params("smollm2", 15, 4, [(15, 4), (0, 0)])
    assert params == {"model": "smollm2", "layer": "16", "head": "5", "off": "1.1,16.5"}
    got = model_link.read(params)
    assert (got.model, got.layer, got.head, got.off) == ("smollm2", 15, 4, ((0, 0), (15, 4)))
    assert model_link.params("minilm", 0, 0, ()) == {"model": "minilm"}
    # the toy picked: the layer and head shown (/minimal-pairs runs MiniLM whatever is picked), no heads off
    assert model_link.params("toy", 3, 3, [(1, 1)]) == {"layer": "4", "head": "4"}
    assert model_link.params("toy", 0, 0, [(1, 1)]) == {}


def test_layer_off_and_only_head_pairs() -> None:
    assert models.layer_off_pairs((2, 3), [(0, 0)], 1) == ((0, 0), (1, 0), (1, 1), (1, 2))
    assert models.only_head_pairs((2, 3), [(0, 0)], 1, 2) == ((0, 0), (1, 0), (1, 1))


@pytest.mark.parametrize("induction", [False, True])
@pytest.mark.parametrize("present", [False, True])
@pytest.mark.parametrize(("L", "H", "n"), [(6, 12, 13), (30, 9, 11), (30, 9, 27), (2, 3, 4)])
def test_each_head_label_sits_nearer_its_own_panel_than_the_layer_above(
    L: int, H: int, n: int, present: bool, induction: bool
) -> None:
    """A label midway between two rows of squares could belong to either: its text (centre, in px) is nearer
    the top of its own panels than the bottom of the panels above; also a one-line label when some heads
    have a second line ("induction") and the band is two lines high."""
    A = np.full((L, H, n, n), 1.0 / n)
    rules = np.full((L, H), "broad", dtype=object)
    scores = np.zeros((L, H))
    scores[-1, -1] = 1.0  # one induction head, not the first layer's: their labels have one line
    fig = mf.model_grid(A, [f"t{i}" for i in range(n)], rules, np.ones((L, H)), style=Style(present=present),
                        title="grid", width_px=1000, induction=scores if induction else None,
                        induction_threshold=0.5)  # fmt: skip
    assert ("induction" in fig.data[1].text[-1]) == induction and "<br>" not in fig.data[1].text[0]
    _, _, n_, _, band = fig.layout.meta["grid"]
    plot_h = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    row = plot_h / (L * (band + n_))  # px of one row
    text = fig.data[1]
    at = list(fig.data[0].y).index(text.y[0])  # the first layer's label row (0-based in its band)
    font = text.textfont.size
    centre = at * row + {"bottom center": font / 2 + 2, "top center": -(font / 2 + 2)}.get(
        text.textposition, 0.0
    )  # px from the band's top, of a one-line label
    own_top, above_bottom = (band - 0.5) * row, -0.5 * row
    # Clearly nearer: at most 0.6 of the way (a one-line label centred in a band of two lines sits at 0.64).
    assert own_top - centre <= 0.6 * (centre - above_bottom), (own_top - centre, centre - above_bottom)
