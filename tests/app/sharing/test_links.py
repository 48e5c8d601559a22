"""Links and files between sessions, and bad URL parameters and files, under AppTest.

A link is read from the "Share and export" panel of one session and opened in a new session; a JSON export
of one session is imported into another. Every bad URL parameter or file gives a message and keeps the
rest (a link: the other parts; a file: the whole current state).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer import sharing
from explorer.model.example import MATRIX_NAMES, Example, conform
from explorer.ui.state import SETTING_KEYS
from tests.app.fixtures import assert_identical, example_of, import_session, messages, open_link, open_share

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 60


def link_of(at: AppTest) -> str:
    """The link "Share and export" shows (the panel opened, as a visitor opens it to copy the link)."""
    open_share(at)
    links = [c.value for c in at.sidebar.code if "sentence=" in c.value]
    assert len(links) == 1, [c.value[:80] for c in at.sidebar.code]
    return links[0]


def params_of(link: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(link).query, keep_blank_values=True))


def address_of(at: AppTest) -> dict[str, str]:
    """What the session's address bar holds (its query parameters)."""
    return {k: at.query_params[k] for k in at.query_params}


def edited_session() -> AppTest:
    """A session with changed settings, hand-edited cells in every matrix and a re-randomized W_Q."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.session_state[SETTING_KEYS["seed"]] = 1234  # (a seed changed later keeps the old seed's weights)
    at.run()
    at.number_input(key=SETTING_KEYS["d_model"]).set_value(6)
    at.number_input(key=SETTING_KEYS["n_heads"]).set_value(3)
    at.text_input(key=SETTING_KEYS["sentence"]).set_value("Le chat s'assit ; the cat sat , $x$ [PAD]")
    at.run()
    for name, value in {
        "mask_kind": "custom",
        "scale_mode": "custom",
        "scale_custom": 0.3,
        "pe_kind": "learned",
    }.items():
        at.session_state[SETTING_KEYS[name]] = value
    ex = example_of(at)
    draws = {"w_q": 2}
    mats = {n: np.array(getattr(ex, n), copy=True) for n in MATRIX_NAMES}
    mats["w_q"] = sharing.seeded(ex, draws)["w_q"]
    rng = np.random.default_rng(7)
    for name in MATRIX_NAMES:
        flat = mats[name].reshape(-1)
        if not flat.size:  # (the toy model has no biases)
            continue
        i = rng.integers(0, flat.size, 3)
        flat[i] = ~flat[i] if flat.dtype == bool else [0.1, -0.0, 123.456789]
    at.session_state["m.matrices"] = mats
    at.session_state["m.draws"] = draws
    at.run()
    assert not at.exception, at.exception
    return at


# ---------------------------------------------------------------- a link opens the identical example


def test_a_link_from_one_session_opens_the_identical_example_in_another() -> None:
    a = edited_session()
    ex_a = example_of(a)
    assert ex_a.mask_kind == "custom" and ex_a.d_model == 6 and ex_a.seed == 1234
    link = link_of(a)
    assert link.startswith("?sentence=")  # no browser URL under AppTest: a relative link
    params = params_of(link)
    assert params["mask"] == "custom" and params["s"].startswith("1.")
    assert len(link) < 2000
    b = open_link(params)
    assert not messages(b)
    assert_identical(example_of(b), ex_a)
    assert_identical(example_of(open_link(address_of(b))), ex_a)  # b's address bar: the same example
    assert link_of(b) != link  # B's draws restart at 0, so W_Q travels as cells now...
    assert_identical(example_of(open_link(params_of(link_of(b)))), ex_a)  # ...and still arrives exactly


def test_the_default_example_link_is_short_and_opens_the_default() -> None:
    a = open_link()
    link = link_of(a)
    assert "s" not in params_of(link) and len(link) < 400
    b = open_link(params_of(link))
    assert not messages(b)
    assert_identical(example_of(b), example_of(a))


def too_large_for_a_link(seed: int, names: tuple[str, ...]) -> AppTest:
    """A session at the largest sizes whose matrices `names` are random: far too large for a link (not run
    since the matrices were set)."""
    at = open_link()
    for name, value in {"d_model": 64, "n_heads": 8, "d_k": 64}.items():
        at.number_input(key=SETTING_KEYS[name]).set_value(value)
    at.run()
    rng = np.random.default_rng(seed)
    mats = dict(at.session_state["m.matrices"])
    for name in names:
        mats[name] = rng.standard_normal(mats[name].shape)
    at.session_state["m.matrices"] = mats
    return at


def test_the_panel_says_when_an_example_is_too_large_for_a_link() -> None:
    at = too_large_for_a_link(0, ("w_q", "w_k", "w_v"))
    at.run()
    open_share(at)
    assert not [c for c in at.sidebar.code if "sentence=" in c.value]
    warning = [w.value for w in at.sidebar.warning]
    assert any("too large for a link" in w and "JSON" in w for w in warning), warning
    # The address bar keeps the settings, not the edits, and the page says so above it.
    address = address_of(at)
    assert "s" not in address and address["d_model"] == "64" and address["heads"] == "8"
    assert len(urlencode(address)) < sharing.LINK_LIMIT
    note = [w.value for w in at.main.warning if "too large for the address bar" in w.value]
    assert len(note) == 1 and "JSON file" in note[0] and "not the edited matrices" in note[0]
    assert example_of(open_link(address)).settings() == example_of(at).settings()


def test_an_example_too_large_for_a_link_is_encoded_once_and_kept_small(monkeypatch) -> None:  # noqa: ANN001
    """Its edits would make megabytes of link (a real layer's file: tens): the link cache keeps the settings'
    query and the length, so later runs of the page neither encode the edits again nor hold them."""
    from explorer.sharing import params as link_params
    from explorer.ui import share_panel

    at = too_large_for_a_link(1, ("w_q", "w_k", "w_v", "w_o"))
    share_panel._query.cache.clear()
    encoded = []
    encode = link_params.encode_state
    monkeypatch.setattr(link_params, "encode_state", lambda *a, **k: encoded.append(1) or encode(*a, **k))
    open_share(at)
    first = len(encoded)
    at.run()
    at.run()
    assert first >= 1 and len(encoded) == first  # later runs read the cache
    assert any("too large for a link" in w.value for w in at.sidebar.warning)
    assert 0 < share_panel._query.cache.bytes < 64_000  # the edits alone make over a megabyte of link


# ------------------------------------------------ the address bar holds the state


def test_after_every_change_the_address_bar_reopens_the_identical_example() -> None:
    at = edited_session()
    at.toggle(key="ui.present").set_value(True).run()  # presenting: kept across F5 too
    address = address_of(at)
    assert address["mask"] == "custom" and address["s"].startswith("1.") and address["present"] == "1"
    b = open_link(address)  # F5, or the address bar copied into another browser
    assert not messages(b)
    assert_identical(example_of(b), example_of(at))
    assert b.session_state["ui.present"] is True
    at.number_input(key=SETTING_KEYS["n_heads"]).set_value(2).run()  # one more change: followed at once
    assert address_of(at)["heads"] == "2"
    assert_identical(example_of(open_link(address_of(at))), example_of(at))


def test_a_preset_stays_a_short_address_until_it_is_changed() -> None:
    at = open_link({"preset": "three-inputs", "present": "1"})
    assert address_of(at) == {"preset": "three-inputs", "present": "1"}
    at.session_state[SETTING_KEYS["mask_kind"]] = "causal"
    at.run()
    address = address_of(at)
    assert address["preset"] == "three-inputs" and address["mask"] == "causal" and "s" in address
    b = open_link(address)
    assert not messages(b)
    assert_identical(example_of(b), example_of(at))
    assert b.session_state["ui.preset"] == "three-inputs"  # its note stays, saying it was changed


# ---------------------------------------------------------------- bad URL parameters


def test_bad_url_parameters_give_messages_and_fall_back_part_by_part() -> None:
    at = open_link(
        {
            "sentence": "A cat",
            "d_model": "abc",
            "heads": "99",
            "d_k": "3",
            "mask": "causal",
            "base": "nan",
            "preset": "no-such-preset",
            "present": "maybe",
        }
    )
    got = messages(at)
    for words in (
        "d_model must be a whole number",
        "heads must be between 1 and 8",
        "encoding base",
        "no preset",
    ):
        assert any(words in m for m in got), (words, got)
    assert any("present=" in m for m in got)
    ex = example_of(at)
    default = Example()
    assert (ex.d_model, ex.n_heads, ex.pe_base) == (default.d_model, default.n_heads, default.pe_base)
    assert (ex.sentence, ex.d_k, ex.mask_kind) == ("A cat", 3, "causal")  # the good parts were read
    seeded = sharing.seeded(ex)
    for name in MATRIX_NAMES:
        assert np.array_equal(getattr(ex, name), seeded[name]), name
    assert at.session_state["ui.present"] is False


@pytest.mark.parametrize(
    ("blob", "words"),
    [
        ("truncate", "cut short or altered"),
        ("2.eNpjYGBgAAAABAAB", "newer version"),
        ("1." + "A" * (sharing.MAX_STATE_CHARS + 1), "too long"),
        ("1.<script>", "characters"),
    ],
)
def test_a_bad_state_parameter_keeps_the_settings_and_the_seeded_matrices(blob: str, words: str) -> None:
    good = params_of(link_of(edited_session()))
    if blob == "truncate":
        blob = good["s"][: len(good["s"]) // 2]
    at = open_link({**good, "s": blob})
    got = messages(at)
    assert any(words in m for m in got), got
    ex = example_of(at)
    assert ex.d_model == 6 and ex.seed == 1234 and ex.mask_kind == "custom"
    seeded = sharing.seeded(ex)
    for name in MATRIX_NAMES:
        assert np.array_equal(getattr(ex, name), seeded[name]), name


# ---------------------------------------------------------------- JSON export and import


def test_json_export_then_import_round_trips_exactly() -> None:
    a = edited_session()
    ex_a = example_of(a)
    text = sharing.to_json(ex_a, a.session_state["m.draws"])
    b = import_session(text.encode())
    assert [s.value for s in b.success] and not b.error
    assert_identical(example_of(b), ex_a)
    assert b.session_state["m.undo"] is not None  # the example before can be restored
    c = import_session(b.session_state["test.export"].encode())  # and the export of B again
    assert_identical(example_of(c), ex_a)


BAD_FILES = {
    "malformed": b'{"format": "attention-explorer", "version": 1,',
    "wrong format": b'{"format": "something-else", "version": 1}',
    "wrong version": b'{"format": "attention-explorer", "version": 7, "settings": {}}',
    "wrong shape": b'{"format": "attention-explorer", "version": 1, "settings": {"d_model": 2, "n_heads": 1,'
    b' "d_k": 1}, "matrices": {"w_o": [[1, 2, 3]]}}',
    "non-finite": b'{"format": "attention-explorer", "version": 1, "settings": {"d_model": 1, "n_heads": 1,'
    b' "d_k": 1}, "matrices": {"w_o": [[NaN]]}}',
    "too large": b" " * (sharing.MAX_JSON_BYTES + 1),
    "not text": bytes(range(256)),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_file_gives_a_message_and_changes_nothing(case: str) -> None:
    before = conform(Example()).w_q.copy()
    before[0, 0, 0] = 42.0  # an edit the person made before the import
    mats = {n: getattr(conform(Example()), n) for n in MATRIX_NAMES} | {"w_q": before}
    at = import_session(matrices=mats)
    ex_before = example_of(at)
    at.session_state["test.upload"] = BAD_FILES[case]
    at.run()
    got = messages(at)
    assert len(got) == 1 and "could not be opened" in got[0] and "Nothing was changed" in got[0], got
    assert_identical(example_of(at), ex_before)
    assert at.session_state["m.matrices"]["w_q"][0, 0, 0] == 42.0
