"""A builder hands its chart over with what it shows (views.drawn.Drawn), made from the numbers it was
given: the same title, note, sentence and tables as a reader of the figure itself finds (read_back, here in
the tests), so the text alternatives and the HTML export say what the chart shows. Nothing in explorer/
reads a figure back, nor a Plotly figure's private `_data` / `_layout`."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import attention_core as ac
from explorer.views import describe
from explorer.views import figures as fg
from explorer.views import line_view as lv
from explorer.views import model_figures as mf
from explorer.views.heatmap import drawn_heatmap
from tests.app.views import read_back as d
from tests.app.views.read_back import short

RNG = np.random.default_rng(11)
LABELS = ["The", "cat", "sat", "on", "the", "mat"]
CAUSAL = ~np.tril(np.ones((6, 6), dtype=bool))


def _weights() -> np.ndarray:
    w = np.where(CAUSAL, 0.0, RNG.random((6, 6)))
    return w / w.sum(axis=1, keepdims=True)


def _outliers() -> np.ndarray:
    z = RNG.normal(size=(6, 8))
    z[2, 3] = 40.0  # far beyond the bulk: circled, and named in the note
    return z


CASES = {
    "weights, masked": (_weights(), LABELS, LABELS, "Softmax weights A (head 1; rows sum to 1)",
                        fg.Cells(weights=True, masked=CAUSAL, row_sums=True), fg.Axes()),
    "scores, -inf where masked": (np.where(CAUSAL, -np.inf, RNG.normal(size=(6, 6))), LABELS, LABELS,
                                  "Softmax input: scaled (× 0.5), masked", fg.Cells(masked=CAUSAL), fg.Axes()),
    "signed, an outlier": (_outliers(), LABELS, [f"d{j}" for j in range(8)], "Q = X W_Q (head 2)",
                           fg.Cells(digits=3), fg.Axes(x_title="dimension", y_title="token")),
    "groups, a long title": (RNG.normal(size=(6, 4)), LABELS, ["a", "b", "c", "d"],
                             "A <b>title</b> with $x$ and 50% that wraps " * 4,
                             fg.Cells(groups=("head 1", "head 2")), fg.Axes(width_px=fg.HALF_PX)),
    "64 tokens, no title": (RNG.normal(size=(64, 64)), [f"t{i}" for i in range(64)],
                            [f"t{i}" for i in range(64)], "", fg.Cells(nonneg=False), fg.Axes()),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_a_heatmap_says_what_its_figure_says(case: str) -> None:
    """Drawn's words and tables, made from z, equal those read back from the figure it holds."""
    z, rows, cols, title, cells, axes = CASES[case]
    drawn = drawn_heatmap(z, rows, cols, title=title, style=fg.Style(), cells=cells, axes=axes)
    fig = drawn.figure
    assert drawn.title == d.title_of(fig)
    assert drawn.beyond == d.beyond_of(fig)
    assert (drawn.summary, drawn.tables) == d.describe(fig, tables=True)
    assert describe.describe(drawn, tables=False) == (drawn.summary, [])
    if case == "signed, an outlier":
        assert "d3 = 40" in drawn.beyond and drawn.summary.endswith(f"{drawn.beyond}.")
    if case == "weights, masked":
        assert drawn.tables[0].rows[0][1][1] == "0 (masked)"


@pytest.mark.parametrize("masked", [None, CAUSAL])
def test_a_grid_of_heads_says_what_its_figure_says(masked: np.ndarray | None) -> None:
    w = np.stack([_weights(), _weights(), _weights()])
    drawn = fg.drawn_head_grid(
        w, LABELS, style=fg.Style(), title="Attention weights of every head", masked=masked
    )
    fig = drawn.figure
    assert (drawn.title, drawn.beyond) == (d.title_of(fig), d.beyond_of(fig))
    assert (drawn.summary, drawn.tables) == d.describe(fig, tables=True)
    assert [t.caption.rsplit(": ", 1)[1] for t in drawn.tables] == ["head 1", "head 2", "head 3"]


