"""Colour: every colour scale the app draws with stays readable with a colour-vision deficiency, lines and
text contrast with both themes' backgrounds, and masked cells differ by more than their colour.

The deficiencies are simulated with the matrices of Machado, Oliveira and Fernandes (2009), "A
Physiologically-based Model for Simulation of Color Vision Deficiency", IEEE TVCG 15(6):1291-1298,
doi:10.1109/TVCG.2009.113, at severity 1.0 (protanopia, deuteranopia, tritanopia), on linear RGB.
Differences are CIEDE2000 (Sharma, Wu and Dalal 2005), checked here against their published test data.
The figures: benchmarks/colour_check.py.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from explorer.views import colour as cv
from explorer.views import figures as fg
from explorer.views.style import _upper_half

ROOT = Path(__file__).resolve().parents[3]
THEME = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["theme"]
BACKGROUNDS = {name: THEME[name]["backgroundColor"] for name in ("light", "dark")}
TEXT = {name: THEME[name]["textColor"] for name in ("light", "dark")}

JND = 2.3  # about the just-noticeable colour difference: neighbouring tenths of a scale must differ by more
ENDS = 40.0  # a scale's two ends (a sequential one) or its middle and either end: far apart
SIGNS = 20.0  # a diverging scale's two signs at the same size, 0.2 or more from the middle
SAMPLES = 11  # the scales sampled every tenth

# Sharma, Wu and Dalal (2005), "The CIEDE2000 color-difference formula: implementation notes, supplementary
# test data, and mathematical observations", Color Research & Application 30(1):21-30, Table 1 (pairs 1, 7,
# 13, 17, 25): two CIELAB colours and their CIEDE2000 difference.
SHARMA = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0009), 7.1792),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
]


def test_ciede2000_reproduces_the_published_test_data() -> None:
    got = cv.ciede2000(np.array([p[0] for p in SHARMA]), np.array([p[1] for p in SHARMA]))
    assert_allclose(got, [p[2] for p in SHARMA], atol=5e-5)


def test_the_simulations_keep_greys_and_darken_red_for_a_protanope() -> None:
    greys = np.linspace(0.0, 1.0, 6)[:, None] * np.ones(3)
    for vision in cv.MACHADO_2009:
        assert_allclose(cv.simulate(greys, vision), greys, atol=2e-3)  # each matrix's rows sum to 1
    red = np.array([1.0, 0.0, 0.0])
    # Protanopes lack the long-wavelength cones: red looks much darker (the model's luminance halves).
    assert cv.luminance(cv.simulate(red, "protanopia")) < 0.6 * cv.luminance(red)
    assert_allclose(cv.lab(np.array([1.0, 1.0, 1.0])), [100.0, 0.0, 0.0], atol=0.01)


def differences(scale: str | tuple, vision: str) -> np.ndarray:
    """CIELAB of the scale's tenths as seen with `vision`, (SAMPLES, 3)."""
    return cv.lab(cv.simulate(cv.scale_colours(scale, SAMPLES), vision))


SEQUENTIAL = sorted({p[0] for p in fg.PALETTES.values()})
DIVERGING = sorted({p[1] for p in fg.PALETTES.values()})


@pytest.mark.parametrize("vision", cv.VISIONS)
@pytest.mark.parametrize("scale", SEQUENTIAL)
def test_sequential_scales_keep_their_steps_and_ends_apart(scale: str, vision: str) -> None:
    lab = differences(scale, vision)
    assert cv.ciede2000(lab[0], lab[-1]) >= ENDS, f"{scale}, {vision}: its ends"
    steps = cv.ciede2000(lab[:-1], lab[1:])
    assert steps.min() >= JND, f"{scale}, {vision}: tenths {int(steps.argmin())}-{int(steps.argmin()) + 1}"


@pytest.mark.parametrize("vision", cv.VISIONS)
@pytest.mark.parametrize("scale", DIVERGING)
def test_diverging_scales_keep_the_two_signs_apart(scale: str, vision: str) -> None:
    lab = differences(scale, vision)
    mid = SAMPLES // 2
    far = mid - 1  # tenths 0 .. far - 1 and their mirrors lie 0.2 or more from the middle
    signs = cv.ciede2000(lab[:far], lab[::-1][:far])
    assert signs.min() >= SIGNS, (
        f"{scale}, {vision}: -x and +x differ by {signs.min():.1f} at tenth {signs.argmin()}"
    )
    assert min(cv.ciede2000(lab[0], lab[mid]), cv.ciede2000(lab[-1], lab[mid])) >= ENDS, (
        f"{scale}: 0 and an end"
    )
    steps = cv.ciede2000(lab[:-1], lab[1:])
    assert steps.min() >= JND, f"{scale}, {vision}: tenths {int(steps.argmin())}-{int(steps.argmin()) + 1}"
    upper = cv.lab(
        cv.simulate(cv.scale_colours([list(p) for p in _upper_half(scale)], SAMPLES), vision)
    )  # values >= 0
    assert cv.ciede2000(upper[0], upper[-1]) >= ENDS, f"{scale}: its upper half's ends"


