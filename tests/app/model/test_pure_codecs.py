"""The link and file codecs load no model: what a real layer fixes comes from the models table, and its
weights come from whoever hands them in (explorer.ui hands in explorer.model.bridge).

A fresh interpreter imports every module of explorer.sharing, counts attention_core.pretrained.load, hands
in layers of the right shapes built from the models table, and runs every codec on a real layer's link.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from attention_core import pretrained
from explorer.model import models

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = textwrap.dedent(
    """
    import pkgutil, sys
    import numpy as np
    from attention_core import pretrained

    loads = []
    def counted(name, *args, **kwargs):
        loads.append(name)
        raise AssertionError(f"a codec loaded {name}")
    pretrained.load = counted

    import explorer.sharing
    for info in pkgutil.iter_modules(explorer.sharing.__path__):
        __import__(f"explorer.sharing.{info.name}")
    from explorer.model import example as exm
    from explorer.model import models
    from explorer.sharing import csv_file, json_file, model_link, params, state_blob, url, values

    class TableLayers:
        # A real layer's tokens and weights at the shapes the models table gives (seeded, not trained).
        DRAWN = False
        def settings_of(self, key, layer):
            return models.layer_settings(key, layer)
        def tokens(self, ex):
            return ["[CLS]", *ex.sentence.split(), "[SEP]"], False
        def run_first(self, ex):
            return None  # nothing to run: the tokens above are made here
        def layer_only_shapes(self, ex):
            d, h, k, f = ex.d_model, ex.n_heads, ex.d_k, ex.d_ff
            swiglu = models.choice(ex.real).layer[3] == 3
            return {"b_q": (h, k), "b_k": (h, k), "b_v": (h, k), "b_o": (d,), "b1": (f,), "b2": (d,),
                    "w_up": (d, f) if swiglu else (0, 0)}
        def reference(self, ex, tokens, draws=None):
            rng = np.random.default_rng(ex.real_layer)
            shapes = exm.expected_shapes(ex, len(tokens), self)
            out = {name: rng.standard_normal(shape) for name, shape in shapes.items()}
            out["custom_mask"] = np.tril(np.ones(shapes["custom_mask"], dtype=bool))
            return out

    from explorer.model import layer as layers
    layers.use("pretrained", TableLayers())
    for key, layer in (("minilm", "2"), ("smollm2", "16")):
        asked = {"real": key, "real_layer": layer, "sentence": "the cat sat"}
        ex, messages = params.from_params(asked, exm.Example())
        assert not messages, messages
        d_model, d_k, d_ff, _ = models.choice(key).layer
        assert (ex.real, ex.real_layer, ex.d_model, ex.d_k, ex.d_ff) == (key, int(layer), d_model, d_k, d_ff)
        w_q = np.array(ex.w_q)
        w_q[1, 2, 3] = 0.5
        edited = ex.with_(w_q=w_q)
        link = params.to_params(edited)
        assert link["s"] == state_blob.encode_state(edited)
        back, messages = params.from_params(link, exm.Example())
        assert not messages and np.array_equal(back.w_q, w_q), messages
        read = url.read(link, exm.Example())
        assert read.example is not None and np.array_equal(read.example.w_q, w_q)
        assert url.query(edited).count("&s=1.") == 1
        opened = json_file.from_json(json_file.to_json(edited))
        assert opened.real == key and np.array_equal(opened.w_q, w_q)
        assert csv_file.to_csv(edited, "b_o").count("\\n") >= 1
        assert model_link.read({"model": key, "layer": "2", "head": "1"}).model == key
    assert loads == [], loads
    assert "explorer.model.bridge" not in sys.modules
    assert "streamlit" not in sys.modules
    print("codecs ran, models loaded:", len(loads))
    """
)


def test_every_codec_runs_on_a_real_layer_without_loading_a_model() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "codecs ran, models loaded: 0" in done.stdout


@pytest.mark.parametrize("key", ["minilm", "smollm2"])
def test_the_models_table_says_what_the_loaded_model_fixes(key: str) -> None:
    """What a link reads from the table (models.layer_settings) is what the model, loaded, holds."""
    row = models.choice(key)
    if not pretrained.available(row.engine):
        pytest.skip(f"{row.engine} is not installed")
    c = models.model(key).config
    fixed = models.layer_settings(key, 1)
    assert (fixed["d_model"], fixed["n_heads"], fixed["d_k"], fixed["d_ff"]) == (
        c.d_model,
        c.n_heads,
        c.d_k,
        c.d_ff,
    )
    assert fixed["norm_first"] is bool(c.norm_first)
    assert fixed["mask_kind"] == ("causal" if c.causal else "none")
    assert (fixed["real"], fixed["real_layer"]) == (key, 1)
