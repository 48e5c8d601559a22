"""The pages of the model trained in the engine (/learn)."""

from __future__ import annotations

from explorer.ui.page_table.row import LEARNING, Page, Step, page

PAGES: tuple[Page, ...] = (
    page(
        "app_pages/learn.py",
        "learn",
        "Watch a transformer learn",
        ":material/school:",
        "a tiny transformer trained here: its induction head forming",
        (
            Step(
                "learn",
                "Watch a transformer learn",
                "The loss sits flat, then falls suddenly: the moment two heads form together.",
            ),
            Step(
                "learn-heads",
                "The heads forming",
                "Each head's score through training: a previous-token head in layer 1 and an induction head in "
                "layer 2 appear at the same time.",
            ),
            Step(
                "learn-patterns",
                "Attention at any step",
                "Move through training: the diagonal below the main one, then the stripe of the second copy.",
            ),
            Step(
                "learn-composition",
                "Why one needs the other",
                "Switch the previous-token head off: the induction head loses what its keys read, and the loss "
                "comes back.",
            ),
            Step(
                "learn-train",
                "Train it yourself",
                "Press Train: the same model learns on the server, live. Watch for the sudden fall of the loss.",
            ),
        ),
        section=LEARNING,
        sentence=False,
    ),
)
