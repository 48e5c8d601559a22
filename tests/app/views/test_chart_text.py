"""Each chart says what it shows: a sentence computed from its numbers (what a screen reader reads for the
chart) and the same numbers as tables whose headers are the chart's labels, rounded as the chart prints
them (views.describe). Every kind of chart, checked against numbers computed here; every chart of every
page carries its text, and its tables when "Show charts as tables" is on (the browser's side:
tests/e2e/test_accessibility.py)."""

from __future__ import annotations

import numpy as np
import pytest

import attention_core as ac
from explorer.ui import chart, page_table
from explorer.ui.state import K_TABLES
from explorer.views import describe as d
from explorer.views import figures as fg
from explorer.views import model_figures as mf
from tests.app.views import read_back

LABELS = ["The", "cat", "sat", "on", "it"]
RNG = np.random.default_rng(7)


def test_numbers_are_rounded_as_the_chart_prints_them() -> None:
    """As JavaScript's toFixed (Plotly's cell text): the exact binary value, a tie away from zero."""
    cases = {(0.125, 2): "0.13", (-0.125, 2): "-0.13", (2.675, 2): "2.67", (1.005, 2): "1.00", (0.5, 0): "1",
             (2.5, 0): "3", (-0.001, 2): "-0.00", (0.0, 3): "0.000", (-np.inf, 2): "−∞"}  # fmt: skip
    assert {k: d.fixed(*k) for k in cases} == cases
    # (Python's own rounding differs on the ties: f"{0.125:.2f}" is "0.12", f"{2.5:.0f}" is "2".)
    assert f"{0.125:.2f}" == "0.12" and f"{2.5:.0f}" == "2"


def test_a_weights_heatmap_says_who_puts_most_weight_where_and_its_row_sums() -> None:
    n = len(LABELS)
    masked = ~np.tril(np.ones((n, n), dtype=bool))
    w = ac.softmax(np.where(masked, -np.inf, RNG.normal(size=(n, n))), axis=-1)
    fig = fg.drawn_heatmap(
        w,
        LABELS,
        LABELS,
        title="Softmax weights A (head 1; rows sum to 1)",
        style=fg.Style(),
        cells=fg.Cells(weights=True, masked=masked, row_sums=True),
    )
    summary, (table,) = d.describe(fig)
    i, j = np.unravel_index(np.argmax(w), w.shape)
    assert summary.startswith("Softmax weights A (head 1; rows sum to 1). 5 query rows by 5 key columns")
    assert f"the largest weight, {w[i, j]:.2f}, is what “{LABELS[i]}” puts on “{LABELS[j]}”" in summary
    assert "every row sums to 1" in summary and f"{masked.sum()} of 25 cells masked" in summary
    assert table.cols == LABELS and [r for r, _ in table.rows] == LABELS and table.corner == "query by key"
    for r in range(n):
        for c in range(n):
            want = "0 (masked)" if masked[r, c] else d.fixed(w[r, c], 2)
            assert table.rows[r][1][c] == want


def test_a_signed_heatmap_says_its_range_and_where() -> None:
    z = RNG.normal(size=(5, 3))
    fig = fg.drawn_heatmap(
        z,
        LABELS,
        ["d0", "d1", "d2"],
        title="Q of head 1",
        style=fg.Style(),
        cells=fg.Cells(digits=3),
        axes=fg.Axes(x_title="dimension", y_title="token"),
    )
    summary, (table,) = d.describe(fig)
    lo, hi = np.unravel_index(np.argmin(z), z.shape), np.unravel_index(np.argmax(z), z.shape)
    assert summary == (
        f"Q of head 1. 5 token rows by 3 dimension columns, values from {d.fixed(z[lo], 3)} "
        f"(“{LABELS[lo[0]]}”, “d{lo[1]}”) to {d.fixed(z[hi], 3)} (“{LABELS[hi[0]]}”, “d{hi[1]}”)."
    )
    assert table.rows[2] == ("sat", [d.fixed(v, 3) for v in z[2]])


