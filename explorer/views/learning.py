"""Pure Plotly builders for /learn (each hands over a Drawn: the figure with its words and tables): the loss through training with the phase change marked, each head's
score through training, and the trained model with its previous-token head switched off.

Steps run along x; a dotted line marks the checkpoint on screen, a dashed one the phase change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from explorer.i18n import _
from explorer.views import describe
from explorer.views.bars import KEY_COLOURS
from explorer.views.curves import curves_of
from explorer.views.drawn import Drawn
from explorer.views.style import FULL_PX, PRESENT_CHART_PX, Style, _figure, _layout


def _vline(x: float, text: str, dash: str, style: Style) -> tuple[dict[str, Any], dict[str, Any]]:
    """A vertical line over the whole plot at x, and its label at the top."""
    shape = {"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1,
             "line": {"dash": dash, "width": 2, "color": "#888888"}}  # fmt: skip
    note = {"x": x, "y": 1, "xref": "x", "yref": "paper", "text": text, "showarrow": False, "yanchor": "bottom",
            "font": {"size": style.font}}  # fmt: skip
    return shape, note


def _marks(style: Style, at_step: int | None, drop_step: int | None, x_max: int) -> dict[str, Any]:
    """The phase change's line (its label to the left) and the checkpoint's (to the right, or to the left
    near the right edge or before the phase change), so that neither label leaves the plot or covers the other."""
    shapes, notes = [], []
    for x, text, dash in (
        (drop_step, _("phase change"), "dash"),
        (at_step, _("step {step}", step=at_step), "dot"),
    ):
        if x is not None:
            shape, note = _vline(x, text, dash, style)
            shapes.append(shape)
            notes.append(note)
    if drop_step is not None:
        notes[0]["xanchor"] = "right" if at_step is None or at_step > drop_step else "left"
    if at_step is not None:
        later = drop_step is None or at_step > drop_step
        notes[-1]["xanchor"] = "left" if later and at_step < 0.85 * x_max else "right"
    return {"shapes": shapes, "annotations": notes}


def loss_curve(
    smoothed: NDArray[np.float64],
    repeat_loss: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    drop_step: int,
    at_step: int | None = None,
    width_px: int = FULL_PX,
    repeat_steps: NDArray[np.int64] | None = None,
    x_max: int | None = None,
    height_px: int | None = None,
) -> Drawn:
    """The batch loss (smoothed, (S,) for steps 1..S) and the copied tokens' loss ((S + 1,) for steps 0..S,
    or (K,) at the steps ``repeat_steps``); x runs to ``x_max`` (default: the last step), so that a run still
    training draws across its whole length."""
    width = 3 if style.present else 2
    repeat_x = np.arange(repeat_loss.size) if repeat_steps is None else repeat_steps
    x_max = int(repeat_x[-1]) if x_max is None else x_max
    data = [
        {"type": "scatter", "x": np.arange(1, smoothed.size + 1), "y": smoothed, "mode": "lines",
         "name": _("every token (batch, smoothed)"), "line": {"width": width, "color": KEY_COLOURS[0]},
         "hovertemplate": _("step {step}: {loss} nats", step="%{x}", loss="%{y:.3f}") + "<extra>" + _("every token") + "</extra>"},
        {"type": "scatter", "x": repeat_x, "y": repeat_loss, "mode": "lines",
         "name": _("the copied tokens"), "line": {"width": width, "color": KEY_COLOURS[1]},
         "hovertemplate": _("step {step}: {loss} nats", step="%{x}", loss="%{y:.3f}") + "<extra>" + _("the copied tokens") + "</extra>"},
    ]  # fmt: skip
    height = height_px or (PRESENT_CHART_PX - 200 if style.present else 340)
    layout = _layout(
        style, title, height, width_px,
        xaxis={"title": {"text": _("training step")}, "range": [0, x_max]},
        yaxis={"title": {"text": _("loss (nats)")}, "rangemode": "tozero"},
        legend={"font": {"size": style.font}, "orientation": "h", "y": -0.25},
        **_marks(style, at_step, drop_step, x_max),
    )  # fmt: skip
    return curves_of(data, layout, title)


def score_curves(
    scores: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    y_title: str,
    at_step: int | None = None,
    drop_step: int | None = None,
    width_px: int = FULL_PX,
    steps: NDArray[np.int64] | None = None,
    x_max: int | None = None,
    height_px: int | None = None,
) -> Drawn:
    """One line per head: scores (S + 1, H) after 0..S steps, or (K, H) after ``steps``, on 0..1; x runs to
    ``x_max`` (default: the last step)."""
    width = 3 if style.present else 2
    x = np.arange(scores.shape[0]) if steps is None else steps
    x_max = int(x[-1]) if x_max is None else x_max
    data = [
        {"type": "scatter", "x": x, "y": scores[:, h], "mode": "lines",
         "name": _("head {n}", n=h + 1), "line": {"width": width, "color": KEY_COLOURS[h % len(KEY_COLOURS)]},
         "hovertemplate": _("head {n}, step {step}: {score}", n=h + 1, step="%{x}", score="%{y:.2f}") + "<extra></extra>"}
        for h in range(scores.shape[1])
    ]  # fmt: skip
    height = height_px or (PRESENT_CHART_PX - 200 if style.present else 300)
    layout = _layout(
        style, title, height, width_px,
        xaxis={"title": {"text": _("training step")}, "range": [0, x_max]},
        yaxis={"title": {"text": y_title}, "range": [0, 1.02]},
        legend={"font": {"size": style.font}, "orientation": "h", "y": -0.3},
        **_marks(style, at_step, drop_step, x_max),
    )  # fmt: skip
    return curves_of(data, layout, title)


def switch_off_bars(
    heads: Sequence[str],
    on: NDArray[np.float64],
    off: NDArray[np.float64],
    *,
    style: Style,
    title: str,
    y_title: str,
    y_range: tuple[float, float] | None = None,
    width_px: int = FULL_PX,
) -> Drawn:
    """Two bars per category: every head on, and the previous-token head off; the value printed on each."""
    data = [
        {"type": "bar", "x": list(heads), "y": values, "name": name, "marker": {"color": colour},
         "text": [f"{v:.2f}" for v in values], "textposition": "outside", "cliponaxis": False,
         "hovertemplate": f"%{{x}}, {name}: %{{y:.3f}}<extra></extra>"}
        for values, name, colour in ((on, _("every head on"), KEY_COLOURS[0]), (off, _("previous-token head off"), KEY_COLOURS[3]))
    ]  # fmt: skip
    top = max(float(np.max(on)), float(np.max(off))) * 1.2 if y_range is None else y_range[1]
    layout = _layout(
        style, title, PRESENT_CHART_PX - 250 if style.present else 320, width_px,
        barmode="group",
        yaxis={"title": {"text": y_title}, "range": [0, top] if y_range is None else list(y_range)},
        legend={"font": {"size": style.font}, "orientation": "h", "y": -0.2},
    )  # fmt: skip
    series = [describe.Series(name, [describe.plain(h) for h in heads], np.asarray(values, dtype=np.float64),
                              [f"{v:.2f}" for v in values])
              for values, name in ((on, _("every head on")), (off, _("previous-token head off")))]  # fmt: skip
    return describe.drawn_bars(_figure(data, layout), title, "", series)
