"""explorer/views/figures.py: pure Plotly builders (no Streamlit). What every heatmap must do."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from numpy.testing import assert_allclose

import attention_core as ac
from explorer.views import figures as fg
from explorer.views.style import MODEBAR_PX

STYLE = fg.Style()


def _z(fig, trace: int = 0) -> np.ndarray:  # noqa: ANN001 - a go.Figure
    return np.asarray(fig.data[trace].z, dtype=np.float64)


def test_labels_are_escaped_never_markup() -> None:
    labels = ["<b>bold</b>", '<a href="https://x.invalid">x</a>', "A&B", "plain"]
    fig = fg.heatmap(np.eye(4), labels, labels, title="<i>t</i>", style=STYLE)
    for axis in (fig.layout.yaxis, fig.layout.xaxis):
        assert list(axis.ticktext) == [
            "&lt;b&gt;bold&lt;/b&gt;",
            '&lt;a href="https://x.invalid"&gt;x&lt;/a&gt;',
            "A&amp;B",
            "plain",
        ]
        assert not any("<" in t for t in axis.ticktext)
    assert fig.layout.title.text == "&lt;i&gt;t&lt;/i&gt;"
    hover_labels = {c for row in fig.data[0].customdata for pair in row for c in pair}
    assert "&lt;b&gt;bold&lt;/b&gt;" in hover_labels and "<b>bold</b>" not in hover_labels


def test_esc_plain_text_unchanged_and_quotes_kept() -> None:
    assert fg.esc("cat") == "cat"
    assert fg.esc('it\'s "x"') == 'it\'s "x"'
    assert fg.esc(3) == "3"


def test_first_token_on_top_and_keys_left_to_right() -> None:
    labels = ["a", "b", "c"]
    fig = fg.heatmap(np.arange(9.0).reshape(3, 3), labels, labels, title="t", style=STYLE)
    assert fig.layout.yaxis.autorange == "reversed"
    assert list(fig.data[0].y) == [0, 1, 2] and list(fig.layout.yaxis.tickvals) == [0, 1, 2]
    assert list(fig.data[0].x) == [0, 1, 2] and list(fig.layout.xaxis.ticktext) == labels
    assert fig.layout.xaxis.autorange in (None, True)  # keys are not reversed
    assert_allclose(_z(fig)[0], [0, 1, 2])  # row 0 (the first query) holds the first row of the matrix


def test_repeated_words_give_distinct_rows() -> None:
    tokens = ac.tokenize("the cat sat on the mat")
    labels = ac.token_labels(tokens)
    fig = fg.heatmap(
        np.ones((6, 6)) / 6, labels, labels, title="t", style=STYLE, cells=fg.Cells(weights=True)
    )
    # numeric positions, not categories: Plotly would merge two "the" rows of a categorical axis
    assert list(fig.data[0].y) == list(range(6)) and list(fig.data[0].x) == list(range(6))
    assert len(set(fig.layout.yaxis.ticktext)) == 6
    assert fig.layout.yaxis.ticktext[0] != fig.layout.yaxis.ticktext[4]
    assert all(t.startswith("the") for t in (fig.layout.yaxis.ticktext[0], fig.layout.yaxis.ticktext[4]))
    grid = fg.head_grid(np.ones((2, 6, 6)) / 6, labels, style=STYLE, title="g")
    assert list(grid.data[1].y) == list(range(6)) and len(set(grid.layout.yaxis2.ticktext)) == 6


def test_masked_cells_are_grey_and_marked_minus_inf() -> None:
    n = 4
    allowed = ac.causal_mask(n)
    blocked = ~allowed
    scores = np.arange(16.0).reshape(n, n)
    masked_scores = np.where(allowed, scores, -np.inf)
    fig = fg.heatmap(
        masked_scores, list("abcd"), list("abcd"), title="t", style=STYLE, cells=fg.Cells(masked=blocked)
    )
    z = _z(fig)
    assert np.isnan(z[blocked]).all(), "masked cells must not take a colour of the scale"
    assert_allclose(z[allowed], scores[allowed])
    grey = fig.data[1]
    assert {c for _, c in grey.colorscale} == {fg.MASKED_GREY} and grey.showscale is False
    text = np.array(grey.text)
    assert (text[blocked] == "-inf").all() and (text[allowed] == "").all()
    grey_z = np.asarray(grey.z, dtype=float)
    assert np.isnan(grey_z[allowed]).all() and (grey_z[blocked] == 1).all()
    # the colour range is set by the finite cells only (no -inf stretching the scale)
    assert fig.data[0].zmax == pytest.approx(scores[allowed].max())


def test_no_mask_no_overlay() -> None:
    fig = fg.heatmap(
        np.eye(3),
        list("abc"),
        list("abc"),
        title="t",
        style=STYLE,
        cells=fg.Cells(masked=np.zeros((3, 3), bool)),
    )
    assert len(fig.data) == 1


def test_weights_fixed_zero_to_one_sequential() -> None:
    w = np.full((3, 3), 0.2)  # with the fixed scale, even a flat, low matrix keeps the full 0..1 scale
    fixed = fg.Style(fit_weights=False)
    fig = fg.heatmap(w, list("abc"), list("abc"), title="t", style=fixed, cells=fg.Cells(weights=True))
    tr = fig.data[0]
    assert (tr.zmin, tr.zmax) == (0.0, 1.0) and tr.zmid is None
    assert tr.colorbar.title.text is None  # 0..1 needs no note
    style = fg.Style(palette="projector")
    projector = fg.heatmap(w, list("abc"), list("abc"), title="t", style=style, cells=fg.Cells(weights=True))
    assert projector.data[0].colorscale == go.Heatmap(colorscale="Cividis").colorscale  # sequential
    signed = fg.heatmap(w - 0.5, list("abc"), list("abc"), title="t", style=style)
    assert signed.data[0].colorscale == go.Heatmap(colorscale="PuOr_r").colorscale  # diverging
    grid = fg.head_grid(np.full((3, 2, 2), 0.1), ["a", "b"], style=fixed, title="g")
    assert (grid.layout.coloraxis.cmin, grid.layout.coloraxis.cmax) == (0, 1)
    assert all(t.coloraxis == "coloraxis" for t in grid.data)  # one shared scale for every head


def test_weights_on_0_to_1_by_default_and_fitted_with_its_range_on_the_colour_bar_on_request() -> None:
    """One rule for weights: 0 to 1, so 0.34 never glows like 1.0; at 30 words the weights are near 1/30
    and a student who asks sees them coloured from their lowest to their highest."""
    n = 30
    rng = np.random.default_rng(1)
    w = ac.softmax(rng.normal(scale=0.3, size=(n, n)), axis=-1)  # every weight near 1/30
    labels = [f"t{i}" for i in range(n)]
    assert not fg.Style().fit_weights
    fixed = fg.heatmap(w, labels, labels, title="t", style=fg.Style(), cells=fg.Cells(weights=True)).data[0]
    assert (fixed.zmin, fixed.zmax) == (0.0, 1.0)
    fitted = fg.Style(fit_weights=True)
    tr = fg.heatmap(w, labels, labels, title="t", style=fitted, cells=fg.Cells(weights=True)).data[0]
    assert (tr.zmin, tr.zmax) == pytest.approx((w.min(), w.max()))
    assert tr.colorbar.title.text == "min to max"  # in words, not "fitted"
    ends = (tr.colorbar.ticktext[0], tr.colorbar.ticktext[-1])
    assert ends == (f"{w.min():.3f}", f"{w.max():.3f}")  # the range is written on the colour bar
    flat = fg.heatmap(
        np.full((2, 2), 0.5), list("ab"), list("ab"), title="t", style=fitted, cells=fg.Cells(weights=True)
    )
    assert flat.data[0].zmax - flat.data[0].zmin == pytest.approx(0.01)  # a flat matrix: still a range
    grid = fg.head_grid(np.stack([w, w * 0.5]), [f"t{i}" for i in range(n)], style=fitted, title="g")
    axis = grid.layout.coloraxis  # one range for every head: the lowest to the highest of them all
    assert (axis.cmin, axis.cmax) == pytest.approx(((w * 0.5).min(), w.max()))


def test_signed_values_diverge_around_zero() -> None:
    z = np.array([[-0.5, 2.0], [1.0, 0.0]])
    tr = fg.heatmap(z, ["a", "b"], ["a", "b"], title="t", style=STYLE).data[0]
    assert (tr.zmin, tr.zmax, tr.zmid) == (-2.0, 2.0, 0.0)
    zero = fg.heatmap(np.zeros((2, 2)), ["a", "b"], ["a", "b"], title="t", style=STYLE).data[0]
    assert (zero.zmin, zero.zmax) == (-1.0, 1.0)  # an all-zero matrix still gets a valid range


@pytest.mark.parametrize("present", [False, True])
@pytest.mark.parametrize("width", [fg.FULL_PX, fg.HALF_PX, fg.THIRD_PX])
@pytest.mark.parametrize("n", [1, 6, 11, 16, 24, 40])
def test_a_cell_prints_its_number_only_where_it_fits(n: int, width: int, present: bool) -> None:
    """A number is printed in a cell only where it fits: at 11 tokens in half-width cells, printed numbers
    would run together ("-0.06-0.30 0.16-0.43")."""
    style = fg.Style(present=present)
    labels = [f"t{i}" for i in range(n)]
    z = np.random.default_rng(0).normal(size=(n, n)) - 0.5  # negative numbers: the widest text
    fig = fg.heatmap(z, labels, labels, title="t", style=style, axes=fg.Axes(width_px=width))
    drawn = width * (fg.PRESENT_SCALE if present else 1)
    cell_w = (drawn - fig.layout.margin.l - 40 - fg.text_px("-0.000", style.font)) / n
    cell_h = (fig.layout.height - fig.layout.margin.t - fig.layout.margin.b) / n
    widest = max(fg.text_px(f"{v:.2f}", 1.0) for v in z.ravel())
    if fig.data[0].texttemplate is not None:
        size = fig.data[0].textfont.size
        assert widest * size + 6 <= cell_w and size + 4 <= cell_h
        assert size >= (14 if present else 9)
    else:  # none shown: not even the smallest legible font fits
        smallest = 14 if present else 9
        assert widest * smallest + 6 > cell_w or smallest + 4 > cell_h
    if n <= 6 and width == fg.FULL_PX:
        assert fig.data[0].texttemplate is not None  # a small matrix at full width always shows them


def test_every_label_is_shown_up_to_32_tokens_and_the_kept_one_beyond() -> None:
    """All row and column labels up to at least 32 tokens (full width, laptop and
    presentation); past that thinning may drop labels, never the kept ones (the key the query attends to
    most), and kept labels never sit closer than the thinning step to another."""
    for present in (False, True):
        style = fg.Style(present=present)
        for n in (11, 24, 32):
            labels = [f"word{i}" for i in range(n)]
            fig = fg.heatmap(
                np.eye(n), labels, labels, title="t", style=style, cells=fg.Cells(weights=True, row_sums=True)
            )
            assert list(fig.layout.xaxis.ticktext) == labels and list(fig.layout.yaxis.ticktext) == labels
            assert fig.layout.xaxis.tickfont.size >= (14 if present else 10)
        # The default sentence in presentation mode, softmax chart at half width: every word is labelled.
        words = ["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "warm", "."]
        words[4] = "the ·4"
        half = fg.heatmap(
            np.eye(11),
            words,
            words,
            title="t",
            style=style,
            cells=fg.Cells(weights=True, row_sums=True),
            axes=fg.Axes(width_px=fg.HALF_PX),
        )
        assert list(half.layout.xaxis.ticktext) == words
    n = 64
    labels = [f"word{i}" for i in range(n)]
    fig = fg.heatmap(
        np.eye(n), labels, labels, title="t", style=STYLE, axes=fg.Axes(keep_rows=[37], keep_cols=[41])
    )
    x, y = list(fig.layout.xaxis.tickvals), list(fig.layout.yaxis.tickvals)
    assert len(x) < n and 41 in x and 37 in y
    step = x[1] - x[0]
    assert min(np.diff(x)) >= step and min(np.diff(y)) >= y[1] - y[0]  # no two labels overlap
    assert list(fig.layout.xaxis.ticktext) == [labels[j] for j in x]
    assert fg.thinned(10, 3, keep=[4]) == [0, 4, 9]  # 3 and 6 (closer than 3 to 4) give way


def test_cell_text_and_hover_show_values() -> None:
    fig = fg.heatmap(
        np.array([[0.123456789]]), ["a"], ["b"], title="t", style=STYLE, cells=fg.Cells(digits=3)
    )
    assert fig.data[0].texttemplate == "%{z:.3f}"
    assert "%{z:.10g}" in fig.data[0].hovertemplate  # hover has the exact value always


def test_row_sums_printed() -> None:
    w = ac.softmax(np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]), axis=-1)
    fig = fg.heatmap(
        w, ["a", "b"], ["x", "y", "z"], title="t", style=STYLE, cells=fg.Cells(weights=True, row_sums=True)
    )
    spec = fig.to_plotly_json()
    assert fg.row_sums_of(spec) == ["Σ 1.000", "Σ 1.000"]
    sums = next(t for t in fig.data if t.type == "scatter")
    assert list(sums.y) == [0, 1]  # beside its row: y2 spans the rows as the heatmap's y does
    assert list(fig.layout.yaxis2.range) == [1.5, -0.5] and fig.layout.yaxis2.overlaying == "y"
    assert not fig.layout.annotations  # one text trace, not an annotation a row


def test_presentation_mode_enlarges_text() -> None:
    small, big = fg.Style(), fg.Style(present=True)
    assert big.font > small.font and big.cell_font > small.cell_font and big.title_font > small.title_font
    f_small = fg.heatmap(np.eye(2), ["a", "b"], ["a", "b"], title="t", style=small)
    f_big = fg.heatmap(np.eye(2), ["a", "b"], ["a", "b"], title="t", style=big)
    assert f_big.layout.font.size > f_small.layout.font.size
    assert f_big.layout.height > f_small.layout.height


def test_dark_theme_template() -> None:
    assert fg.Style(dark=True).template == "plotly_dark" and fg.Style().template == "plotly_white"


def test_head_grid_one_panel_per_head() -> None:
    w = ac.softmax(np.random.default_rng(1).normal(size=(5, 3, 3)), axis=-1)
    fig = fg.head_grid(w, ["a", "b", "c"], style=STYLE, title="g")
    assert len(fig.data) == 5
    for h in range(5):
        assert_allclose(_z(fig, h), w[h])
    assert [a.text for a in fig.layout.annotations] == [f"head {h + 1}" for h in range(5)]
    assert fig.layout.yaxis.autorange == "reversed" and fig.layout.yaxis5.autorange == "reversed"


def test_head_grid_masks_cells() -> None:
    allowed = ac.causal_mask(3)
    w = np.where(allowed, 1 / 3, 0.0)[None].repeat(2, axis=0)
    fig = fg.head_grid(w, ["a", "b", "c"], style=STYLE, title="g", masked=~allowed)
    assert np.isnan(_z(fig, 1)[~allowed]).all() and not np.isnan(_z(fig, 1)[allowed]).any()


def test_bars_positions_keep_repeated_words_apart() -> None:
    fig = fg.bars(
        ["the", "cat", "the"], np.array([0.2, 0.5, 0.3]), style=STYLE, title="t", x_title="k", y_title="w"
    )
    assert list(fig.data[0].x) == [0, 1, 2]
    assert list(fig.layout.xaxis.ticktext) == ["the", "cat", "the"]
    assert list(fig.data[0].text) == ["0.200", "0.500", "0.300"]


def test_lines_escape_names_and_markers() -> None:
    x = np.linspace(0, 1, 5)
    ys = np.column_stack([x, x**2])
    fig = fg.lines(
        x, ys, ["<b>d0</b>", "d1"], style=STYLE, title="t", x_title="x", y_title="y",
        markers_x=np.array([0.0, 1.0]), markers_y=np.array([[0, 0], [1, 1]]), log_x=True,
    )  # fmt: skip
    assert len(fig.data) == 4 and fig.data[0].name == "&lt;b&gt;d0&lt;/b&gt;"
    assert fig.layout.xaxis.type == "log"


def test_stacked_contributions_sum_to_the_output() -> None:
    rng = np.random.default_rng(2)
    w = ac.softmax(rng.normal(size=(1, 4)), axis=-1)
    v = rng.normal(size=(4, 3))
    parts = ac.weighted_value_contributions(w, v)[0]
    fig = fg.stacked_contributions(parts, ["a", "b", "c", "<d>"], parts.sum(axis=0), style=STYLE, title="t")
    bars = [t for t in fig.data if t.type == "bar"]
    assert len(bars) == 4 and bars[3].name == "&lt;d&gt;"
    assert_allclose(np.sum([np.asarray(b.y) for b in bars], axis=0), (w @ v)[0])
    assert_allclose(np.asarray(fig.data[-1].y), (w @ v)[0])
    assert fig.layout.barmode == "relative"
    # Each sum is printed beside its marker on a box (legible over the bars), at the marker's height.
    assert [a.text for a in fig.layout.annotations] == [f"{t:.3f}" for t in (w @ v)[0]]
    assert_allclose([a.y for a in fig.layout.annotations], (w @ v)[0])
    assert all(a.bgcolor for a in fig.layout.annotations)


def test_stacked_contributions_of_a_real_head_print_no_sums_that_would_cover_each_other() -> None:
    """A real layer's d_v = 64: sixty-four boxes of numbers covered each other and the bars (/token, SmolLM2).
    Up to NOTED_DIMS dimensions each sum is printed; beyond, the markers and their hover say it."""
    rng = np.random.default_rng(3)
    for d_v, printed in ((fg.NOTED_DIMS, fg.NOTED_DIMS), (fg.NOTED_DIMS + 1, 0), (64, 0)):
        parts = rng.normal(size=(5, d_v))
        fig = fg.stacked_contributions(parts, list("abcde"), parts.sum(axis=0), style=STYLE, title="t")
        assert len(fig.layout.annotations) == printed
        assert_allclose(np.asarray(fig.data[-1].y), parts.sum(axis=0))  # the markers are always drawn


def test_every_builder_gives_a_valid_compact_figure() -> None:
    """Figures are assembled without Plotly's validation (it cost most of a rerun): Plotly must accept each one
    as it is, its template is the cut-down one (not 7 KB in every chart) and still paints a background."""
    lab = [f"t{i}" for i in range(40)]
    rng = np.random.default_rng(3)
    blocked = ~ac.causal_mask(40)
    x = np.linspace(1, 2, 5)
    for style in (fg.Style(), fg.Style(present=True, palette="warm", dark=True)):
        figs = [
            fg.heatmap(
                rng.normal(size=(40, 40)), lab, lab, title="t", style=style, cells=fg.Cells(masked=blocked)
            ),
            fg.heatmap(
                np.eye(3) / 3,
                lab[:3],
                lab[:3],
                title="t",
                style=style,
                cells=fg.Cells(weights=True, row_sums=True),
            ),
            fg.head_grid(rng.random((5, 40, 40)), lab, style=style, title="g", masked=blocked),
            fg.lines(
                x, np.column_stack([x, x]), ["a", "b"], style=style, title="l", x_title="x", y_title="y"
            ),
            fg.bars(lab[:3], np.array([0.2, 0.5, 0.3]), style=style, title="b", x_title="k", y_title="w"),
            fg.stacked_contributions(rng.normal(size=(3, 4)), lab[:3], np.ones(4), style=style, title="s"),
        ]
        for fig in figs:
            spec = fig.to_dict()
            go.Figure(spec)  # validates every property: raises on anything Plotly would not draw
            assert len(json.dumps(spec["layout"]["template"])) < 2000
            assert spec["layout"]["template"]["layout"]["paper_bgcolor"] == (
                "rgb(17,17,17)" if style.dark else "white"
            )
        big = figs[0].to_dict()["data"]
        assert "customdata" not in big[0] and "text" not in big[1]  # no per-cell strings at 40 x 40


# Speed: margins are computed here instead of by Plotly's automargin pass (which drew every chart
# twice in the browser), so they must grow with the labels, or long words would be cut off.
@pytest.mark.parametrize("present", [False, True])
def test_heatmap_margins_hold_the_labels(present: bool) -> None:
    style = fg.Style(present=present)
    short = fg.heatmap(np.eye(3), ["a", "b", "c"], ["a", "b", "c"], title="t", style=style)
    words = ["a", "extraordinarily", "c"]
    long = fg.heatmap(np.eye(3), words, words, title="t", style=style)
    for fig in (short, long):
        assert fig.layout.xaxis.automargin is False and fig.layout.yaxis.automargin is False
    font = long.layout.xaxis.tickfont.size
    assert long.layout.margin.l >= fg.text_px("extraordinarily", font) + style.font  # labels + axis title
    assert long.layout.margin.l > short.layout.margin.l
    # Upright key labels (up to 24 keys) are one line high; angled ones (more keys) reach up by their length
    # (-45 degrees: by 0.71 of it, -90: by all of it).
    assert long.layout.margin.t == short.layout.margin.t
    many = [f"k{j}" for j in range(30)]
    many_long = [*many[:-1], "extraordinarily"]
    angled = fg.heatmap(np.zeros((2, 30)), ["a", "b"], many_long, title="t", style=style)
    assert angled.layout.xaxis.tickangle in (-45, -90)  # 30 keys do not fit upright
    angled_short = fg.heatmap(np.zeros((2, 30)), ["a", "b"], many, title="t", style=style)
    grown = angled.layout.margin.t - angled_short.layout.margin.t
    assert grown >= 0.7 * (fg.text_px("extraordinarily", 10) - fg.text_px("k29", 10))  # width * sin 45
    wide = fg.heatmap(np.eye(3), ["猫", "犬", "鳥"], ["a", "b", "c"], title="t", style=style)
    assert fg.text_px("猫", 10) == 10 and fg.text_px("a", 10) == 6  # wide characters take a full em
    assert wide.layout.margin.l > short.layout.margin.l


def test_cell_lines_only_where_cells_are_large() -> None:
    small = fg.heatmap(np.eye(8), list("abcdefgh"), list("abcdefgh"), title="t", style=STYLE)
    (lines,) = small.layout.shapes
    assert lines.type == "path" and lines.layer == "above" and lines.line.width == 1
    # every inner border once: 7 between columns (x = 0.5 .. 6.5), 7 between rows, each across the matrix
    assert lines.path.count("M") == 14 and "M0.5,-0.5V7.5" in lines.path and "M-0.5,6.5H7.5" in lines.path
    assert not small.data[0].xgap and not small.data[0].ygap  # Plotly's gaps paint a chart-sized canvas
    n = 64
    labels = [f"w{i}" for i in range(n)]
    assert not fg.heatmap(np.eye(n), labels, labels, title="t", style=STYLE).layout.shapes


def test_cell_lines_are_the_page_colour() -> None:
    for dark in (False, True):
        template = fg.template_of(fg.Style(dark=dark))["layout"]
        assert template["shapedefaults"]["line"]["color"] == template["paper_bgcolor"]
    grid = fg.head_grid(np.full((3, 4, 4), 0.25), list("abcd"), style=STYLE, title="t")
    assert [(s.xref, s.yref) for s in grid.layout.shapes] == [("x", "y"), ("x2", "y2"), ("x3", "y3")]
    assert all(s.line.color is None for s in grid.layout.shapes)  # the template's (the page's) colour


def test_head_grid_labels_never_overlap_at_64_tokens() -> None:
    n = 64
    labels = [f"word{i}" for i in range(n)]
    w = np.full((8, n, n), 1.0 / n)
    grid = fg.head_grid(w, labels, style=STYLE, title="t")
    x, y = grid.layout.xaxis, grid.layout.yaxis
    step = x.tickvals[1] - x.tickvals[0]
    assert 1 < step < 8 and list(x.ticktext) == labels[::step]  # every k-th label, in order
    font = x.tickfont.size
    assert 300 / len(x.tickvals) >= font + 3  # each label has its own line in a ~300 px panel
    assert x.tickangle == -90 and x.automargin is False
    y_step = y.tickvals[1] - y.tickvals[0]
    assert list(y.ticktext) == labels[::y_step]
    small = fg.head_grid(w[:, :4, :4], labels[:4], style=STYLE, title="t")
    assert list(small.layout.xaxis.ticktext) == labels[:4]  # few tokens: every label


def test_groups_name_and_divide_equal_blocks_of_columns() -> None:
    z = np.arange(12.0).reshape(2, 6)
    fig = fg.heatmap(
        z,
        ["a", "b"],
        [f"c{j}" for j in range(6)],
        title="t",
        style=STYLE,
        cells=fg.Cells(groups=["h1", "h2", "h3"]),
    )
    assert [a.text for a in fig.layout.annotations] == ["h1", "h2", "h3"]
    assert [a.x for a in fig.layout.annotations] == [0.5, 2.5, 4.5]  # the middle of each block
    # between blocks, over the lines between cells
    assert [s.x0 for s in fig.layout.shapes if s.type == "line"] == [1.5, 3.5]
    assert fig.layout.shapes[0].type == "path"
    plain = fg.heatmap(z, ["a", "b"], [f"c{j}" for j in range(6)], title="t", style=STYLE)
    assert fig.layout.margin.t > plain.layout.margin.t  # room for the names
    with pytest.raises(ValueError, match="equal groups"):
        fg.heatmap(
            z,
            ["a", "b"],
            [f"c{j}" for j in range(6)],
            title="t",
            style=STYLE,
            cells=fg.Cells(groups=["h1", "h2", "h3", "h4"]),
        )


def test_stacked_contributions_of_many_keys_keep_the_strongest_and_sum_the_rest() -> None:
    rng = np.random.default_rng(5)
    n = 64
    w = ac.softmax(rng.normal(size=(1, n)) * 3, axis=-1)
    v = rng.normal(size=(n, 8))
    parts = ac.weighted_value_contributions(w, v)[0]  # (n, 8)
    labels = [f"k{j}" for j in range(n)]
    fig = fg.stacked_contributions(parts, labels, parts.sum(axis=0), style=STYLE, title="t", max_keys=12)
    bars = [t for t in fig.data if t.type == "bar"]
    assert len(bars) == 12 and bars[-1].name == "53 other keys"
    strongest = np.argsort(-np.abs(parts).sum(axis=1))[:11]
    assert [b.name for b in bars[:-1]] == [labels[j] for j in sorted(strongest)]  # in sentence order
    # Nothing is lost: the bars still add up to the output row, and "other" is exactly the rest.
    assert_allclose(np.sum([np.asarray(b.y) for b in bars], axis=0), (w @ v)[0], rtol=1e-12, atol=1e-14)
    rest = np.setdiff1d(np.arange(n), strongest)
    assert_allclose(np.asarray(bars[-1].y), parts[rest].sum(axis=0), rtol=1e-12, atol=1e-14)
    few = fg.stacked_contributions(parts[:12], labels[:12], parts[:12].sum(axis=0), style=STYLE, title="t")
    assert [t.name for t in few.data if t.type == "bar"] == labels[
        :12
    ]  # up to max_keys: every key its own bar


def test_head_grid_leaves_room_for_the_next_panels_query_labels() -> None:
    """At 4 heads the row label "because" of one panel ran over the heatmap left of it."""
    words = ["The", "cat", "sat", "on", "the ·4", "mat", "because", "it", "was", "warm", "."]
    for style in (STYLE, fg.Style(present=True)):
        grid = fg.head_grid(np.full((4, 11, 11), 1 / 11), words, style=style, title="g")
        area = fg.FULL_PX * (fg.PRESENT_SCALE if style.present else 1) - grid.layout.margin.l
        area -= 40 + fg.text_px("0.000", style.font)  # the colour bar
        label = fg.text_px("because", grid.layout.yaxis.tickfont.size)
        for left, right in (
            (grid.layout.xaxis, grid.layout.xaxis2),
            (grid.layout.xaxis2, grid.layout.xaxis3),
        ):
            assert (right.domain[0] - left.domain[1]) * area >= label + 4


def test_stacked_contributions_give_every_key_its_own_colour() -> None:
    """Plotly's colour cycle repeated after 10 keys: two keys looked like one."""
    n = 12
    fig = fg.stacked_contributions(
        np.ones((n, 4)), [f"k{j}" for j in range(n)], np.full(4, n), style=STYLE, title="s"
    )
    colours = [t.marker.color for t in fig.data if t.type == "bar"]
    assert len(colours) == n and len(set(colours)) == n and fg.OTHER_GREY not in colours
    more = fg.stacked_contributions(np.ones((30, 4)), [f"k{j}" for j in range(30)], np.full(4, 30), style=STYLE,
                                    title="s")  # fmt: skip
    bars = [t.marker.color for t in more.data if t.type == "bar"]
    assert len(set(bars)) == len(bars) == 12 and bars[-1] == fg.OTHER_GREY  # 11 keys and "19 other keys"


