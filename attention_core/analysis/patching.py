"""What caused a prediction, measured by changing the run: activation patching and occlusion.

Attention shows where a head looks, not what made the answer. These measurements change one thing in a run
and see what the answer does.

Activation patching (causal tracing: Meng et al. 2022, "Locating and Editing Factual Associations in GPT";
Wang et al. 2022, "Interpretability in the Wild"). Two texts of the same number of tokens, a clean one
("The capital of France is") and a corrupt one ("The capital of Italy is"), and two competing next tokens,
the answer (" Paris") and the wrong one (" Rome"). The metric is the logit difference at the last position,
LD = logit(answer) - logit(wrong). The corrupt text runs again with one activation taken from the clean run;
the restored fraction (LD_patched - LD_corrupt) / (LD_clean - LD_corrupt) is 1 when that activation alone
brings the clean lead back, 0 when it changes nothing. Sites: "resid", the residual stream entering layer l
at position p; "head", head h's output of layer l (its A V, before W_O) at every position. Each patched run
reuses the corrupt run up to the patched layer and runs only the layers from there on, every position (or
every head) of one layer as one batch, and only the rows that change: the model is causal, so the two texts'
common first tokens have the same states in both runs (the same numbers, up to the rounding of matrix
products grouped with the other rows), a patch changes nothing before the first token where the texts
differ, and those positions keep the corrupt run's states, keys and values. A residual patch at a position
of the common beginning changes nothing at all: the corrupt run is left as it is (restored fraction 0). A
head's patch changes its own layer through its rows of W_O only (the other heads' outputs are the corrupt
run's).

Head ablation, in batches: the total variation between the next-token distributions with and without each head
(its output removed, as ``head_mask`` removes it), every head of a layer as one batch run from that layer on:
the one-at-a-time effects of ``rank_heads`` for a decoder, at the cost of one patching sweep.

Occlusion: for each input token i, p(target | the text without token i) - p(target | the whole text), the
probability of the target as the next token after the last one; the other tokens keep their order. Negative
where the token helped the target, positive where it held it back. An encoder predicts no next token: its
occlusion (``occlusion_similarity``) measures the cosine similarity of the text's sentence embedding with a
second text's instead, cos(e(text without token i), e(other)) - cos(e(text), e(other)).

The model is a loaded ``attention_core.pretrained.Model`` (a decoder: one that predicts the next token;
an encoder for ``occlusion_similarity``);
its runs come from ``model.run`` (cached) and the engine's ``run_layers`` and ``transformer_layer``.
Results are float64; the model computes in float32.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._validate import FloatArray, IntArray
from ..softmax import softmax
from ..transformer import embed_tokens, output_logits, run_layers
from ..transformer.suffix import head_rows, position_rows, resume_rows
from .ablation import sentence_embedding

if TYPE_CHECKING:
    from ..pretrained import Model

__all__ = [
    "MIN_GAP",
    "PATCH_SITES",
    "PatchPair",
    "PatchStep",
    "ablation_effects",
    "occlusion",
    "occlusion_similarity",
    "patch",
    "patch_pair",
    "patch_sweep",
    "restored_fraction",
]

PATCH_SITES = ("resid", "head")
# Changed rows of the patched runs that run through a layer together (a group of layers' patches): one
# matrix product of a thousand rows runs about 1.4x faster per row than one of 64 (one core, float32), and
# 2,048 rows of SmolLM2 hold about 40 MB of intermediates at once.
GROUP_ROWS = 2048
# The least |LD_clean - LD_corrupt| (in logits) that makes a restored fraction meaningful: below it the two
# runs agree on the answer's lead and there is nothing to restore (float32 logits carry about 1e-5 of noise).
MIN_GAP = 1e-3


@dataclass(frozen=True, eq=False)
class PatchPair:
    """A clean and a corrupt text of the same length, the two competing answers, and both runs' metric.

    Fields:
        clean, corrupt: the texts as run.
        clean_tokens, corrupt_tokens: n display strings each.
        clean_ids, corrupt_ids: (n,) int64 token ids.
        answer, wrong: the token ids of the answer and of the wrong token.
        answer_text, wrong_text: their display strings (" Paris").
        ld_clean, ld_corrupt: LD = logit(answer) - logit(wrong) after the last token of each text.
    """

    clean: str
    corrupt: str
    clean_tokens: list[str]
    corrupt_tokens: list[str]
    clean_ids: IntArray
    corrupt_ids: IntArray
    answer: int
    wrong: int
    answer_text: str
    wrong_text: str
    ld_clean: float
    ld_corrupt: float

    @property
    def n_tokens(self) -> int:
        return int(self.clean_ids.size)


@dataclass(frozen=True, eq=False)
class PatchStep:
    """Progress of ``patch_sweep``, after each patched layer.

    Fields:
        done: layer runs finished (patching at layer l runs layers l .. n_layers - 1 again).
        total: layer runs of the whole sweep, n_layers (n_layers + 1) / 2.
        layer: the layer just measured.
        message: what was measured ("layer 3 of 30").
        restored: (n_layers, n) for "resid" or (n_layers, n_heads) for "head": the restored fractions, NaN
            for the layers not measured yet.
    """

    done: int
    total: int
    layer: int
    message: str
    restored: FloatArray


def restored_fraction(ld_patched: FloatArray | float, ld_clean: float, ld_corrupt: float) -> FloatArray:
    """(LD_patched - LD_corrupt) / (LD_clean - LD_corrupt): 1 is the clean run's lead, 0 the corrupt one's.

    Args:
        ld_patched: (...) logit differences of patched runs.
        ld_clean: the clean run's LD.
        ld_corrupt: the corrupt run's LD; |ld_clean - ld_corrupt| >= MIN_GAP.

    Returns:
        (...) float64.
    """
    gap = float(ld_clean) - float(ld_corrupt)
    if not abs(gap) >= MIN_GAP:
        raise ValueError(
            f"the answer leads by the same amount in both texts (LD {ld_clean:.4f} clean, {ld_corrupt:.4f} "
            "corrupt): there is nothing to restore; pick texts or answers the model tells apart"
        )
    return (np.asarray(ld_patched, dtype=np.float64) - float(ld_corrupt)) / gap


def _shown(tokens: list[str]) -> str:
    """Tokens as a student reads them: 'The' | ' capital' | ..."""
    return " | ".join(repr(t) for t in tokens)


def _decoder(model: Model) -> None:
    if not model.config.has_logits:
        raise ValueError(
            f"{model.name} is an encoder: it does not predict a next token, so there is no answer"
        )


def _one_token(model: Model, name: str, value: object) -> int:
    """A token id, or the id of a text that is exactly one token; else a ValueError naming how it splits."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if not 0 <= int(value) < model.config.vocab_size:
            raise ValueError(f"{name} must be a token id in 0 .. {model.config.vocab_size - 1}, got {value}")
        return int(value)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a token id or the text of one token, got {value!r}")
    ids = model.tokenizer.encode(value[:100])
    if len(ids) != 1:
        raise ValueError(
            f"{name} must be exactly one token of {model.name}, but {value!r} is {len(ids)} tokens: "
            f"{_shown(model.token_strings(ids))}"
        )
    return int(ids[0])


