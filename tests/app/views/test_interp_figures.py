"""explorer.views.interp_figures and the induction line of the model grid: valid Plotly figures, tokens shown
literally, the stripe where the formula puts it."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from explorer.views import figures as fg
from explorer.views import interp_figures as lf
from explorer.views import line_view, model_figures

HOSTILE = {0: "<b>bold</b>", 1: " $x$", 2: "%{y}", 3: " Paris", 4: "a" * 40}


def _lens(L: int = 3, n: int = 4, k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 5, size=(L + 1, n, k))
    ids[..., 0] = (
        np.add.outer(np.arange(L + 1), np.arange(n)) % 5
    )  # every token of HOSTILE comes first somewhere
    probs = np.sort(rng.random((L + 1, n, k)), axis=2)[..., ::-1]
    return ids, probs


@pytest.mark.parametrize("present", [False, True])
def test_every_builder_gives_a_valid_figure(present: bool) -> None:
    sty = fg.Style(present=present)
    ids, probs = _lens()
    w = np.tril(np.ones((8, 8))) / np.arange(1, 9)[:, None]
    figs = [
        lf.lens_grid(ids, probs, HOSTILE, ["a", "b", "c", "d"], rows=[0, 2, 3], style=sty, title="t"),
        lf.follow_line(
            probs[:, 0, 0], probs[:, 0, 1], ["x"] * 4, " Paris", style=sty, title="f", wins_from=2
        ),
        lf.follow_line(probs[:, 0, 0], probs[:, 0, 1], ["x"] * 4, " Paris", style=sty, title="f", log=True),
        lf.with_stripe(
            fg.heatmap(
                w, list("abcdabcd"), list("abcdabcd"), style=sty, title="p", cells=fg.Cells(weights=True)
            ),
            4,
            sty,
        ),
        lf.loss_lines(np.arange(7.0), 4, style=sty, title="l"),
    ]
    for fig in figs:
        go.Figure(getattr(fig, "figure", fig).to_dict())  # validates every property


def test_lens_grid_shows_tokens_literally_and_cuts_long_ones() -> None:
    ids, probs = _lens()
    fig = lf.lens_grid(
        ids, probs, HOSTILE, ["<i>", "b", "c", "d"], rows=[0, 1, 2, 3], style=fg.Style(), title="t"
    ).figure
    text = [t for row in fig.data[0].text for t in row]
    hover = " ".join(h for row in fig.data[0].customdata for h in row)
    assert "<b>" not in " ".join(text) and "<b>" not in hover.replace("<br>", "")
    assert "$" not in hover and "%{" not in hover
    assert {"a" * 9 + "…", "&lt;b&gt;bold&lt;/…", "␣&#36;x&#36;", "&#37;{y}", "␣Paris"} == set(text)
    assert "␣Paris" in hover and "after “&lt;i&gt;”" in hover
    np.testing.assert_array_equal(fig.data[0].z, probs[:, :, 0])


def test_lens_grid_draws_only_the_rows_asked_for() -> None:
    ids, probs = _lens(L=6)
    fig = lf.lens_grid(ids, probs, HOSTILE, list("abcd"), rows=[0, 3, 6], style=fg.Style(), title="t").figure
    np.testing.assert_array_equal(fig.data[0].z, probs[[0, 3, 6], :, 0])
    assert list(fig.layout.yaxis.ticktext) == ["embeddings", "layer 3", "layer 6"]


def test_the_stripe_runs_from_query_n_key_1_to_query_2n_minus_1_key_n() -> None:
    n = 5
    fig = lf.with_stripe(fg.heatmap(np.eye(2 * n), list("abcdeabcde"), list("abcdeabcde"), style=fg.Style(),
                                    title="p"), n, fg.Style())  # fmt: skip
    lines = [s for s in fig.layout.shapes if s.type == "line"]
    assert len(lines) == 2
    for s in lines:  # a cell and a half to either side of the stripe, parallel to it
        assert (s.y0, s.y1) == (n, 2 * n - 1) and s.x1 - s.x0 == n - 1
    assert sorted(s.x0 for s in lines) == [1 - 1.5, 1 + 1.5]


def test_loss_lines_leave_the_first_copys_first_token_out() -> None:
    fig = lf.loss_lines(np.arange(1.0, 8.0), 4, style=fg.Style(), title="l").figure
    first, second = (np.asarray(d.y, dtype=float) for d in fig.data)
    assert np.isnan(first[0]) and first[1:].tolist() == [1.0, 2.0, 3.0]
    assert second.tolist() == [4.0, 5.0, 6.0, 7.0]


def test_model_grid_adds_induction_as_a_second_line_of_the_heads_that_pass() -> None:
    A = np.full((2, 3, 4, 4), 0.25)
    rules = np.full((2, 3), "broad", dtype=object)
    induction = np.array([[0.1, 0.5, 0.3], [0.29, 0.0, 0.9]])
    fig = model_figures.model_grid(A, list("abcd"), rules, np.ones((2, 3)), style=fg.Style(), title="g",
                                   induction=induction, induction_threshold=0.3)  # fmt: skip
    text = list(fig.data[-1].text)
    assert text == [
        "broad",
        "broad<br>induction",
        "broad<br>induction",
        "broad",
        "broad",
        "broad<br>induction",
    ]
    assert "induction 0.29 on random tokens repeated" in fig.data[-1].hovertext[3]
    plain = model_figures.model_grid(A, list("abcd"), rules, np.ones((2, 3)), style=fg.Style(), title="g")
    assert list(plain.data[-1].text) == ["broad"] * 6
    assert fig.layout.meta["grid"][4] > plain.layout.meta["grid"][4]  # a taller band for two lines


# ------------------------------------------------------------------------------------------ the line view


def _drawn_lines(fig: go.Figure) -> dict[tuple[str, int, int], float]:
    """(head name, query, key) -> the line's width, read back from the segment traces."""
    out = {}
    for trace in fig.data:
        if trace.mode != "lines" or trace.showlegend is not False:
            continue
        xs, ys = list(trace.x), list(trace.y)
        for a in range(0, len(xs), 3):
            assert (xs[a], xs[a + 1], xs[a + 2]) == (0.0, 1.0, None)
            out[(trace.name, int(ys[a]), int(ys[a + 1]))] = trace.line.width
    return out