def test_log_axes_label_whole_values() -> None:
    x = np.array([1.0, 2, 4, 8, 16, 32, 64, 128, 256, 512])
    fig = fg.lines(x, np.column_stack([x, np.ones_like(x)]), ["a", "b"], style=STYLE, title="t", x_title="d",
                   y_title="v", log_x=True, log_y=True)  # fmt: skip
    assert list(fig.layout.xaxis.ticktext) == ["1", "2", "4", "8", "16", "32", "64", "128", "256", "512"]
    # 1, 2, 5 per power of ten inside the values (up to 512: 200 and 500 label the top, not 1000 off the axis)
    assert list(fig.layout.yaxis.ticktext) == ["1", "2", "5", "10", "20", "50", "100", "200", "500"]


def test_long_titles_wrap_to_the_chart_width() -> None:
    title = "Largest softmax weight over 16 keys (1/16 = flat, 1 = all on one key)"
    x = np.arange(1.0, 4.0)
    narrow = fg.lines(x, x[:, None], ["a"], style=STYLE, title=title, x_title="x", y_title="y", width_px=400)
    wide = fg.lines(x, x[:, None], ["a"], style=STYLE, title=title, x_title="x", y_title="y")
    lines = narrow.layout.title.text.split("<br>")
    assert len(lines) >= 2 and " ".join(lines) == fg.esc(title)
    assert all(fg.text_px(line, STYLE.title_font) <= 400 - 30 for line in lines)
    # the first line clear of the toolbar in the top right corner (it shows on hover, over the title)
    assert fg.text_px(lines[0], STYLE.title_font) <= 400 - 30 - MODEBAR_PX
    assert "<br>" not in wide.layout.title.text
    assert narrow.layout.margin.t > wide.layout.margin.t  # the second line has room


