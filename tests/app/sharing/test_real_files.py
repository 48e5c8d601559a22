"""A real model's layer opened in the explorer saves and reopens, whatever was edited.

"Download the example (JSON)" after "Open layer L in the explorer" writes a file that "Open an example
(JSON)" opens to the identical example (with nothing edited: no empty "state"); any edits of any layer of
either model survive the file and the link (hypothesis); the largest state a person can reach, every cell of
a layer edited at 64 tokens, saves under the caps derived from the largest layer and reopens exactly.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from explorer import sharing
from explorer.model import example as exm
from explorer.model import models
from explorer.model.example import MATRIX_NAMES, Example
from explorer.sharing import json_file, values
from explorer.sharing import params as link_params
from explorer.sharing import url as links
from tests.app import fixtures
from tests.app.fixtures import assert_identical, example_of, layer_opened, messages, need

REAL = [k for k, m in models.MODELS.items() if m.engine]
SENTENCES = (
    "The cat sat on the mat because it was warm.",
    "The capital of France is",
    " ".join(["word"] * 80),  # cut to 64 tokens by either model
)


# ------------------------------------------------------------ the app's own file of an opened layer


def layer_script() -> None:
    """A session that opens the layer a test put in session state (as the /head button does), or imports
    the bytes a test put there (as the uploader does), then exports its example (as the download does)."""
    import streamlit as st

    from explorer import sharing
    from explorer.ui import frame, state
    from explorer.ui import share_panel as share_ui

    state.init()
    layer = st.session_state.pop("test.open", None)
    if layer is not None:
        state.open_layer(*layer)
    data = st.session_state.pop("test.upload", None)
    if data is not None:
        share_ui.import_json(data)
    st.session_state["test.export"] = sharing.to_json(state.current(), state.draws())
    frame.show_messages()


def session(**put: object) -> AppTest:
    at = AppTest.from_function(layer_script, default_timeout=fixtures.TIMEOUT)
    for k, v in put.items():
        at.session_state[f"test.{k}"] = v
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize(("key", "layer"), [("minilm", 2), ("smollm2", 15)])
def test_the_file_of_an_opened_layer_reopens_it(key: str, layer: int) -> None:
    need(key)
    a = session(open=(key, layer, 0))
    text = a.session_state["test.export"]
    doc = json.loads(text)
    assert doc["settings"]["real"] == key and doc["settings"]["real_layer"] == layer
    assert "state" not in doc  # nothing edited: nothing to write (an empty "state" was refused on opening)
    b = session(upload=text.encode())
    assert [s.value for s in b.success] and not b.error, messages(b)
    assert_identical(example_of(b), example_of(a))


@pytest.mark.parametrize("key", REAL)
def test_an_empty_state_is_the_layer_as_the_model_has_it(key: str) -> None:
    need(key)
    ex = layer_opened(key, 1)
    doc = json.loads(json_file.to_json(ex))
    doc["state"] = ""  # what the app wrote before: it must open too
    assert_identical(json_file.from_json(json.dumps(doc)), ex)


def test_a_damaged_state_is_refused_with_one_reason() -> None:
    need("minilm")
    doc = json.loads(json_file.to_json(layer_opened("minilm", 1)))
    for damaged in ("1.abc", "¹.abc", "1." + "A" * 40):
        at = session(upload=json.dumps({**doc, "state": damaged}).encode())
        said = messages(at)
        assert len(said) == 1 and not at.success, said
        text = said[0]
        assert text.startswith("That file could not be opened:") and text.endswith("Nothing was changed.")
        assert "state" in text and "Using the seeded ones" not in text and ".." not in text, text
        assert example_of(at).real == "toy"  # nothing was changed: the session's toy example


# ------------------------------------------------------------ any edit of any layer, and the largest

CELL = st.one_of(
    st.floats(-values.VALUE_LIMIT, values.VALUE_LIMIT),  # full float64, subnormals, -0.0
    st.integers(-127, 127).map(float),
    st.floats(-1e3, 1e3, width=32).map(float),
)


@st.composite
def edited_layer(draw: st.DrawFn) -> Example:
    """Any layer of either model on one of a few sentences, with cells, blocks (a paste) or whole matrices
    of any of its matrices set to any allowed value (mask cells flipped)."""
    key = draw(st.sampled_from(REAL), label="model")
    ex = layer_opened(
        key,
        draw(st.integers(0, models.choice(key).shape[0] - 1), label="layer"),
        draw(st.sampled_from(SENTENCES)),
    )
    mats = {}
    for name in draw(st.sets(st.sampled_from([n for n in MATRIX_NAMES if getattr(ex, n).size]), max_size=4)):
        was = getattr(ex, name)
        # an edit is float64, as the editors write it (the layer's own matrices are the model's float32); C
        # order, so that a flat view can be written (a model may keep a matrix transposed in memory)
        m = np.array(was, dtype=bool if was.dtype == bool else np.float64, order="C")
        flat = m.reshape(-1)
        how = draw(st.sampled_from(["cells", "block", "whole"]), label=name)
        if how == "cells":
            for i in draw(st.lists(st.integers(0, flat.size - 1), max_size=6)):
                flat[i] = (not flat[i]) if m.dtype == bool else draw(CELL)
        else:
            start = 0 if how == "whole" else draw(st.integers(0, flat.size - 1))
            stop = flat.size if how == "whole" else draw(st.integers(start, min(flat.size, start + 5000)))
            rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
            if m.dtype == bool:
                flat[start:stop] = rng.random(stop - start) < 0.5
            else:
                scale = draw(st.sampled_from([1e-3, 1.0, 1e3]))
                flat[start:stop] = rng.normal(size=stop - start) * scale
                if draw(st.booleans()):  # as typed: a few decimals (not float32-exact)
                    flat[start:stop] = np.round(flat[start:stop], 2)
        if not values.same(m, was):  # an edit that changes nothing leaves the model's matrix in place
            mats[name] = m
    return ex.with_(**mats)


@pytest.fixture(scope="module")
def both_models() -> None:
    for key in REAL:
        need(key)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(ex=edited_layer())
def test_any_edit_of_any_real_layer_saves_and_reopens_identically(both_models: None, ex: Example) -> None:
    text = json_file.to_json(ex)
    assert len(text.encode()) <= values.MAX_JSON_BYTES
    assert_identical(json_file.from_json(text.encode("utf-8")), ex)
    query = links.query(ex)
    if len(query) <= values.LINK_LIMIT:  # the app offers the link only up to here (then: the file)
        from urllib.parse import parse_qsl

        back, said = link_params.from_params(dict(parse_qsl(query)), Example())
        assert said == []
        assert_identical(back, ex)


def largest(key: str) -> Example:
    """The largest state a person can reach in `key`: its widest layer (all are as wide; the last) at 64
    tokens, every cell of every matrix a float64 with no shorter exact form, the mask's cells at random."""
    ex = layer_opened(key, models.choice(key).shape[0] - 1, SENTENCES[2])
    assert len(exm.tokens_for(ex)[0]) == 64
    rng = np.random.default_rng(7)
    mats = {}
    for name in MATRIX_NAMES:
        m = getattr(ex, name)
        mats[name] = rng.random(m.shape) < 0.5 if m.dtype == bool else rng.normal(size=m.shape) * 10
    return ex.with_(**mats)


