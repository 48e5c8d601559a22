"""The bridge on the pages: "Open this layer in the explorer" on /head makes a real model's layer
the explorer's example; the explorer's pages then draw the model's own numbers, editable, and the way back
to the toy model restores it."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

from explorer import sharing
from explorer.ui import chart, state
from tests.app import fixtures
from tests.app.fixtures import CAPITAL, CAT, need, opened_in_explorer


@pytest.mark.parametrize(
    ("key", "sentence", "layer", "head"), [("minilm", CAT, 2, 5), ("smollm2", CAPITAL, 15, 4)]
)
def test_an_opened_layer_draws_the_models_weights_on_scores(
    key: str, sentence: str, layer: int, head: int, kit
) -> None:  # noqa: ANN001
    m = need(key)
    at = opened_in_explorer(key, sentence, layer, head)
    ex = state.Example(**{k: at.session_state[v] for k, v in state.SETTING_KEYS.items()})
    assert (ex.real, ex.real_layer) == (key, layer)
    assert (ex.d_model, ex.n_heads, ex.d_k) == (m.config.d_model, m.config.n_heads, m.config.d_k)
    assert at.session_state[state.K_HEAD] == head  # the head picked on /head is the one shown
    trace = m.run(sentence)
    w = kit.z(kit.charts(at)["scores.weights"])
    w = np.where(np.isnan(w), 0.0, w)  # a decoder's later tokens are drawn masked (grey)
    assert_allclose(w, trace.attentions[layer, head], rtol=1e-5, atol=1e-6)  # /head draws these same numbers
    banner = " ".join(md.value for md in at.markdown)
    assert f"layer {layer + 1} of {m.config.n_layers}" in banner
    sizes = " ".join(md.value for md in at.sidebar.markdown).replace(
        "\\", ""
    )  # as shown  # the layer's sizes, not the toy's controls
    assert f"d_model {m.config.d_model} · {m.config.n_heads} heads" in sizes
    assert not [n for n in at.sidebar.number_input if n.key in (state.SETTING_KEYS["d_model"], "cfg.d_model")]
    bar = " ".join(md.value for md in at.markdown if md.value.startswith("Model on this page")).replace(
        "\\", ""
    )
    assert (
        f"{m.config.name}, layer {layer + 1} of {m.config.n_layers}" in bar
    )  # the line above says what it holds


@pytest.mark.parametrize(("key", "layer", "head"), [("minilm", 1, 3), ("smollm2", 4, 2)])
def test_a_real_layers_biases_are_edited_cell_by_cell_and_travel_in_a_link(
    key: str, layer: int, head: int, kit
) -> None:  # noqa: ANN001, E501
    """Under each head's W_Q a one-row editor of its b_Q (the model's trained bias; SmolLM2 has none, so
    zeros): an edit of b_Q[c] moves column c of that head's Q by exactly the change, and nothing else; b_O on
    /heads, b1 and b2 on /encoder are there too; a link carries the edited bias."""
    m = need(key)
    at = opened_in_explorer(key, CAT, layer, head)
    fixtures.go(at, "app_pages/projections.py")
    bq_key = next(e.key for e in at.data_editor if e.key.startswith("ed.b_q."))
    bq = fixtures.matrix(at, "b_q")
    want = np.zeros((m.config.n_heads, m.config.d_k))
    if m.layer_weights(layer).b_qkv is not None:
        want = np.asarray(m.layer_weights(layer).b_q, dtype=np.float64)
    np.testing.assert_array_equal(bq, want)  # the model's own biases
    said = " ".join(c.value for c in at.caption)
    assert ("model's trained bias" in said) == bool(want.any()) and ("has no bias here" in said) != bool(
        want.any()
    )
    np.testing.assert_array_equal(fixtures.editor_values(at, bq_key), bq[head : head + 1])
    q_before = kit.z(kit.charts(at)["projections.w_q"])
    fixtures.edit_cells(at, bq_key, {"0": {"c5": float(bq[head, 5]) + 1.0}})
    assert not at.exception, at.exception
    after = fixtures.matrix(at, "b_q")
    assert np.count_nonzero(after != bq) == 1 and after[head, 5] == float(bq[head, 5]) + 1.0
    shift = kit.z(kit.charts(at)["projections.w_q"]) - q_before
    moved = np.flatnonzero(np.abs(shift).max(axis=0) > 1e-9)
    if m.config.rope_base is None:
        assert moved.tolist() == [5]
        np.testing.assert_allclose(shift[:, 5], 1.0, atol=1e-9)
    else:  # Q is drawn after RoPE: column 5 and its rotation partner turn together, by the token's angle
        assert 5 in moved and len(moved) == 2
        np.testing.assert_allclose(np.hypot(*shift[:, moved].T), 1.0, atol=1e-9)
    ex = state.Example(
        **{k: at.session_state[v] for k, v in state.SETTING_KEYS.items()}, **at.session_state["m.matrices"]
    )
    back, messages = sharing.from_params(sharing.to_params(ex), state.Example())
    assert messages == [] and back.b_q[head, 5] == after[head, 5]
    np.testing.assert_array_equal(back.b_o, ex.b_o)
    fixtures.go(at, "app_pages/heads.py")
    assert any(e.key.startswith("ed.b_o.") for e in at.data_editor)
    at.session_state[state.K_FFN_EDITORS] = True
    fixtures.go(at, "app_pages/encoder.py")
    assert {"b1", "b2"} <= {e.key.split(".")[1] for e in at.data_editor}


def _example(at: AppTest) -> state.Example:
    settings = {k: at.session_state[v] for k, v in state.SETTING_KEYS.items()}
    return state.Example(**settings, **at.session_state["m.matrices"])


def test_swiglus_up_projection_is_edited_beside_w1_and_the_block_follows(kit) -> None:  # noqa: ANN001
    """SmolLM2's FFN is silu(x W1) * (x W_up) W2: W_up is the model's, edited in the same window of hidden units
    as W1, and an edit changes the block's output as the engine computes it. MiniLM (GELU) has no W_up."""
    from explorer.compute import cached as compute

    m = need("smollm2")
    at = opened_in_explorer("smollm2", CAPITAL, 7, 1)
    np.testing.assert_array_equal(fixtures.matrix(at, "w_up"), m.layer_weights(7).w_up)
    at.session_state[state.K_FFN_EDITORS] = True
    at.session_state["encoder.ffn_window"] = 64
    fixtures.go(at, "app_pages/encoder.py")
    before = compute.run(_example(at)).encoder.output
    up_key = next(e.key for e in at.data_editor if e.key.startswith("ed.w_up."))
    np.testing.assert_array_equal(fixtures.editor_values(at, up_key), fixtures.matrix(at, "w_up")[:, 64:128])
    fixtures.edit_cells(at, up_key, {"2": {"c0": 3.0}})
    assert not at.exception, at.exception
    assert fixtures.matrix(at, "w_up")[2, 64] == 3.0
    out = compute.run(_example(at)).encoder.output
    assert not np.allclose(out, before)
    drawn = [kit.z(f) for k, f in kit.charts(at).items() if k.startswith("encoder.Output")]
    assert drawn and np.allclose(drawn[0], out, rtol=1e-10, atol=1e-12)
    need("minilm")
    at = opened_in_explorer("minilm", CAT, 1, 0)
    assert fixtures.matrix(at, "w_up").size == 0


