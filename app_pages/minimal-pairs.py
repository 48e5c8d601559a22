"""/minimal-pairs: change one word of the sentence and see where the attention from another word moves."""

from explorer.i18n import _
from explorer.ui import model_ui, pairs_ui
from explorer.ui import widgets as ui

MOVED = r"\text{moved}_h = \tfrac{1}{2} \textstyle\sum_j \left| a'_{h,j} - a_{h,j} \right|"

ui.opening(
    _("Minimal pairs: change one word"),
    _(
        "Two sentences that differ in one word: “The animal didn't cross the street because it was too tired” "
        "and “… too wide”. A reader knows that “it” is the animal in the first and the street in the second. "
        "Does the model's attention from “it” move with it? For one layer, each head's attention from the word "
        "compared, in both sentences and their difference, and the heads ranked by how much of their weight "
        "moved. The first sentence is the sentence above.\n\n"
        "**Why MiniLM.** The word that decides (“tired”, “wide”) comes after “it”. A decoder such as SmolLM2 "
        "masks every later token: its attention from “it” is computed before the model has read the last word, "
        "so it is the same in both sentences to the last digit. MiniLM is an encoder: every token attends to the "
        "whole sentence, so this page runs MiniLM whichever model is picked."
    ),
    MOVED if ui.shows("minimal-pairs-heads") else None,  # presenting, on the step that measures it
)
got = model_ui.begin(encoder_only=True)
if got is not None:
    key, trace = got
    slots = pairs_ui.controls()
    second = pairs_ui.second_box(slots[0])
    found = pairs_ui.experiment(key, trace, second, slots)
    if found is not None:
        pairs_ui.draw(*found)
