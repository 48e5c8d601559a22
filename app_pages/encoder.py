"""/encoder: one encoder block, every stage drawn."""

import streamlit as st

from explorer.compute import cached as compute
from explorer.compute.pipeline import brief_stages, encoder_stages, stage_title
from explorer.i18n import _
from explorer.ui import editors, state, token_rows
from explorer.ui import widgets as ui
from explorer.views import figures as fg
from explorer.views import formulas
from explorer.views.text import literal

# Presenting a trained layer: the one-line notes on colour ranges and on the values beyond them (a massive
# activation) take this much height above the four charts.
ENCODER_NOTES_PX = 40

ui.opening(
    _("The encoder block"),
    _(
        "Attention is one half of a transformer layer. Its output is **added back** to its input (a residual "
        "connection: nothing is lost) and **normalised** (each token's vector shifted and rescaled to mean 0, "
        "variance 1); then every token goes on its own through the same small two-layer network, the "
        "**feed-forward** part, again with a residual and a norm. Post-norm is the 2017 paper's order; "
        "pre-norm, used by GPT-2 and most models since, normalises before each part instead."
    ),
    formulas.block(state.description()),
)
c1, c2 = st.columns(2)
ui.setting("d_ff", c1)
ui.setting("norm_first", c2)
ex, res = ui.result()
presenting = ui.step() is not None  # the step: four stages that tell the story, on one screen
if res is not None:
    if res.encoder is None:
        st.error(
            _("The encoder block cannot be computed: {why}", why=literal(res.encoder_error)),
            icon=":material/error:",
        )
    else:
        stages = encoder_stages(res.encoder, ex.norm_first)
        if presenting:
            stages = brief_stages(stages, ex.norm_first)
        token_rows.token_matrices(
            [
                (stage_title(t), z, fg.dims("f" if hidden else "d", z.shape[1]), f"encoder.{t}")
                for t, z, hidden in stages
            ],
            res.labels,
            per_row=min(4, len(stages))
            if presenting
            else 2,  # two a row: at 1280 px three a row are too narrow to read
            compare=True,
            height_px=ui.chart_px(ENCODER_NOTES_PX),
        )
        other_order = not state.description().fixes("norm_first")  # a trained layer's order is its own
        note = compute.encoder_note(ex, res) if not presenting and other_order else None
    if res.encoder is not None and note is not None:
        rs = note.stats
        if ex.norm_first:
            st.markdown(
                _(
                    "**Pre-norm:** the output is not normalised (row variances {lo:.2f} to {hi:.2f}): the block "
                    "ends on a residual sum, and models add one last layer norm after their final block.",
                    lo=rs.min_var,
                    hi=rs.max_var,
                )
            )
        else:
            st.markdown(
                _(
                    "**Post-norm:** the last step is a layer norm, so every row of the output has mean 0 (up to "
                    "the computer's rounding) and variance {lo:.3f} to {hi:.3f}.",
                    lo=rs.min_var,
                    hi=rs.max_var,
                ),
                help=_(
                    "The largest |mean| of a row is {mean:.0e}: float rounding, not a real offset.",
                    mean=rs.max_abs_mean,
                ),
            )
        if note.other_gap is not None:
            st.caption(
                _(
                    "Same weights, other order: post-norm gives a different output (largest difference "
                    "{gap:.3f}).",
                    gap=note.other_gap,
                )
                if ex.norm_first
                else _(
                    "Same weights, other order: pre-norm gives a different output (largest difference {gap:.3f}).",
                    gap=note.other_gap,
                )
            )
    if not presenting and ex.d_ff:  # an attention-only layer has no feed-forward weights to edit
        # Its content runs only while it is open: at 64 tokens and d_ff 256 the editors are most of the page's
        # run, even closed (benchmarks: element_cost).
        with st.expander(
            _("Edit the feed-forward weights W1 and W2"), key=state.K_FFN_EDITORS, on_change="rerun"
        ) as ffn_box:
            if ffn_box.open:
                dims, hid = fg.dims("d", ex.d_model), fg.dims("f", ex.d_ff)
                part = editors.window(_("Hidden units to edit"), ex.d_ff, "encoder.ffn_window")
                st.caption(
                    "W1: d_model × d_ff"
                    if part == slice(None)
                    else _(
                        "W1: d_model × d_ff (hidden units {first}–{last})",
                        first=part.start,
                        last=part.stop - 1,
                    )
                )
                editors.matrix_editor("w1", title="W1", row_labels=dims, col_labels=hid[part], height=300,
                                      index=() if part == slice(None) else (slice(None), part))  # fmt: skip
                editors.bias_editor("b1", title="b1", col_labels=hid[part], part=part)  # a real layer's
                editors.up_editor(dims, hid, part)  # SwiGLU's W_up (SmolLM2's layers)
                st.caption(
                    "W2: d_ff × d_model"
                    if part == slice(None)
                    else _(
                        "W2: d_ff × d_model (hidden units {first}–{last})",
                        first=part.start,
                        last=part.stop - 1,
                    )
                )
                editors.matrix_editor("w2", title="W2", row_labels=hid[part], col_labels=dims, height=300,
                                      index=() if part == slice(None) else (part,))  # fmt: skip
                editors.bias_editor("b2", title="b2", col_labels=dims)
                names = ("w1", "w2", *editors.held("b1", "b2", "w_up"))
                editors.draw_buttons(names, _("W1 and W2"), ("encoder.rand", "encoder.reset"))