def test_an_edit_to_a_real_weight_changes_the_scores_and_the_way_back_restores_the_toy(kit) -> None:  # noqa: ANN001
    need("minilm")
    at = opened_in_explorer("minilm", CAT, 0, 0)
    before = kit.z(kit.charts(at)["scores.raw"])
    w_q = np.array(at.session_state["m.matrices"]["w_q"], copy=True)
    w_q[0] *= 2.0  # head 1's queries doubled: its raw scores double (the model's q bias is added after)
    at.session_state["m.matrices"] = {**at.session_state["m.matrices"], "w_q": w_q}
    at.run()
    after = kit.z(kit.charts(at)["scores.raw"])
    assert not np.allclose(after, before)
    next(b for b in at.button if b.key == "layer.close").click().run()
    assert not at.exception, at.exception
    assert at.session_state["explorer.real"] == "toy" and at.session_state["cfg.d_model"] != 384
    assert at.session_state["sentence"] == CAT


def _edited_layer() -> state.Example:
    """MiniLM layer 2 on CAT as the explorer holds it, with two cells edited (one W_Q, one W1)."""
    from dataclasses import replace

    from explorer.model import bridge
    from explorer.model import example as exm

    ex = replace(state.Example(sentence=CAT), **bridge.settings_of("minilm", 1))
    ex = replace(ex, **exm.default_matrices(ex, exm.tokens_for(ex)[0]))
    w_q, w1 = np.array(ex.w_q, dtype=np.float64), np.array(ex.w1, dtype=np.float64)  # as an edit makes them
    w_q[3, 10, 7] = 1.25
    w1[5, 1000] = -2.5
    return replace(ex, w_q=w_q, w1=w1)