def test_line_view_draws_a_line_per_weight_thicker_as_it_grows() -> None:
    rng = np.random.default_rng(1)
    w = rng.dirichlet(np.full(6, 0.4), size=(2, 6))  # (2 heads, 6 queries, 6 keys), rows sum to 1
    fig = line_view.line_view(w, list("abcdef"), ["head 1", "head 4"], style=fg.Style(), title="t")
    go.Figure(fig.to_dict())
    drawn = _drawn_lines(fig)
    names = ["head 1", "head 4"]
    want = {(names[h], int(i), int(j)) for h, i, j in np.argwhere(w >= 0.02)}
    assert set(drawn) == want  # every weight of at least LEVELS[0], and no other
    pairs = sorted((w[names.index(n), i, j], width) for (n, i, j), width in drawn.items())
    widths = [width for _, width in pairs]
    assert widths == sorted(widths) and widths[0] < widths[-1]  # a larger weight, a line at least as thick


def test_line_view_keeps_one_tokens_lines_and_clicks_pick_tokens() -> None:
    w = np.full((1, 4, 4), 0.25)
    fig = line_view.line_view(w, list("abcd"), ["head 1"], style=fg.Style(), title="t", focus=("key", 2))
    assert {(i, j) for _, i, j in _drawn_lines(fig)} == {(0, 2), (1, 2), (2, 2), (3, 2)}
    fig = line_view.line_view(w, list("abcd"), ["head 1"], style=fg.Style(), title="t", focus=("query", 1))
    assert {(i, j) for _, i, j in _drawn_lines(fig)} == {(1, 0), (1, 1), (1, 2), (1, 3)}
    _, q_curve, k_curve = fig.layout.meta["lines"]
    assert line_view.picked_token(fig, {"curve": q_curve, "point": 3}) == ("query", 3)
    assert line_view.picked_token(fig, {"curve": k_curve, "point": 0}) == ("key", 0)
    assert line_view.picked_token(fig, {"curve": 0, "point": 0}) is None
    assert line_view.picked_token(fig, {"curve": k_curve, "point": 9}) is None
    assert "key 0 a 0.250" in fig.data[q_curve].hovertext[1]  # a query's hover: its weights exactly
