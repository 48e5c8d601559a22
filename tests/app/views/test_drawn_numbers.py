"""The numbers a page draws add up: what a student reads off one chart gives what the next chart shows.

Read from the figures the page sends (AppTest), never from the engine: the softmax of the matrix drawn as the
softmax's input equals the weights drawn, for every combination of scale, ALiBi, RoPE and mask; masked
weights are drawn as 0 (greyed, "masked" in the hover), and -inf appears only on the scores chart.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attention_core as ac

SENTENCE = "the cat sat [PAD] on the mat [PAD]"  # the padding mask has keys to hide
MASKS = ("none", "causal", "window", "padding", "custom")
SCALES = ("sqrt", "none", "custom")


def drawn(kit, spec: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, str | None]:  # noqa: ANN001
    """(the matrix a heatmap shows, its masked cells, the value printed on them): masked cells take the
    value their grey overlay names."""
    z = kit.z(spec).copy()
    blocked = np.zeros(z.shape, dtype=bool)
    value = None
    for trace in spec["data"][1:]:
        if trace.get("meta", {}).get("masked_value") is not None:
            blocked = kit.array(trace["z"]) == 1.0
            value = trace["meta"]["masked_value"]
            assert "masked" in trace["hovertemplate"]
            assert value in trace["hovertemplate"]
            if "text" in trace:
                assert (np.array(trace["text"])[blocked] == value).all()
            z[blocked] = float(value)
    assert not np.isnan(z).any(), "a cell is neither drawn nor marked masked"
    return z, blocked, value


def check_softmax_of_drawn_input(kit, at) -> None:  # noqa: ANN001
    cs = kit.charts(at)
    inp, inp_blocked, inp_value = drawn(kit, cs["scores.scaled"])
    w, w_blocked, w_value = drawn(kit, cs["scores.weights"])
    assert np.array_equal(inp_blocked, w_blocked)
    if inp_blocked.any():
        assert inp_value == "-inf" and w_value == "0"
    assert_allclose(ac.softmax(inp, axis=-1), w, rtol=1e-10, atol=1e-12)
    weights_text = " ".join(str(t.get("text", "")) for t in cs["scores.weights"]["data"])
    assert "inf" not in weights_text, "a weight is never -inf"


def test_softmax_of_the_drawn_input_is_the_drawn_weights(kit) -> None:
    at = kit.open("scores", via_app=False, state={"sentence": SENTENCE})
    assert not at.exception, at.exception
    for scale, alibi, rope, mask in itertools.product(SCALES, (False, True), (False, True), MASKS):
        at.radio(key="scores.scale_mode").set_value(scale)
        at.toggle(key="scores.alibi").set_value(alibi)
        at.toggle(key="scores.rope").set_value(rope)
        at.radio(key="scores.mask_kind").set_value(mask)
        at.run()
        if scale == "custom":
            at.number_input(key="scores.scale_custom").set_value(0.7).run()
        if mask == "window":
            at.number_input(key="scores.window").set_value(2).run()
        assert not at.exception, (scale, alibi, rope, mask, at.exception)
        try:
            check_softmax_of_drawn_input(kit, at)
        except AssertionError as err:
            raise AssertionError(f"scale={scale} alibi={alibi} rope={rope} mask={mask}: {err}") from err


def test_alibi_is_drawn_in_the_softmax_input(kit) -> None:
    """With ALiBi the drawn input is the scaled scores plus the bias (app_pages/scores.py drew them without)."""
    at = kit.open("scores", via_app=False)
    at.toggle(key="scores.alibi").set_value(True).run()
    ref = kit.reference()
    n = len(ref.labels)
    bias = ac.alibi_bias(n, ref.ex.n_heads)
    scaled = ref.trace.scores[0] / np.sqrt(ref.ex.d_k)
    assert_allclose(kit.z(kit.charts(at)["scores.scaled"]), scaled + bias[0], rtol=1e-12, atol=1e-12)
    assert "bias" in kit.charts(at)["scores.scaled"]["layout"]["title"]["text"].lower()


@pytest.mark.parametrize("mask", ("causal", "padding"))
def test_every_row_masked_draws_zero_weights_and_minus_inf_scores(kit, mask: str) -> None:
    sentence = "[PAD] [PAD] [PAD]" if mask == "padding" else "a b c"
    at = kit.open("scores", via_app=False, state={"sentence": sentence})
    at.radio(key="scores.mask_kind").set_value(mask).run()
    assert not at.exception, at.exception
    check_softmax_of_drawn_input(kit, at)
    w, blocked, _ = drawn(kit, kit.charts(at)["scores.weights"])
    assert blocked.any() and (w[blocked] == 0).all()


def test_masked_weights_on_the_heads_grid_are_zero_and_grey(kit) -> None:
    at = kit.open("heads", via_app=False)
    at.session_state["scores.mask_kind"] = "causal"
    at.run()
    assert not at.exception, at.exception
    grid = kit.charts(at)["heads.grid"]
    n_heads = 2
    overlays = [t for t in grid["data"] if t.get("meta", {}).get("masked_value") is not None]
    assert len(overlays) == n_heads and all(t["meta"]["masked_value"] == "0" for t in overlays)
    n = len(kit.reference().labels)
    upper = ~np.tril(np.ones((n, n), dtype=bool))
    for h, grey in enumerate(overlays):
        assert np.array_equal(kit.array(grey["z"]) == 1.0, upper)
        assert grey["xaxis"] == grid["data"][h].get("xaxis", "x")
        assert "masked" in grey["hovertemplate"] and "weight 0" in grey["hovertemplate"]


ATTENTION_PAGES = ("projections", "scores", "heads", "token")


@pytest.mark.parametrize("url", ATTENTION_PAGES)
def test_pre_norm_pages_say_they_show_attention_over_ln_x(kit, url: str) -> None:
    """In pre-norm the encoder block attends over LN(X); the attention pages show that same
    attention and say so (post-norm: no such note)."""
    post = kit.open(url, via_app=True)
    assert not any("Pre-norm" in i.value for i in post.info)
    at = kit.open(url, via_app=True, state={"encoder.norm_first": True})
    assert not at.exception, at.exception
    notes = [i.value for i in at.info if "Pre-norm" in i.value]
    assert len(notes) == 1 and "LN(X)" in notes[0]
    ref = kit.reference()
    ln_x = ac.layer_norm(ref.x)
    ex = ref.ex
    trace = ac.multi_head_attention(ln_x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, scale=1 / np.sqrt(ex.d_k))
    enc = ac.encoder_layer(ref.x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, ex.w1, ex.w2, norm_first=True)
    assert_allclose(trace.weights, enc.attention.weights, rtol=1e-12, atol=1e-15)
    cs = kit.charts(at)
    drawn = {
        "projections": (cs.get("projections.w_q"), trace.q[0]),
        "scores": (cs.get("scores.raw"), trace.scores[0]),
        "heads": (cs.get("heads.output"), trace.output),
        "token": (None, None),
    }[url]
    if drawn[0] is not None:
        assert_allclose(kit.z(drawn[0]), drawn[1], rtol=1e-10, atol=1e-12)
    else:
        bars = cs["token.weights"]
        assert_allclose(kit.array(bars["data"][0]["y"]), trace.weights[0, 0], rtol=1e-10, atol=1e-12)
