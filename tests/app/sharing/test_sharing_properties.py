"""Property tests of everything a link or a file brings in, with hypothesis.

Reading never raises: any query string, `s=` parameter, JSON text or bytes gives either a valid example
(every setting within its bounds, every matrix of the shape its settings ask for, finite, within the value
limit, a sentence a URL can hold) or a readable message saying what was refused. And what the app writes
reads back exactly: a link, a JSON file, a CSV file of every matrix, bit for bit.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from explorer.model import example as exm
from explorer.model import settings_table as table
from explorer.model.example import MATRIX_NAMES, Example, conform
from explorer.sharing import json_file, state_blob, values
from explorer.sharing import params as link_params
from explorer.sharing import url as links
from explorer.sharing.values import LABELS, PARAM_OF, ShareError

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BASE = conform(Example())


def assert_valid(ex: Example) -> None:
    """An example the app can run: settings by their rows, matrices of the right shape, dtype and range."""
    fixed = values.layer_settings(ex.real, ex.real_layer) if ex.real != "toy" else {}
    for row in table.SETTINGS:
        v = getattr(ex, row.name)
        # a real model's layer: its sizes (beyond the toy's bounds) and the rest it fixes
        if row.name in fixed and row.name in table.FIXED_BY_LAYER:
            assert v == fixed[row.name], row.name
            continue
        assert values.check_setting(row.name, v, from_text=False) == v, row.name
    assert len(ex.sentence) <= table.MAX_SENTENCE_CHARS
    ex.sentence.encode("utf-8")  # no lone surrogate: the URL and the files can hold it
    want = exm.expected_shapes(ex, len(values.tokens(ex)))
    for name in MATRIX_NAMES:
        m = getattr(ex, name)
        assert m.shape == want[name], name
        if name == "custom_mask":
            assert m.dtype == bool
        else:
            assert (
                m.dtype in (np.float64, np.float32)  # float32: a trained layer's untouched matrices
                and np.isfinite(m).all()
                and np.abs(m).max(initial=0) <= values.VALUE_LIMIT
            )


def assert_identical(a: Example, b: Example) -> None:
    assert a.settings() == b.settings()
    for name in MATRIX_NAMES:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), name


# ---------------------------------------------------------------- what people send

HOSTILE_TEXT = st.one_of(
    st.text(max_size=80),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=80),
    st.text(alphabet="0123456789.-+eE_ ¹²³١٠٢۵߁𝟙", max_size=40),  # digits str.isdigit() takes, int() does not
    st.sampled_from(
        ["¹.abc", "9" * 5000 + ".x", "1." + "A" * 20_000, "١٠", "1e309", "-0", "NaN", "1_000", ""]
    ),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
PARAMS = st.dictionaries(
    st.sampled_from([*values.SHARE_PARAMS, "preset", "present", "sentence"]), HOSTILE_TEXT, max_size=8
)


@FAST
@given(PARAMS)
@example({"s": "¹.abc"})
@example({"s": "9" * 5000 + ".x"})
@example({"base": "١٠", "d_model": "٨"})
@example({"sentence": "a\ud800b", "d_model": "6"})
@example({"real": "minilm", "real_layer": "4", "d_model": "6", "mask": "causal"})
@example({"real": "minilm", "real_layer": "6"})
@example({"real": "0", "real_layer": ""})
def test_reading_any_link_never_raises_and_says_what_it_refused(params: dict[str, str]) -> None:
    out = links.read(params, BASE)
    ex = out.example or BASE
    # a whole example from a shared link; only a new sentence otherwise (the state conforms the matrices to it)
    assert_valid(ex if links.is_shared(params) else conform(ex))
    said = " ".join(text for _kind, text in out.messages)
    assert all(text.strip() for _kind, text in out.messages)
    if not links.is_shared(params):
        return
    for name, param in PARAM_OF.items():
        if param not in params or name in ("sentence", "real_layer"):
            continue  # (real_layer is read with real=, by its model's bounds: tests/app/sharing/test_real_links.py)
        raw = params[param]
        try:
            good = values.check_setting(name, raw, from_text=True) if len(raw) <= 40 else None
        except ShareError:
            good = None
        if ex.real != "toy" and name in table.FIXED_BY_LAYER:
            continue  # a real model's layer fixes it (assert_valid checked it is the layer's)
        if name == "real" and good is not None and ex.real != good:  # a model with a layer it does not have
            good = None
        if good is None:
            assert LABELS[name] in said, (name, raw, said)  # refused: a message names the setting
        else:
            assert getattr(ex, name) == good, (name, raw)


@FAST
@given(
    st.one_of(
        HOSTILE_TEXT,
        st.binary(max_size=300).map(lambda b: "1." + base64.urlsafe_b64encode(b).decode().rstrip("=")),
        st.binary(max_size=300).map(
            lambda b: "1." + base64.urlsafe_b64encode(zlib.compress(b)).decode().rstrip("=")
        ),
    )
)
def test_any_state_parameter_gives_a_valid_example_or_a_message(blob: str) -> None:
    ex, messages = state_blob.decode_state(blob, BASE)
    assert_valid(ex)
    if not blob.startswith("1.") or not blob[2:].replace("-", "").replace("_", "").isalnum():
        assert messages and all(m.strip() for m in messages), blob[:80]


def _edited_blob(data: st.DataObject) -> tuple[Example, str]:
    ex = edit(data, small_example(data))
    return ex, state_blob.encode_state(ex)


@SLOW
@given(st.data())
def test_a_damaged_link_of_the_explorer_keeps_a_valid_example(data: st.DataObject) -> None:
    ex, blob = _edited_blob(data)
    assume(blob)
    raw = bytearray(zlib.decompress(base64.urlsafe_b64decode(blob[2:] + "=" * (-len(blob[2:]) % 4))))
    at = data.draw(st.integers(0, len(raw) - 1))
    raw[at] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(1, len(raw)))
    body = bytes(raw[:cut])
    damaged = "1." + base64.urlsafe_b64encode(zlib.compress(body)).decode().rstrip("=")
    got, _messages = state_blob.decode_state(damaged, ex)
    assert_valid(got)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


def _with(doc: dict, path: list[str], value: object) -> dict:
    out = json.loads(json.dumps(doc))
    node = out
    for k in path[:-1]:
        node = node.setdefault(k, {}) if isinstance(node, dict) else node
    if isinstance(node, dict):
        node[path[-1]] = value
    return out


GOOD_DOC = json.loads(json_file.to_json(conform(Example(d_model=4, n_heads=2, d_k=2, d_ff=4))))
PATHS = [["format"], ["version"], ["settings"], ["draws"], ["matrices"], ["tokens"], ["matrices", "w_q"]]
PATHS += [["settings", row.name] for row in table.SETTINGS] + [["draws", "w_q"], ["matrices", "custom_mask"]]


@FAST
@given(
    st.one_of(
        st.binary(max_size=400),
        st.text(max_size=400),
        JSON_VALUES.map(json.dumps),
        st.tuples(st.sampled_from(PATHS), JSON_VALUES).map(lambda pv: json.dumps(_with(GOOD_DOC, *pv))),
        st.tuples(st.sampled_from(PATHS), HOSTILE_TEXT).map(lambda pv: json.dumps(_with(GOOD_DOC, *pv))),
    )
)
@example('{"format": "attention-explorer", "version": 1, "settings": {"seed": 1' + "0" * 5000 + "}}")
@example('{"format": "attention-explorer", "version": 1, "settings": {"sentence": "a\\ud800"}}')
@example('{"format": "attention-explorer", "version": 2, "version": 1, "settings": {}}')
@example(b"\xef\xbb\xbf{}")
@example("[" * 100_000)
def test_any_json_file_gives_a_valid_example_or_a_reason(data: bytes | str) -> None:
    notes: list[str] = []
    try:
        ex = json_file.from_json(data, notes)
    except ShareError as e:
        assert str(e).strip()
        return
    assert_valid(ex)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            '{"format": "attention-explorer", "version": 1, "settings": {"seed": 1' + "0" * 5000 + "}}",
            "digits",
        ),
        ('{"format": "attention-explorer", "version": 1, "settings": {"sentence": "a\\ud800"}}', "surrogate"),
        ('{"format": "attention-explorer", "version": 2, "version": 1, "settings": {}}', "'version' twice"),
        ('{"format": "attention-explorer", "version": 1, "settings": {"d_model": 4, "d_model": 5}}', "twice"),
    ],
)
def test_the_reported_json_crashes_are_refused_with_a_reason(text: str, words: str) -> None:
    with pytest.raises(ShareError, match=words):
        json_file.from_json(text)
    with pytest.raises(ShareError, match=words):
        json_file.from_json(text.encode("utf-8"))


@pytest.mark.parametrize(
    ("params", "label"),
    [
        ({"s": "¹.abc"}, "edited matrices"),
        ({"s": "9" * 5000 + ".x"}, "edited matrices"),
        ({"base": "١٠"}, "base"),
    ],
)
def test_the_reported_link_crashes_are_messages(params: dict[str, str], label: str) -> None:
    out = links.read(params, BASE)
    assert_valid(out.example or BASE)
    said = " ".join(t for _k, t in out.messages)
    assert label in said, said
    if "base" in params:
        assert (out.example or BASE).pe_base == BASE.pe_base  # Arabic-Indic digits are not read as 10


# ---------------------------------------------------------------- what the app writes reads back exactly


def small_example(data: st.DataObject) -> Example:
    """Any settings within their bounds (sizes kept small so that a test run stays short)."""
    kw: dict[str, object] = {}
    for row in table.SETTINGS:
        if row.name == "sentence":
            kw["sentence"] = data.draw(st.text(min_size=0, max_size=120), label="sentence")
        elif row.name in ("real", "real_layer"):  # a real model's layer fixes the sizes: test_bridge_pages.py
            kw[row.name] = row.default
        elif row.kind == "int":
            hi = {"d_model": 12, "n_heads": 3, "d_k": 6, "d_ff": 16}.get(row.name, int(row.bounds[1]))
            kw[row.name] = data.draw(st.integers(int(row.bounds[0]), hi), label=row.name)
        elif row.kind == "float":
            kw[row.name] = data.draw(st.floats(*row.bounds), label=row.name)
        elif row.kind == "bool":
            kw[row.name] = data.draw(st.booleans(), label=row.name)
        else:
            kw[row.name] = data.draw(st.sampled_from(row.choices), label=row.name)
    return conform(Example(**kw))


CELL = st.one_of(
    st.floats(-values.VALUE_LIMIT, values.VALUE_LIMIT),  # full float64, subnormals, -0.0
    st.integers(-127, 127).map(float),
    st.floats(-1e3, 1e3, width=32).map(float),
)


def edit(data: st.DataObject, ex: Example) -> Example:
    """`ex` with some cells of some matrices changed to any allowed value (mask cells flipped)."""
    mats = {}
    for name in data.draw(st.sets(st.sampled_from(MATRIX_NAMES)), label="matrices"):
        m = np.array(getattr(ex, name), copy=True)
        flat = m.reshape(-1)
        if not flat.size:
            continue
        for i in data.draw(st.lists(st.integers(0, flat.size - 1), max_size=6), label=name):
            flat[i] = (not flat[i]) if m.dtype == bool else data.draw(CELL)
        mats[name] = m
    return ex.with_(**mats)


@SLOW
@given(st.data())
def test_link_json_and_csv_round_trips_are_exact(data: st.DataObject) -> None:
    ex = edit(data, small_example(data))
    back, messages = link_params.from_params(link_params.to_params(ex), Example())
    assert messages == []
    assert_identical(back, ex)
    assert_identical(json_file.from_json(json_file.to_json(ex)), ex)
    assert_identical(json_file.from_json(json_file.to_json(ex).encode("utf-8")), ex)
    for name in MATRIX_NAMES:
        assert_identical_csv(ex, name)


def assert_identical_csv(ex: Example, name: str) -> None:
    """The CSV of one matrix, read by Python's csv module, gives back every cell bit for bit."""
    from explorer.sharing.csv_file import to_csv

    m = np.asarray(getattr(ex, name))
    rows = list(csv.reader(io.StringIO(to_csv(ex, name, values.tokens(ex)))))
    lead = 2 if m.ndim == 3 else 1
    cells = [r[lead:] for r in rows[1:]]
    if m.dtype == bool:
        got = np.array([[c == "1" for c in r] for r in cells], dtype=bool).reshape(m.shape)
    else:
        got = np.array([[float(c) for c in r] for r in cells], dtype=np.float64).reshape(m.shape)
    assert got.tobytes() == np.ascontiguousarray(m).tobytes(), name
