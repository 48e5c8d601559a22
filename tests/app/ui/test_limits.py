"""One visitor cannot slow the others: what a visitor sends is bounded.

- the sentence: at most MAX_SENTENCE_CHARS characters from the box, a link or any other way in, cut before it
  is tokenized; the address bar that holds it stays under ADDRESS_LIMIT characters;
- the caches: bounded in bytes (explorer.cache), keyed by a digest; the memory they hold after many large
  examples stays within their budgets;
- Streamlit's own limits (.streamlit/config.toml): lowered to what the app needs, and still above the
  largest legitimate messages (measured here as in benchmarks/limits.py).
"""

from __future__ import annotations

import gc
import json
import tomllib
import tracemalloc
from urllib.parse import quote, urlencode

import numpy as np
import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.testing.v1 import AppTest

import attention_core as ac
from explorer import cache
from explorer.compute import cached as compute
from explorer.model import settings_table as table
from explorer.model.example import Example, conform
from explorer.sharing import url as links
from explorer.ui import share_panel as share_ui
from explorer.ui import state
from tests.app.fixtures import PAGES, ROOT, open_app

LIMIT = table.MAX_SENTENCE_CHARS
ADDRESS_LIMIT = 8000  # characters of an address that browsers, proxies and Streamlit's server all accept
LARGEST = {
    "sentence": " ".join(f"w{i}" for i in range(64)),
    "d_model": 64,
    "n_heads": 8,
    "d_k": 64,
    "d_ff": 256,
}


def config() -> dict:
    return tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the sentence


def test_the_sentence_box_keeps_at_most_the_limit() -> None:
    at = open_app()
    box = at.text_input(key="sentence")
    assert box.proto.max_chars == LIMIT  # the browser stops there
    box.set_value("word " * 200_000).run()  # a crafted message (AppTest's input() stops at max_chars)
    assert not at.exception
    assert at.session_state["sentence"] == ("word " * 200_000)[:LIMIT]
    assert at.query_params["sentence"] == ("word " * 200_000)[:LIMIT]  # the address bar


