"""/rollout: attention rollout through the layers beside a single layer's attention."""

import numpy as np

from explorer.compute import model_compute
from explorer.i18n import N_, _
from explorer.model import models
from explorer.ui import model_ui, waiting
from explorer.ui import widgets as ui
from explorer.views import figures as fg
from explorer.views.model_figures import token_labels

ui.opening(
    _("Attention through the layers"),
    _(
        "One layer's attention says where each token looks in that layer. Attention rollout (Abnar & Zuidema "
        "2020) follows it through every layer: each layer's weights, averaged over its heads and mixed half and "
        "half with the residual connection, are multiplied layer after layer, so row i says how much of token "
        "i's final state comes from each input token along attention paths. Attention weights are not an "
        "explanation of the output: rollout leaves out the values, W_O, the feed-forward layers and the norms."
    ),
    r"\tilde A_l = \tfrac12 I + \tfrac12 \tfrac{1}{H}\sum_h A_{l,h},\quad R_l = \tilde A_l R_{l-1},\ R_1 = \tilde A_1",
)
got = model_ui.begin()
if got is not None:
    key, trace = got
    L, H = models.shape(key)
    layer = model_ui.layer_slider(L, H, "rollout")
    with waiting.working(_("Following the attention through every layer…"), key):
        R = model_compute.rollout(key, trace.text)
    lab = token_labels(trace.tokens)
    sty = ui.style()
    mean = np.asarray(trace.attentions[layer], dtype=np.float64).mean(axis=0)
    one = fg.shared_weight_range(mean, R[layer], style=sty)  # side by side: one colour, one weight
    tall = fg.PRESENT_CHART_PX - 70 if sty.present else None  # presenting: the slider and both on one screen
    ui.charts_in_row(
        [
            (
                fg.drawn_heatmap(
                    mean,
                    lab,
                    lab,
                    style=sty,
                    title=_("Layer {layer} alone (mean of its heads)", layer=layer + 1),
                    cells=fg.Cells(weights=True, row_sums=True, zrange=one),
                    axes=fg.Axes(width_px=ui.HALF, height_px=tall),
                ),
                "rollout.single",
            ),
            (
                fg.drawn_heatmap(
                    R[layer],
                    lab,
                    lab,
                    style=sty,
                    title=_("Rollout through layers 1 to {layer}", layer=layer + 1),
                    cells=fg.Cells(weights=True, row_sums=True, zrange=one),
                    axes=fg.Axes(
                        width_px=ui.HALF, height_px=tall, x_title=N_("input token"), y_title=N_("position")
                    ),
                ),
                "rollout.rollout",
            ),
        ]
    )