def test_many_tokens_keep_every_label_in_the_table() -> None:
    """The chart thins its tick labels at 64 tokens; the table names every row and column."""
    labels = [f"token-number-{i}" for i in range(64)]
    fig = fg.drawn_heatmap(
        RNG.random((64, 64)),
        labels,
        labels,
        title="Big",
        style=fg.Style(),
        cells=fg.Cells(weights=True),
        axes=fg.Axes(width_px=fg.THIRD_PX),
    )
    ticks = fig.figure.to_plotly_json()["layout"]["yaxis"]["tickvals"]
    assert len(ticks) < 64  # labels thinned on the chart
    (table,) = d.describe(fig)[1]
    assert table.cols == labels and [r for r, _ in table.rows] == labels


def test_every_head_of_a_grid_gets_its_sentence_and_table() -> None:
    w = ac.softmax(RNG.normal(size=(2, 5, 5)), axis=-1)
    summary, tables = d.describe(fg.drawn_head_grid(w, LABELS, style=fg.Style(), title="Every head"))
    assert [t.caption for t in tables] == ["Every head: head 1", "Every head: head 2"]
    for h in range(2):
        i, j = np.unravel_index(np.argmax(w[h]), (5, 5))
        assert f"head {h + 1}: 5 query rows by 5 key columns; the largest weight, {w[h, i, j]:.2f}" in summary
        assert tables[h].rows[4][1] == [d.fixed(v, 2) for v in w[h, 4]]


def test_the_model_grid_counts_its_head_labels() -> None:
    L, H, n = 2, 3, 4
    rules = np.array([["first_token", "previous", "first_token"], ["broad", "first_token", "previous"]])
    fig = mf.drawn_model_grid(ac.softmax(RNG.normal(size=(L, H, n, n)), axis=-1), LABELS[:n], rules,
                        np.full((L, H), 0.5), style=fg.Style(), title="Every head")  # fmt: skip
    summary, (table,) = d.describe(fig)
    words = [mf.SHORT_LABELS.get(r, r) for r in rules.ravel()]
    counts = {w: words.count(w) for w in set(words)}
    assert summary.startswith("Every head. 2 layers by 3 heads")
    for word, c in counts.items():
        assert f"{c} {'head' if c == 1 else 'heads'} {word}" in summary
    assert [r for r, _ in table.rows] == ["layer 1", "layer 2"] and table.cols == [
        "head 1",
        "head 2",
        "head 3",
    ]
    assert table.rows[1][1][0] == f"{words[3]} (score 0.50)"


def test_curves_say_their_ranges_and_the_table_holds_the_marked_points() -> None:
    t = np.linspace(0, 10, 101)
    curves, pe = RNG.normal(size=(101, 8)), RNG.normal(size=(11, 8))  # the curves and the marked positions
    fig = fg.drawn_encoding_curves(t, curves, pe, fg.dims("d", 8), style=fg.Style())
    summary, (table,) = d.describe(fig)
    assert "8 curves of value against position from 0 to 10" in summary
    assert f"d0 from {d.short(curves[:, 0].min())} to {d.short(curves[:, 0].max())}" in summary
    assert table.cols == fg.dims("d", 8) and [r for r, _ in table.rows] == [str(p) for p in range(11)]
    assert table.rows[3][1] == [d.short(v) for v in pe[3]]  # the marked points: the sentence's positions


def test_bars_say_each_value_as_printed() -> None:
    p = np.array([0.61, 0.2, 0.05])
    fig = mf.drawn_token_bars(["Paris", " Lyon", " the"], p, style=fg.Style(), title="The next token")
    summary, (table,) = d.describe(fig)
    assert summary == "The next token. 3 bars: 1. “Paris” 0.610, 2. “␣Lyon” 0.200, 3. “␣the” 0.050."
    assert table.rows[1] == ("2. “␣Lyon”", ["0.200"])
    c = RNG.normal(size=(5, 4))
    summary, (table,) = d.describe(
        fg.drawn_stacked_contributions(c, LABELS, c.sum(0), style=fg.Style(), title="Sum")
    )
    k, j = np.unravel_index(np.argmax(np.abs(c)), c.shape)
    assert summary.startswith("Sum. 5 parts stacked in each of 4 bars; output (sum): ")
    assert f"the largest part is {LABELS[k]}'s in v{j}" in summary
    assert table.cols == [*LABELS, "output (sum)"] and [r for r, _ in table.rows] == ["v0", "v1", "v2", "v3"]


