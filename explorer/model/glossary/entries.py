"""The glossary's terms: each word of the trade once, in plain words, with the patterns that find it. Here
the words of the model's parts (token to attention sink); what it outputs and how it is read, probed and
trained is in probes.py."""

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


TERMS: tuple[Term, ...] = (  # the model's parts
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
)
