"""The glossary's terms of what a model outputs and how it is read, probed and trained (logit to gradient
descent), after the words of its parts (entries.py)."""

from __future__ import annotations

from explorer.i18n import N_
from explorer.model.glossary.entries import Term, term

TERMS: tuple[Term, ...] = (
    term(
        "logit",
        N_("logit"),
        N_(
            "The score a model gives each token of its vocabulary for coming next. Softmax turns the logits "
            "into probabilities; only their differences matter."
        ),
        r"logits?",
        r"logit difference",
    ),
    term(
        "probability",
        N_("probability"),
        N_(
            "How likely the model finds something, from 0 (never) to 1 (certain). A number written as 2.1e-72 "
            "means 2.1 divided by 1 followed by 72 zeros: practically zero."
        ),
        r"probabilit(y|ies)",
        r"p\(",
        r"\bp\s*=",
    ),
    term(
        "temperature",
        N_("temperature"),
        N_(
            "A number T the logits are divided by before softmax: below 1 the likeliest token wins more often, "
            "above 1 the choice spreads out. T = 1 is the model's own."
        ),
        r"temperature",
    ),
    term(
        "vocabulary",
        N_("vocabulary"),
        N_("Every token a model knows, each with a number (its id). SmolLM2 knows 49,152."),
        r"vocabular(y|ies)",
        r"token ids?",
    ),
    term(
        "loss",
        N_("loss"),
        N_(
            "How wrong the model's prediction was, as one number: −log p of the token that really came next. 0 "
            "means it was certain and right; the larger, the more surprised it was."
        ),
        r"loss(es)?",
        r"cross-entropy",
    ),
    term(
        "logp",
        N_("−log p"),
        N_(
            "Minus the logarithm of a probability: 0 for p = 1, about 0.69 for p = 0.5, 4.6 for p = 0.01. It "
            "turns small probabilities into readable numbers and is the loss of one prediction."
        ),
        r"[−-]\s*log\s*p",
        r"log-probabilit(y|ies)",
    ),
    term(
        "nats",
        N_("nats"),
        N_(
            "The unit of a loss or an entropy computed with the natural logarithm (ln). 1 nat is about 1.44 "
            "bits; a loss of 0.69 nats is a coin toss."
        ),
        r"nats?",
    ),
    term(
        "entropy",
        N_("entropy"),
        N_(
            "How spread out a set of weights or probabilities is: 0 when all of it is on one token, largest "
            "when it is spread evenly (ln n for n tokens)."
        ),
        r"entrop(y|ies)",
    ),
    term(
        "variance",
        N_("variance"),
        N_(
            "How far numbers spread around their mean: the mean of the squared distances from it. The scores' "
            "variance grows with the key's length unless they are scaled."
        ),
        r"variances?",
    ),
    term(
        "cosine",
        N_("cosine similarity"),
        N_(
            "How alike two vectors' directions are, whatever their lengths: 1 for the same direction, 0 for "
            "unrelated, −1 for opposite."
        ),
        r"cosines?",
        r"cosine similarity",
    ),
    term(
        "rollout",
        N_("attention rollout"),
        N_(
            "An estimate of how much each input token reaches a later layer, by multiplying the layers' "
            "attention (with the residual stream added) one after another. It follows the route, not the cause."
        ),
        r"rollout",
    ),
    term(
        "lens",
        N_("logit lens"),
        N_(
            "Reading the residual stream after any layer as if it were the last: the model's own final norm and "
            "output layer turn it into next-token probabilities. In models whose input and output embeddings "
            "are the same table (tied, as in SmolLM2), the first row reads the input back: each token predicts "
            "itself until the layers change it."
        ),
        r"logit lens",
    ),
    term(
        "tied",
        N_("tied embeddings"),
        N_(
            "A model that uses one table both to turn tokens into vectors (input) and vectors back into logits "
            "(output), as SmolLM2 does. Read before any layer, such a model points at the token it was given."
        ),
        r"tied",
        r"W_U\s*=\s*E",
    ),
    term(
        "induction",
        N_("induction head"),
        N_(
            "A head that completes a repeat: after “A B … A” it looks at the token that followed the earlier "
            "A (B) and copies it. It is how a model copies text it has seen earlier in the sentence."
        ),
        r"induction( heads?)?",
    ),
    term(
        "previous",
        N_("previous-token head"),
        N_(
            "A head whose every token looks at the token just before it: it writes “what came before me” into "
            "each position, which an induction head later reads."
        ),
        r"previous[- ]token( heads?)?",
    ),
    term(
        "ablation",
        N_("ablation (switching a head off)"),
        N_(
            "Running the model again with a head's output set to zero, to see how much the answer needs that "
            "head."
        ),
        r"ablations?",
        r"ablated",
        r"switch(ed|ing)? (heads? )?off",
        r"heads? off",
    ),
    term(
        "occlusion",
        N_("occlusion"),
        N_(
            "Removing one token from the sentence and running the model again, to see how much the prediction "
            "needs it."
        ),
        r"occlusion",
    ),
    term(
        "patching",
        N_("activation patching"),
        N_(
            "Running a corrupt sentence (one word changed) again with one activation copied in from the clean "
            "sentence's run: if the clean answer comes back, that activation carries what caused it."
        ),
        r"patch(ing|ed|es)?",
    ),
    term(
        "clean",
        N_("clean and corrupt runs"),
        N_(
            "In patching, the clean sentence gives the answer under study (“Paris”); the corrupt one differs by "
            "a word and gives another (“Rome”)."
        ),
        r"corrupt(ed)?",
        r"clean (sentence|run)s?",
    ),
    term(
        "restored",
        N_("restored fraction"),
        N_(
            "How much of the clean answer's lead over the wrong token one patched activation brings back: 1 "
            "all of it, 0 none, below 0 it helps the wrong token."
        ),
        r"restored( fraction)?",
    ),
    term(
        "activation",
        N_("activation"),
        N_(
            "Any number a model computes on the way from the input to the output: a hidden state, a head's "
            "output, a score."
        ),
        r"activations?",
    ),
    term(
        "minimal",
        N_("minimal pair"),
        N_(
            "Two sentences that differ in one word. Whatever differs between their runs comes from that word."
        ),
        r"minimal pairs?",
    ),
    term(
        "dmodel",
        N_("d_model and d_k"),
        N_(
            "The length of each token's vector is d_model; the length of a head's queries and keys is d_k. Scores "
            "are divided by √d_k."
        ),
        r"d_model",
        r"d_k",
        r"d_\{?model",
        r"d_\{?k",
    ),
    term(
        "gradient",
        N_("gradient descent"),
        N_(
            "How a model learns: after each example, every weight is nudged a little in the direction that "
            "lowers the loss. The size of the nudge is the learning rate."
        ),
        r"gradients?",
        r"learning rate",
        r"gradient descent",
    ),
)