def chart_texts(at) -> dict[str, dict]:  # noqa: ANN001 - an AppTest
    out = {}
    for el in at.get("bidi_component"):
        said = chart.text_of(el.proto)
        if said is not None:
            out[chart.key_of(el.proto)] = {**said, "spec": chart.spec_of(el.proto)}
    return out


# Every page that draws charts when it opens (/patching draws its own after its Run button, /minimal-pairs
# once a second sentence is typed or a pair picked).
@pytest.mark.parametrize(
    "url", [p.url_path for p in page_table.listed() if p.url_path not in ("patching", "minimal-pairs")]
)
def test_every_chart_on_a_page_says_what_it_shows(kit, url: str) -> None:
    at = kit.open(url, via_app=True)
    assert not at.exception, at.exception
    texts = chart_texts(at)
    assert texts and set(kit.page_charts.get(url, ())) <= set(texts)
    for key, said in texts.items():
        assert said["l"] == read_back.title_of(said["spec"]) and said["l"] != "Chart", key
        assert said["s"].startswith(said["l"] + ". ") and len(said["s"]) > len(said["l"]) + 20, key
        assert said["tbl"] is None, f"{key}: tables sent while the switch is off"
    at.session_state[K_TABLES] = True
    at.run()
    for key, said in chart_texts(at).items():
        want = [t.as_dict() for t in read_back.describe(said["spec"])[1]]
        assert said["tbl"] and [_plain(t) for t in said["tbl"]] == [_plain(t) for t in want], key


def _plain(t: dict) -> dict:
    """A table as JSON gives it back (tuples become lists)."""
    return {**t, "rows": [[name, list(cells)] for name, cells in t["rows"]]}


def test_the_scores_table_is_the_cores_weights(kit) -> None:
    ref = kit.reference()
    at = kit.open("scores", via_app=True, state={K_TABLES: True})
    (table,) = chart_texts(at)["scores.weights"]["tbl"]
    assert table["cols"] == ref.labels and [r for r, _ in table["rows"]] == ref.labels
    for i, (_, cells) in enumerate(table["rows"]):
        assert cells == [d.fixed(v, 2) for v in ref.trace.weights[0, i]]


def test_a_heatmap_without_labels_of_its_own_is_read_from_its_axes_and_cell_text() -> None:
    from explorer.views import patching as pv

    delta = np.array([0.05, -0.2, 0.0, 0.126, -0.01])
    summary, (table,) = d.describe(pv.occlusion_strip(LABELS, delta, " Paris", style=fg.Style()))
    # the strip names each token with its change; the table holds the changes at two decimals
    assert summary.endswith("1 row by 5 columns, values from -0.20 (“cat -0.20”) to 0.13 (“on +0.13”).")
    assert table.cols == [f"{t} {v:+.2f}" for t, v in zip(LABELS, delta, strict=True)]
    assert table.rows[0][1] == ["0.05", "-0.20", "0.00", "0.13", "-0.01"]


def test_the_line_view_says_what_each_query_attends_to() -> None:
    from explorer.views import line_view as lv

    w = ac.softmax(RNG.normal(size=(2, 5, 5)), axis=-1)
    summary, (table,) = d.describe(
        lv.drawn_line_view(w, LABELS, ["head 1", "head 2"], style=fg.Style(), title="Lines")
    )
    assert summary.startswith("Lines. Each of the 5 queries (left) joined to the keys (right)")
    assert "2 heads: head 1, head 2" in summary
    name, (cell,) = table.rows[4]
    j = int(np.argmax(w[0, 4]))
    assert name == "query 4: it" and f"head 1: key {j} {LABELS[j]} {w[0, 4, j]:.3f}" in cell
