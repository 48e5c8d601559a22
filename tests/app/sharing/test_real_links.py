"""Every link parameter of the real-model pages is read as the toy's are: ASCII digits only, bounds of the
model the link describes, one message naming the parameter and what is used instead, never a crash.

model=, layer=, head=, off= (explorer.sharing.model_link), ask= (explorer.sharing.url) and real=,
real_layer= (explorer.sharing.params, through values.layer_settings), each over arbitrary strings with
hypothesis; then the crashing links as a person opens them (AppTest through app.py, the page named).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from explorer.model import models, patching
from explorer.model.example import Example, conform
from explorer.model.settings_table import MAX_TOKENS
from explorer.sharing import model_link
from explorer.sharing import url as links
from explorer.sharing.values import shown
from explorer.ui import state
from tests.app import fixtures
from tests.app.fixtures import need

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DIGITS = "0123456789+- .,¹²³①٣١٠۵߁𝟙"  # ASCII digits beside characters str.isdigit() (and int()) accept
TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=DIGITS, max_size=12),
    st.integers(-40, 80).map(str),
    st.sampled_from(["", " ", "\u200b", "1_0", "0x1", "1e1", "+3", "-0", "9" * 40, "٣", "①", "¹"]),
)
REAL = [k for k, m in models.MODELS.items() if m.engine]


def ascii_whole(raw: str, signed: bool = True) -> int | None:
    """The number a link means by `raw`, read independently of the app: an optional sign (when `signed`)
    then 1 to 12 ASCII digits, spaces around ignored."""
    s = raw.strip()
    digits = s[1:] if signed and s[:1] in ("+", "-") else s
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 12):
        return None
    return int(s)


def one_message(messages: list[str], *words: str, sent: tuple[str, ...] = ()) -> str:
    """The single message, a sentence for a person: it says each of `words`, and apart from the values the
    link `sent` (quoted in it as they were) it has no ".." (a sentence ended twice)."""
    assert len(messages) == 1, messages
    text = messages[0]
    assert text.endswith("."), text
    ours = text
    for value in sorted({v for s in sent for v in (s, s.strip(), s.strip()[:20])}, key=len, reverse=True):
        ours = ours.replace(shown(value), "")
    assert ".." not in ours, text
    for w in words:
        assert w in text, (w, text)
    return text


@FAST
@given(
    st.sampled_from(["", *models.picked_keys()]), st.sampled_from(["layer", "head"]), TEXT, st.integers(0, 40)
)
@example("smollm2", "head", "¹", 0)
@example("", "layer", "²", 3)
@example("minilm", "layer", "٣", 0)
@example("minilm", "layer", "7", 5)
def test_layer_and_head_are_ascii_numbers_within_the_models_own_bounds(
    model: str, name: str, raw: str, was: int
) -> None:
    got = model_link.read({"model": model, name: raw}, "toy", (was, was))
    row = models.choice(models.real_key(model or "toy"))
    count = row.shape[0] if name == "layer" else row.shape[1]
    v = ascii_whole(raw, signed=False)
    if not raw.strip():
        assert getattr(got, name) is None and got.messages == []
    elif v is not None and 1 <= v <= count:
        assert getattr(got, name) == v - 1 and got.messages == []
    else:
        assert getattr(got, name) is None
        kept = f"Kept {name} {min(was, count - 1) + 1}."
        has = f"layers 1 to {count}." if name == "layer" else f"heads 1 to {count} in each layer."
        one_message(
            got.messages, f"{name}=", f"between 1 and {count}", f"{row.engine} has {has}", kept, sent=(raw,)
        )


LENS = {  # name: (bounds as written, how the app holds it: the written value minus this)
    "follow": ((0, models.choice(models.DEFAULT_DECODER).vocab - 1), 0),
    "follow_at": ((1, models.LENS_POSITIONS), 1),
    "ind_seed": (models.INDUCTION_SEEDS, 0),
    "ind_len": (models.INDUCTION_LENGTHS, 0),
}


@FAST
@given(st.sampled_from(sorted(LENS)), st.one_of(TEXT, st.integers(-5, 60_000).map(str)))
@example("follow", "¹")
@example("ind_len", "+9")
@example("follow", "49152")
def test_the_lens_and_induction_numbers_are_ascii_numbers_within_their_bounds(name: str, raw: str) -> None:
    got = model_link.read({name: raw})
    (lo, hi), base = LENS[name]
    v = ascii_whole(raw[:40], signed=False)
    if not raw[:40].strip():
        assert getattr(got, name) is None and got.messages == []
    elif v is not None and lo <= v <= hi:
        assert getattr(got, name) == v - base and got.messages == []
    else:
        assert getattr(got, name) is None
        one_message(got.messages, f"({name}=)", f"between {lo} and {hi}", "Kept", sent=(raw[:40],))


@FAST
@given(st.sampled_from(REAL), st.lists(st.one_of(TEXT, st.tuples(TEXT, TEXT).map(".".join)), max_size=6))
@example("smollm2", ["¹.1"])
@example("minilm", ["١.١", "1.1"])
@example("minilm", ["1.13", "2.1", "6.12"])
def test_switched_off_heads_are_ascii_pairs_within_the_models_own_bounds(
    model: str, parts: list[str]
) -> None:
    raw = ",".join(parts)
    got = model_link.read({"model": model, "off": raw})
    L, H = models.choice(model).shape
    want, bad = set(), []
    for part in raw.split(",")[: L * H]:
        if not part.strip():
            continue
        layer, _, head = part.partition(".")
        lv, hv = ascii_whole(layer, signed=False), ascii_whole(head, signed=False)
        if lv is not None and hv is not None and 1 <= lv <= L and 1 <= hv <= H:
            want.add((lv - 1, hv - 1))
        else:
            bad.append(part)
    if not raw.strip():
        assert got.off is None and got.messages == []
        return
    assert got.off == tuple(sorted(want))
    if bad:
        bounds = f"layers 1 to {L} and heads 1 to {H} for {models.choice(model).engine}"
        one_message(got.messages, "off=", bounds, sent=tuple(bad))
    else:
        assert got.messages == []


@FAST
@given(TEXT, st.sampled_from(["toy", *REAL]))
@example("SmolLM2 ", "toy")
@example("gpt2", "smollm2")
def test_model_is_one_of_the_models_or_keeps_the_one_picked(raw: str, current: str) -> None:
    got = model_link.read({"model": raw}, current)
    if not raw.strip():
        assert got.model is None and got.messages == []
    elif raw.strip().lower() in models.MODELS:
        assert got.model == raw.strip().lower() and got.messages == []
    else:
        assert got.model is None
        one_message(got.messages, "model=", f"Kept {models.choice(current).title}.", sent=(raw,))


@FAST
@given(
    st.one_of(TEXT, st.lists(st.one_of(TEXT, st.sampled_from(["next", "heads"])), max_size=4).map(",".join))
)
@example("¹")
@example("٣")
@example("7,next")
@example("next,heads,7,3")
def test_ask_takes_an_ascii_token_number_and_the_real_models_questions(raw: str) -> None:
    out = links.read({"ask": raw}, conform(Example()))
    parts = [p.strip() for p in raw.split(",")]
    words = [p for p in parts[:3] if p in ("next", "heads")]
    numbers = [p for p in parts[:3] if p and p not in ("next", "heads")]
    v = ascii_whole(numbers[0], signed=False) if numbers else None
    good = v is not None and 0 <= v < MAX_TOKENS
    assert out.ask == (v if good else None)
    assert out.ask_model == (tuple(dict.fromkeys(words)) or None)
    messages = [t for _k, t in out.messages]
    if len(numbers) > (1 if good else 0) or any(parts[3:]):
        one_message(messages, "ask=", f"0 to {MAX_TOKENS - 1}", sent=tuple(parts))
    else:
        assert messages == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(REAL), TEXT)
@example("minilm", "-1")
@example("minilm", "6")
@example("smollm2", "29")
@example("smollm2", "٣")
@example("minilm", "¹")
def test_a_real_layer_is_an_ascii_number_within_the_models_own_layers(model: str, raw: str) -> None:
    need(model)
    out = links.read({"real": model, "real_layer": raw}, conform(Example()))
    ex = out.example
    L = models.choice(model).shape[0]
    v = ascii_whole(raw) if raw else 0  # no layer: the first
    messages = [t for _k, t in out.messages]
    if v is not None and 0 <= v < L:
        assert (ex.real, ex.real_layer, messages) == (model, v, [])
    else:
        assert ex.real == "toy" and ex.real_layer == 0
        said = one_message(messages, "real_layer=", "Opened the toy model instead.", sent=(raw,))
        assert (f"between 0 and {L - 1}" in said) == (v is not None)


@FAST
@given(TEXT, TEXT)
@example("gpt2", "3")
@example("toy", "4")
def test_real_names_a_model_or_the_toy_model_opens(real: str, layer: str) -> None:
    assume(
        real not in REAL and real != "tiny"
    )  # a model's layers: the test above and tests/app/model/test_tiny.py
    out = links.read({"real": real, "real_layer": layer, "d_model": "6"}, conform(Example()))
    messages = [t for _k, t in out.messages]
    assert out.example.real == "toy" and out.example.d_model == 6 and out.example.real_layer == 0
    if real != "toy":  # ("" too: the link names no model it has)
        words = ("real=", "must be one of toy, tiny, minilm, smollm2", "Opened the toy model instead.")
        one_message(messages, *words, sent=(real,))
    elif layer.strip() not in ("", "0"):
        one_message(messages, "real_layer=", "kept the toy model", sent=(layer,))
    else:
        assert messages == []


@FAST
@given(st.sampled_from(["answer", "wrong"]), TEXT)
@example("answer", "¹")
@example("wrong", "١٠")
def test_patchings_answers_are_ascii_token_ids(name: str, raw: str) -> None:
    """/patching's answer= and wrong= (explorer.model.patching): a token id in ASCII digits, or one message."""
    got = patching.read_link({name: raw})
    s = raw[:100].strip()
    good = 0 < len(s) <= patching.MAX_ID_DIGITS and s.isascii() and s.isdigit()
    assert getattr(got, name) == (int(s) if good else None)
    if good or not s:
        assert got.messages == []
    else:
        assert len(got.messages) == 1 and f"{name}=" in got.messages[0]


