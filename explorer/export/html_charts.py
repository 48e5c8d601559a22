"""Every chart of the offline HTML page, from a Walkthrough: the same builders (explorer.views.figures) and
titles as the pages, at the laptop's width. Pure: no Streamlit."""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np
import plotly.graph_objects as go

from explorer.compute import cached as compute
from explorer.compute.pipeline import encoder_stages, pe_curves
from explorer.export.walkthrough import Walkthrough
from explorer.views import colour_range, formulas
from explorer.views import figures as fg

STYLE = fg.Style()  # the app's look on a laptop (not presentation mode)
WIDTH = 1100  # px, the page's content width; charts in two columns get about half
WHY_SAMPLES, WHY_KEYS = 2000, 16  # the why-scale page's defaults (its sliders)


@dataclass
class Chart:
    """One chart on the page; several variants (e.g. one per head) share its place, switched by buttons."""

    key: str
    variants: list[tuple[str, go.Figure]]
    wide: bool = True  # False: half the page's width, beside the next half chart


def _figure_json(fig: go.Figure) -> dict[str, Any]:
    """The figure as plain JSON (arrays as Plotly's typed-array encoding), without its template (one is shared)."""
    spec = json.loads(fig.to_json())
    spec["layout"].pop("template", None)
    return {"data": spec["data"], "layout": spec["layout"]}


def _per_head(w: Walkthrough, make) -> list[tuple[str, go.Figure]]:  # noqa: ANN001 - make(h) -> Figure
    return [(w.layer.heads[h], make(h)) for h in range(w.n_heads)]


def _dims(n: int, prefix: str = "d") -> list[str]:
    return [f"{prefix}{j}" for j in range(n)]


