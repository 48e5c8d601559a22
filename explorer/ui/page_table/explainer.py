"""The explainer's pages, one step of the toy layer each: from the sentence to the encoder block."""

from __future__ import annotations

from explorer.ui.page_table.row import Page, Step, page

PAGES: tuple[Page, ...] = (
    page(
        "app_pages/sentence.py",
        "",
        "Sentence",
        ":material/edit_note:",
        "tokens and their embeddings E",
        (
            Step(
                "sentence",
                "Sentence and tokens",
                "The sentence becomes tokens, and each token a vector: its embedding.",
            ),
        ),
    ),
    page(
        "app_pages/positional-encoding.py",
        "positional-encoding",
        "Positional encoding",
        ":material/waves:",
        "X = E + P: where each token stands",
        (
            Step(
                "position",
                "Positional encoding",
                "Attention alone ignores order: a pattern of waves, one per position, is added to each "
                "embedding.",
                look_if_fixed=(
                    "pe_kind",
                    "Attention alone ignores order: this trained model brings its own positions, and the box "
                    "below says how.",
                ),
            ),
        ),
    ),
    page(
        "app_pages/projections.py",
        "projections",
        "Q, K, V projections",
        ":material/calculate:",
        "Q = X W_Q, K = X W_K, V = X W_V per head",
        (
            Step(
                "projections",
                "Q, K, V projections",
                "Each head multiplies X by its own W_Q, W_K and W_V: what a token looks for, offers, and "
                "passes on.",
            ),
        ),
        attention=True,
    ),
    page(
        "app_pages/scores.py",
        "scores",
        "Scores, mask, softmax",
        ":material/grid_on:",
        "softmax(Q K^T / sqrt(d_k) + mask)",
        (
            Step(
                "scores",
                "Scores",
                "Every query is compared with every key: a large score means *this key answers the query*.",
            ),
            Step(
                "masking",
                "Masking",
                "Choose a mask: a key a query may not see turns grey in M, and its score becomes −∞.",
            ),
            Step(
                "softmax",
                "Softmax",
                "Softmax turns each row of scores into weights that are ≥ 0 and sum to 1.",
            ),
        ),
        attention=True,
    ),
    page(
        "app_pages/heads.py",
        "heads",
        "Heads and W_O",
        ":material/view_module:",
        "every head, concatenated, times W_O",
        (
            Step(
                "heads",
                "Heads and W_O",
                "Each head attends differently; their outputs are concatenated and mixed by W_O.",
            ),
        ),
        attention=True,
    ),
    page(
        "app_pages/token.py",
        "token",
        "One token's view",
        ":material/person_search:",
        "one output row as a weighted sum of values",
        (
            Step(
                "token",
                "One token's view",
                "One output row is the weighted sum of the value vectors, with the weights of its row.",
            ),
        ),
        attention=True,
    ),
    page(
        "app_pages/encoder.py",
        "encoder",
        "Encoder block",
        ":material/layers:",
        "residual, layer norm, feed-forward",
        (
            Step(
                "encoder",
                "Encoder block",
                "Attention, a residual connection, layer norm and a feed-forward network make one encoder "
                "layer.",
            ),
        ),
    ),
    page(
        "app_pages/why-scale.py",
        "why-scale",
        "Why divide by √d_k?",
        ":material/straighten:",
        "variance and saturation as d_k grows",
        (
            Step(
                "why-scale",
                "Why divide by √d_k?",
                "Without the scale, scores grow with d_k and the softmax saturates: one key takes all the "
                "weight.",
            ),
        ),
        attention=True,
    ),
)
