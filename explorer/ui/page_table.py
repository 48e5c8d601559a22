"""The page table: one row per page, read by the navigation (app.py), the pipeline map, the step-through
(explorer.ui.present) and the tests. Adding a page is one row below plus its script. Pure: no Streamlit.

A page's steps are the slides of the step-through: one per page, or several where one page holds several
steps (/scores: scores, masking, softmax), each with a `?step=` name and one line of what to look at.
A row with listed=False stays out of the navigation, the step-through and the map: a half-built page
lands that way, unreachable. `section` groups pages in the navigation ("" = the first group, no header).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

REAL_MODEL = "Real model"  # the navigation section of the pages that show a whole real model
LEARNING = "Training"  # the navigation section of the model trained in the engine


@dataclass(frozen=True)
class Step:
    name: str  # the ?step= value, unique
    title: str
    look: str  # one line for the room: what to look at (static Markdown, ours)
    url_path: str = ""  # the page's url_path ("" = the first page); set from the page's row
    # (setting, line): the line instead while the layer on screen fixes that setting (a trained layer brings
    # its own positions: no pattern of waves is added); () the same line for every layer
    look_if_fixed: tuple[str, str] | tuple[()] = ()


@dataclass(frozen=True)
class Page:
    script: str  # relative to the repository root (or absolute)
    url_path: str  # the page's address ("" = the default page)
    title: str  # the one title: menu, heading of the map, step links
    icon: str
    summary: str  # one line in the pipeline map
    steps: tuple[Step, ...]
    section: str = ""  # the navigation section ("": no header, first)
    listed: bool = True  # False: not in the navigation, the step-through or the map
    attention: bool = False  # it shows the attention trace: in pre-norm it says that attention reads LN(X)
    # A real-model page that shows one kind whichever model is picked: "decoder" (the next word) or "encoder"
    # (every token sees the whole sentence); "": the picked model. The frame says which model is on screen.
    needs: str = ""
    sentence: bool = True  # it reads the sentence (False: /induction's random tokens; no box above it)

    @property
    def real_model(self) -> bool:
        """It shows a whole real model (the sidebar describes that model, not the explorer's example)."""
        return self.section == REAL_MODEL


def page(
    script: str,
    url_path: str,
    title: str,
    icon: str,
    summary: str,
    steps: tuple[Step, ...],
    *,
    section: str = "",
    listed: bool = True,
    attention: bool = False,
    needs: str = "",
    sentence: bool = True,
) -> Page:
    """A row, its steps stamped with its url_path."""
    stamped = tuple(replace(s, url_path=url_path) for s in steps)
    return Page(script, url_path, title, icon, summary, stamped, section, listed, attention, needs, sentence)


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
    # The real model: MiniLM or SmolLM2 from attention_core.pretrained, picked in the sidebar.
    page(
        "app_pages/model.py",
        "model",
        "Every layer and head",
        ":material/grid_view:",
        "a real model's attention, every layer x head, each labelled",
        (
            Step(
                "model",
                "Every layer and head",
                "A real model on your sentence: each square is one head. Look for the diagonals (previous or "
                "next token) and the bright first column (a sink).",
            ),
        ),
        section=REAL_MODEL,
    ),
    page(
        "app_pages/head.py",
        "head",
        "One head",
        ":material/zoom_in:",
        "one real head: weights, one cell's numbers, Q, K, V",
        (
            Step(
                "head",
                "One head",
                "One real head, large: the same softmax(q·k / √d_k) as the toy, with 32 or 64 numbers per "
                "vector.",
            ),
            Step(
                "head-cell",
                "One cell's numbers",
                "One weight worked out: the query's vector times the key's, scaled, then the softmax of its "
                "row.",
            ),
            Step(
                "head-qkv",
                "Q, K and V",
                "The vectors behind every weight: a row per token; a cell's score is its query's row of Q "
                "times its key's row of K.",
            ),
        ),
        section=REAL_MODEL,
    ),
    page(
        "app_pages/next-token.py",
        "next-token",
        "The next word",
        ":material/keyboard_double_arrow_right:",
        "a decoder's top 10 next tokens, temperature, add one",
        (
            Step(
                "next-token",
                "The next word",
                "The decoder's guesses for the next token: add one and watch the sentence grow.",
            ),
            Step(
                "next-token-needs",
                "What the guess needs",
                "Remove each token in turn and run again: the tokens the top guess needs, which are not "
                "always where the attention goes.",
            ),
            Step(
                "next-token-mask",
                "The causal mask",
                "Each token may look only at the tokens before it: add one and watch the causal mask grow.",
            ),
        ),
        section=REAL_MODEL,
        needs="decoder",
    ),
    page(
        "app_pages/ablation.py",
        "ablation",
        "Switch heads off",
        ":material/toggle_off:",
        "remove heads and compare with the untouched model",
        (
            Step(
                "ablation",
                "Switch heads off",
                "Remove heads and compare: most heads change little alone; a few matter a lot.",
            ),
            Step(
                "ablation-layers",
                "Layer by layer",
                "Where the change starts: the hidden states move from the first layer with a head switched "
                "off, and the move carries on up.",
            ),
            Step(
                "ablation-ranking",
                "Which heads matter",
                "Each head switched off alone, in turn: a few heads change the output far more than the rest.",
            ),
        ),
        section=REAL_MODEL,
    ),
    page(
        "app_pages/rollout.py",
        "rollout",
        "Attention through the layers",
        ":material/timeline:",
        "attention rollout through every layer",
        (
            Step(
                "rollout",
                "Attention through the layers",
                "Attention multiplied through the layers: where each position's information comes from, "
                "roughly.",
            ),
        ),
        section=REAL_MODEL,
    ),
    page(
        "app_pages/logit-lens.py",
        "logit-lens",
        "What each layer predicts",
        ":material/visibility:",
        "the logit lens: each layer's guess for the next token",
        (
            Step(
                "logit-lens",
                "What each layer predicts",
                "Read each layer as if it were the last: in which layer does the model find its answer?",
            ),
            Step(
                "logit-lens-follow",
                "One token, layer by layer",
                "Follow one token up the layers: where does its probability rise, and from which layer is it the "
                "top guess?",
            ),
        ),
        section=REAL_MODEL,
        needs="decoder",
    ),
    page(
        "app_pages/induction.py",
        "induction",
        "Induction heads",
        ":material/repeat:",
        "heads that copy what came next last time",
        (
            Step(
                "induction",
                "Induction heads",
                "Random tokens, then the same again: a few heads look back to what followed last time.",
            ),
            Step(
                "induction-loss",
                "The second copy",
                "With those heads, the second copy becomes easy to predict: its loss falls.",
            ),
        ),
        section=REAL_MODEL,
        needs="decoder",
        sentence=False,
    ),
    page(
        "app_pages/patching.py",
        "patching",
        "What caused the answer?",
        ":material/science:",
        "activation patching: which layers, positions and heads carry the answer",
        (
            Step(
                "patching",
                "Residual stream",
                "Copy one activation from a clean run into a corrupt one: where the answer comes back is "
                "where the model keeps it.",
            ),
            Step(
                "patching-heads",
                "Heads",
                "Copy one head's output from the clean run: the few heads that bring the answer back move it "
                "to the last position.",
            ),
        ),
        section=REAL_MODEL,
        needs="decoder",
    ),
    page(
        "app_pages/minimal-pairs.py",
        "minimal-pairs",
        "Minimal pairs",
        ":material/compare_arrows:",
        "change one word: where the attention from another word moves",
        (
            Step(
                "minimal-pairs",
                "Minimal pairs",
                "Change the last word and “it” means something else: does the attention from “it” follow?",
            ),
            Step(
                "minimal-pairs-heads",
                "Which heads moved",
                "The difference, head by head, and the heads ranked by how much of their weight moved.",
            ),
        ),
        section=REAL_MODEL,
        needs="encoder",
    ),
)


def sections() -> dict[str, list[Page]]:
    """The listed pages by navigation section, sections in the order of their first page."""
    out: dict[str, list[Page]] = {}
    for p in PAGES:
        if p.listed:
            out.setdefault(p.section, []).append(p)
    return out


def listed() -> tuple[Page, ...]:
    """The pages a visitor can reach, in the menu's order (section by section)."""
    return tuple(p for group in sections().values() for p in group)


def steps() -> tuple[Step, ...]:
    """Every step of the step-through, in order (the listed pages' steps, page by page)."""
    return tuple(s for p in listed() for s in p.steps)


def by_path(url_path: str) -> Page | None:
    """The listed page at this url_path, or None."""
    return next((p for p in listed() if p.url_path == url_path), None)
