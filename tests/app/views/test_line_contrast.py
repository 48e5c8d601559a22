"""Every line, marker and bar a figure builder draws stands out from the page: a contrast of at least 3:1
against the theme's background (WCAG 2.1, 1.4.11 non-text contrast), in the light and the dark theme, for
every palette. A shape passes by its own colour or by an outline of at least 1 px that does.

Heatmaps and what is drawn over their cells are not lines on the page (their colour scales are checked in
test_colour.py). A trace's opacity is a value drawn, not its colour: line_view fades a weak weight as a
heatmap pales its cell, and its legend shows each head's colour whole.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attention_core as ac
from explorer.views import colour as cv
from explorer.views import figures as fg
from explorer.views import interp_figures, line_view, model_figures, pairs
from explorer.views.drawn import Drawn
from explorer.views.style import PALETTES, Style

ROOT = Path(__file__).resolve().parents[3]
THEME = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["theme"]
BACKGROUNDS = {name: THEME[name]["backgroundColor"] for name in ("light", "dark")}
NAMED = {"black": "#000000", "white": "#ffffff"}
MIN_CONTRAST = 3.0

rng = np.random.default_rng(0)
TOKENS = ["The", "cat", "sat", "on", "the", "mat", "."]
N = len(TOKENS)
WEIGHTS = rng.dirichlet(np.ones(N), size=(3, N))  # (heads, queries, keys)
PROBS = np.sort(rng.dirichlet(np.ones(10)))[::-1]


D_KS = [2, 8, 32, 128]
VARIANCE = ac.score_variance_experiment(D_KS, n_samples=50, seed=0)
SATURATION = ac.softmax_saturation(D_KS, n_keys=16, n_samples=50, seed=0)


BUILDERS: dict[str, Callable[[Style], Any]] = {
    "lines": lambda s: fg.lines(
        np.arange(10.0),
        rng.normal(size=(10, 12)),
        [f"c{j}" for j in range(12)],
        style=s,
        title="t",
        x_title="x",
        y_title="y",
    ),
    "encoding_curves": lambda s: fg.encoding_curves(
        np.linspace(0, N, 50), rng.normal(size=(50, 8)), rng.normal(size=(N, 8)), fg.dims("d", 8), style=s
    ),
    "scale_experiment": lambda s: fg.scale_experiment(np.array(D_KS), VARIANCE, SATURATION, 16, style=s),
    "bars": lambda s: fg.bars(TOKENS, WEIGHTS[0, 2], style=s, title="t", x_title="x", y_title="y"),
    "bars at 0 and 1": lambda s: fg.bars(
        ["a", "b"], np.array([0.0, 1.0]), style=s, title="t", x_title="x", y_title="y"
    ),
    "stacked_contributions": lambda s: fg.stacked_contributions(
        rng.normal(size=(20, 4)), [f"k{j}" for j in range(20)], rng.normal(size=4), style=s, title="t"
    ),
    "token_bars": lambda s: model_figures.token_bars(TOKENS, PROBS[:N], style=s, title="t"),
    "token_bars, two": lambda s: model_figures.token_bars(
        TOKENS, PROBS[:N], style=s, title="t", after=PROBS[:N][::-1]
    ),
    "value_bars": lambda s: model_figures.value_bars(TOKENS, PROBS[:N], style=s, title="t", x_title="x"),
    "moved_bars": lambda s: pairs.moved_bars(
        rng.uniform(size=3), WEIGHTS[:, 0] - WEIGHTS[:, 1], TOKENS, title="t", style=s
    ),
    "follow_line": lambda s: interp_figures.follow_line(
        np.linspace(0.1, 0.8, 7), np.linspace(0.5, 0.9, 7), TOKENS, " Paris", style=s, title="t", wins_from=3
    ),
    "loss_lines": lambda s: interp_figures.loss_lines(rng.uniform(size=2 * N - 1), N, style=s, title="t"),
    "line_view": lambda s: line_view.line_view(WEIGHTS, TOKENS, ["h1", "h2", "h3"], style=s, title="t"),
}


def _figures(built: Any) -> Iterator[Any]:
    yield from (
        b.figure if isinstance(b, Drawn) else b for b in (built if isinstance(built, tuple) else (built,))
    )


def _colours(value: Any) -> list[str]:
    if value is None:
        return []
    values = value if isinstance(value, list | tuple | np.ndarray) else [value]
    return [NAMED.get(str(c), str(c)) for c in values if isinstance(c, str)]


def drawn(fig: Any) -> Iterator[tuple[str, list[str], list[str]]]:
    """(what, its colours, its outline's colours) of every line, marker and bar of `fig` on the page."""
    data = [t.to_plotly_json() for t in fig.data]
    if any(t["type"] == "heatmap" for t in data):
        return  # lines over cells, not over the page
    for i, t in enumerate(data):
        mode = t.get("mode", "lines+markers" if t["type"] == "scatter" else "")
        name = f"trace {i} ({t.get('name', '')})"
        if t["type"] == "scatter" and "lines" in mode:
            yield f"{name} line", _colours(t.get("line", {}).get("color")), []
        marker = t.get("marker", {})
        if t["type"] == "bar" or "markers" in mode:
            edge = marker.get("line", {})
            outline = _colours(edge.get("color")) if (edge.get("width") or 0) >= 1 else []
            yield (
                f"{name} {'bar' if t['type'] == 'bar' else 'marker'}",
                _colours(marker.get("color")),
                outline,
            )


@pytest.mark.parametrize("palette", sorted(PALETTES))
@pytest.mark.parametrize("theme", sorted(BACKGROUNDS))
@pytest.mark.parametrize("builder", sorted(BUILDERS))
def test_every_line_and_bar_stands_out_from_the_page(builder: str, theme: str, palette: str) -> None:
    bg = BACKGROUNDS[theme]
    style = Style(dark=theme == "dark", palette=palette)
    low, seen = [], 0
    for fig in _figures(BUILDERS[builder](style)):
        for what, colours, outline in drawn(fig):
            best_edge = max((cv.contrast(c, bg) for c in outline), default=0.0)
            for c in colours:
                seen += 1
                if max(cv.contrast(c, bg), best_edge) < MIN_CONTRAST:
                    low.append(f"{what} {c}: {cv.contrast(c, bg):.2f}:1")
    assert seen, f"{builder} drew no line or bar"
    assert not low, f"{builder} on the {theme} background {bg}, palette {palette}: {sorted(set(low))}"
