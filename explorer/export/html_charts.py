"""Every chart of the offline HTML page, from a Walkthrough: the same builders (explorer.views.figures) and
the same chart declarations (explorer.views.chart_specs: titles, axes) as the pages, at the laptop's width.
Pure: no Streamlit."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np
import plotly.graph_objects as go

from explorer.compute import cached as compute
from explorer.compute.pipeline import encoder_stages, pe_curves, stage_title
from explorer.export.walkthrough import Walkthrough
from explorer.views import chart_specs as specs
from explorer.views import colour_range
from explorer.views import figures as fg
from explorer.views.drawn import Drawn

STYLE = fg.Style()  # the app's look on a laptop (not presentation mode)
WIDTH = 1100  # px, the page's content width; charts in two columns get about half
WHY_SAMPLES, WHY_KEYS = 2000, 16  # the why-scale page's defaults (its sliders)


@dataclass
class Chart:
    """One chart on the page; several variants (e.g. one per head) share its place, switched by buttons."""

    key: str
    variants: list[tuple[str, Drawn]]  # each with its words and tables (views.drawn)
    wide: bool = True  # False: half the page's width, beside the next half chart


def figure_of(chart: Drawn) -> go.Figure:
    """A variant's Plotly figure."""
    return chart.figure


def _figure_json(fig: Drawn) -> dict[str, Any]:
    """The figure as plain JSON (arrays as Plotly's typed-array encoding), without its template (one is shared)."""
    spec = json.loads(figure_of(fig).to_json())
    spec["layout"].pop("template", None)
    return {"data": spec["data"], "layout": spec["layout"]}


def _per_head(w: Walkthrough, make) -> list[tuple[str, Drawn]]:  # noqa: ANN001 - make(h) -> Drawn
    return [(w.layer.heads[h], make(h)) for h in range(w.n_heads)]


def _dims(n: int, prefix: str = "d") -> list[str]:
    return [f"{prefix}{j}" for j in range(n)]


CELL_OPTIONS = {f.name for f in dataclasses.fields(fg.Cells)}


def charts_of(w: Walkthrough) -> dict[str, list[Chart]]:
    """Each step's charts, as the app's pages draw them (the same builders, the same numbers)."""
    return {
        "tokens": _input_charts(w),
        "positions": _position_charts(w),
        "projections": _projection_charts(w),
        "scores": _score_charts(w),
        "heads": _head_charts(w),
        "token": _token_charts(w),
        "encoder": _encoder_charts(w),
    }


def _heatmap(z, rows, cols, title, width=WIDTH, **kw) -> Drawn:  # noqa: ANN001
    """A heatmap at the page's width (or `width`): the Cells options among `kw`, the rest the axes'."""
    cells = {k: v for k, v in kw.items() if k in CELL_OPTIONS}  # the rest is about the axes
    axes = fg.Axes(width_px=width, **{k: v for k, v in kw.items() if k not in cells})
    return fg.drawn_heatmap(z, rows, cols, title=title, style=STYLE, cells=fg.Cells(**cells), axes=axes)


def _blocked(w: Walkthrough) -> np.ndarray | None:
    """The masked cells (n, n), or None when no score is masked."""
    return np.isneginf(w.numbers["S_masked"][0]) if np.isneginf(w.numbers["S_masked"]).any() else None


def _input_charts(w: Walkthrough) -> list[Chart]:
    """The tokens' embeddings E."""
    num, lab = w.numbers, list(w.labels)
    dims = _dims(w.d_model)
    return [
        Chart(
            "tokens.E",
            [
                (
                    "",
                    _heatmap(
                        num["E"],
                        lab,
                        dims,
                        specs.INPUT.titled(input=w.description().input_title),
                        **specs.INPUT.axes,
                    ),
                )
            ],
        )
    ]


def _position_charts(w: Walkthrough) -> list[Chart]:
    """The positional encoding: its curves (sinusoidal), P, P Pᵀ and X = E + P."""
    num, lab = w.numbers, list(w.labels)
    dims = _dims(w.d_model)
    half = WIDTH // 2
    pos: list[Chart] = []
    if w.pe_kind in ("sinusoidal", "sinusoidal_split"):
        t, curves = pe_curves(w.pe_kind, w.d_model, w.pe_base, max(w.n, 2))
        fig = fg.drawn_encoding_curves(t, curves, num["P"], dims, style=STYLE)
        pos.append(Chart("pe.curves", [("", fig)]))
    p = num["P"]
    pos += [
        Chart(
            "pe.P",
            [("", _heatmap(p, lab, dims, specs.PE_MATRIX.titled(), half, **specs.PE_MATRIX.axes))],
            False,
        ),
        Chart(
            "pe.PPt",
            [
                (
                    "",
                    _heatmap(
                        p @ p.T, lab, lab, specs.PE_SIMILARITY.titled(), half, **specs.PE_SIMILARITY.axes
                    ),
                )
            ],
            False,
        ),
        Chart(
            "pe.X", [("", _heatmap(num["X"], lab, dims, "X = E + P", x_title="dimension", y_title="token"))]
        ),
    ]
    return pos


def _projection_charts(w: Walkthrough) -> list[Chart]:
    """Q, K and V of every head."""
    num, lab = w.numbers, list(w.labels)
    keys = _dims(w.d_k, "k")
    return [
        Chart(
            f"proj.{m}",
            _per_head(
                w,
                lambda h, m=m: _heatmap(
                    num[m][h],
                    lab,
                    keys,
                    specs.PROJECTION.titled(out=m, head=w.layer.heads[h]),
                    **specs.PROJECTION.axes,
                ),
            ),
        )
        for m in ("Q", "K", "V")
    ]


