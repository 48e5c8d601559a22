"""explorer.model_figures and explorer.models: the real-model figures and the model table (no Streamlit)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from explorer import model_figures as mf
from explorer import models
from explorer.figures import Style


def _grid_inputs(L: int = 2, H: int = 3, n: int = 4) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    A = rng.random((L, H, n, n))
    A /= A.sum(axis=-1, keepdims=True)
    tokens = ["[CLS]", "a", "<b>x</b>", "[SEP]"][:n]
    rules = np.full((L, H), "broad", dtype=object)
    rules[1, 2] = "previous"
    return A, tokens, rules, np.full((L, H), 0.8)


def test_model_grid_is_one_figure_whose_panels_hold_every_heads_weights() -> None:
    A, tokens, rules, scores = _grid_inputs()
    fig = mf.model_grid(A, tokens, rules, scores, style=Style(), title="grid", width_px=1200)
    go.Figure(fig.to_plotly_json())  # a valid Plotly figure
    # the labels' subplot covers the panels: its background must let them show (it hid them all)
    assert fig.layout.plot_bgcolor == "rgba(0,0,0,0)"
    *heats, text = fig.data
    assert [h.type for h in heats] == ["heatmap", "heatmap"] and text.type == "scatter"
    for layer, heat in enumerate(heats):
        z, x = np.asarray(heat.z, dtype=float), list(heat.x)
        assert list(heat.y)[1] == f"layer {layer + 1} · query 1 a"
        for head in range(3):
            col = x.index(f"head {head + 1} · key 0 [CLS]")
            np.testing.assert_allclose(z[:, col : col + 4], A[layer, head], rtol=1e-6)
        # every cell between panels is empty, so the hover never names a gap
        assert np.isnan(z).sum() == z.size - 3 * 16
        assert heat.zmin == 0.0 and heat.zmax == 1.0
    # labels: one per head, the short form, tokens escaped in the category names
    assert list(text.text).count("← previous") == 1 and list(text.text).count("broad") == 5
    x = list(heats[0].x)
    assert any("&lt;b&gt;x&lt;/b&gt;" in c for c in x) and not any("<b>" in c for c in x)


def test_model_grid_shows_the_first_tokens_of_a_long_sentence() -> None:
    assert (
        mf.grid_tokens(6, 12, 64) == 52
        and mf.grid_tokens(30, 9, 64) == 27
        and mf.grid_tokens(6, 12, 11) == 11
    )
    A = np.full((30, 9, 40, 40), 1 / 40)
    fig = mf.model_grid(A, [f"t{i}" for i in range(40)], np.full((30, 9), "broad", dtype=object), np.ones((30, 9)),
                        style=Style(), title="g")  # fmt: skip
    assert np.asarray(fig.data[0].z).shape[0] == 27 and len(fig.data) == 31


@pytest.mark.parametrize(("L", "H"), [(6, 12), (30, 9)])
@pytest.mark.parametrize("present", [False, True])
def test_model_grid_draws_at_every_size_in_both_modes(L: int, H: int, present: bool) -> None:
    """Every panel's y-domain lies in 0..1 (the last one used to end at -8e-17 and Plotly refused the figure:
    /model failed in presentation mode on both models)."""
    for n in (2, 7, 11, 27):
        for width in (1000, 1800):
            A = np.full((L, H, n, n), 1 / n)
            fig = mf.model_grid(A, [f"t{i}" for i in range(n)], np.full((L, H), "broad", dtype=object),
                                np.ones((L, H)), style=Style(present=present), title="g", width_px=width)  # fmt: skip
            domains = [fig.layout[f"yaxis{i + 2}"].domain for i in range(L)]  # "yaxis" holds the labels
            assert all(0.0 <= lo < hi <= 1.0 for lo, hi in domains)
            assert domains[-1][0] == pytest.approx(0.0, abs=1e-9)  # the panels fill the plot to its bottom


def test_model_grid_frames_the_selected_head_and_greys_switched_off_heads() -> None:
    A, tokens, rules, scores = _grid_inputs()
    off = np.zeros((2, 3), dtype=bool)
    off[0, 1] = True
    fig = mf.model_grid(A, tokens, rules, scores, style=Style(), title="g", selected=(1, 2), off=off)
    shapes = fig.layout.shapes
    assert len(shapes) == 2
    grey, frame = shapes
    assert grey.fillcolor is not None and frame.fillcolor is None
    assert (grey.yref, frame.yref) == ("y2", "y3")  # layer 1's and layer 2's rows ("y": the labels)
    x = list(fig.data[0].x)
    assert x[int(frame.x0 + 0.5)] == "head 3 · key 0 [CLS]" and frame.x1 - frame.x0 == 4
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
    assert list(models.MODELS) == ["toy", "minilm", "smollm2"]
    assert models.choice("smollm2").decoder and "Q4_1" in models.choice("smollm2").about
    assert models.real_key("toy") == "minilm" and models.real_key("smollm2") == "smollm2"
    with pytest.raises(ValueError, match="choose one of toy, minilm, smollm2"):
        models.choice("gpt2")
    off = ((2, 5), (0, 0))
    assert models.format_heads(off) == "1.1,3.6"
    assert models.parse_heads("1.1, 3.6,9.9,x,3.6", (6, 12)) == (((0, 0), (2, 5)), ["9.9", "x"])
    assert models.head_mask((2, 2), ()) is None
    np.testing.assert_array_equal(models.head_mask((2, 2), [(1, 0)]), [[1, 1], [0, 1]])
    assert models.off_pairs(models.off_matrix((2, 2), [(1, 0), (0, 1)])) == ((0, 1), (1, 0))


def test_read_link_takes_each_part_on_its_own() -> None:
    got = models.read_link({"model": "SmolLM2", "layer": "16", "head": "5", "off": "16.5,1.1"})
    assert (got.model, got.layer, got.head, got.off, got.messages) == (
        "smollm2",
        15,
        4,
        ((0, 0), (15, 4)),
        [],
    )
    got = models.read_link({"model": "gpt2", "layer": "7"})  # unknown model: the toy, whose layer= is refused
    assert got.model is None and got.layer is None and len(got.messages) == 2
    got = models.read_link({"model": "minilm", "layer": "7", "head": "12", "off": "1.13,2.1"})
    assert (got.layer, got.head, got.off) == (None, 11, ((1, 0),))
    assert "layer= takes 1 to 6" in got.messages[0] and "1.13" in got.messages[1]


def test_link_params_round_trip() -> None:
    params = models.link_params("smollm2", 15, 4, [(15, 4), (0, 0)])
    assert params == {"model": "smollm2", "layer": "16", "head": "5", "off": "1.1,16.5"}
    got = models.read_link(params)
    assert (got.model, got.layer, got.head, got.off) == ("smollm2", 15, 4, ((0, 0), (15, 4)))
    assert models.link_params("minilm", 0, 0, ()) == {"model": "minilm"}
    assert models.link_params("toy", 3, 3, [(1, 1)]) == {}


def test_layer_off_and_only_head_pairs() -> None:
    assert models.layer_off_pairs((2, 3), [(0, 0)], 1) == ((0, 0), (1, 0), (1, 1), (1, 2))
    assert models.only_head_pairs((2, 3), [(0, 0)], 1, 2) == ((0, 0), (1, 0), (1, 1))
