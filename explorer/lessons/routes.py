"""The lessons as routes through the pages, declared once, as data: the menu, the lesson bar above a page,
the presenter's clicker and the links (?lesson=copy&step=3) all read this table. Pure: no Streamlit.

A lesson is a story told across pages. Each step names its page (the url_path of the page table,
explorer.ui.page_table) and, where that page holds several parts, the part it shows while presenting; it says
what to look at, asks a question to predict, then reveals the answer and what it means. A step can set what
its page shows, in the words of a share link (the same parameters and the same readers: the model, the
sentence, the head, the heads switched off, a mask, a question asked with ask=), so the story lands on the
right view. The last step of every lesson is an experiment the student runs.

Every text is a whole sentence (static Markdown, ours): a translation replaces each one whole (each is
marked with N_ and translated where it is shown, explorer.ui.lesson_ui). A token is
quoted as the pages show it, a leading space as “␣” (“␣Paris”).
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer import i18n
from explorer.i18n import N_
from explorer.model import glossary

# The first lesson's sentence: a repeated word, for the trained head's rule to find.
SENTENCE = "the cat saw the dog because the dog was loud"
# The explorer's own toy (random weights, its sizes) and the tiny model trained in the engine, its layer 2
# (induction heads), as link settings: the first lesson starts on the toy and moves to the trained weights.
RANDOM_WEIGHTS = {
    "real": "toy",
    "real_layer": "0",
    "d_model": "8",
    "heads": "2",
    "d_k": "4",
    "emb": "random",
    "pe": "sinusoidal",
}
TRAINED = {"real": "tiny", "real_layer": "1"}
# The sentence of the copying lesson: the next word is a name the model can only copy from earlier on.
COPY_SENTENCE = "Mr and Mrs Dursley lived in a small house. One morning, Mr and Mrs"
# SmolLM2's induction heads (layer.head, 1-based): those labelled on /induction's standard run.
INDUCTION_HEADS = "18.4,18.5,18.6,19.7,19.8,21.7,24.3,24.8"
FIRST_HEAD = tuple(INDUCTION_HEADS.split(",")[0].split("."))  # ("18", "4"): layer, head, 1-based
# The sentences of the cause lesson: /patching's first pair (explorer.model.patching.PAIRS).
CLEAN, CORRUPT = "The capital of France is", "The capital of Italy is"
# The head whose weights the cause lesson's first step shows (layer, head, 1-based, as its link writes them).
READS = ("1", "1")

# What the copy and cause lessons say SmolLM2 does, declared once: the texts carry each number through a
# {placeholder} filled where they are shown (`words`), and tests/app/lessons/test_lesson_numbers.py computes
# every one with the engine and compares, so a number the engine no longer gives fails a test.
NUMBERS: dict[str, float | int] = {
    "p_on": 0.64,  # the probability of "␣D" after COPY_SENTENCE, every head on ...
    "p_off": 0.46,  # ... and with INDUCTION_HEADS off (/ablation's bars)
    "lens_first": 24,  # the logit lens at the last "␣Mrs": the first layer after which "␣D" comes first
    "lens_stays": 29,  # ... and the layer from which on it stays first (/logit-lens)
    "lives_until": 24,  # patching the residual stream: the last layer where "␣France"'s position restores
    "mover_layer": 24,  # the head whose output alone restores most of the answer (/patching's head sweep)
    "mover_head": 5,
    "n_heads": 270,  # SmolLM2's heads: 30 layers of 9
}


def _induction_layers() -> tuple[int, int]:
    layers = [int(h.split(".")[0]) for h in INDUCTION_HEADS.split(",")]
    return min(layers), max(layers)


def numbers() -> dict[str, str]:
    """Every placeholder of the lessons' texts, as the current language writes numbers in prose."""
    out = {k: i18n.decimal(v) if isinstance(v, float) else i18n.integer(v) for k, v in NUMBERS.items()}
    first, last = _induction_layers()
    return {
        **out,
        "moves_at": i18n.integer(NUMBERS["lives_until"] + 1),
        "copy_from": i18n.integer(first),
        "copy_to": i18n.integer(last),
        "n_off": i18n.integer(len(INDUCTION_HEADS.split(","))),
        "read_layer": READS[0],
        "read_head": READS[1],
    }


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
    N_("How attention works"),
    N_("From a sentence to the output of one attention layer, one idea at a time."),
    ":material/school:",
    (
        RouteStep(
            "",
            N_("Tokens and their vectors"),
            N_("Each token of the sentence becomes a row of numbers: its embedding."),
            N_("The word “the” appears three times. Are its three rows the same?"),
            N_("Yes: an embedding is looked up from the token alone."),
            N_("Nothing in it says where the word stands: the model needs more to tell them apart."),
            settings=settings(**RANDOM_WEIGHTS, model="toy", sentence=SENTENCE, mask="none", h="1", q="0"),
        ),
        RouteStep(
            "positional-encoding",
            N_("Where each token stands"),
            N_("A pattern of waves, one row per position, is added to each embedding: X = E + P."),
            N_("Once the waves are added, are the rows of “the” still the same?"),
            N_("No: each position adds its own waves, so “the” gets a different row at each place."),
            N_("Now the model can tell words apart by where they stand."),
        ),
        RouteStep(
            "projections",
            N_("What a token looks for"),
            N_("Each head multiplies X by three matrices of its own: W_Q, W_K, W_V."),
            N_("A token's query, key and value come from one row of X. Are they the same?"),
            N_("No: one row times three different matrices gives three different vectors."),
            N_("A token can look for one thing, offer another and pass on a third."),
        ),
        RouteStep(
            "scores",
            N_("Comparing queries with keys"),
            N_("Every query is compared with every key: rows are queries, columns are keys."),
            N_("How many scores does a sentence of n tokens need in one head?"),
            N_("n × n: every query meets every key, its own included."),
            N_("Double the tokens and there are four times as many scores."),
            part="scores",
            settings=settings(mask="none"),
        ),
        RouteStep(
            "scores",
            N_("What a token may not see"),
            N_("A causal mask hides every later token: their scores become −∞ and turn grey."),
            N_("With this mask, how many keys may the first token look at?"),
            N_("Only one: itself. Every key after it is hidden."),
            N_("A model that predicts the next word must not read it first."),
            part="masking",
            settings=settings(mask="causal"),
        ),
        RouteStep(
            "scores",
            N_("From scores to weights"),
            N_("The softmax turns each row of scores into weights between 0 and 1."),
            N_("Whatever the scores, what do the weights of one row add up to?"),
            N_("They add up to 1, and none is negative."),
            N_("A weight is the share of its attention a query gives to each key."),
            part="softmax",
            settings=settings(**RANDOM_WEIGHTS, mask="causal", h="1", q="0"),
        ),
        RouteStep(
            "scores",
            N_("Weights that mean something"),
            N_("A layer of a tiny model trained on repeats. Its head 3 hides one row's weights."),
            N_("In this trained head, which word will the second “dog” attend to most?"),
            N_("“because”: the word that came after the first “dog”."),
            N_("Training gave this head a rule: find an earlier copy, look one word on."),
            part="softmax",
            settings=settings(**TRAINED, h="3", ask="7"),
        ),
        RouteStep(
            "heads",
            N_("Many heads at once"),
            N_("The four heads of the trained layer, side by side, on the same sentence."),
            N_("Do the four heads look at the same words?"),
            N_("Not here: head 3 looks one word past an earlier copy; heads 1 and 4 rest on the first word."),
            N_("Several heads let one layer look for several things at once."),
        ),
        RouteStep(
            "token",
            N_("One token's new vector"),
            N_("A token's output is the sum of the value vectors, each times its weight."),
            N_("The first token may only see itself. What is its output (query 0)?"),
            N_("Its own value vector: its only weight is 1."),
            N_("Attention moves information: each output blends what other tokens pass on."),
            settings=settings(q="0"),
            experiment=N_(
                "Type a sentence that repeats a word, ask about the repeat on Scores, mask, softmax, "
                "and see head 3 find the word after its first copy."
            ),
        ),
    ),
)