def _score_charts(w: Walkthrough) -> list[Chart]:
    """The raw scores, the scaled and masked scores, and the weights of every head."""
    num, lab = w.numbers, list(w.labels)
    blocked = _blocked(w)
    half = WIDTH // 2
    scaled_title = specs.scaled_title(w.scale, w.alibi, blocked is not None)
    return [
        Chart(
            "scores.raw",
            _per_head(
                w,
                lambda h: _heatmap(
                    num["S"][h], lab, lab, specs.RAW_SCORES.titled(head=w.layer.heads[h]), half
                ),
            ),
            False,
        ),
        Chart(
            "scores.masked",
            _per_head(
                w, lambda h: _heatmap(num["S_masked"][h], lab, lab, scaled_title, half, masked=blocked)
            ),
            False,
        ),
        Chart(
            "scores.weights",
            _per_head(
                w,
                lambda h: _heatmap(
                    num["A"][h],
                    lab,
                    lab,
                    specs.WEIGHTS.titled(head=w.layer.heads[h]),
                    weights=True,
                    row_sums=True,
                    masked=blocked,
                ),
            ),
        ),
    ]


def _head_charts(w: Walkthrough) -> list[Chart]:
    """Every head's weights, their outputs concatenated, W_O and the output."""
    num, lab = w.numbers, list(w.labels)
    dims = _dims(w.d_model)
    blocked = _blocked(w)
    half = WIDTH // 2
    cols_v = [f"h{h + 1}·v{j}" for h in range(w.n_heads) for j in range(w.d_k)]
    grid = fg.drawn_head_grid(num["A"], lab, style=STYLE, title=specs.HEAD_GRID.titled(), masked=blocked)
    concat = _heatmap(
        num["concat"], lab, cols_v, specs.CONCAT.titled(), **specs.CONCAT.axes, groups=list(w.layer.heads)
    )
    w_o = _heatmap(w.layer.w_o, cols_v, dims, "W_O", half, x_title="dimension", y_title="row")
    out = _heatmap(num["out"], lab, dims, specs.OUTPUT.titled(), half, **specs.OUTPUT.axes)
    return [
        Chart("heads.grid", [("", grid)]),
        Chart("heads.concat", [("", concat)]),
        Chart("heads.W_O", [("", w_o)], False),
        Chart("heads.out", [("", out)], False),
    ]


def _token_charts(w: Walkthrough) -> list[Chart]:
    num, lab, i = w.numbers, list(w.labels), w.query

    def bars(h: int) -> Drawn:
        a = num["A"][h, i]
        return fg.drawn_bars(
            lab,
            a,
            style=STYLE,
            title=specs.token_weights_title(lab[i], w.layer.heads[h], w.n_heads, float(a.sum())),
            **specs.TOKEN_WEIGHTS.axes,
            y_range=(0, 1.15),
        )

    def stack(h: int) -> Drawn:
        parts = num["A"][h, i][:, None] * num["V"][h]  # (n, d_v): row j = a_ij v_j
        return fg.drawn_stacked_contributions(
            parts,
            lab,
            parts.sum(axis=0),
            style=STYLE,
            title=specs.TOKEN_STACK.titled(token=lab[i]),
        )

    return [Chart("token.weights", _per_head(w, bars)), Chart("token.stack", _per_head(w, stack))]


def _encoder_charts(w: Walkthrough) -> list[Chart]:
    num = w.numbers
    if "Y" not in num:
        return []
    trace = SimpleNamespace(
        x=num["X"],
        attn_input=num["enc_attn_in"],
        attention=SimpleNamespace(output=num["enc_attn"]),
        sum1=num["enc_sum1"],
        norm1=num["enc_norm1"],
        ffn_hidden=num["enc_hidden"],
        ffn_out=num["enc_ffn"],
        sum2=num["enc_sum2"],
        output=num["Y"],
    )
    charts = []
    stages = encoder_stages(trace, w.norm_first)  # type: ignore[arg-type]
    for k, (title, z, hidden) in enumerate(stages):
        # Two a row, as on the page: a row of one space shares a range when both stay readable on it.
        pair = stages[k - k % 2 : k - k % 2 + 2]
        same = len(pair) == 2 and pair[0][2] == pair[1][2]
        fig = fg.drawn_heatmap(
            z,
            list(w.labels),
            _dims(z.shape[1], "f" if hidden else "d"),
            title=stage_title(title),
            style=STYLE,
            cells=fg.Cells(zrange=colour_range.row_range([m for _, m, _ in pair]) if same else None),
            axes=fg.Axes(x_title="dimension", y_title="token", width_px=WIDTH // 2),
        )
        charts.append(Chart(f"encoder.{k}", [("", fig)], False))
    return charts


def why_scale_chart(seed: int) -> Chart:
    """The why-scale page's first chart, as the page draws it at its default sample counts."""
    d_ks, var, sat = compute.scale_experiment(WHY_SAMPLES, WHY_KEYS, seed)
    variance, _, _ = fg.drawn_scale_experiment(d_ks, var, sat, WHY_KEYS, style=STYLE)
    return Chart("why.variance", [("", variance)])
