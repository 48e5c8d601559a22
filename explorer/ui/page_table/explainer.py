"""The explainer's pages, one step of the toy layer each: from the sentence to the encoder block."""

from __future__ import annotations

from explorer.i18n import N_
from explorer.ui.page_table.row import Page, Step, page

PAGES: tuple[Page, ...] = (
    page(
        "app_pages/sentence.py",
        "",
        N_("Sentence"),
        ":material/edit_note:",
        N_("tokens and their embeddings E"),
        (
            Step(
                "sentence",
                N_("Sentence and tokens"),
                N_("The sentence becomes tokens, and each token a vector: its embedding."),
            ),
        ),
    ),
    page(
        "app_pages/positional-encoding.py",
        "positional-encoding",
        N_("Positional encoding"),
        ":material/waves:",
        N_("X = E + P: where each token stands"),
        (
            Step(
                "position",
                N_("Positional encoding"),
                N_(
                    "Attention alone ignores order: a pattern of waves, one per position, is added to each "
                    "embedding."
                ),
                look_if_fixed=(
                    "pe_kind",
                    N_(
                        "Attention alone ignores order: this trained model brings its own positions, and the box "
                        "below says how."
                    ),
                ),
            ),
        ),
    ),
    page(
        "app_pages/projections.py",
        "projections",
        N_("Q, K, V projections"),
        ":material/calculate:",
        N_("Q = X W_Q, K = X W_K, V = X W_V per head"),
        (
            Step(
                "projections",
                N_("Q, K, V projections"),
                N_(
                    "Each head multiplies X by its own W_Q, W_K and W_V: what a token looks for, offers, and "
                    "passes on."
                ),
            ),
        ),
        attention=True,
    ),
    page(
        "app_pages/scores.py",
        "scores",
        N_("Scores, mask, softmax"),
        ":material/grid_on:",
        N_("softmax(Q K^T / sqrt(d_k) + mask)"),
        (
            Step(
                "scores",
                N_("Scores"),
                N_(
                    "Every query is compared with every key: a large score means *this key answers the query*."
                ),
            ),
            Step(
                "masking",
                N_("Masking"),
                N_("Choose a mask: a key a query may not see turns grey in M, and its score becomes −∞."),
            ),
            Step(
                "softmax",
                N_("Softmax"),
                N_("Softmax turns each row of scores into weights that are ≥ 0 and sum to 1."),
            ),
        ),
        attention=True,
    ),
    page(
        "app_pages/heads.py",
        "heads",
        N_("Heads and W_O"),
        ":material/view_module:",
        N_("every head, concatenated, times W_O"),
        (
            Step(
                "heads",
                N_("Heads and W_O"),
                N_("Each head attends differently; their outputs are concatenated and mixed by W_O."),
            ),
        ),
        attention=True,
    ),
    page(
        "app_pages/token.py",
        "token",
        N_("One token's view"),
        ":material/person_search:",
        N_("one output row as a weighted sum of values"),
        (
            Step(
                "token",
                N_("One token's view"),
                N_("One output row is the weighted sum of the value vectors, with the weights of its row."),
            ),
        ),
        attention=True,
    ),
    page(
        "app_pages/encoder.py",
        "encoder",
        N_("Encoder block"),
        ":material/layers:",
        N_("residual, layer norm, feed-forward"),
        (
            Step(
                "encoder",
                N_("Encoder block"),
                N_(
                    "Attention, a residual connection, layer norm and a feed-forward network make one encoder "
                    "layer."
                ),
            ),
        ),
    ),
    page(
        "app_pages/why-scale.py",
        "why-scale",
        N_("Why divide by √d_k?"),
        ":material/straighten:",
        N_("variance and saturation as d_k grows"),
        (
            Step(
                "why-scale",
                N_("Why divide by √d_k?"),
                N_(
                    "Without the scale, scores grow with d_k and the softmax saturates: one key takes all the "
                    "weight."
                ),
            ),
        ),
        attention=True,
    ),
)