def test_curves_say_what_their_figure_says() -> None:
    t = np.linspace(0.0, 9.0, 400)
    curves = np.column_stack([np.sin(t * 0.7**j) for j in range(8)])
    pe = curves[::50][:6]
    x = np.array([1.0, 4.0, 16.0, 64.0, 256.0])
    made = [
        fg.drawn_encoding_curves(t, curves, pe, fg.dims("d", 8), style=fg.Style()),
        fg.drawn_lines(x, np.column_stack([x, np.ones_like(x)]), ["var(q·k) <measured>", ""], style=fg.Style(),
                       title="Variance", x_title="d_k", y_title="", log_x=True, log_y=True, dash=["solid", "dot"]),
    ]  # fmt: skip
    for drawn in made:
        fig = drawn.figure
        assert (drawn.title, drawn.beyond) == (d.title_of(fig), d.beyond_of(fig))
        assert (drawn.summary, drawn.tables) == d.describe(fig, tables=True)
    assert [r for r, _ in made[0].tables[0].rows] == ["0", "1", "2", "3", "4", "5"]  # the marked positions


@pytest.mark.parametrize("n_keys", [5, 15])
def test_bars_say_what_their_figure_says(n_keys: int) -> None:
    keys = [f"t{j}" for j in range(n_keys - 2)] + ["a  b", "t0"]  # a repeated word, a double space
    a = _weights()[5] if n_keys == 6 else np.full(n_keys, 1.0 / n_keys)
    parts = a[:, None] * RNG.normal(size=(n_keys, 20 if n_keys > 5 else 4))
    made = [
        fg.drawn_bars(
            keys, a, style=fg.Style(), title="Weights of “it”", x_title="key", y_title="weight aᵢⱼ"
        ),
        fg.drawn_bars(keys, a, style=fg.Style(), title="Weights", x_title="", y_title="", width_px=120),
        fg.drawn_stacked_contributions(
            parts, keys, parts.sum(axis=0), style=fg.Style(), title="Output of “it”"
        ),
    ]
    for drawn in made:
        fig = drawn.figure
        assert (drawn.title, drawn.beyond) == (d.title_of(fig), d.beyond_of(fig))
        assert (drawn.summary, drawn.tables) == d.describe(fig, tables=True)


def test_the_why_scale_curves_and_the_mask_say_what_their_figures_say() -> None:
    d_ks = [2, 8, 32, 128]
    var = ac.score_variance_experiment(d_ks, n_samples=50, seed=0)
    sat = ac.softmax_saturation(d_ks, n_keys=16, n_samples=50, seed=0)
    made = [
        *fg.drawn_scale_experiment(np.array(d_ks), var, sat, 16, style=fg.Style()),
        fg.drawn_mask_matrix(CAUSAL, LABELS, mask_title="causal", style=fg.Style()),
        fg.drawn_mask_matrix(None, LABELS, mask_title="none", style=fg.Style()),
    ]
    for drawn in made:
        fig = drawn.figure
        assert (drawn.title, drawn.beyond) == (d.title_of(fig), d.beyond_of(fig))
        assert (drawn.summary, drawn.tables) == d.describe(fig, tables=True)
    assert made[3].figure.data[0].showscale is False  # the mask's one value: no colour bar


def test_a_model_s_bars_say_what_their_figure_says() -> None:
    tokens = [" the", "<a>", " cat", "  x", " the"]
    p = np.array([0.4, 0.25, 0.2, 0.1, 0.05])
    made = [
        mf.drawn_token_bars(tokens, p, style=fg.Style(), title="Top 5 next tokens"),
        mf.drawn_token_bars(tokens, p, style=fg.Style(), title="T", after=p[::-1], names=("T = 2", "T = 1")),
        mf.drawn_value_bars(["layer 1, head 2", "a  <b>"], np.array([0.25, 0.0]), style=fg.Style(), title="Shift",
                            x_title="shift", digits=2),
    ]  # fmt: skip
    for drawn in made:
        fig = drawn.figure
        assert (drawn.title, drawn.beyond) == (d.title_of(fig), d.beyond_of(fig))
        assert (drawn.summary, drawn.tables) == d.describe(fig, tables=True)


