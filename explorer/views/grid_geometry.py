"""The /model grid's geometry: how many tokens it draws, and the px of its panels, label bands, margins and
font for L layers by H heads, fitted to a height when asked (a projector's screen)."""

from __future__ import annotations

import math
from typing import Any

from explorer.views.style import (
    PRESENT_TICK_PX,
    Style,
)

GRID_CELLS = 200_000  # weights drawn in the grid at most: about 1 MB sent, drawn in well under a second


def grid_tokens(n_layers: int, n_heads: int, n: int) -> int:
    """How many tokens the grid shows: all n, or the first m with n_layers * n_heads * m * m <= GRID_CELLS
    (MiniLM: 52, SmolLM2: 27); the single-head pages show every token."""
    return min(n, max(2, math.isqrt(GRID_CELLS // (n_layers * n_heads))))


# To fit a height, panels are not drawn flatter, nor labels smaller, than this: a grid that does not fit so
# scrolls in its box instead.
MIN_PANEL_PX = 40
MIN_LABEL_FONT = 14  # on a laptop; presenting, PRESENT_TICK_PX (read from the back of a room)


def _grid_geometry(
    L: int, H: int, n: int, style: Style, width_px: int, lines: int = 1, fit_px: int | None = None
) -> dict[str, Any]:
    """Sizes of the grid: px of a panel's row, the label band above each layer's panels in rows of that
    height (for labels of ``lines`` lines), the margins, the font; and the empty columns between heads
    (about 5 px). fit_px: panels flatter (down to MIN_PANEL_PX), then labels smaller (to MIN_LABEL_FONT),
    then the label band tight around its text, until the grid is at most that tall; a grid that does not fit
    even so keeps its full size (it scrolls in its box, every panel as legible as unfitted)."""
    left, right, top = (110 if style.present else 80), 70, int(2.2 * style.title_font + 2 * style.font)
    panel_w = max(40.0, (width_px - left - right) / H * 0.92)
    panel_h = float(min(max(panel_w * 0.75, 70), 160 if style.present else 120))
    floor = PRESENT_TICK_PX if style.present else MIN_LABEL_FONT
    font = max(
        floor if style.present else 10, min(style.font, int(panel_w / (11 * 0.6)))
    )  # "first token" fits
    margins = (left, right, top)
    g = free = _grid_rows(L, H, n, panel_w, panel_h, font, lines, margins)
    while fit_px is not None and g["height"] > fit_px and (panel_h > MIN_PANEL_PX or font > floor):
        if panel_h > MIN_PANEL_PX:  # flatter panels first, then smaller labels
            panel_h = max(float(MIN_PANEL_PX), panel_h - 2)
        else:
            font -= 1
        g = _grid_rows(L, H, n, panel_w, panel_h, font, lines, margins)
    if fit_px is not None and g["height"] > fit_px:  # last, the band's air: a line's height, a little space
        g = _grid_rows(L, H, n, panel_w, panel_h, font, lines, margins, tight=True)
    return g if fit_px is None or g["height"] <= fit_px else free  # past the floor: it scrolls, full size


def _grid_rows(
    L: int,
    H: int,
    n: int,
    panel_w: float,
    panel_h: float,
    font: int,
    lines: int,
    margins: tuple[int, int, int],
    *,
    tight: bool = False,
) -> dict[str, Any]:
    """The grid's rows for panels of panel_w x panel_h px (see _grid_geometry); tight: the label band a
    line's height (1.25 em a line) over a third of a line of space, not 1.7 em over 0.6."""
    left, right, top = margins
    row = panel_h / n  # px of one query row
    line, air = (1.25, 0.35) if tight else (1.7, 0.6)
    label = max(1, math.ceil(font * (line + 1.3 * (lines - 1)) / row))  # rows the labels take
    # Above them, empty rows more than half a line high: a label sits nearer its own panels (below it) than
    # the layer's above, which a label midway between the two rows of squares was not.
    space = math.ceil(air * font / row)
    band = space + label  # rows of the label band
    gap = max(1, math.ceil(5 / (panel_w / n)))
    plot_h = L * (band + n) * row
    return {"left": left, "right": right, "top": top, "font": font, "band": band, "gap": gap, "space": space,
            "plot_h": plot_h, "height": int(plot_h + top + 12), "tight": tight}  # fmt: skip
