"""attention_core.analysis.patching: activation patching and occlusion, on a hand-built circuit and SmolLM2."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import analysis as an
from attention_core import rms_norm, transformer_layer
from attention_core.masks import causal_mask
from attention_core.transformer import embed_tokens, run_layers, run_transformer
from attention_core.transformer.suffix import (
    head_rows,
    position_rows,
    resume_at_positions,
    resume_rows,
    resume_with_heads,
)

from .models import circuit_model, need

CLEAN, CORRUPT = "The capital of France is", "The capital of Italy is"


@pytest.fixture(scope="module")
def circuit():
    return circuit_model("circuit (patching tests)")


@pytest.fixture(scope="module")
def smol():
    return need("SmolLM2-135M")


@pytest.fixture(scope="module")
def smol_heads(smol):
    return an.patch(smol, CLEAN, CORRUPT, " Paris", " Rome", "head")


# ----------------------------------------------------------------------------------- the known circuit


def test_the_residual_sweep_finds_the_circuit(circuit) -> None:
    # Position 1 carries the answer until layer 1's head moves it to the last position; from layer 2 on it
    # is there and nowhere else. Positions holding the same token in both texts restore nothing.
    got = an.patch(circuit, "x a y", "x b y", "a", "b", "resid")
    np.testing.assert_allclose(got, [[0, 1, 0], [0, 1, 0], [0, 0, 1]], atol=1e-12)


def test_the_head_sweep_finds_the_mover(circuit) -> None:
    got = an.patch(circuit, "x a y", "x b y", "a", "b", "head")
    np.testing.assert_allclose(got, [[0, 0], [0, 1], [0, 0]], atol=1e-12)


def test_the_pair_holds_both_runs_metric(circuit) -> None:
    pair = an.patch_pair(circuit, "x a y", "x b y", 1, "b")
    runs = [circuit.run(t) for t in ("x a y", "x b y")]
    lds = [float(r.logits[-1, 1] - r.logits[-1, 2]) for r in runs]
    assert (pair.ld_clean, pair.ld_corrupt) == pytest.approx(lds, abs=1e-12)
    assert pair.ld_clean > 0 > pair.ld_corrupt  # the mover makes "a" win after "x a y", "b" after "x b y"
    assert (pair.answer, pair.wrong, pair.answer_text, pair.clean_tokens) == (1, 2, "a", ["x", "a", "y"])


def test_the_sweep_yields_progress_a_layer_at_a_time(circuit) -> None:
    pair = an.patch_pair(circuit, "x a y", "x b y", "a", "b")
    steps = list(an.patch_sweep(circuit, pair, "resid"))
    assert [(s.done, s.total, s.layer) for s in steps] == [(3, 6, 0), (5, 6, 1), (6, 6, 2)]
    assert np.isnan(steps[0].restored[1:]).all() and not np.isnan(steps[0].restored[0]).any()
    np.testing.assert_array_equal(steps[-1].restored, an.patch(circuit, "x a y", "x b y", "a", "b"))


def test_one_layer_is_the_sweeps_row_and_a_layer_out_of_range_is_refused(circuit) -> None:
    pair = an.patch_pair(circuit, "x a y", "x b y", "a", "b")
    for site in ("resid", "head"):
        (*_, last) = an.patch_sweep(circuit, pair, site)
        for layer in range(circuit.config.n_layers):
            np.testing.assert_array_equal(an.patch_layer(circuit, pair, layer, site), last.restored[layer])
    with pytest.raises(ValueError, match="layer must be 0 .. 2, got 3"):
        an.patch_layer(circuit, pair, 3)
    with pytest.raises(ValueError, match="site must be one of"):
        an.patch_layer(circuit, pair, 0, "mlp")


def test_occluding_a_token_the_model_ignores_changes_nothing(circuit) -> None:
    # Without the mover the last position reads only itself: removing any earlier token changes nothing.
    still = circuit_model("circuit without the mover (patching tests)", mover=False)
    delta = an.occlusion(still, "x a b y", "y")
    np.testing.assert_allclose(delta[:-1], 0.0, atol=1e-12)
    assert delta[-1] < -0.1  # the last token itself is what the model reads: it predicts its own word
    # With it, the token at position 1 is what the answer is read from.
    moved = an.occlusion(circuit, "x a y", "a")
    probs = [circuit.run(t).next_token_probs()[1] for t in ("a y", "x y", "x a", "x a y")]
    np.testing.assert_allclose(moved, np.array(probs[:3]) - probs[3], atol=1e-12)


# -------------------------------------------------------------------------------------------- errors


def test_texts_of_different_lengths_show_both_tokenizations(circuit) -> None:
    with pytest.raises(ValueError, match=r"3 tokens \('x' \| 'a' \| 'y'\).*4 \('x' \| 'b' \| 'y' \| 'y'\)"):
        an.patch(circuit, "x a y", "x b y y", "a", "b")


def test_an_answer_must_be_one_token(circuit) -> None:
    with pytest.raises(
        ValueError, match=r"answer must be exactly one token .* 'a b' is 2 tokens: 'a' \| 'b'"
    ):
        an.patch(circuit, "x a y", "x b y", "a b", "b")
    with pytest.raises(ValueError, match=r"wrong must be a token id in 0 \.\. 3, got 7"):
        an.patch(circuit, "x a y", "x b y", "a", 7)
    with pytest.raises(ValueError, match="the same token"):
        an.patch_pair(circuit, "x a y", "x b y", "a", 1)
    with pytest.raises(ValueError, match="target must be exactly one token"):
        an.occlusion(circuit, "x a y", "x y")


def test_nothing_to_restore_a_bad_site_and_a_single_token(circuit) -> None:
    with pytest.raises(ValueError, match="nothing to restore"):
        an.patch_pair(circuit, "x a y", "x a y", "a", "b")
    pair = an.patch_pair(circuit, "x a y", "x b y", "a", "b")
    with pytest.raises(ValueError, match="site must be one of 'resid', 'head'"):
        next(an.patch_sweep(circuit, pair, "mlp"))
    with pytest.raises(ValueError, match="single token"):
        an.occlusion(circuit, "y", "a")


def test_an_encoder_has_no_answer() -> None:
    m = need("all-MiniLM-L6-v2")
    with pytest.raises(ValueError, match="encoder"):
        an.patch(m, "a cat", "a dog", 100, 200)


# ------------------------------------------------------------------------------------------- SmolLM2


def test_residual_patching_on_smollm2_restores_all_or_nothing_where_it_must(smol) -> None:
    got = an.patch(smol, CLEAN, CORRUPT, " Paris", " Rome", "resid")
    assert got.shape == (30, 5)
    # At layer 0 the two runs differ only at " France" / " Italy": patching it is patching the whole stream.
    assert got[0, 3] == pytest.approx(1.0, abs=1e-3)
    # The tokens before it, and every token at layer 0 but it, are the same in both runs (a causal model):
    # patching them patches nothing.
    np.testing.assert_allclose(got[:, :3], 0.0, atol=1e-3)
    np.testing.assert_allclose(got[0, [0, 1, 2, 4]], 0.0, atol=1e-3)


@pytest.mark.parametrize(("layer", "head"), [(0, 0), (23, 4), (29, 1)])
def test_the_head_sweep_equals_a_run_with_that_head_replaced(smol, smol_heads, layer: int, head: int) -> None:
    c, w = smol.config, smol.weights
    clean, corrupt = smol.run(CLEAN), smol.run(CORRUPT)
    which = np.arange(c.n_heads) == head
    x = embed_tokens(np.array(corrupt.token_ids), w.embeddings, c).output
    for i, lw in enumerate(w.layers):  # the corrupt text, layer by layer, one head's output taken from clean
        swap = (clean.layers[i].attention.head_outputs, which) if i == layer else None
        x = transformer_layer(x, lw, c, causal_mask(x.shape[0]), head_replacement=swap).output
    logits = rms_norm(x[-1].astype(np.float64), c.eps, w.final_norm_gain) @ w.embeddings.token.T
    paris, rome = smol.tokenizer.encode(" Paris")[0], smol.tokenizer.encode(" Rome")[0]
    ld = lambda z: float(z[paris] - z[rome])  # noqa: E731
    want = (ld(logits) - ld(corrupt.logits[-1])) / (ld(clean.logits[-1]) - ld(corrupt.logits[-1]))
    assert smol_heads[layer, head] == pytest.approx(want, abs=2e-3)


def test_the_head_sweep_names_the_head_that_moves_the_country(smol_heads) -> None:
    assert smol_heads.shape == (30, 9)
    layer, head = np.unravel_index(np.argmax(smol_heads), smol_heads.shape)
    assert smol_heads[layer, head] > 0.5 and np.sort(smol_heads.ravel())[-2] < 0.5


def test_occlusion_on_smollm2_equals_runs_without_each_token(smol) -> None:
    text = "The Eiffel Tower is in the city of"
    got = an.occlusion(smol, text, " Paris")
    run = smol.run(text)
    ids, paris = np.array(run.token_ids), smol.tokenizer.encode(" Paris")[0]
    base = run.next_token_probs()[paris]
    for i in (0, 2, len(ids) - 1):
        logits = run_transformer(np.delete(ids, i), smol.weights, smol.config)[3]
        z = logits[-1].astype(np.float64)
        p = np.exp(z - z.max())
        assert got[i] == pytest.approx(p[paris] / p.sum() - base, abs=1e-4)
    assert got.shape == (len(ids),) and got.min() < -0.3  # some token is needed for " Paris"


def test_ablation_effects_find_the_mover_and_equal_runs_with_a_head_mask(circuit, smol) -> None:
    got = an.ablation_effects(circuit, "x a y")
    assert got[1, 1] > 0.1 and np.count_nonzero(np.abs(got) > 1e-12) == 1  # only the mover matters
    effects = an.ablation_effects(smol, CLEAN)
    base = smol.run(CLEAN).next_token_probs()
    for layer, head in ((0, 3), (23, 4), (29, 8)):
        mask = np.ones((30, 9))
        mask[layer, head] = 0.0
        want = an.total_variation(base, smol.run(CLEAN, mask).next_token_probs())
        assert effects[layer, head] == pytest.approx(want, abs=1e-4)


def test_occlusion_of_similarity_equals_runs_without_each_token() -> None:
    m = need("all-MiniLM-L6-v2")
    text, other = "A man is playing a guitar.", "Someone plays music on a guitar."
    got = an.occlusion_similarity(m, text, other)
    run = m.run(text)
    ids = np.array(run.token_ids)
    target = an.sentence_embedding(m.run(other).hidden_states[-1])
    base = an.cosine(an.sentence_embedding(run.hidden_states[-1]), target)
    assert got.shape == (len(ids),) and np.isnan(got[[0, -1]]).all()  # [CLS] and [SEP] stay
    for i in range(1, len(ids) - 1):
        layers = run_transformer(np.delete(ids, i), m.weights, m.config)[1]
        want = an.cosine(an.sentence_embedding(layers[-1].output), target) - base
        assert got[i] == pytest.approx(want, abs=1e-5)
    assert run.tokens[int(np.nanargmin(got))] == "guitar"  # the word both sentences share matters most


def test_occlusion_of_similarity_needs_an_encoder_and_a_token_to_remove(circuit) -> None:
    with pytest.raises(ValueError, match="predicts the next token"):
        an.occlusion_similarity(circuit, "x a y", "x b y")
    with pytest.raises(ValueError, match="no tokens of its own"):
        an.occlusion_similarity(need("all-MiniLM-L6-v2"), "[SEP]", "a cat")


def _resid_ld_in_full(model, clean_text: str, corrupt_text: str, layer: int) -> np.ndarray:
    """The last position's output of the straightforward residual patch: every sequence run whole from the
    patched layer on, sequence p with position p taken from the clean run: (n, d_model)."""
    clean, corrupt = model.run(clean_text), model.run(corrupt_text)
    x = corrupt.hidden_states[layer]
    n = x.shape[0]
    batch = np.repeat(x[None], n, axis=0)  # (n, n, d_model)
    batch[np.arange(n), np.arange(n)] = clean.hidden_states[layer]
    return run_layers(batch, model.weights, model.config, layer)[:, -1]


@pytest.mark.parametrize("layer", [0, 1, 2])
def test_running_only_the_changed_rows_equals_whole_runs_on_the_circuit(circuit, layer: int) -> None:
    clean, corrupt = circuit.run("x a y"), circuit.run("x b y")
    got = resume_at_positions(corrupt.hidden_states, circuit.weights, circuit.config, layer,
                              clean.hidden_states[layer])  # fmt: skip
    np.testing.assert_allclose(got, _resid_ld_in_full(circuit, "x a y", "x b y", layer), atol=1e-12)


@pytest.mark.parametrize("layer", [26, 29])
def test_running_only_the_changed_rows_equals_whole_runs_on_smollm2(smol, layer: int) -> None:
    clean, corrupt = smol.run(CLEAN), smol.run(CORRUPT)
    got = resume_at_positions(
        corrupt.hidden_states, smol.weights, smol.config, layer, clean.hidden_states[layer]
    )
    want = _resid_ld_in_full(smol, CLEAN, CORRUPT, layer)
    # float32 throughout; the rows are grouped into other matrix products, so the rounding differs a little
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))


def _heads_ld_in_full(model, clean_text: str, corrupt_text: str, layer: int) -> np.ndarray:
    """The last position's output of the straightforward head patch: the corrupt text's layer run whole with
    head h's output taken from the clean run (sequence h), then every later layer whole: (n_heads, d_model)."""
    c, clean, corrupt = model.config, model.run(clean_text), model.run(corrupt_text)
    x = corrupt.hidden_states[layer]
    batch = np.repeat(x[None], c.n_heads, axis=0)  # (H, n, d_model)
    swap = (clean.layers[layer].attention.head_outputs, np.eye(c.n_heads, dtype=bool))
    out = transformer_layer(
        batch, model.weights.layers[layer], c, causal_mask(x.shape[0]), head_replacement=swap
    )
    return run_layers(out.output, model.weights, c, layer + 1)[:, -1]


