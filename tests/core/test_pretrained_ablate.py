"""Many head masks at once (Model.ablate, transformer.resume_transformer) give what a run with each mask gives.

Each variant starts from the untouched run's residual stream at its first changed layer, and the variants
run through each layer as one batch: the numbers must still be those of a full traced run per mask.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import analysis
from attention_core.transformer import resume_transformer

from .models import need

TEXT = "The capital of France is"


def _masks(L: int, H: int) -> np.ndarray:
    masks = np.ones((5, L, H))
    masks[0, 3, :] = 0.0  # a whole layer off
    masks[1, L - 1, 2] = 0.0  # one head of the last layer
    masks[2, 0, 1], masks[2, 4, H - 1] = 0.5, 0.0  # two layers, one head scaled
    masks[3, 1, :] = 2.0  # a layer doubled
    return masks  # masks[4]: untouched


@pytest.mark.parametrize("name", ["SmolLM2-135M", "all-MiniLM-L6-v2"])
def test_ablate_gives_each_masks_own_run(name: str) -> None:
    m = need(name)
    masks = _masks(m.config.n_layers, m.config.n_heads)
    final, logits = m.ablate(TEXT, masks)
    assert final.shape == (5, len(m.run(TEXT).token_ids), m.config.d_model) and not final.flags.writeable
    for i, mask in enumerate(masks):
        run = m.run(TEXT, mask)
        np.testing.assert_allclose(final[i], run.hidden_states[-1], rtol=1e-4, atol=2e-4, err_msg=f"mask {i}")
        if m.config.has_logits:
            np.testing.assert_allclose(logits[i], run.logits[-1], rtol=1e-4, atol=2e-4, err_msg=f"mask {i}")
    np.testing.assert_array_equal(final[4], m.run(TEXT).hidden_states[-1])  # untouched: the run's own
    assert (logits is None) == (not m.config.has_logits)


@pytest.mark.parametrize("name", ["SmolLM2-135M", "all-MiniLM-L6-v2"])
def test_the_last_position_alone_is_the_whole_runs_last_position(name: str) -> None:
    m = need(name)
    masks = _masks(m.config.n_layers, m.config.n_heads)
    final, logits = m.ablate(TEXT, masks)
    last, last_logits = m.ablate(TEXT, masks, last_only=True)
    assert last.shape == (5, 1, m.config.d_model) and not last.flags.writeable
    # the same products on fewer rows: float32 rounding of other groupings at most
    np.testing.assert_allclose(last[:, 0], final[:, -1], rtol=1e-5, atol=1e-5 * float(np.abs(final).max()))
    np.testing.assert_array_equal(last[4, 0], m.run(TEXT).hidden_states[-1, -1])  # untouched: the run's own
    if m.config.has_logits:
        np.testing.assert_allclose(last_logits, logits, rtol=1e-5, atol=1e-5 * float(np.abs(logits).max()))


def test_a_ranking_batch_ranks_heads_as_one_run_per_mask_does() -> None:
    m = need("SmolLM2-135M")
    L, H = m.config.n_layers, m.config.n_heads
    p = analysis.next_token_probs(m.run(TEXT).logits[-1])
    masks = np.stack([analysis.layer_off(np.ones((L, H)), layer) for layer in range(L)])
    nexts = m.ablate(TEXT, masks, last_only=True)[1]  # as the ranking asks
    batched = [analysis.total_variation(p, analysis.next_token_probs(z)) for z in nexts]
    alone = [analysis.total_variation(p, m.run(TEXT, mask).next_token_probs()) for mask in masks]
    np.testing.assert_allclose(batched, alone, rtol=1e-3, atol=1e-5)
    assert np.argsort(batched)[-3:].tolist() == np.argsort(alone)[-3:].tolist()


def test_head_masks_of_the_wrong_shape_or_size_are_refused_with_a_message() -> None:
    m = need("all-MiniLM-L6-v2")
    states = m.run(TEXT).hidden_states
    with pytest.raises(ValueError, match=r"head_masks has shape \(2, 5, 12\).*needs \(b, 6, 12\)"):
        resume_transformer(states, m.weights, m.config, np.ones((2, 5, 12)))
    with pytest.raises(ValueError, match="between -10 and 10"):
        m.ablate(TEXT, np.full((1, 6, 12), 11.0))