def _ld(next_logits: FloatArray, answer: int, wrong: int) -> float:
    return float(next_logits[answer]) - float(next_logits[wrong])


def patch_pair(model: Model, clean: str, corrupt: str, answer: int | str, wrong: int | str) -> PatchPair:
    """Check a patching experiment and run both texts: the same token count, two different one-token answers.

    Args:
        model: a loaded decoder (``pretrained.load("SmolLM2-135M")``).
        clean: the text whose answer patching tries to restore ("The capital of France is").
        corrupt: a text of as many tokens that changes the answer ("The capital of Italy is").
        answer: the clean text's answer, a token id or the text of one token (" Paris").
        wrong: the competing token (" Rome"), a token id or the text of one token.

    Returns:
        PatchPair, with LD_clean and LD_corrupt; a ValueError that a student can read otherwise.
    """
    _decoder(model)
    a, w = _one_token(model, "answer", answer), _one_token(model, "wrong", wrong)
    if a == w:
        raise ValueError(f"answer and wrong are the same token ({model.token_strings([a])[0]!r}): pick two")
    runs = [model.run(text) for text in (clean, corrupt)]
    c, k = runs
    if c.n_tokens != k.n_tokens:
        raise ValueError(
            f"the two texts must have the same number of tokens to patch position by position, but the clean "
            f"text is {c.n_tokens} tokens ({_shown(c.tokens)}) and the corrupt text {k.n_tokens} "
            f"({_shown(k.tokens)})"
        )
    assert c.next_logits is not None and k.next_logits is not None
    ld_clean, ld_corrupt = _ld(c.next_logits, a, w), _ld(k.next_logits, a, w)
    restored_fraction(ld_clean, ld_clean, ld_corrupt)  # raises when there is nothing to restore
    shown = model.token_strings([a, w])
    ids = [np.asarray(r.token_ids, dtype=np.int64) for r in runs]
    return PatchPair(c.text, k.text, c.tokens, k.tokens, *ids, a, w, *shown, ld_clean, ld_corrupt)