def test_a_sentence_is_cut_before_it_is_tokenized(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    tokenize = ac.tokenize

    def recording(sentence: str) -> list[str]:
        seen.append(len(sentence))
        return tokenize(sentence)

    monkeypatch.setattr(ac, "tokenize", recording)
    at = open_app("a " * 1_000_000)  # however it reached the state
    assert not at.exception
    assert seen and max(seen) <= LIMIT
    assert at.session_state["sentence"] == ("a " * 1_000_000)[:LIMIT]
    assert any(f"The sentence had 2,000,000 characters; it was cut to {LIMIT}" in w.value for w in at.warning)


@pytest.mark.parametrize("char", ["a", "é", "我", "😀"], ids=["ascii", "latin", "cjk", "emoji"])
def test_a_long_sentence_in_a_link_is_cut_and_the_address_stays_short(char: str) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["sentence"] = char * 40_000  # (Streamlit ignores a query over 524,288 characters)
    at.run()
    assert not at.exception
    assert at.session_state["sentence"] == char * LIMIT
    assert any(f"cut to {LIMIT}" in w.value for w in at.warning)
    address = "https://attention-explorer.streamlit.app/positional-encoding?" + urlencode(
        {k: at.query_params[k] for k in at.query_params}, quote_via=quote
    )
    assert at.query_params["sentence"] == char * LIMIT
    assert len(address) <= ADDRESS_LIMIT, len(address)


def test_the_longest_sentence_fits_an_address() -> None:
    worst = "\U0001f600" * LIMIT  # 4 bytes of UTF-8, 12 characters percent-encoded
    assert len("sentence=" + quote(worst, safe="")) <= ADDRESS_LIMIT - 200  # room for the page's address
    got = links.read({"sentence": worst + "x"}, Example())
    assert got.example is not None and got.example.sentence == worst


# ---------------------------------------------------------------- the caches


def largest(seed: int) -> Example:
    return conform(Example(**LARGEST, seed=seed))


def test_caches_are_keyed_by_a_digest_and_bounded_in_bytes() -> None:
    store = cache.ByteCache("t", max_bytes=10_000)
    for key in "abcde":
        store.put(key, np.zeros(250))  # about 2,200 bytes each
    assert [store.get(k)[0] for k in "abcde"] == [False, True, True, True, True]  # the oldest went
    assert 8_000 < store.bytes <= 10_000
    store.put("big", np.zeros(400))  # more than a quarter of the budget: returned by `shared`, never kept
    assert not store.get("big")[0]
    held = np.arange(3.0)
    store.put("d", {"x": held})
    with pytest.raises(ValueError):  # every session gets this object: it cannot be changed in place
        held[0] = 1.0
    assert len(cache.key_of(("x" * 1_000_000,))) == 32  # a fixed-size key, whatever the argument


def test_memory_held_by_the_caches_stays_bounded_at_the_largest_sizes() -> None:
    """A seed flood at the largest example (each result about 3 MB since the run holds one attention trace; 6 MB
    before), and its share links: the caches keep at most their budgets, and the memory the process holds
    grows by no more than that."""
    for c in (compute._run.cache, share_ui._query.cache):
        c.clear()
    per = cache.nbytes(compute.run(largest(0)))  # one result of the largest example
    kept = compute.RESULT_BYTES // per  # how many the budget holds
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for seed in range(1, kept + 11):  # ten more than fit
            ex = largest(seed)
            assert compute.run(ex) is compute.run(ex)  # the second is a hit: the same shared object
            share_ui._query(ex.digest(), (), False, ex)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert compute._run.cache.bytes <= compute.RESULT_BYTES
    assert share_ui._query.cache.bytes <= share_ui.LINK_BYTES
    assert 5 <= len(compute._run.cache) <= kept  # the oldest went
    assert grown <= compute.RESULT_BYTES + share_ui.LINK_BYTES + 16 * cache.MB, grown / cache.MB
    assert cache.held() <= sum(c.max_bytes for c in cache.caches())
    for c in (compute._run.cache, share_ui._query.cache):
        c.clear()


# ---------------------------------------------------------------- Streamlit's limits


def sent_messages(monkeypatch: pytest.MonkeyPatch) -> list:
    """The ForwardMsgs of an AppTest's last run, as they would go to a browser (filled on every run)."""
    from streamlit.testing.v1 import local_script_runner as lsr

    captured: list = []
    parse = lsr.parse_tree_from_messages

    def keep(messages):  # noqa: ANN001, ANN202 - the ForwardMsgs of each run
        captured[:] = list(messages)
        return parse(messages)

    monkeypatch.setattr(lsr, "parse_tree_from_messages", keep)
    return captured


def test_streamlit_limits_are_lowered_to_what_the_app_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each page at the largest example (every expander open): its largest message to the browser fits in
    half of server.maxMessageSize; a paste of every cell of the largest editor fits server.maxWidgetStateSize;
    both limits are far below Streamlit's defaults (200 MB and 25 MB)."""
    server = config()["server"]
    assert server["maxMessageSize"] <= 8 and server["maxWidgetStateSize"] <= 4
    captured = sent_messages(monkeypatch)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    for name, value in LARGEST.items():
        at.session_state[state.SETTING_KEYS[name]] = value
    at.session_state[state.K_FFN_EDITORS] = at.session_state[state.K_TERMS] = True
    at.run()
    sent = {}
    for page in ("app_pages/sentence.py", *PAGES):
        at.switch_page(page).run()
        assert not at.exception, page
        sent[page] = max(len(m.SerializeToString()) for m in captured)
    assert at.session_state["m.matrices"]["w_o"].shape == (512, 64)
    assert max(sent.values()) <= server["maxMessageSize"] * 1e6 / 2, sent
    ws = WidgetStates()
    w = ws.widgets.add()
    w.id = "$$ID-" + "0" * 32 + "-ed.w_o.v1"
    edits = {str(i): {f"c{j}": -0.12345678901234567 for j in range(64)} for i in range(512)}
    w.string_value = json.dumps({"edited_rows": edits, "added_rows": [], "deleted_rows": []})
    assert ws.ByteSize() <= server["maxWidgetStateSize"] * 1e6


@pytest.mark.load
@pytest.mark.parametrize(("model", "most_mb"), [("smollm2", 2.5), ("minilm", 2.0)])
def test_a_real_models_every_layer_at_64_tokens_fits_the_message_limit(
    model: str, most_mb: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The largest message any page sends: /model's grid of every layer and head of a real model at 64 tokens
    (SmolLM2 2.07 MB, MiniLM 1.54 MB), within server.maxMessageSize (docs/SECURITY.md; about 20 s)."""
    captured = sent_messages(monkeypatch)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["model"] = model
    at.query_params["sentence"] = " ".join(["the cat sat on the mat and the dog ran"] * 8)  # past 64 tokens
    at.run()
    at.switch_page(str(ROOT / "app_pages" / "model.py")).run()
    assert not at.exception
    largest = max(len(m.SerializeToString()) for m in captured)
    assert 1e6 < largest <= most_mb * 1e6 <= config()["server"]["maxMessageSize"] * 1e6, largest
