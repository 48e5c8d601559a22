"""The glossary's terms: each word of the trade once, in plain words, with the patterns that find it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.i18n import N_


@dataclass(frozen=True)
class Term:
    key: str  # one name, used by ON_PAGE and by the lessons
    word: str  # how the fold writes it (English; translated where shown: explorer.i18n)
    plain: str  # what it is, in whole sentences a first-year student reads (the same)
    patterns: tuple[str, ...]  # regular expressions (whole words, any case) that find it in an English text


def term(key: str, word: str, plain: str, *patterns: str) -> Term:
    return Term(key, word, plain, patterns or (re.escape(word),))


TERMS: tuple[Term, ...] = (
    term(
        "token",
        N_("token"),
        N_(
            "A piece of text the model reads as one unit: a word, part of a word or a punctuation mark. The "
            "sentence is split into tokens before anything else happens."
        ),
        r"tokens?",
        r"tokeni[sz]\w*",
    ),
    term(
        "embedding",
        N_("embedding"),
        N_(
            "The list of numbers (a vector) that stands for a token. The model never sees letters, only these "
            "numbers; E is the table of them."
        ),
        r"embeddings?",
        r"embedded",
    ),
    term(
        "vector",
        N_("vector"),
        N_("A list of numbers, such as a token's embedding. Its length is its number of dimensions."),
        r"vectors?",
    ),
    term(
        "position",
        N_("positional encoding"),
        N_(
            "Numbers added to each token's embedding that say where in the sentence the token stands; without "
            "them the model could not tell “dog bites man” from “man bites dog”."
        ),
        r"positional encodings?",
        r"position(al)? (vectors?|pattern)",
        r"RoPE",
    ),
    term(
        "qkv",
        N_("query, key and value"),
        N_(
            "Three vectors each token makes from its own vector: its query says what it is looking for, its key "
            "what it offers to be found by, its value what it passes on when it is looked at."
        ),
        r"quer(y|ies)",
        r"keys?",
        r"value vectors?",
        r"W_?[QKV]\b",
    ),
    term(
        "dot",
        N_("dot product"),
        N_(
            "Multiply two vectors entry by entry and add the products up: a large result means the two point "
            "the same way. A query's dot product with a key is their score."
        ),
        r"dot products?",
        r"q\s*·\s*k",
    ),
    term(
        "score",
        N_("attention score"),
        N_(
            "How well one token's query matches another token's key: their dot product, divided by the square "
            "root of the key's length so that it stays in a range softmax handles well."
        ),
        r"(scaled |raw |attention )scores?",
        r"the scores",
    ),
    term(
        "softmax",
        N_("softmax"),
        N_(
            "Turns a row of scores into weights that are all positive and add up to 1: the largest score gets "
            "the largest weight. Subtracting the row's largest score first changes nothing but keeps the "
            "numbers small."
        ),
        r"softmax",
    ),
    term(
        "weight",
        N_("attention weight"),
        N_(
            "How much one token (a row, the query) takes from another (a column, the key): between 0 and 1, "
            "and each row adds up to 1."
        ),
        r"attention weights?",
        r"weighted",
    ),
    term(
        "attention",
        N_("attention"),
        N_(
            "The step where each token looks at the other tokens and takes a weighted mix of their values: it "
            "is how information moves between positions."
        ),
        r"attention",
        r"attends?",
        r"attended",
    ),
    term(
        "head",
        N_("head"),
        N_(
            "One attention pattern with its own queries, keys and values. A layer runs several heads side by "
            "side, each free to look for something different; their outputs are joined."
        ),
        r"heads?",
        r"multi-head",
    ),
    term(
        "mask",
        N_("causal mask"),
        N_(
            "A rule that hides some keys from some queries. The causal mask hides every later token, so a "
            "token looks only at itself and the tokens before it, as when a model writes one word at a time."
        ),
        r"causal",
        r"masks?",
        r"masked",
        r"masking",
    ),
    term(
        "layer",
        N_("layer"),
        N_(
            "One round of attention followed by a small network on each token. A model stacks layers; each "
            "reads what the layers before it wrote."
        ),
        r"layers?",
    ),
    term(
        "ffn",
        N_("feed-forward network"),
        N_(
            "The small network a layer applies to each token on its own, after attention: two matrix "
            "multiplications with a bend between them. It is where much of what a model knows is stored."
        ),
        r"feed-forward",
        r"FFN",
        r"MLP",
    ),
    term(
        "residual",
        N_("residual stream"),
        N_(
            "The running total a model keeps for each token: every layer reads it and adds its own output to "
            "it instead of replacing it. What a layer writes there, later layers can read."
        ),
        r"residual( stream)?",
        r"skip connection",
    ),
    term(
        "hidden",
        N_("hidden state"),
        N_("The vector a model holds for one token after some layer: the residual stream at that point."),
        r"hidden states?",
    ),
    term(
        "layernorm",
        N_("LayerNorm"),
        N_(
            "Rescales a token's vector so its numbers have mean 0 and spread 1, then stretches them by learned "
            "amounts. It keeps the numbers from growing layer after layer."
        ),
        r"LayerNorm",
        r"LN\(",
    ),
    term(
        "rmsnorm",
        N_("RMSNorm"),
        N_(
            "A simpler LayerNorm: divides a token's vector by the root of its mean square (its typical size), "
            "without subtracting the mean, then stretches it by learned amounts."
        ),
        r"RMSNorm",
    ),
    term(
        "encoder",
        N_("encoder"),
        N_(
            "A model in which every token sees the whole sentence, before and after it (no causal mask), such "
            "as MiniLM. It describes text; it does not write the next word."
        ),
        r"encoders?",
    ),
    term(
        "decoder",
        N_("decoder"),
        N_(
            "A model in which each token sees only the tokens before it (a causal mask), such as SmolLM2. It "
            "writes text one token at a time."
        ),
        r"decoders?",
    ),
    term(
        "cls",
        N_("[CLS] and [SEP]"),
        N_(
            "Tokens an encoder such as MiniLM adds itself: [CLS] at the start of the sentence and [SEP] at its "
            "end. They are not words of yours; heads often rest their attention on them."
        ),
        r"\[CLS\]",
        r"\[SEP\]",
    ),
    term(
        "sink",
        N_("attention sink"),
        N_(
            "A token, usually the first, that many heads put most of their weight on when nothing else in the "
            "sentence is worth looking at: a resting place, not a sign that the token matters."
        ),
        r"sinks?",
        r"first token",
    ),
    term(
        "massive",
        N_("massive activation"),
        N_(
            "A single number hundreds of times larger than the others in a model's vectors, always in the same "
            "few dimensions and usually on the first token. Trained models grow them to make that token a "
            "resting place for attention; they would wash out every other colour, so charts draw them at the "
            "end of their colour scale and name them."
        ),
        r"massive activations?",
    ),
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
