"""What a real layer opened in the explorer costs in memory, with the same numbers: an edited layer runs with
its untouched matrices in float32 (each product casts the one it reads) and gives the float64 layer's
numbers exactly; W_K and W_V copied per query head exist once per process while anything holds them; a
layer's input is the model's own; every cache together stays within its stated total; a closed session is
let go once its time to reconnect is over."""

from __future__ import annotations

import dataclasses
import gc
import inspect
import weakref
from types import SimpleNamespace

import numpy as np
from streamlit.runtime.caching.ttl_cache import TTLCache
from streamlit.runtime.memory_session_storage import MemorySessionStorage
from streamlit.runtime.session_manager import SessionInfo
from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

from attention_core.transformer import run_transformer, transformer_layer
from explorer import cache
from explorer.compute import pipeline
from explorer.model import bridge
from explorer.ui import patches
from tests.app.fixtures import CAPITAL, layer_example, need

NAMES = ("w_q", "w_k", "w_v", "w_o", "w1", "w2", "w_up", "b_q", "b_k", "b_v", "b_o", "b1", "b2")


def float64_layer(ex, x, mask):  # noqa: ANN001, ANN201 - every matrix converted first: the reference
    b = bridge.base(ex.real, ex.real_layer)
    h, d, k = ex.w_q.shape
    f64 = {name: np.asarray(getattr(ex, name), dtype=np.float64) for name in NAMES}
    lw = dataclasses.replace(
        b.fixed,
        w_qkv=np.concatenate([f64[n].transpose(1, 0, 2).reshape(d, h * k) for n in ("w_q", "w_k", "w_v")], axis=1),
        b_qkv=np.concatenate([f64[n].reshape(-1) for n in ("b_q", "b_k", "b_v")]),
        w_o=f64["w_o"], b_o=f64["b_o"], w1=f64["w1"], b1=f64["b1"], w2=f64["w2"], b2=f64["b2"],
        w_up=f64["w_up"] if ex.w_up.size else None,
    )  # fmt: skip
    config = dataclasses.replace(b.config, dtype="float64")
    return transformer_layer(np.asarray(x, dtype=np.float64), lw, config, mask)


def test_a_layer_gives_the_float64_layers_numbers_without_a_float64_copy_of_it() -> None:
    need("smollm2")
    ex = layer_example("smollm2", 5, CAPITAL)
    n = ex.emb.shape[0]
    mask = np.tril(np.ones((n, n), dtype=bool))
    for edited in (None, "w_q", "w_o", "w2"):
        if edited is None:  # X is float64 (and so are the zero biases): the layer runs in float64
            got, want = bridge.run(ex, ex.emb, mask), float64_layer(ex, ex.emb, mask)
            assert all(np.array_equal(getattr(got, f), getattr(want, f)) for f in ("weights", "output"))
            assert got.attention.w_o.dtype == np.float32
            continue
        w = np.array(getattr(ex, edited), dtype=np.float64)
        w.reshape(-1)[7] = 0.3125
        changed = ex.with_(**{edited: w})
        got, want = bridge.run(changed, changed.emb, mask), float64_layer(changed, changed.emb, mask)
        for field in ("q", "k", "v", "weights", "head_outputs", "sum1", "ffn_hidden", "ffn_out", "output"):
            a, b = getattr(got, field), getattr(want, field)
            assert a.dtype == np.float64 and np.array_equal(a, b), (edited, field)
        assert got.attention.w_o.dtype == (np.float64 if edited == "w_o" else np.float32)  # no copy kept


def test_a_layers_key_and_value_copies_exist_once_while_a_session_holds_them() -> None:
    need("smollm2")
    first = layer_example("smollm2", 11, CAPITAL)
    assert first.w_k.shape[0] == 9  # 3 key/value heads, one copy per query head
    bridge._cached_base.cache.clear()  # the layers' cache dropped the layer; the session still holds it
    again = bridge.base("smollm2", 11)
    assert again.weights["w_k"] is first.w_k and again.weights["w_v"] is first.w_v
    assert not first.w_k.flags.writeable


def test_a_layers_input_is_the_models_and_the_page_shows_the_float64_layer() -> None:
    m = need("smollm2")
    ex = layer_example("smollm2", 9, CAPITAL)
    ids = np.asarray(m.run(CAPITAL).token_ids)
    _, layers, _, _ = run_transformer(ids, m.weights, m.config)
    assert np.array_equal(ex.emb, layers[9].x.astype(np.float64))  # the input the model's layer 9 reads
    n = ex.emb.shape[0]
    want = float64_layer(ex, ex.emb, np.tril(np.ones((n, n), dtype=bool)))
    res = pipeline.run(ex)
    assert np.array_equal(res.attention.weights, want.weights)
    np.testing.assert_allclose(res.attention.weights, layers[9].attention.weights, rtol=1e-4, atol=1e-6)


def test_every_cache_of_the_process_together_stays_within_the_stated_total() -> None:
    found = cache.budgets()
    assert "explorer.compute.cached._run" in found and "explorer.model.bridge._cached_base" in found
    assert "explorer.ui.share_panel._address" in found and "attention_core.pretrained runs" in found
    assert sum(found.values()) <= cache.TOTAL_BYTES, found


class _Session:
    ended: list[str] = []  # the sessions shut down

    def __init__(self, sid: str) -> None:
        self.id = sid

    def shutdown(self) -> None:  # Streamlit's: its uploaded files and its downloads' callables let go
        self.ended.append(self.id)


def test_closed_sessions_past_their_time_to_reconnect_are_let_go() -> None:
    now = [0.0]
    storage = MemorySessionStorage(ttl_seconds=10)
    storage._cache = TTLCache(maxsize=128, ttl=10, timer=lambda: now[0])  # Streamlit's own cache, our clock
    manager = SimpleNamespace(_session_storage=storage)
    closed = _Session("closed")
    storage.save(SessionInfo(client=None, session=closed))  # type: ignore[arg-type]
    gone = weakref.ref(closed)
    del closed
    now[0] = 5.0  # still within its time to reconnect: kept
    assert patches.forget_closed_sessions(manager) == 0 and storage.get("closed") is not None
    assert _Session.ended == []
    now[0] = 11.0  # past it: Streamlit only hides it (it would stay until another session is stored)
    assert storage.get("closed") is None and gone() is not None
    assert patches.forget_closed_sessions(manager) == 1
    assert _Session.ended == ["closed"]  # shut down, as Streamlit shuts down a session it closes
    gc.collect()
    assert gone() is None


def test_the_server_reaches_streamlits_store_of_closed_sessions() -> None:
    # The attribute names forget_closed_sessions reads, in the Streamlit installed.
    source = inspect.getsource(WebsocketSessionManager.__init__)
    assert "self._session_storage = session_storage" in source
    assert "self._cache" in inspect.getsource(MemorySessionStorage.__init__) and callable(TTLCache.expire)
    assert patches.forget_closed_sessions() == 0  # no runtime in a test: nothing to do
