"""Measurements of what a trained model does, over the arrays a traced run returns.

Pure numpy; nothing here loads a model (functions that rerun one take the model or its run as an argument).

- ``heads``: head labels by stated rules, attention rollout, next-token comparisons, head ablation rankings.
- ``patching``: what caused a prediction: activation patching (residual stream, heads) and occlusion.
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

__all__ = [
    "BROAD_THRESHOLD",
    "HEAD_RULES",
    "HeadLabels",
    "HeadRule",
    "NextTokenShift",
    "RankingStep",
    "attention_rollout",
    "compare_next_tokens",
    "cosine",
    "hidden_state_shift",
    "kv_groups",
    "kv_head_of",
    "label_heads",
    "layer_off",
    "next_token_probs",
    "only_head",
    "rank_heads",
    "ranked",
    "rule_targets",
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
    patch,
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
    "patch",
    "patch_pair",
    "patch_sweep",
    "restored_fraction",
]
