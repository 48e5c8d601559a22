"""The notebook of a real model's layer open in the explorer: executed
in a real kernel, it recomputes the head on screen from the layer's own numbers and gets the app's weights
and head output to 1e-12; it says where the numbers came from, and holds one head, not the whole layer."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from jupyter_client.manager import start_new_kernel

from explorer.compute import pipeline
from explorer.export import layer_notebook
from explorer.model import bridge
from explorer.model import example as exm
from tests.app.fixtures import CAPITAL, CAT, errors, execute, need, printed_numbers


def kernel():  # noqa: ANN201
    """One kernel for the module (each notebook starts with %reset -f: see execute)."""
    km, kc = start_new_kernel(kernel_name="python3")
    yield km
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def opened(key: str, sentence: str, layer: int, **changes: object) -> exm.Example:
    ex = replace(exm.Example(sentence=sentence), **bridge.settings_of(key, layer))
    ex = replace(ex, **exm.default_matrices(ex, exm.tokens_for(ex)[0]))
    return replace(ex, **changes)


def printed(nb) -> dict[str, np.ndarray]:  # noqa: ANN001
    return printed_numbers(nb, cell_has="floatmode='unique'")


@pytest.mark.parametrize(
    ("key", "sentence", "layer", "head", "mask"),
    [("minilm", CAT, 2, 5, "none"), ("smollm2", CAPITAL, 15, 4, "causal"), ("minilm", CAT, 0, 1, "window")],
)
def test_the_executed_layer_notebook_prints_the_apps_numbers(
    key, sentence, layer, head, mask, kernel
) -> None:  # noqa: ANN001
    m = need(key)
    ex = opened(key, sentence, layer, mask_kind=mask)
    res = pipeline.run(ex)
    assert res.error is None
    nb = layer_notebook.of_example(ex, res, head, link="http://localhost:8501/scores?real=" + key)
    done = execute(nb, kernel)
    assert errors(done) == []
    got = printed(done)
    assert np.abs(got["A"] - res.attention.weights[head]).max() <= 1e-12
    assert np.abs(got["out"] - res.attention.head_outputs[head]).max() <= 1e-12
    if mask == "none":  # unedited and unmasked: the model's own attention for this head
        np.testing.assert_allclose(got["A"], m.run(sentence).attentions[layer, head], rtol=1e-5, atol=1e-6)
    intro = nb.cells[0].source
    assert f"layer {layer + 1} of {m.config.n_layers}, head {head + 1}" in intro
    assert pretrained_package(key) in intro and "edited" not in intro


def pretrained_package(key: str) -> str:
    from attention_core import pretrained

    return pretrained.MODELS[bridge.base(key, 0).title][1]


def test_an_edited_weight_is_in_the_notebook_and_said(kernel) -> None:  # noqa: ANN001
    need("minilm")
    ex = opened("minilm", CAT, 1)
    w_q = np.array(ex.w_q)
    w_q[3, 7, 2] = 0.5
    ex = replace(ex, w_q=w_q)
    res = pipeline.run(ex)
    nb = layer_notebook.of_example(ex, res, 3)
    assert "Some weights were edited in the app" in nb.cells[0].source
    done = execute(nb, kernel)
    assert errors(done) == []
    assert np.abs(printed(done)["A"] - res.attention.weights[3]).max() <= 1e-12


def test_the_layer_notebook_holds_one_head_not_the_layer() -> None:
    need("minilm")
    ex = opened("minilm", CAT, 2)
    data = layer_notebook.to_bytes(ex, pipeline.run(ex), 0)
    # X (13 x 384), W_Q, W_K, W_V of one head (3 x 384 x 32) and the checks: about 1.3 MB, where the
    # whole layer's 1.5 M numbers would be about 40 MB.
    assert len(data) < 2_000_000
    assert "W_O" in data.decode() and "stay in the app" in data.decode()


def test_the_web_page_of_an_opened_layer_says_where_its_numbers_come_from() -> None:
    import html as htmllib

    from explorer.ui import export_ui

    need("minilm")
    text = htmllib.unescape(export_ui.html_bytes(opened("minilm", CAT, 2), 0, 5, "http://x/scores").decode())
    assert "Real model: all-MiniLM-L6-v2, layer 3 of 6" in text
    assert "every chart shows this layer's own numbers" in text