# ------------------------------------------------------------------ as a person opens them: no crash


def opened(page: str, params: dict[str, str]) -> AppTest:
    """app.py on `page` with the link's query parameters, its first run (what a person opening it sees)."""
    at = AppTest.from_file(str(fixtures.ROOT / "app.py"), default_timeout=fixtures.TIMEOUT)
    at.switch_page(page)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


@pytest.mark.parametrize(
    ("page", "params", "words"),
    [
        ("app_pages/head.py", {"model": "smollm2", "head": "¹"}, ["head=", "'¹'", "Kept head 1."]),
        (
            "app_pages/head.py",
            {"model": "smollm2", "layer": "²", "head": "①"},
            ["layer=", "head=", "'²'", "'①'"],
        ),
        ("app_pages/model.py", {"model": "minilm", "layer": "٣"}, ["layer=", "'٣'", "Kept layer 1."]),
        ("app_pages/ablation.py", {"model": "smollm2", "off": "¹.1,١.١,2.3"}, ["off=", "'¹.1'", "'١.١'"]),
        ("app_pages/next-token.py", {"model": "smollm2", "ask": "¹,next"}, ["ask=", "'¹'", "Asked: next."]),
        ("app_pages/scores.py", {"real": "minilm", "real_layer": "-1"}, ["real_layer=", "between 0 and 5"]),
        ("app_pages/patching.py", {"model": "smollm2", "answer": "¹", "wrong": "١٠"}, ["answer=", "wrong="]),
    ],
)
def test_links_that_crashed_a_page_show_a_message(
    page: str, params: dict[str, str], words: list[str]
) -> None:
    need(params.get("model") or params.get("real") or "minilm")
    at = opened(page, params)
    assert not at.exception, at.exception
    assert at.session_state["ui.page"] == page.removeprefix("app_pages/").removesuffix(".py")  # the page ran
    said = [w.value.replace("\\", "") for w in at.warning]  # (messages are shown as literal Markdown)
    for w in words:
        assert any(w in s for s in said), (w, said)
    assert at.session_state[state.K_MODEL_HEAD] == 0 and at.session_state[state.K_LAYER] == 0
    if "off" in params:
        assert at.session_state[state.K_OFF] == ((1, 2),)  # 2.3 is read; the others are left out