@pytest.mark.parametrize("theme", sorted(BACKGROUNDS))
def test_line_colours_stand_out_from_both_backgrounds(theme: str) -> None:
    bg = BACKGROUNDS[theme]
    low = {c: round(cv.contrast(c, bg), 2) for c in fg.KEY_COLOURS if cv.contrast(c, bg) < 3.0}
    assert not low, f"line colours under 3:1 on the {theme} background {bg}: {low}"


@pytest.mark.parametrize("vision", cv.VISIONS)
def test_line_colours_stay_apart(vision: str) -> None:
    lab = cv.lab(cv.simulate(np.array([cv.rgb(c) for c in fg.KEY_COLOURS]), vision))
    d = cv.ciede2000(lab[:, None, :], lab[None, :, :])
    first = d[:8, :8][np.triu_indices(8, 1)]
    assert first.min() >= 10.0, f"{vision}: two of the first 8 line colours differ by {first.min():.1f}"
    assert d[np.triu_indices(len(lab), 1)].min() >= 5.0, vision


@pytest.mark.parametrize("theme", sorted(BACKGROUNDS))
def test_text_contrasts_with_its_background(theme: str) -> None:
    assert cv.contrast(TEXT[theme], BACKGROUNDS[theme]) >= 4.5
    assert cv.contrast(THEME[theme]["textColor"], THEME[theme]["secondaryBackgroundColor"]) >= 4.5
    # the value printed on a masked cell, on its grey
    assert cv.contrast(fg.MASKED_TEXT, fg.MASKED_GREY) >= 4.5


def masked_strokes(fig) -> list[str]:  # noqa: ANN001 - a Plotly figure
    return [s["path"] for s in fig.to_plotly_json()["layout"].get("shapes", []) if s.get("name") == "masked"]


def crossed(path: str, shape: tuple[int, int]) -> np.ndarray:
    """The cells a hatch path's lines cross, (n_rows, n_cols) True = crossed: each line "Mx0,y0Lx1,y1" runs
    from a cell's lower left corner up and right, one cell per unit."""
    out = np.zeros(shape, dtype=bool)
    for seg in path.split("M")[1:]:
        (x0, y0), (x1, y1) = (tuple(float(v) for v in p.split(",")) for p in seg.split("L"))
        assert x1 - x0 == y0 - y1 > 0, seg  # up and to the right, at 45 degrees
        for k in range(round(x1 - x0)):
            r, c = round(y0 - 0.5 - k), round(x0 + 0.5 + k)
            assert not out[r, c], f"cell {r, c} crossed twice"
            out[r, c] = True
    return out


@pytest.mark.parametrize("n", [6, 40])
def test_masked_cells_differ_by_more_than_colour(n: int) -> None:
    """Cells large enough print their value ("0": weight, "-inf": score); smaller ones get a stroke each."""
    rng = np.random.default_rng(0)
    masked = ~np.tril(np.ones((n, n), dtype=bool))
    masked[n // 2, 0] = True  # a lone masked cell too
    for weights in (True, False):
        z = rng.random((n, n))
        fig = fg.heatmap(
            z,
            [f"t{i}" for i in range(n)],
            [f"t{i}" for i in range(n)],
            title="w",
            style=fg.Style(),
            cells=fg.Cells(weights=weights, masked=masked),
        )
        grey = next(t for t in fig.to_plotly_json()["data"] if (t.get("meta") or {}).get("masked_value"))
        printed = grey.get("text")
        strokes = masked_strokes(fig)
        if printed is not None:  # the value in every masked cell, nothing in the others
            assert (np.array(printed) == fg.masked_value(weights)).sum() == masked.sum()
            assert (np.array(printed)[~masked] == "").all()
        else:  # one stroke across each masked cell, none across the others
            assert len(strokes) == 1
            assert (crossed(strokes[0], masked.shape) == masked).all()
        assert (printed is None) == (n == 40), "6 cells a side print their values, 40 do not"
    grid = fg.head_grid(rng.random((2, n, n)), [f"t{i}" for i in range(n)], style=fg.Style(), title="g",
                        masked=masked)  # fmt: skip
    strokes = masked_strokes(grid)
    assert len(strokes) == (2 if n == 40 else 0)
    assert all((crossed(s, masked.shape) == masked).all() for s in strokes)


def test_a_stroke_crosses_exactly_its_cell() -> None:
    masked = np.zeros((3, 4), dtype=bool)
    masked[0, 1:3] = masked[2, 3] = masked[1, 2] = True
    # Four masked cells, no two on one anti-diagonal next to each other: four strokes, from each cell's lower
    # left corner (column - 0.5, row + 0.5) to its upper right (column + 0.5, row - 0.5), anti-diagonal by
    # anti-diagonal.
    path = fg.mask_hatch(masked)["path"]
    assert path == "M0.5,0.5L1.5,-0.5M1.5,0.5L2.5,-0.5M1.5,1.5L2.5,0.5M2.5,2.5L3.5,1.5"
    masked[0, 3] = True  # now (1, 2) and (0, 3) join into one line across two cells
    assert "M1.5,1.5L3.5,-0.5" in fg.mask_hatch(masked)["path"]
    assert (crossed(fg.mask_hatch(masked)["path"], masked.shape) == masked).all()
