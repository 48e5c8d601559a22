"""Every figure builder, in one namespace for the pages and the exports (each lives in its own module).

Conventions every heatmap follows:
- rows are queries (top to bottom in sentence order), columns are keys (left to right);
- axes are numeric (0..n-1) with the token labels as tick text, so repeated words never merge;
- every label is escaped: Plotly renders tags such as <b> or <a href> in text, a token is never markup;
- every label is shown while it fits (smaller, then rotated), and a cell prints its value only where the
  number fits in it, for the width the chart is drawn at (FULL_PX, HALF_PX, THIRD_PX; PRESENT_SCALE);
- weights use a sequential scale, fitted to their range (stated on the colour bar) or fixed 0..1 (Style);
  signed matrices a diverging scale centred on 0, up to the largest |value| unless a few outliers would
  wash the rest out: then up to the bulk's (colour_range), the outliers circled and named in a subtitle;
- charts side by side that are compared share one range (shared_range, shared_weight_range);
- masked cells are grey: "0" on weights (their weight), "-inf" only on the scores before the softmax; where
  cells are too small for their value, a stroke across each (mask_hatch): never told apart by colour alone.
"""

from __future__ import annotations

from explorer.views.axes import thinned
from explorer.views.bars import (
    KEY_COLOURS,
    NOTED_DIMS,
    OTHER_GREY,
    bar_text,
    bars,
    drawn_bars,
    drawn_stacked_contributions,
    key_colours,
    stacked_contributions,
)
from explorer.views.cell_marks import (
    MASKED_TEXT,
    cell_lines,
    cell_text_font,
    mask_hatch,
    masked_value,
    row_sums_of,
)
from explorer.views.colour_range import shared_range, shared_weight_range, weight_range
from explorer.views.curves import (
    drawn_encoding_curves,
    drawn_lines,
    drawn_scale_experiment,
    encoding_curves,
    lines,
    log_ticks,
    scale_experiment,
)
from explorer.views.grid import drawn_head_grid, head_grid
from explorer.views.heatmap import Axes, Cells, drawn_heatmap, drawn_mask_matrix, heatmap, mask_matrix
from explorer.views.style import (
    DIM_SPACES,
    FULL_PX,
    HALF_PX,
    MASKED_GREY,
    PALETTES,
    PRESENT_CHART_PX,
    PRESENT_SCALE,
    PRESENT_TICK_PX,
    THIRD_PX,
    Style,
    dims,
    esc,
    label_step,
    level,
    number,
    template_of,
    text_px,
    wrap,
)

__all__ = [
    "DIM_SPACES",
    "FULL_PX",
    "HALF_PX",
    "MASKED_GREY",
    "PALETTES",
    "PRESENT_CHART_PX",
    "PRESENT_SCALE",
    "PRESENT_TICK_PX",
    "Style",
    "THIRD_PX",
    "dims",
    "esc",
    "label_step",
    "level",
    "number",
    "template_of",
    "text_px",
    "wrap",
    "MASKED_TEXT",
    "cell_lines",
    "cell_text_font",
    "heatmap",
    "drawn_heatmap",
    "Axes",
    "Cells",
    "mask_hatch",
    "mask_matrix",
    "masked_value",
    "row_sums_of",
    "shared_range",
    "shared_weight_range",
    "thinned",
    "weight_range",
    "head_grid",
    "drawn_head_grid",
    "encoding_curves",
    "drawn_encoding_curves",
    "drawn_lines",
    "drawn_scale_experiment",
    "drawn_mask_matrix",
    "lines",
    "log_ticks",
    "scale_experiment",
    "KEY_COLOURS",
    "NOTED_DIMS",
    "OTHER_GREY",
    "bar_text",
    "bars",
    "drawn_bars",
    "drawn_stacked_contributions",
    "key_colours",
    "stacked_contributions",
]