def _batch_ld(model: Model, out: FloatArray, pair: PatchPair) -> FloatArray:
    """LD of each sequence of a batch from the last layer's output at the last position (b, d_model): (b,)."""
    logits = output_logits(out, model.weights, model.config, [pair.answer, pair.wrong])  # (b, 2)
    return logits[:, 0].astype(np.float64) - logits[:, 1]


def _first_difference(pair: PatchPair) -> int:
    """The first position where the clean and the corrupt tokens differ (0 .. n - 1): a causal model's states
    before it are the same in both runs."""
    differ = np.flatnonzero(pair.clean_ids != pair.corrupt_ids)
    return int(differ[0]) if differ.size else pair.n_tokens - 1


def _groups(model: Model, pair: PatchPair, site: str) -> list[list[int]]:
    """The layers whose patches run together (resume_rows), in order: consecutive layers while their changed
    rows add up to at most GROUP_ROWS (a layer alone when it has more). Fixed by the pair's shape alone, so
    that ``patch_layer`` computes a layer's row as ``patch_sweep`` does, to the last bit."""
    c, n = model.config, pair.n_tokens
    m = n - _first_difference(pair)  # positions from the first difference on
    groups: list[list[int]] = [[]]
    rows = 0
    for layer in range(c.n_layers):
        more = m * (m + 1) // 2 if site == "resid" else c.n_heads * (1 if layer == c.n_layers - 1 else m)
        if groups[-1] and rows + more > GROUP_ROWS:
            groups.append([])
            rows = 0
        groups[-1].append(layer)
        rows += more
    return groups


def _patch_layers(model: Model, pair: PatchPair, layers: list[int], site: str) -> FloatArray:
    """The rows of ``patch_sweep`` for consecutive ``layers``, their patched runs together: (len(layers), n)
    for "resid", (len(layers), n_heads) for "head". Only the rows from the first token where the texts
    differ run; a residual patch before it changes nothing (its LD is the corrupt run's)."""
    w, c, first, n = model.weights, model.config, _first_difference(pair), pair.n_tokens
    clean, corrupt = model.run(pair.clean), model.run(pair.corrupt)  # cached by the model
    run = corrupt.hidden_states
    if site == "resid":
        at = np.arange(first, n)  # the positions a patch changes
        parts = [position_rows(run, layer, clean.hidden_states[layer], at) for layer in layers]
        ld = np.full((len(layers), n), pair.ld_corrupt)
        ld[:, first:] = _batch_ld(model, resume_rows(run, w, c, parts), pair).reshape(len(layers), -1)
    else:
        parts = [
            head_rows(corrupt.layers[layer], w, c, layer, clean.layers[layer].attention.head_outputs, first)
            for layer in layers
        ]
        ld = _batch_ld(model, resume_rows(run, w, c, parts), pair).reshape(len(layers), c.n_heads)
    return restored_fraction(ld, pair.ld_clean, pair.ld_corrupt)