def _first_difference(model, clean_text: str, corrupt_text: str) -> int:
    ids = [np.array(model.run(t).token_ids) for t in (clean_text, corrupt_text)]
    return int(np.flatnonzero(ids[0] != ids[1])[0])


@pytest.mark.parametrize("layer", [0, 1, 2])
def test_a_head_patch_run_on_the_changed_rows_equals_whole_runs_on_the_circuit(circuit, layer: int) -> None:
    clean, corrupt = circuit.run("x a y"), circuit.run("x b y")
    heads, first = clean.layers[layer].attention.head_outputs, _first_difference(circuit, "x a y", "x b y")
    got = resume_with_heads(corrupt.hidden_states, corrupt.layers[layer], circuit.weights, circuit.config,
                            layer, heads, first)  # fmt: skip
    np.testing.assert_allclose(got, _heads_ld_in_full(circuit, "x a y", "x b y", layer), atol=1e-12)


@pytest.mark.parametrize("layer", [2, 29])
def test_a_head_patch_run_on_the_changed_rows_equals_whole_runs_on_smollm2(smol, layer: int) -> None:
    clean, corrupt = smol.run(CLEAN), smol.run(CORRUPT)
    heads, first = clean.layers[layer].attention.head_outputs, _first_difference(smol, CLEAN, CORRUPT)
    assert first == 3  # " France" / " Italy": the rows before it are the corrupt run's
    got = resume_with_heads(corrupt.hidden_states, corrupt.layers[layer], smol.weights, smol.config, layer,
                            heads, first)  # fmt: skip
    want = _heads_ld_in_full(smol, CLEAN, CORRUPT, layer)
    # float32 throughout; the rows are grouped into other matrix products, so the rounding differs a little
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))