@pytest.mark.parametrize("key", REAL)
def test_the_largest_state_of_each_model_saves_and_reopens_identically(key: str) -> None:
    need(key)
    ex = largest(key)
    cells = sum(getattr(ex, n).size for n in MATRIX_NAMES)
    assert cells == values.layer_cells(models.choice(key))  # the caps count every cell of such a layer
    text = json_file.to_json(ex)
    size = len(text.encode())
    assert size <= values.MAX_JSON_BYTES <= sharing.UPLOAD_MB * 1_000_000  # it can be uploaded
    assert size > 8 * (cells - 64 * 64) * 4 / 3  # every cell written as float64 (the mask as bits)
    assert_identical(json_file.from_json(text.encode("utf-8")), ex)


def test_the_caps_come_from_the_largest_layer_of_the_models() -> None:
    """The model rows' sizes are the loaded models' (the caps are computed from them without loading)."""
    for key in REAL:
        c = need(key).config
        row = models.choice(key)
        ffn = 3 if c.activation == "swiglu" else 2
        assert row.shape == (c.n_layers, c.n_heads) and row.layer == (c.d_model, c.d_k, c.d_ff, ffn)
    smol = models.choice("smollm2")
    assert values.LARGEST_LAYER_CELLS == values.layer_cells(smol) == 4_063_552
    assert values.MAX_FILE_BODY_BYTES >= 8 * values.LARGEST_LAYER_CELLS
    assert (
        math.ceil(values.MAX_FILE_BODY_BYTES * 4 / 3)
        < values.MAX_JSON_BYTES
        < 1.01 * 4 / 3 * values.MAX_FILE_BODY_BYTES
    )


def test_a_large_file_of_lists_is_refused_before_it_is_parsed() -> None:
    """Over MAX_LIST_JSON_BYTES a file must hold its matrices in "state": millions of list items would make
    the server build millions of Python objects."""
    doc = {
        "format": "attention-explorer",
        "version": 1,
        "settings": {},
        "matrices": {"w_o": [[0] * 100] * 20_000},
    }
    text = json.dumps(doc)
    assert values.MAX_LIST_JSON_BYTES < len(text) < values.MAX_JSON_BYTES
    with pytest.raises(values.ShareError, match="as lists"):
        json_file.from_json(text)
