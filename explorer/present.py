"""Presentation mode and the step-through: pure data and helpers (no Streamlit, no state).

The step-through walks the pipeline like slides. A step is a page (its url_path) and, where one page holds
several steps (/scores: scores, masking, softmax), a `?step=` name; each step says what to look at.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    name: str  # the ?step= value, unique
    url_path: str  # the page's url_path in app.PAGES ("" = the first page)
    title: str
    look: str  # one line for the room: what to look at (static Markdown, ours)


STEPS: tuple[Step, ...] = (
    Step(
        "sentence",
        "",
        "Sentence and tokens",
        "The sentence becomes tokens, and each token a vector: its embedding.",
    ),
    Step(
        "position",
        "positional-encoding",
        "Positional encoding",
        "Attention alone ignores order: a pattern of waves, one per position, is added to each embedding.",
    ),
    Step(
        "projections",
        "projections",
        "Q, K, V projections",
        "Each head multiplies X by its own W_Q, W_K and W_V: what a token looks for, offers, and passes on.",
    ),
    Step(
        "scores",
        "scores",
        "Scores",
        "Every query is compared with every key: a large score means *this key answers the query*.",
    ),
    Step(
        "masking",
        "scores",
        "Masking",
        "Choose a mask: the grey cells are keys a query may not see; their score becomes −∞.",
    ),
    Step(
        "softmax",
        "scores",
        "Softmax",
        "Softmax turns each row of scores into weights that are ≥ 0 and sum to 1.",
    ),
    Step(
        "heads",
        "heads",
        "Heads and W_O",
        "Each head attends differently; their outputs are concatenated and mixed by W_O.",
    ),
    Step(
        "token",
        "token",
        "One token's view",
        "One output row is the weighted sum of the value vectors, with the weights of its row.",
    ),
    Step(
        "encoder",
        "encoder",
        "Encoder block",
        "Attention, a residual connection, layer norm and a feed-forward network make one encoder layer.",
    ),
    Step(
        "why-scale",
        "why-scale",
        "Why divide by √d_k?",
        "Without the scale, scores grow with d_k and the softmax saturates: one key takes all the weight.",
    ),
)

STEP_NAMES = tuple(s.name for s in STEPS)


def step_index(url_path: str, step_param: object = None) -> int | None:
    """The step shown on this page: the ?step= one if it belongs to the page, else the page's first step.

    None for a page that is not in the step-through.
    """
    for i, s in enumerate(STEPS):
        if s.name == step_param and s.url_path == url_path:
            return i
    for i, s in enumerate(STEPS):
        if s.url_path == url_path:
            return i
    return None


def neighbours(i: int) -> tuple[Step | None, Step | None]:
    """The previous and next step of step i (None at the ends)."""
    prev = STEPS[i - 1] if i > 0 else None
    nxt = STEPS[i + 1] if i + 1 < len(STEPS) else None
    return prev, nxt


def query_of(step: Step) -> dict[str, str]:
    """The query parameters a link to this step carries (only pages with several steps need one)."""
    shared = sum(1 for s in STEPS if s.url_path == step.url_path) > 1
    return {"step": step.name} if shared else {}


def sidebar_state(presenting: bool) -> str:
    """st.set_page_config(initial_sidebar_state=...): collapsed while presenting."""
    return "collapsed" if presenting else "auto"


# Static CSS for the projector (never any user text). Streamlit sizes its type in rem, so a larger root
# font enlarges text, widgets and spacing together; the main column gets the whole width.
BASE_FONT_PX = 22  # Streamlit's default is 16
CSS = f"""<style>
html {{ font-size: {BASE_FONT_PX}px; }}
[data-testid="stMainBlockContainer"] {{
  max-width: 100%; padding: 4.2rem 2.2rem 4rem 2.2rem;
}}
input, textarea, [data-baseweb="select"] {{ font-size: 1.05rem !important; }}
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li {{
  font-size: 1.1rem; line-height: 1.45;
}}
h1 {{ font-size: 2.4rem !important; }}
h2, h3 {{ font-size: 1.7rem !important; }}
.katex {{ font-size: 1.45em !important; }}
[data-testid="stCaptionContainer"] {{ font-size: 0.95rem; }}
.st-key-step-top a, .st-key-step-top p {{ font-size: 1.35rem !important; }}
.st-key-step-top [data-testid="stPageLink-NavLink"] {{ padding: 0.5rem 1rem; }}
</style>"""