def patch_sweep(model: Model, pair: PatchPair, site: str = "resid") -> Iterator[PatchStep]:
    """Patch every position (or every head) of every layer; yields progress after each layer (the layers of
    a group of consecutive layers, whose patched runs run together, at once).

    restored[l, p] ("resid"): the corrupt text run with the residual stream entering layer l at position p
    taken from the clean run. restored[l, h] ("head"): the corrupt text run with head h's output of layer l
    (A V before W_O, at every position) taken from the clean run. Both as restored fractions.

    Args:
        model: the model ``pair`` was made with.
        pair: a PatchPair (``patch_pair``).
        site: "resid" or "head".

    Yields:
        PatchStep after each layer; the last has done == total and every layer measured.
    """
    if site not in PATCH_SITES:
        raise ValueError(f"site must be one of {', '.join(map(repr, PATCH_SITES))}, got {site!r}")
    c = model.config
    width = pair.n_tokens if site == "resid" else c.n_heads
    restored = np.full((c.n_layers, width), np.nan)
    total, done = c.n_layers * (c.n_layers + 1) // 2, 0
    for group in _groups(model, pair, site):
        rows = _patch_layers(model, pair, group, site)  # (len(group), width)
        for layer, row in zip(group, rows, strict=True):
            restored[layer] = row
            done += c.n_layers - layer
            yield PatchStep(done, total, layer, f"layer {layer + 1} of {c.n_layers}", restored.copy())


def patch_layer(model: Model, pair: PatchPair, layer: int, site: str = "resid") -> FloatArray:
    """One layer's row of ``patch_sweep``: the restored fraction of each position ("resid") or each head
    ("head") of ``layer``, patched one at a time. It costs its group's patched runs (see ``patch_sweep``).

    Args:
        model: the model ``pair`` was made with.
        pair: a PatchPair (``patch_pair``).
        layer: 0 .. n_layers - 1.
        site: "resid" or "head".

    Returns:
        (n,) for "resid", (n_heads,) for "head", float64.
    """
    if site not in PATCH_SITES:
        raise ValueError(f"site must be one of {', '.join(map(repr, PATCH_SITES))}, got {site!r}")
    c = model.config
    if not 0 <= layer < c.n_layers:
        raise ValueError(f"layer must be 0 .. {c.n_layers - 1}, got {layer}")
    group = next(g for g in _groups(model, pair, site) if layer in g)  # computed as the sweep does
    return _patch_layers(model, pair, group, site)[group.index(layer)]


def patch(
    model: Model, clean: str, corrupt: str, answer: int | str, wrong: int | str, site: str = "resid"
) -> FloatArray:
    """Activation patching: how much of the clean answer's lead each activation restores in the corrupt run.

    restored = (LD_patched - LD_corrupt) / (LD_clean - LD_corrupt), LD = logit(answer) - logit(wrong) at the
    last position. See ``patch_sweep`` for the sites and ``patch_pair`` for the checks.

    Args:
        model: a loaded decoder.
        clean: the text whose answer is restored.
        corrupt: a text of as many tokens.
        answer: a token id or one token's text (" Paris").
        wrong: a token id or one token's text (" Rome").
        site: "resid" (the residual stream entering each layer at each position) or "head" (each head's
            output at every position).

    Returns:
        (n_layers, n) for "resid", (n_layers, n_heads) for "head", float64.
    """
    steps = list(patch_sweep(model, patch_pair(model, clean, corrupt, answer, wrong), site))
    return steps[-1].restored


def occlusion(model: Model, text: str, target: int | str) -> FloatArray:
    """Token attribution by occlusion: delta[i] = p(target | text without token i) - p(target | text).

    p is the model's next-token probability after the last token; removing token i keeps the others in their
    order (later tokens move one position up). Every shortened text runs as one batch.

    Args:
        model: a loaded decoder.
        text: the input, at least two tokens.
        target: the next token measured, a token id or the text of one token.

    Returns:
        (n,) float64, one number per token of the text: negative where removing the token lowers the target's
        probability (the token helped), positive where it raises it.
    """
    _decoder(model)
    t = _one_token(model, "target", target)
    run = model.run(text)
    n = run.n_tokens
    if n < 2:
        raise ValueError(
            f"occlusion removes one token at a time: {text!r} is a single token, give at least two"
        )
    ids = np.asarray(run.token_ids, dtype=np.int64)
    out = _without_each(model, ids, np.arange(n))  # (n, n - 1, d_model)
    probs = softmax(output_logits(out[:, -1], model.weights, model.config).astype(np.float64))  # (n, vocab)
    return probs[:, t] - run.next_token_probs()[t]


