"""/logit-lens: what the decoder would predict after each layer, at every position; one token followed."""

import streamlit as st

from explorer.compute import interp
from explorer.i18n import _
from explorer.ui import interp_ui, model_ui, questions, state, waiting
from explorer.ui import widgets as ui
from explorer.views import interp_figures as lf
from explorer.views.model_figures import show_token, token_labels
from explorer.views.text import literal, probability

ui.opening(
    _("What each layer predicts"),
    _(
        "The logit lens: stop the model after any layer and read its residual stream with the model's own "
        "final norm and output layer, as if that layer were the last. Row *embeddings* reads the tokens "
        "before any layer; the last row is the model's real prediction. Each cell shows the token it would "
        "predict next and is coloured by that token's probability."
    ),
    r"p_l = \operatorname{softmax}\big(\operatorname{RMSNorm}(h_l)\, W_U\big),\quad W_U = E^\top",
)
got = model_ui.begin(
    decoder_only=True,
    why_not=_(
        "MiniLM is an encoder: it has no output layer that turns a hidden state into a next word, so there is "
        "nothing to read its layers with. The logit lens needs a decoder: here is SmolLM2."
    ),
)
if got is not None:
    key, trace = got
    with waiting.working(_("Reading what each layer would predict, for every token…"), key):
        lens = interp.lens(key, trace.text)
    r, labels, sty = lens.reading, token_labels(trace.tokens), ui.style()
    L = r.ids.shape[0] - 1
    stride = -(-L // 10) if sty.present else 1  # presenting: about 10 layers, each row readable from afar
    rows = sorted({*range(0, L + 1, stride), L})
    st.toggle(_("Predict, then reveal"), key=state.K_ASK_LENS, persist_state="session",
              help=_("Hide what each layer predicts behind a question until Reveal (or the clicker's next "
                     "key). The share link carries it (ask=lens)."))  # fmt: skip
    last, final = len(labels) - 1, int(r.ids[L, -1, 0])  # the sentence's last token; the model's answer
    wins, answer = interp.wins_from(r.ids[:, last, 0], final) or 0, show_token(lens.words[final])
    after = show_token(trace.tokens[last])
    choices = questions.lens_choices(wins, L, after, answer)
    hidden = questions.model_question_hides(
        "lens", f"{key}:{trace.text}",
        _("Predict: after “{after}”, from which layer on is “{answer}” the top token?", after=literal(after),
          answer=literal(answer)),
        _("Answer: “{token}” is the top token from layer {layer} on (layer {layer} makes it win).",
          token=literal(answer), layer=wins) if wins
        else _("Answer: “{token}” is the top token from the embeddings on.", token=literal(answer)), choices,
    )  # fmt: skip
    if (
        ui.shows("logit-lens") and not hidden
    ):  # presenting: two steps, the grid, then one token followed up the layers
        grid = lf.lens_grid(r.ids, r.probs, lens.words, labels, rows=rows, style=sty, width_px=lf.FULL_PX,
                            title=_("The top next token after each layer ({model})", model=trace.model))  # fmt: skip
        ui.chart(grid, "lens.grid")
        said = [
            _(
                "Rows: the residual stream read after the embeddings and after each layer (one layer in "
                "{stride} while presenting, and the last); columns: the sentence so far.",
                stride=stride,
            )
            if stride > 1
            else _("Rows: the residual stream read after the embeddings and after each layer; columns: the "
                   "sentence so far."),
            _("Hover a cell for its top five. The cell's colour is the probability of its token, on 0 to 1."),
        ]  # fmt: skip
        if interp.tied(key):
            said.append(
                _(
                    "The first row mostly repeats the sentence's own tokens: this model's input and output "
                    "embeddings are one table (tied), so before any layer each token points back at itself."
                )
            )
        st.caption(" ".join(said))
    if ui.shows("logit-lens-follow") and not hidden:
        # presenting: the pickers and what they show in a column beside the chart, on one screen
        side, wide = st.columns([2, 3]) if sty.present else (st.container(), st.container())
        with side:
            left, right = st.columns(2)
        at = interp_ui.position_picker(labels, left)
        token = interp_ui.token_picker(
            interp.candidates(r, at), lambda t: lens.words.get(t) or interp.token_string(key, t), right
        )
        word = show_token(lens.words.get(token) or interp.token_string(key, token))
        with waiting.working(_("Following the token through the layers…"), key):
            probs = interp.follow(key, trace.text, token)[:, at]  # (L + 1,)
        wins = interp.wins_from(r.ids[:, at, 0], token)
        log = side.toggle(
            _("Logarithmic scale"),
            key="lens.log",
            persist_state="session",
            help=_("Shows the small probabilities of early layers."),
        )
        title = _(
            "“{word}” after “{token}”: its probability after each layer",
            word=word,
            token=show_token(trace.tokens[at]),
        )
        top_words = [lens.words[int(t)] for t in r.ids[:, at, 0]]
        fig = lf.follow_line(probs, r.probs[:, at, 0], top_words, lens.words.get(token) or word, style=sty,
                             title=title, log=log, wins_from=wins)  # fmt: skip
        with wide:
            ui.chart(fig, "lens.follow")
        values = {"word": literal(word), "first": probability(probs[0]), "last": probability(probs[L])}
        if wins is None:
            said = _(
                "“{word}” is not the model's answer here: probability {first} after the embeddings, {last} "
                "at the end.",
                **values,
            )
        elif wins == 0:
            said = _(
                "“{word}” is the top token from the embeddings on: probability {first} after the "
                "embeddings, {last} at the end.",
                **values,
            )
        else:
            said = _(
                "“{word}” is the top token from layer {layer} on (layer {layer} makes it win): probability "
                "{first} after the embeddings, {last} at the end.",
                layer=wins,
                **values,
            )
        (side if sty.present else st).markdown(
            _("{said} The dashed line is the probability of each layer's own top token.", said=said)
        )  # fmt: skip
