"""Measurements of what a trained model does, over the arrays a traced run returns.

Pure numpy; nothing here loads a model (functions that rerun one take the model or its run as an argument).

- ``heads``: head labels by stated rules, attention rollout, grouped-query heads.
- ``ablation``: next-token comparisons, sentence similarity and head rankings when heads are removed.
- ``lens``: the logit lens, what a decoder would predict after each layer.
- ``induction``: induction and previous-token scores of every head on random tokens repeated twice.
- ``patching``: what caused a prediction: activation patching (residual stream, heads) and occlusion
  (of a next token's probability, or of an encoder's similarity of two sentences).
- ``pairs``: minimal pairs: how the attention from one token moves when one word of the sentence changes.
"""

from __future__ import annotations

from .heads import (
    BROAD_THRESHOLD,
    HEAD_RULES,
    HeadLabels,
    HeadRule,
    NextTokenShift,
    RankingStep,
    attention_rollout,
    compare_next_tokens,
    cosine,
    hidden_state_shift,
    kv_groups,
    kv_head_of,
    label_heads,
    layer_off,
    next_token_probs,
    only_head,
    rank_heads,
    ranked,
    rule_targets,
    sentence_embedding,
    top_next_tokens,
    total_variation,
    word_ids,
)
from .induction import (
    MAX_INDUCTION_TOKENS,
    InductionRun,
    induction_scores,
    induction_stripe,
    next_token_losses,
    previous_token_scores,
    random_tokens,
    run_induction,
)
from .lens import BLOCK_BYTES, MAX_LENS_K, LensReading, lens_token_probs, logit_lens, read_lens

__all__ = [
    "BLOCK_BYTES",
    "BROAD_THRESHOLD",
    "HEAD_RULES",
    "MAX_INDUCTION_TOKENS",
    "MAX_LENS_K",
    "HeadLabels",
    "HeadRule",
    "InductionRun",
    "LensReading",
    "NextTokenShift",
    "RankingStep",
    "attention_rollout",
    "compare_next_tokens",
    "cosine",
    "hidden_state_shift",
    "induction_scores",
    "induction_stripe",
    "kv_groups",
    "kv_head_of",
    "label_heads",
    "layer_off",
    "lens_token_probs",
    "logit_lens",
    "next_token_losses",
    "next_token_probs",
    "only_head",
    "previous_token_scores",
    "random_tokens",
    "rank_heads",
    "ranked",
    "read_lens",
    "rule_targets",
    "run_induction",
    "sentence_embedding",
    "top_next_tokens",
    "total_variation",
    "word_ids",
]

from .patching import (  # noqa: E402
    MIN_GAP,
    PATCH_SITES,
    PatchPair,
    PatchStep,
    ablation_effects,
    occlusion,
    occlusion_similarity,
    patch,
    patch_layer,
    patch_pair,
    patch_sweep,
    restored_fraction,
)

__all__ += [
    "MIN_GAP",
    "PATCH_SITES",
    "PatchPair",
    "PatchStep",
    "ablation_effects",
    "occlusion",
    "occlusion_similarity",
    "patch",
    "patch_layer",
    "patch_pair",
    "patch_sweep",
    "restored_fraction",
]

from .pairs import PairShift, attention_shift, differing, pair_shift  # noqa: E402

__all__ += ["PairShift", "attention_shift", "differing", "pair_shift"]
