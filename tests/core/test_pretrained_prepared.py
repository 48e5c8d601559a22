"""The prepared copy of a model (attention_core.pretrained._prepared): the same numbers as the shipped file,
memory-mapped read-only, and never used when it does not check out."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attention_core import pretrained
from attention_core.pretrained import _fetch, _prepared, _smollm2
from attention_core.pretrained._files import model_file
from attention_core.transformer import EmbeddingWeights, LayerWeights, ModelWeights

from .models import need


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(_fetch.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def _weights(rng: np.random.Generator) -> ModelWeights:
    f = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    layer = LayerWeights(
        w_qkv=f(4, 12), b_qkv=f(12), w_o=f(4, 4), b_o=None, w1=f(4, 6), b1=f(6), w_up=None, w2=f(6, 4), b2=None,
        attn_norm_gain=f(4), attn_norm_bias=None, norm1_gain=f(4), norm1_bias=f(4), norm2_gain=None,
        norm2_bias=None, n_heads=2, n_kv_heads=2, d_k=2,
    )  # fmt: skip
    return ModelWeights(EmbeddingWeights(f(10, 4), position=f(8, 4)), (layer, layer), final_norm_gain=f(4))


def test_a_prepared_copy_reads_back_every_array_read_only(tmp_path: Path, cache: Path) -> None:
    source = tmp_path / "model.gguf"
    source.write_bytes(b"shipped")
    weights = _weights(np.random.default_rng(0))
    folder = _prepared.write("Tiny", source, weights, {"config": {"n": 2}})
    assert folder is not None and folder.parent == cache / "prepared"
    got, extra = _prepared.read("Tiny", source)
    assert extra == {"config": {"n": 2}}
    assert len(got.layers) == 2 and got.layers[1].n_heads == 2 and got.layers[0].b_o is None
    want, have = _prepared._flatten(weights)[0], _prepared._flatten(got)[0]
    assert want.keys() == have.keys()
    for key, arr in want.items():
        np.testing.assert_array_equal(have[key], arr, err_msg=key)
        assert not have[key].flags.writeable, key


def test_a_damaged_or_foreign_copy_is_not_used(tmp_path: Path, cache: Path) -> None:
    source = tmp_path / "model.gguf"
    source.write_bytes(b"shipped")
    folder = _prepared.write("Tiny", source, _weights(np.random.default_rng(1)), {})
    data = bytearray((folder / "weights.f32").read_bytes())
    data[100] ^= 1  # one bit of one weight
    (folder / "weights.f32").write_bytes(bytes(data))
    assert _prepared.read("Tiny", source) is None
    assert _prepared.write("Tiny", source, _weights(np.random.default_rng(1)), {}) == folder  # written again
    assert _prepared.read("Tiny", source) is not None
    source.write_bytes(b"another shipped file")  # a new version of the package
    assert _prepared.read("Tiny", source) is None


def test_smollm2_from_its_prepared_copy_runs_exactly_as_from_the_file(cache: Path) -> None:
    if not pretrained.installed("SmolLM2-135M"):
        need("SmolLM2-135M")  # skips, or fails in CI, saying how to install it
    path = model_file(_smollm2.MODULE, _smollm2.FILE, _smollm2.PACKAGE, _smollm2.VERSION, _smollm2.NAME)
    assert _prepared.read(_smollm2.NAME, path) is None
    from_file = _smollm2.load()  # no copy yet: from the GGUF file, then prepared
    assert _prepared.read(_smollm2.NAME, path) is not None
    from_copy = _smollm2.load()
    assert not from_copy.layer_weights(0).w_q.flags.writeable
    a, b = from_file.run("The capital of France is"), from_copy.run("The capital of France is")
    assert a.token_ids == b.token_ids and a.tokens == b.tokens
    np.testing.assert_array_equal(a.logits, b.logits)
    np.testing.assert_array_equal(a.attentions, b.attentions)
    assert from_copy.config == from_file.config
