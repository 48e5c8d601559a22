"""Our own example: causal or bidirectional? The same sentence and weights with and without the causal mask."""

from __future__ import annotations

import numpy as np

from explorer.compute.pipeline import Result
from explorer.i18n import N_, _
from explorer.lessons.compare import Run, Table
from explorer.model.example import Example, conform

NAME = "causal-vs-bidirectional"
TITLE = N_("Encoder or decoder: causal or bidirectional")
NOTE = N_(
    "**Causal or bidirectional?** The same sentence and weights with and without the causal "
    "mask. An encoder (BERT) lets every token see every other; a decoder (GPT) lets a token see only "
    "itself and the tokens before it, because when it writes text the later tokens do not exist yet. "
    "Switch the mask on the Scores page, or compare the two below."
)
# Where this comes from (the seed notebook and its cells), shown in a detail below the note.
SOURCE = N_(
    "Our own example, not from a seed notebook (`explorer/lessons/causal_vs_bidirectional.py`): the app's "
    "default sentence and weights, run twice."
)


def build() -> Example:
    return conform(
        Example(
            sentence="The cat sat on the mat because it was warm.",
            d_model=8,
            n_heads=2,
            d_k=4,
            seed=3,
            pe_kind="sinusoidal",
            mask_kind="causal",
        )
    )


def extras(ex: Example, res: Result, run: Run) -> list[Table]:
    t = res.attention
    assert t is not None
    other = run(ex.with_(mask_kind="none" if ex.mask_kind == "causal" else "causal"))
    if other.attention is None:
        return []
    causal, free = (t, other.attention) if ex.mask_kind == "causal" else (other.attention, t)
    last = res.n - 1
    same_last = bool(np.allclose(causal.weights[:, last], free.weights[:, last]))
    first_self = bool(np.allclose(causal.weights[:, 0, 0], 1.0))
    return [
        Table(
            _("Bidirectional (no mask): head 1"),
            res.labels,
            res.labels,
            free.weights[0],
            2,
            kind="weights",
            group="cvb",
        ),
        Table(_("Causal: head 1"), res.labels, res.labels, causal.weights[0], 2, kind="weights", group="cvb"),
        Table(
            _("What changed"),
            caption=_(
                "- The first token can only see itself: its causal row is [1, 0, …, 0] ({first} in every head).\n"
                "- The last token sees every token either way: its row is the same with and without the mask "
                "({last}).\n"
                "- In between, each row is the bidirectional row cut at the diagonal and renormalised: the "
                "weight a token gave to later tokens goes back, in proportion, to the earlier ones.",
                first="✓" if first_self else "✗",
                last="✓" if same_last else "✗",
            ),  # fmt: skip
            kind="text",
        ),
    ]