def _without_each(model: Model, ids: IntArray, removed: IntArray) -> FloatArray:
    """The last layer's output of the text run once without each token in ``removed``: (r, n - 1, d_model).
    Every shortened text runs as one batch; the other tokens keep their order."""
    keep = np.ones((removed.size, ids.size), dtype=bool)  # (r, n): row k keeps every token but removed[k]
    keep[np.arange(removed.size), removed] = False
    cfg, weights = model.config, model.weights
    batch = np.stack([embed_tokens(ids[row], weights.embeddings, cfg).output for row in keep])  # (r, n-1, d)
    return run_layers(batch, weights, cfg)


def occlusion_similarity(model: Model, text: str, other: str) -> FloatArray:
    """Occlusion for an encoder: delta[i] = cos(e(text without token i), e(other)) - cos(e(text), e(other)).

    e is the sentence embedding (``sentence_embedding``: the mean of the last layer's hidden states, scaled to
    length 1). The tokens the tokenizer adds to every text ([CLS], [SEP]) are never removed: their delta is NaN.
    The other tokens keep their order (later tokens move one position up).

    Args:
        model: a loaded encoder (``pretrained.load("all-MiniLM-L6-v2")``).
        text: the text whose tokens are removed in turn, at least one token of its own.
        other: the text it is compared with.

    Returns:
        (n,) float64, one number per token of ``text``: negative where removing the token lowers the
        similarity (the token made the two texts alike), positive where it raises it; NaN at [CLS] and [SEP].
    """
    if model.config.has_logits:
        raise ValueError(
            f"{model.name} predicts the next token: measure a token's occlusion by its probability (occlusion)"
        )
    run, target = model.run(text), sentence_embedding(model.run(other).hidden_states[-1])
    ids = np.asarray(run.token_ids, dtype=np.int64)
    added = set(model.tokenizer.encode(""))  # what the tokenizer puts around every text: [CLS], [SEP]
    removed = np.array([i for i, t in enumerate(ids) if int(t) not in added], dtype=np.int64)
    if removed.size == 0:
        raise ValueError(f"{text!r} has no tokens of its own to remove (only {', '.join(run.tokens)})")
    out = _without_each(model, ids, removed).astype(np.float64)  # (r, n - 1, d_model)
    means = out.mean(axis=1)  # (r, d_model)
    shortened = means / np.linalg.norm(means, axis=1, keepdims=True) @ target  # (r,) cosines, target unit
    delta = np.full(ids.size, np.nan)
    delta[removed] = shortened - sentence_embedding(run.hidden_states[-1]) @ target
    return delta


def ablation_effects(model: Model, text: str) -> FloatArray:
    """How much removing each head alone moves the next-token distribution: TV(p, p without head (l, h)).

    TV is the total variation, half the L1 distance (0..1, the share of probability that moves); removing a
    head sets its block of the concatenation to 0 (``head_mask``). Every head's run starts from the text's
    own run at its layer, and the runs go through each layer together (``Model.ablate``, the last layer at
    the last position only).

    Args:
        model: a loaded decoder.
        text: the input.

    Returns:
        (n_layers, n_heads) float64.
    """
    _decoder(model)
    c = model.config
    base = model.run(text).next_token_probs()  # (vocab,)
    masks = np.ones((c.n_layers * c.n_heads, c.n_layers, c.n_heads))  # variant l H + h: head (l, h) off
    masks[np.arange(masks.shape[0]), *np.divmod(np.arange(masks.shape[0]), c.n_heads)] = 0.0
    logits = model.ablate(text, masks, last_only=True)[1]  # (L H, vocab)
    assert logits is not None
    out = np.empty(masks.shape[0])
    for rows in range(0, out.size, c.n_heads):  # a layer's heads at a time: (H, vocab) float64 at once
        probs = softmax(logits[rows : rows + c.n_heads].astype(np.float64))  # (H, vocab)
        out[rows : rows + c.n_heads] = 0.5 * np.abs(probs - base).sum(axis=1)
    return out.reshape(c.n_layers, c.n_heads)
