"""The lessons as routes through the pages, declared once, as data: the menu, the lesson bar above a page,
the presenter's clicker and the links (?lesson=copy&step=3) all read this table. Pure: no Streamlit.

A lesson is a story told across pages. Each step names its page (the url_path of the page table,
explorer.ui.page_table) and, where that page holds several parts, the part it shows while presenting; it says
what to look at, asks a question to predict, then reveals the answer and what it means. A step can set what
its page shows, in the words of a share link (the same parameters and the same readers: the model, the
sentence, the head, the heads switched off, a mask, a question asked with ask=), so the story lands on the
right view. The last step of every lesson is an experiment the student runs.

Every text is a whole sentence (static Markdown, ours): a translation replaces each one whole.
"""

from __future__ import annotations

from dataclasses import dataclass

# The sentence of the copying lesson: a name the model can only know by copying it from earlier on.
COPY_SENTENCE = "Mr and Mrs Dursley lived in a small house. One morning, Mr and Mrs Dursley"
# The sentence of the cause lesson: /patching's first example, so its sweeps answer a known question.
CAUSE_SENTENCE = "The Eiffel Tower is in the city of"


@dataclass(frozen=True)
class RouteStep:
    """One step of a lesson: a page, what to look at there, a question, its answer, what it means."""

    page: str  # the page's url_path in the page table ("" = the first page)
    title: str  # a few words: the step's name in the lesson bar
    look: str  # what to look at on the page
    question: str  # what to predict before looking closer
    answer: str  # the reveal
    meaning: str  # what the answer means
    part: str = ""  # the page's step (page_table.Step.name) shown while presenting; "" = the page's first
    # What the page shows, as a share link's parameters (explorer.sharing): applied when the step opens, over
    # what the student had; the heads switched off and the questions asked (PER_STEP) start empty at every
    # step and hold for that step only.
    settings: tuple[tuple[str, str], ...] = ()
    experiment: str = ""  # the last step's experiment: what the student does, then sees


@dataclass(frozen=True)
class Route:
    """A lesson: its link name (?lesson=), its title, one line on what it teaches, its steps."""

    name: str
    title: str
    summary: str
    icon: str
    steps: tuple[RouteStep, ...]


def settings(**params: str) -> tuple[tuple[str, str], ...]:
    """A step's settings, written as keyword arguments: settings(model="smollm2", off="1.2")."""
    return tuple(params.items())


ATTENTION = Route(
    "attention",
    "How attention works",
    "From a sentence to the output of one attention layer, one idea at a time.",
    ":material/school:",
    (
        RouteStep(
            "",
            "Tokens and their vectors",
            "Each token of the sentence becomes a row of numbers: its embedding.",
            "The word “the” appears three times. Are its three rows the same?",
            "Yes: an embedding is looked up from the token alone.",
            "Nothing in it says where the word stands: the model needs more to tell them apart.",
            settings=settings(sentence="the cat saw the dog because the dog was loud", mask="none"),
        ),
        RouteStep(
            "positional-encoding",
            "Where each token stands",
            "A pattern of waves, one row per position, is added to each embedding: X = E + P.",
            "Once the waves are added, are the rows of “the” still the same?",
            "No: each position adds its own waves, so “the” gets a different row at each place.",
            "Now the model can tell words apart by where they stand.",
        ),
        RouteStep(
            "projections",
            "What a token looks for",
            "Each head multiplies X by three matrices of its own: W_Q, W_K, W_V.",
            "A token's query, key and value come from one row of X. Are they the same?",
            "No: one row times three different matrices gives three different vectors.",
            "A token can look for one thing, offer another and pass on a third.",
        ),
        RouteStep(
            "scores",
            "Comparing queries with keys",
            "Every query is compared with every key: rows are queries, columns are keys.",
            "How many scores does a sentence of n tokens need in one head?",
            "n × n: every query meets every key, its own included.",
            "Double the tokens and there are four times as many scores.",
            part="scores",
            settings=settings(mask="none"),
        ),
        RouteStep(
            "scores",
            "What a token may not see",
            "A causal mask hides every later token: their scores become −∞ and turn grey.",
            "With this mask, how many keys may the first token look at?",
            "Only one: itself. Every key after it is hidden.",
            "A model that predicts the next word must not read it first.",
            part="masking",
            settings=settings(mask="causal"),
        ),
        RouteStep(
            "scores",
            "From scores to weights",
            "The softmax turns each row of scores into weights between 0 and 1.",
            "Whatever the scores, what do the weights of one row add up to?",
            "They add up to 1, and none is negative.",
            "A weight is the share of its attention a query gives to each key.",
            part="softmax",
            settings=settings(mask="causal"),
        ),
        RouteStep(
            "heads",
            "Many heads at once",
            "Each head has its own W_Q, W_K and W_V, so each draws its own pattern of weights.",
            "Will two heads attend the same way on the same sentence?",
            "Not in general: their matrices differ, so their weights differ.",
            "Several heads let one layer look for several things at once.",
        ),
        RouteStep(
            "token",
            "One token's new vector",
            "A token's output is the sum of the value vectors, each times its weight.",
            "The first token may only see itself. What is its output (query 0)?",
            "Its own value vector: its only weight is 1.",
            "Attention moves information: each output blends what other tokens pass on.",
            experiment="Pick another query token and find which value it takes most of; then switch the mask "
            "off on Scores, mask, softmax and look again.",
        ),
    ),
)

ROUTES: tuple[Route, ...] = (ATTENTION,)
BY_NAME: dict[str, Route] = {r.name: r for r in ROUTES}
PER_STEP = ("ask", "off")  # settings of one step only: every step starts with no question and every head on
MAX_NAME_CHARS = 40
# Presenting, the bar above a step has one line of 1920 px for what to look at and the question, then for
# the answer and what it means, and one for the experiment: each pair's characters, at most.
PRESENT_LINE_CHARS = 165  # a link's lesson= longer than this is not a lesson's name


def settings_at(route: Route, k: int, came_from: int | None = None) -> dict[str, str]:
    """The settings applied on arriving at step k (from 1): the step's own when the student comes from the
    step before or after it (what they changed meanwhile stays), else every step's up to k, later ones over
    earlier ones (a link opened at step k shows what walking there shows). A question asked and heads
    switched off (PER_STEP) are the step's own only."""
    own = dict(route.steps[k - 1].settings)
    if came_from is not None and abs(came_from - k) == 1:
        return own
    out: dict[str, str] = {}
    for step in route.steps[: k - 1]:
        out.update((p, v) for p, v in step.settings if p not in PER_STEP)
    return {**out, **own}


def by_name(name: object) -> Route | None:
    """The lesson of this link name, or None."""
    return BY_NAME.get(str(name or "")[:MAX_NAME_CHARS].strip().lower())
