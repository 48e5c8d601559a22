"""The pages of the model trained in the engine (/learn)."""

from __future__ import annotations

from explorer.i18n import N_
from explorer.ui.page_table.row import LEARNING, Page, Step, page

PAGES: tuple[Page, ...] = (
    page(
        "app_pages/learn.py",
        "learn",
        N_("Watch a transformer learn"),
        ":material/school:",
        N_("a tiny transformer trained here: its induction head forming"),
        (
            Step(
                "learn",
                N_("Watch a transformer learn"),
                N_("The loss sits flat, then falls suddenly: the moment two heads form together."),
            ),
            Step(
                "learn-heads",
                N_("The heads forming"),
                N_(
                    "Each head's score through training: a previous-token head in layer 1 and an induction head in "
                    "layer 2 appear at the same time."
                ),
            ),
            Step(
                "learn-patterns",
                N_("Attention at any step"),
                N_(
                    "Move through training: the diagonal below the main one, then the stripe of the second copy."
                ),
            ),
            Step(
                "learn-composition",
                N_("Why one needs the other"),
                N_(
                    "Switch the previous-token head off: the induction head loses what its keys read, and the loss "
                    "comes back."
                ),
            ),
            Step(
                "learn-train",
                N_("Train it yourself"),
                N_(
                    "Press Train: the same model learns on the server, live. Watch for the sudden fall of the loss."
                ),
            ),
        ),
        section=LEARNING,
        sentence=False,
    ),
)