@pytest.mark.parametrize("present", [False, True])
def test_charts_side_by_side_keep_their_plots_level_when_one_title_wraps(present: bool) -> None:
    style, width = fg.Style(present=present), fg.FULL_PX // 4 - 16
    z, labels, dims = np.arange(12.0).reshape(3, 4), ["a", "b", "c"], ["d0", "d1", "d2", "d3"]
    short, long = "X (input)", "Output = LN(H + FFN(H)) of the whole encoder block"

    def pair() -> list[go.Figure]:
        return [
            fg.heatmap(z, labels, dims, title=t, style=style, axes=fg.Axes(width_px=width))
            for t in (short, long)
        ]

    alone, wrapped = (f.layout for f in pair())
    assert wrapped.title.text.count("<br>") >= 1 and "<br>" not in alone.title.text
    level, same = (f.layout for f in fg.level(pair()))
    assert alone.margin.t < wrapped.margin.t == level.margin.t  # the plots start at one height
    assert level.height - alone.height == level.margin.t - alone.margin.t  # the plot keeps its own height
    assert level.title.text == alone.title.text == short  # the title itself is unchanged, at the top
    assert level.title.pad.t == alone.title.pad.t
    assert (same.margin.t, same.height) == (wrapped.margin.t, wrapped.height)  # the longest title: unchanged
    bars = fg.bars(
        ["a", "b"], np.array([0.5, 0.5]), style=style, title=short, width_px=width, x_title="k", y_title="w"
    )  # any figure: its plot starts where the heatmap's does, and keeps its own height
    height, t0 = bars.layout.height, bars.layout.margin.t
    assert t0 < wrapped.margin.t
    fg.level([bars, pair()[1]])
    assert bars.layout.margin.t == wrapped.margin.t
    assert bars.layout.height - height == wrapped.margin.t - t0


def test_a_real_layers_twelve_heads_label_every_token() -> None:
    """/heads with MiniLM's layer open (12 heads, 13 tokens) at 1280 px: fewer panels a row, so that every
    token keeps its label on both axes, not every other one."""
    lab = [
        "[CLS]",
        "the ·1",
        "cat",
        "sat",
        "on",
        "the ·5",
        "mat",
        "because",
        "it",
        "was",
        "warm",
        ".",
        "[SEP]",
    ]
    w = np.random.default_rng(0).random((12, len(lab), len(lab)))
    for style in (fg.Style(), fg.Style(present=True)):
        fig = fg.head_grid(w, lab, style=style, title="every head")
        assert list(fig.layout.xaxis.ticktext) == lab and list(fig.layout.yaxis.ticktext) == lab, style
    four = fg.head_grid(w[:4, :6, :6], lab[:6], style=fg.Style(), title="the toy's heads")
    assert four.layout.yaxis4.domain == four.layout.yaxis.domain  # small ones: 4 a row still