def test_the_model_grid_says_what_its_figure_says() -> None:
    L, H, n = 2, 3, 4
    rules = np.array([["first_token", "previous", "first_token"], ["broad", "first_token", "previous"]])
    att = np.stack([np.stack([_weights()[:n, :n] for _ in range(H)]) for _ in range(L)])
    drawn = mf.drawn_model_grid(att, LABELS[:n], rules, np.full((L, H), 0.5), style=fg.Style(), title="Every head",
                                selected=(1, 2))  # fmt: skip
    fig = drawn.figure
    assert (drawn.title, drawn.beyond) == (d.title_of(fig), d.beyond_of(fig))
    assert (drawn.summary, drawn.tables) == d.describe(fig, tables=True)
    assert mf.picked_head(drawn, {"curve": 1, "point": 4}) == (1, 1)


@pytest.mark.parametrize("focus", [None, ("key", 2)])
def test_the_line_view_says_what_its_figure_says(focus: tuple[str, int] | None) -> None:
    w = np.stack([_weights(), _weights()])
    drawn = lv.drawn_line_view(w, LABELS, ["head 1", "head  2"], style=fg.Style(), title="Lines", focus=focus)
    fig = drawn.figure
    assert (drawn.title, drawn.beyond) == (d.title_of(fig), d.beyond_of(fig))
    assert (drawn.summary, drawn.tables) == d.describe(fig, tables=True)
    assert lv.picked_token(drawn, {"curve": len(fig.data) - 1, "point": 3}) == ("key", 3)


def test_nothing_reads_a_figure_back() -> None:
    """No module of the app reads a Plotly figure's private dicts, nor reads a chart's words from a figure."""
    root = Path(__file__).resolve().parents[3]
    found = {}
    for path in sorted((root / "explorer").rglob("*.py")):
        text = path.read_text()
        n = len(re.findall(r"\._data\b|\._layout\b|[\"']_data[\"']|[\"']_layout[\"']", text))
        if n:
            found[path.relative_to(root).as_posix()] = n
    assert found == {}
    said = (root / "explorer/views/describe.py").read_text()
    assert "to_plotly_json" not in said and "layout.get(" not in said  # words from numbers, never a figure


def _lens() -> tuple[np.ndarray, np.ndarray, dict[int, str]]:
    ids = np.add.outer(np.arange(4), np.arange(5))[..., None] % 4 + np.arange(3)  # (L + 1, n, k)
    probs = np.sort(RNG.random((4, 5, 3)), axis=2)[..., ::-1]
    return ids % 6, probs, {i: w for i, w in enumerate(["<b>x</b>", " $y$", "%{z}", " Paris", "a" * 30, "b"])}