def test_a_link_carries_an_opened_layer_and_its_edits_in_a_few_hundred_characters() -> None:
    need("minilm")
    from urllib.parse import parse_qsl

    from explorer.sharing import params as link_params
    from explorer.sharing import url

    ex = _edited_layer()
    query = url.query(ex)
    assert len(query) < 600  # the model, the layer and two cells: not 1.5 M numbers
    got, messages = link_params.from_params(dict(parse_qsl(query)), state.Example())
    assert messages == []
    assert got.digest() == ex.digest()  # the identical example: settings and every matrix
    assert got.w_q[3, 10, 7] == 1.25 and got.w1[5, 1000] == -2.5


def test_a_json_file_carries_an_opened_layer_and_its_edits() -> None:
    need("minilm")
    from explorer.sharing import json_file

    ex = _edited_layer()
    text = json_file.to_json(ex)
    assert len(text) < 5_000
    assert json_file.from_json(text).digest() == ex.digest()


def test_a_link_naming_a_missing_layer_opens_the_toy_model_with_a_message() -> None:
    need("minilm")
    from explorer.sharing import params as link_params

    got, messages = link_params.from_params(
        {"real": "minilm", "real_layer": "9", "sentence": CAT}, state.Example()
    )
    assert got.real == "toy" and got.d_model == state.Example().d_model
    assert len(messages) == 1 and "between 0 and 5" in messages[0] and "toy model" in messages[0]


def test_a_real_layers_large_matrices_are_edited_a_window_at_a_time() -> None:
    """W1 (384 x 1536) is edited 64 hidden units at a time, W_O (384 x 384) one head's rows at a time; an edit
    lands in the cell it names in the whole matrix, and the page follows."""
    need("minilm")
    at = opened_in_explorer("minilm", CAT, 1, 3)
    at.session_state[state.K_FFN_EDITORS] = True
    at.session_state["encoder.ffn_window"] = 128
    fixtures.go(at, "app_pages/encoder.py")
    w1_key = next(e.key for e in at.data_editor if e.key.startswith("ed.w1."))
    shown = fixtures.editor_values(at, w1_key)
    w1 = fixtures.matrix(at, "w1")
    assert shown.shape == (384, 64)
    np.testing.assert_array_equal(shown, w1[:, 128:192])
    fixtures.edit_cells(at, w1_key, {"5": {"c3": 2.5}})
    assert not at.exception, at.exception
    after = fixtures.matrix(at, "w1")
    assert after[5, 131] == 2.5 and np.count_nonzero(after != w1) == 1
    fixtures.go(at, "app_pages/heads.py")
    wo_key = next(e.key for e in at.data_editor if e.key.startswith("ed.w_o."))
    assert fixtures.editor_values(at, wo_key).shape == (32, 384)  # head 4's rows (3 * 32 .. 4 * 32)
    wo = fixtures.matrix(at, "w_o")
    fixtures.edit_cells(at, wo_key, {"0": {"c7": -1.5}})
    assert (
        fixtures.matrix(at, "w_o")[96, 7] == -1.5 and np.count_nonzero(fixtures.matrix(at, "w_o") != wo) == 1
    )


def test_the_toy_models_head_beside_the_real_one_on_the_same_sentence(kit) -> None:  # noqa: ANN001
    from explorer.compute import cached as compute
    from explorer.model import example as exm

    need("minilm")
    at = fixtures.open_app(CAT)
    for k, v in ((state.K_MODEL, "minilm"), (state.K_LAYER, 2), (state.K_MODEL_HEAD, 1)):
        at.session_state[k] = v
    fixtures.go(at, "app_pages/head.py")
    at.toggle(key="head.toy").set_value(True).run()
    assert not at.exception, at.exception
    toy = compute.run(exm.conform(state.Example(sentence=CAT)))
    np.testing.assert_allclose(kit.z(kit.charts(at)["head.toy_w"]), toy.attention.weights[1], atol=1e-12)
    assert "head.w" in kit.charts(at)  # the real head stays
    in_columns = [[chart.key_of(e.proto) for e in col.get("bidi_component")] for col in at.columns]
    assert [["head.w"], ["head.toy_w"]] in [
        in_columns[i : i + 2] for i in range(len(in_columns))
    ]  # side by side


def test_edits_to_x_are_not_dropped_silently_when_the_sentence_changes() -> None:
    need("minilm")
    at = opened_in_explorer("minilm", CAT, 0, 0)
    emb = np.array(at.session_state["m.matrices"]["emb"], copy=True)
    emb[2, 5] = 3.0
    at.session_state["m.matrices"] = {**at.session_state["m.matrices"], "emb": emb}
    at.run()
    at.session_state[state.K_SENTENCE] = "A dog ran."
    at.run()
    assert not at.exception, at.exception
    said = " ".join(w.value for w in at.warning)
    assert "your edits to X were for the old sentence" in said
    assert fixtures.matrix(at, "emb").shape[0] == 6  # [CLS] a dog ran . [SEP]: the new sentence's X