COPY = Route(
    "copy",
    N_("How a model copies"),
    N_("Induction heads: a real model finds an earlier copy and repeats what came next."),
    ":material/repeat:",
    (
        RouteStep(
            "next-token",
            N_("A name it must copy"),
            N_("SmolLM2 gives every token of its vocabulary a probability of coming next."),
            N_("The sentence ends with “Mr and Mrs”. Which token will the model put first?"),
            N_("“␣D”, the start of “Dursley”, the name it read earlier."),
            N_("No fact about the world gives this name: the model copies it."),
            part="next-token",
            # the layer and head picked (/ablation's pickers, the experiment's) on the first induction head
            settings=settings(
                model="smollm2", sentence=COPY_SENTENCE, ask="next", layer=FIRST_HEAD[0], head=FIRST_HEAD[1]
            ),
        ),
        RouteStep(
            "induction",
            N_("Heads that look back"),
            N_("Random tokens, then the same tokens again; the pattern is one head's weights."),
            N_("In the second copy, which earlier token will this head look at?"),
            N_("The token that came after the current one the first time: the bright stripe."),
            N_("An induction head finds the earlier copy and looks one token on."),
            part="induction",
            settings=settings(model="smollm2"),
        ),
        RouteStep(
            "induction",
            N_("The second copy is easy"),
            N_("The loss of each token: low means the model expected it."),
            N_("Will the model predict the second copy better than the first?"),
            N_("Much better: the loss of the second copy falls far below the first's."),
            N_("Random tokens can only be predicted by copying them."),
            part="induction-loss",
        ),
        RouteStep(
            "induction",
            N_("Switch them off"),
            N_("The {n_off} induction heads are switched off: what they write is removed."),
            N_("With those {n_off} heads off, what happens to the loss of the second copy?"),
            N_("It climbs back almost to the first copy's: the copy fails."),
            N_(
                "Of {n_heads} heads, these {n_off} do the copying; the head drawn still looks, but writes nothing."
            ),
            part="induction-loss",
            settings=settings(off=INDUCTION_HEADS),
        ),
        RouteStep(
            "logit-lens",
            N_("Where the answer appears"),
            N_("Each row reads the model after one layer, as if that layer were the last."),
            N_("After which layer does “␣D” first become likely after the last “␣Mrs”?"),
            N_(
                "After layer {lens_first} it jumps from almost nothing to first place; from layer {lens_stays} "
                "on it stays first."
            ),
            N_("The induction heads of layers {copy_from} to {copy_to} wrote it there."),
            part="logit-lens-follow",
        ),
        RouteStep(
            "ablation",
            N_("Your experiment"),
            N_("The bars compare the untouched model with the induction heads switched off."),
            N_("On this sentence, does “␣D” still come first with those heads off?"),
            N_("Yes, but weaker: its probability falls from about {p_on} to about {p_off}."),
            N_("In a real sentence other heads help to copy; in random tokens nothing else can."),
            settings=settings(off=INDUCTION_HEADS),
            experiment=N_(
                "Switch more heads of layers {copy_from} to {copy_to} off, one at a time, and find when “␣D” loses "
                "first place."
            ),
        ),
    ),
)