@pytest.mark.parametrize("layer", [1, 17])
def test_a_residual_row_is_the_whole_runs_and_0_where_the_texts_agree(smol, layer: int) -> None:
    pair = an.patch_pair(smol, CLEAN, CORRUPT, " Paris", " Rome")
    got = an.patch_layer(smol, pair, layer, "resid")
    out = _resid_ld_in_full(smol, CLEAN, CORRUPT, layer)  # (n, d_model): every position patched, run whole
    z = rms_norm(out.astype(np.float64), smol.config.eps, smol.weights.final_norm_gain)
    ld = z @ smol.weights.embeddings.token[[pair.answer, pair.wrong]].T.astype(np.float64)  # (n, 2)
    want = an.restored_fraction(ld[:, 0] - ld[:, 1], pair.ld_clean, pair.ld_corrupt)
    assert (got[:3] == 0.0).all()  # " The capital of" is the same in both texts: nothing to patch there
    np.testing.assert_allclose(got, want, atol=2e-3)


def test_patches_of_several_layers_run_together_equal_each_run_alone(smol) -> None:
    clean, corrupt = smol.run(CLEAN), smol.run(CORRUPT)
    run, w, c = corrupt.hidden_states, smol.weights, smol.config
    at = np.arange(3, 5)  # from " France" / " Italy" on
    parts = [position_rows(run, layer, clean.hidden_states[layer], at) for layer in (25, 27)]
    heads = lambda layer: clean.layers[layer].attention.head_outputs  # noqa: E731
    parts += [head_rows(corrupt.layers[layer], w, c, layer, heads(layer), 3) for layer in (28, 29)]
    got = resume_rows(run, w, c, parts)  # (2 + 2 + 9 + 9, d_model): part after part
    want = np.concatenate([resume_rows(run, w, c, [part]) for part in parts])
    assert got.shape == (22, c.d_model)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))