def _built_elsewhere() -> dict[str, object]:
    from explorer.views import interp_figures as lf
    from explorer.views import learning as lv_
    from explorer.views import pairs as pv
    from explorer.views import patching as pt

    ids, probs, words = _lens()
    sty = fg.Style()
    diff = RNG.normal(size=(3, 6)) * 0.1
    return {
        "lens, tokens in cells": lf.lens_grid(ids, probs, words, LABELS[:5], rows=[0, 2, 3], style=sty, title="Lens"),
        "lens, 64 tokens": lf.lens_grid(
            np.zeros((2, 64, 1), dtype=int), RNG.random((2, 64, 1)), {0: "t"}, [f"t{i}" for i in range(64)],
            rows=[0, 1], style=sty, title="Lens", width_px=fg.THIRD_PX),
        "follow": lf.follow_line(probs[:, 0, 0], probs[:, 0, 1], ["a", " b", "c", "d"], " Paris", style=sty,
                                 title="Follow", wins_from=2),
        "loss lines": lf.loss_lines(RNG.random(9), 5, style=sty, title="Loss", every_head_on=RNG.random(9)),
        "scores": lv_.score_curves(RNG.random((30, 4)), style=sty, title="Scores", y_title="score", at_step=7),
        "switch off": lv_.switch_off_bars(["head 1", "head <2>"], np.array([0.8, 0.1]), np.array([0.2, 0.15]),
                                          style=sty, title="Off", y_title="score"),
        "resid sweep": pt.resid_sweep(RNG.normal(size=(3, 4)), LABELS[:4], ["The", "dog", "sat", "on"], style=sty),
        "head sweep": pt.head_sweep(RNG.normal(size=(3, 4)), style=sty),
        "occlusion": pt.occlusion_strip(LABELS, np.array([0.05, -0.2, np.nan, 0.126, -0.01, 0.3]), " Paris",
                                        style=sty),
        "token views": pt.token_views(LABELS, [("a", RNG.normal(size=6)), ("b", RNG.normal(size=6))], style=sty),
        "head view": pt.head_view(RNG.normal(size=(2, 3)), "View", "moves by", style=sty),
        "rows": pv.rows_chart(_weights()[:3], LABELS, title="Rows", style=sty, zrange=(0.0, 1.0)),
        "difference": pv.difference_chart(diff, LABELS, LABELS[:5] + ["rug"], title="Diff", style=sty),
        "moved": pv.moved_bars(np.array([0.3, 0.0, 0.1]), diff, LABELS, title="Moved", style=sty),
        "similarity": pv.similarity_strip(LABELS, RNG.normal(size=6) * 0.01, style=sty),
    }  # fmt: skip


BUILT_ELSEWHERE = list(_built_elsewhere())


@pytest.mark.parametrize("name", BUILT_ELSEWHERE)
def test_every_other_chart_says_what_its_figure_says(name: str) -> None:
    """The logit lens, /induction's and /learn's curves and bars, the patching sweeps and views, the minimal
    pairs' charts: each handed over with the words and tables its figure shows."""
    d.says_what_it_shows(_built_elsewhere()[name])


def test_the_loss_curve_s_table_reads_each_curve_at_its_own_steps() -> None:
    """The batch loss starts at step 1, the copied tokens' at step 0: a row of the table is one step, at the
    steps of the curve with the fewest points."""
    from explorer.views import learning as lv_

    smoothed, repeat = RNG.random(20) + 1, RNG.random(21)
    drawn = lv_.loss_curve(smoothed, repeat, style=fg.Style(), title="Loss", drop_step=8, at_step=3)
    (table,) = drawn.tables
    assert table.corner == "training step" and table.cols == [
        "every token (batch, smoothed)",
        "the copied tokens",
    ]
    assert table.rows[0] == ("1", [short(smoothed[0]), short(repeat[1])])
    assert table.rows[4] == ("5", [short(smoothed[4]), short(repeat[5])])
    assert drawn.summary.startswith("Loss. 2 curves of loss (nats) against training step from 1 to 20: ")
    sparse = lv_.loss_curve(smoothed, repeat[::5], style=fg.Style(), title="Loss", drop_step=8,
                            repeat_steps=np.arange(0, 21, 5))  # fmt: skip
    assert [r for r, _ in sparse.tables[0].rows] == ["0", "5", "10", "15", "20"]
    assert sparse.tables[0].rows[1] == ("5", [short(smoothed[4]), short(repeat[5])])
    assert sparse.tables[0].rows[0][1][0] == "NaN"  # no batch loss before the first step


def test_the_loss_curve_says_what_its_figure_says() -> None:
    from explorer.views import learning as lv_

    drawn = lv_.loss_curve(RNG.random(20) + 1, RNG.random(21), style=fg.Style(), title="Loss", drop_step=8)
    d.says_what_it_shows(drawn)