def charts_of(w: Walkthrough) -> dict[str, list[Chart]]:
    """Each step's charts, as the app's pages draw them (the same builders, the same numbers)."""
    num, lab, sty = w.numbers, list(w.labels), STYLE
    dims, keys = _dims(w.d_model), _dims(w.d_k, "k")
    blocked = np.isneginf(num["S_masked"][0]) if np.isneginf(num["S_masked"]).any() else None
    half = WIDTH // 2

    def hm(z, rows, cols, title, width=WIDTH, **kw) -> go.Figure:  # noqa: ANN001
        return fg.heatmap(z, rows, cols, title=title, style=sty, width_px=width, **kw)

    out: dict[str, list[Chart]] = {}
    out["tokens"] = [
        Chart(
            "tokens.E", [("", hm(num["E"], lab, dims, "Embeddings E", x_title="dimension", y_title="token"))]
        )
    ]
    pos: list[Chart] = []
    if w.pe_kind in ("sinusoidal", "sinusoidal_split"):
        t, curves = pe_curves(w.pe_kind, w.d_model, w.pe_base, max(w.n, 2))
        fig = fg.encoding_curves(t, curves, num["P"], dims, style=sty)
        pos.append(Chart("pe.curves", [("", fig)]))
    p = num["P"]
    pos += [
        Chart(
            "pe.P",
            [("", hm(p, lab, dims, "Encodings P", half, x_title="dimension", y_title="position"))],
            False,
        ),
        Chart(
            "pe.PPt",
            [
                (
                    "",
                    hm(
                        p @ p.T,
                        lab,
                        lab,
                        "Similarity P Pᵀ between positions",
                        half,
                        x_title="position",
                        y_title="position",
                    ),
                )
            ],
            False,
        ),
        Chart("pe.X", [("", hm(num["X"], lab, dims, "X = E + P", x_title="dimension", y_title="token"))]),
    ]
    out["positions"] = pos
    out["projections"] = [
        Chart(
            f"proj.{m}",
            _per_head(
                w,
                lambda h, m=m: hm(
                    num[m][h], lab, keys, f"{m} ({w.layer.heads[h]})", x_title="dimension", y_title="token"
                ),
            ),
        )
        for m in ("Q", "K", "V")
    ]
    scaled_title = f"Softmax input: scaled (× {w.scale:.4g}){' + ALiBi bias' if w.alibi else ''}" + (
        ", masked" if blocked is not None else ""
    )
    out["scores"] = [
        Chart(
            "scores.raw",
            _per_head(w, lambda h: hm(num["S"][h], lab, lab, f"Raw scores Q Kᵀ ({w.layer.heads[h]})", half)),
            False,
        ),
        Chart(
            "scores.masked",
            _per_head(w, lambda h: hm(num["S_masked"][h], lab, lab, scaled_title, half, masked=blocked)),
            False,
        ),
        Chart(
            "scores.weights",
            _per_head(
                w,
                lambda h: hm(
                    num["A"][h],
                    lab,
                    lab,
                    f"Softmax weights A ({w.layer.heads[h]}; rows sum to 1)",
                    weights=True,
                    row_sums=True,
                    masked=blocked,
                ),
            ),
        ),
    ]
    cols_v = [f"h{h + 1}·v{j}" for h in range(w.n_heads) for j in range(w.d_k)]
    out["heads"] = [
        Chart(
            "heads.grid",
            [
                (
                    "",
                    fg.head_grid(
                        num["A"],
                        lab,
                        style=sty,
                        title="Attention weights of every head (shared 0..1 scale)",
                        masked=blocked,
                    ),
                )
            ],
        ),
        Chart(
            "heads.concat",
            [
                (
                    "",
                    hm(
                        num["concat"],
                        lab,
                        cols_v,
                        formulas.CONCAT_TITLE,
                        x_title="dimension (head · dimension of its value)",
                        y_title="token",
                        groups=list(w.layer.heads),
                    ),
                )
            ],
        ),
        Chart(
            "heads.W_O",
            [("", hm(w.layer.w_o, cols_v, dims, "W_O", half, x_title="dimension", y_title="row"))],
            False,
        ),
        Chart(
            "heads.out",
            [
                (
                    "",
                    hm(
                        num["out"],
                        lab,
                        dims,
                        "Output = concat · W_O",
                        half,
                        x_title="dimension",
                        y_title="token",
                    ),
                )
            ],
            False,
        ),
    ]
    out["token"] = _token_charts(w)
    out["encoder"] = _encoder_charts(w)
    return out


def _token_charts(w: Walkthrough) -> list[Chart]:
    num, lab, i = w.numbers, list(w.labels), w.query

    def bars(h: int) -> go.Figure:
        a = num["A"][h, i]
        return fg.bars(
            lab,
            a,
            style=STYLE,
            title=f"Weights of “{lab[i]}” over the keys, {w.layer.heads[h]} (sum {a.sum():.3f})",
            x_title="key",
            y_title="weight",
            y_range=(0, 1.15),
        )

    def stack(h: int) -> go.Figure:
        parts = num["A"][h, i][:, None] * num["V"][h]  # (n, d_v): row j = a_ij v_j
        return fg.stacked_contributions(
            parts,
            lab,
            parts.sum(axis=0),
            style=STYLE,
            title=f"Output of “{lab[i]}”: each key's share a_ij · v_j, stacked",
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
        fig = fg.heatmap(
            z,
            list(w.labels),
            _dims(z.shape[1], "f" if hidden else "d"),
            title=title,
            style=STYLE,
            x_title="dimension",
            y_title="token",
            width_px=WIDTH // 2,
            zrange=colour_range.row_range([m for _, m, _ in pair]) if same else None,
        )
        charts.append(Chart(f"encoder.{k}", [("", fig)], False))
    return charts


def why_scale_chart(seed: int) -> Chart:
    """The why-scale page's first chart, as the page draws it at its default sample counts."""
    d_ks, var, sat = compute.scale_experiment(WHY_SAMPLES, WHY_KEYS, seed)
    variance, _, _ = fg.scale_experiment(d_ks, var, sat, WHY_KEYS, style=STYLE)
    return Chart("why.variance", [("", variance)])
