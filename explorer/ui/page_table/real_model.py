"""The real model's pages: MiniLM or SmolLM2 from attention_core.pretrained, picked in the sidebar."""

from __future__ import annotations

from explorer.i18n import N_
from explorer.ui.page_table.row import REAL_MODEL, Page, Step, page

PAGES: tuple[Page, ...] = (
    page(
        "app_pages/model.py",
        "model",
        N_("Every layer and head"),
        ":material/grid_view:",
        N_("a real model's attention, every layer x head, each labelled"),
        (
            Step(
                "model",
                N_("Every layer and head"),
                N_(
                    "A real model on your sentence: each square is one head. Look for the diagonals (previous or "
                    "next token) and the bright first column (a sink)."
                ),
            ),
        ),
        section=REAL_MODEL,
    ),
    page(
        "app_pages/head.py",
        "head",
        N_("One head"),
        ":material/zoom_in:",
        N_("one real head: weights, one cell's numbers, Q, K, V"),
        (
            Step(
                "head",
                N_("One head"),
                N_(
                    "One real head, large: the same softmax(q·k / √d_k) as the toy, with 32 or 64 numbers per "
                    "vector."
                ),
            ),
            Step(
                "head-cell",
                N_("One cell's numbers"),
                N_(
                    "One weight worked out: the query's vector times the key's, scaled, then the softmax of its "
                    "row."
                ),
            ),
            Step(
                "head-qkv",
                N_("Q, K and V"),
                N_(
                    "The vectors behind every weight: a row per token; a cell's score is its query's row of Q "
                    "times its key's row of K."
                ),
            ),
        ),
        section=REAL_MODEL,
    ),
    page(
        "app_pages/next-token.py",
        "next-token",
        N_("The next word"),
        ":material/keyboard_double_arrow_right:",
        N_("a decoder's top 10 next tokens, temperature, add one"),
        (
            Step(
                "next-token",
                N_("The next word"),
                N_("The decoder's guesses for the next token: add one and watch the sentence grow."),
            ),
            Step(
                "next-token-needs",
                N_("What the guess needs"),
                N_(
                    "Remove each token in turn and run again: the tokens the top guess needs, which are not "
                    "always where the attention goes."
                ),
            ),
            Step(
                "next-token-mask",
                N_("The causal mask"),
                N_(
                    "Each token may look only at the tokens before it: add one and watch the causal mask grow."
                ),
            ),
        ),
        section=REAL_MODEL,
        needs="decoder",
    ),
    page(
        "app_pages/ablation.py",
        "ablation",
        N_("Switch heads off"),
        ":material/toggle_off:",
        N_("remove heads and compare with the untouched model"),
        (
            Step(
                "ablation",
                N_("Switch heads off"),
                N_("Remove heads and compare: most heads change little alone; a few matter a lot."),
            ),
            Step(
                "ablation-layers",
                N_("Layer by layer"),
                N_(
                    "Where the change starts: the hidden states move from the first layer with a head switched "
                    "off, and the move carries on up."
                ),
            ),
            Step(
                "ablation-ranking",
                N_("Which heads matter"),
                N_(
                    "Each head switched off alone, in turn: a few heads change the output far more than the rest."
                ),
            ),
        ),
        section=REAL_MODEL,
    ),
    page(
        "app_pages/rollout.py",
        "rollout",
        N_("Attention through the layers"),
        ":material/timeline:",
        N_("attention rollout through every layer"),
        (
            Step(
                "rollout",
                N_("Attention through the layers"),
                N_(
                    "Attention multiplied through the layers: where each position's information comes from, "
                    "roughly."
                ),
            ),
        ),
        section=REAL_MODEL,
    ),
    page(
        "app_pages/logit-lens.py",
        "logit-lens",
        N_("What each layer predicts"),
        ":material/visibility:",
        N_("the logit lens: each layer's guess for the next token"),
        (
            Step(
                "logit-lens",
                N_("What each layer predicts"),
                N_("Read each layer as if it were the last: in which layer does the model find its answer?"),
            ),
            Step(
                "logit-lens-follow",
                N_("One token, layer by layer"),
                N_(
                    "Follow one token up the layers: where does its probability rise, and from which layer is it the "
                    "top guess?"
                ),
            ),
        ),
        section=REAL_MODEL,
        needs="decoder",
    ),
    page(
        "app_pages/induction.py",
        "induction",
        N_("Induction heads"),
        ":material/repeat:",
        N_("heads that copy what came next last time"),
        (
            Step(
                "induction",
                N_("Induction heads"),
                N_("Random tokens, then the same again: a few heads look back to what followed last time."),
            ),
            Step(
                "induction-loss",
                N_("The second copy"),
                N_("With those heads, the second copy becomes easy to predict: its loss falls."),
            ),
        ),
        section=REAL_MODEL,
        needs="decoder",
        sentence=False,
    ),
    page(
        "app_pages/patching.py",
        "patching",
        N_("What caused the answer?"),
        ":material/science:",
        N_("activation patching: which layers, positions and heads carry the answer"),
        (
            Step(
                "patching",
                N_("Residual stream"),
                N_(
                    "Copy one activation from a clean run into a corrupt one: where the answer comes back is "
                    "where the model keeps it."
                ),
            ),
            Step(
                "patching-heads",
                N_("Heads"),
                N_(
                    "Copy one head's output from the clean run: the few heads that bring the answer back move it "
                    "to the last position."
                ),
            ),
        ),
        section=REAL_MODEL,
        needs="decoder",
    ),
    page(
        "app_pages/minimal-pairs.py",
        "minimal-pairs",
        N_("Minimal pairs"),
        ":material/compare_arrows:",
        N_("change one word: where the attention from another word moves"),
        (
            Step(
                "minimal-pairs",
                N_("Minimal pairs"),
                N_(
                    "Change the last word and “it” means something else: does the attention from “it” follow?"
                ),
            ),
            Step(
                "minimal-pairs-heads",
                N_("Which heads moved"),
                N_("The difference, head by head, and the heads ranked by how much of their weight moved."),
            ),
        ),
        section=REAL_MODEL,
        needs="encoder",
    ),
)
