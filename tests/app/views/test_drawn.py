"""A builder hands its chart over with what it shows (views.drawn.Drawn), made from the numbers it was
given: the same title, note, sentence and tables as views.describe reads from the figure, so the text
alternatives and the HTML export say what they said. Nothing in explorer/ reads a Plotly figure's private
`_data` / `_layout` but the two readers still serving the charts whose builders hand over a bare figure."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import attention_core as ac
from explorer.views import describe as d
from explorer.views import figures as fg
from explorer.views import line_view as lv
from explorer.views import model_figures as mf
from explorer.views.heatmap import drawn_heatmap

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
    assert d.describe(drawn, tables=False) == (drawn.summary, [])
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


# The readers that still decode a figure's own dicts: views.describe for charts whose builders hand over a
# bare figure, and the chart element encoding any figure it sends (a copy through to_dict costs 15-35 ms).
READERS = {"explorer/views/describe.py": 1, "explorer/ui/chart/__init__.py": 1}


def test_nothing_else_reads_a_figure_back() -> None:
    root = Path(__file__).resolve().parents[3]
    found = {}
    for path in sorted((root / "explorer").rglob("*.py")):
        n = len(re.findall(r"\._data\b|\._layout\b|[\"']_data[\"']|[\"']_layout[\"']", path.read_text()))
        if n:
            found[path.relative_to(root).as_posix()] = n
    assert found == {k: v * 2 for k, v in READERS.items()}  # each reader names _data and _layout once