CAUSE = Route(
    "cause",
    N_("What caused the answer"),
    N_("Attention is not a cause: removing tokens and patching activations find what the answer needs."),
    ":material/science:",
    (
        RouteStep(
            "next-token",
            N_("Where attention goes"),
            N_(
                "The causal mask chart: the row of “␣is” shows where head {read_head} of layer {read_layer} reads."
            ),
            N_("“␣is” gives “␣France” less weight than “The”. Is “␣France” less needed?"),
            N_("No: attention says where a head reads, not what the answer needs."),
            N_("To find a cause, change the input and watch the answer change."),
            part="next-token-mask",
            settings=settings(
                model="smollm2", sentence=CLEAN, corrupt=CORRUPT, layer=READS[0], head=READS[1]
            ),
        ),
        RouteStep(
            "next-token",
            N_("Remove one token"),
            N_("Each token is removed in turn and the model runs again without it."),
            N_("Which removal lowers the probability of “␣Paris” most?"),
            N_("They all lower it about as much: “The” as much as “␣France”."),
            N_("Removing a word breaks the whole sentence, not only the fact: a blunt test."),
            part="next-token-needs",
        ),
        RouteStep(
            "patching",
            N_("Copy one activation"),
            N_("Press Run: the Italy sentence runs again with one activation from the France run."),
            N_("Up to which layer does the answer live at the position of “␣France”?"),
            N_("Up to layer {lives_until}; from layer {moves_at} on it lives at “␣is”, the last token."),
            N_("Between layers {lives_until} and {moves_at} the fact moves to where the next word is read."),
            part="patching",
        ),
        RouteStep(
            "patching",
            N_("Your experiment"),
            N_("The head sweep copies one head's output at a time from the France run."),
            N_("Will many heads bring the answer back, or only a few?"),
            N_("Few: head {mover_head} of layer {mover_layer} brings back most of it alone."),
            N_("That head moves the fact from “␣France” to “␣is”: the cause the first step asked about."),
            part="patching-heads",
            experiment=N_(
                "Pick the Mary → John pair, run it, and find the heads that choose the name that "
                "was not repeated."
            ),
        ),
    ),
)

ROUTES: tuple[Route, ...] = (ATTENTION, COPY, CAUSE)
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


def words(text: str) -> str:
    """A text of the table (a title, what to look at, a question, ...) in the current language, its numbers
    filled in (`numbers`)."""
    return i18n._(text, **numbers()) if text else ""


def texts(step: RouteStep) -> tuple[str, ...]:
    """Every text of a step the lesson bar shows, in English, its numbers filled in."""
    fields = (step.title, step.look, step.question, step.answer, step.meaning, step.experiment)
    return tuple(t.format(**numbers()) for t in fields if t)


def terms(step: RouteStep) -> list[glossary.Term]:
    """The glossary's terms a step's words use (found in its English texts), in the glossary's order: the
    lesson bar explains each, from the same glossary the pages and the exports read."""
    return glossary.terms_in("\n".join(texts(step)))
