"""explorer.sharing: links and JSON files reproduce an example bit for bit; every bad input is refused
with a readable message (sharing; URL parameters and imported JSON)."""

from __future__ import annotations

import base64
import json
import zlib
from urllib.parse import quote, urlencode

import numpy as np
import pytest

from explorer import sharing
from explorer.model import settings_table as table
from explorer.model.example import LAYER_ONLY, MATRIX_NAMES, Example, conform
from explorer.sharing import params as link_params
from explorer.sharing import url as links
from explorer.ui import editors

BIG_SENTENCE = " ".join(f"w{i}" for i in range(table.MAX_TOKENS))


def full(ex: Example) -> Example:
    """An example with every matrix at its seeded default."""
    return conform(ex)


def edited(ex: Example, seed: int, cells: int | None = 3) -> Example:
    """`ex` with `cells` cells of every matrix changed (None: every cell), in every awkward way there is:
    full float64, float32-exact, integers, -0.0, flipped mask cells."""
    rng = np.random.default_rng(seed)
    mats = {}
    for name in MATRIX_NAMES:
        m = np.array(getattr(ex, name), copy=True)
        flat = m.reshape(-1)
        idx = (
            np.arange(flat.size)
            if cells is None
            else rng.choice(flat.size, min(cells, flat.size), replace=False)
        )
        if m.dtype == bool:
            flat[idx] = ~flat[idx]
        else:
            kinds = rng.integers(0, 4, idx.size)
            values = np.where(
                kinds == 0,
                rng.standard_normal(idx.size),  # needs float64
                np.where(
                    kinds == 1, 0.5 + rng.integers(-4, 4, idx.size) * 0.25, rng.integers(-9, 9, idx.size)
                ),
            )
            values[kinds == 3] = -0.0
            flat[idx] = values
        mats[name] = m
    return ex.with_(**mats)


def assert_identical(a: Example, b: Example) -> None:
    assert a.settings() == b.settings()
    for name in MATRIX_NAMES:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert np.array_equal(x, y), name
        assert x.tobytes() == y.tobytes(), f"{name}: not bit for bit (e.g. -0.0)"
    assert a.digest() == b.digest()


def url_length(ex: Example, draws: dict[str, int] | None = None) -> int:
    return len(links.make_url("https://attention-explorer.streamlit.app/scores", ex, draws))


# ---------------------------------------------------------------- links: exact and short


def test_default_example_link_is_short_and_has_no_state_param() -> None:
    ex = full(Example())
    params = sharing.to_params(ex)
    assert sharing.STATE_PARAM not in params  # nothing edited: the seed says it all
    assert url_length(ex) < 400  # "well under 2 KB"
    back, messages = sharing.from_params(params, Example(sentence="other", d_model=3))
    assert not messages
    assert_identical(back, ex)


@pytest.mark.parametrize("seed", range(6))
def test_link_round_trips_edited_examples_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ex = full(
        Example(
            sentence="I like tea [PAD] and the tea likes me , too",
            d_model=int(rng.integers(1, 12)),
            n_heads=int(rng.integers(1, 4)),
            d_k=int(rng.integers(1, 6)),
            seed=int(rng.integers(0, 2**31 - 1)),
            emb_source=str(rng.choice(["random", "table"])),
            pe_kind=str(rng.choice(["sinusoidal", "sinusoidal_split", "learned", "none"])),
            pe_base=float(rng.uniform(1, 1e6)),
            pe_scale=bool(rng.integers(0, 2)),
            scale_mode=str(rng.choice(["sqrt", "none", "custom"])),
            scale_custom=float(rng.uniform(-1e3, 1e3)),
            alibi=bool(rng.integers(0, 2)),
            rope=bool(rng.integers(0, 2)),
            mask_kind=str(rng.choice(["none", "causal", "window", "padding", "custom"])),
            window=int(rng.integers(1, 64)),
            d_ff=int(rng.integers(1, 40)),
            norm_first=bool(rng.integers(0, 2)),
        )
    )
    ex = edited(ex, seed, cells=None if seed % 3 == 0 else 4)
    params = sharing.to_params(ex)
    back, messages = sharing.from_params(params, Example())
    assert not messages
    assert_identical(back, ex)
    # and through a real query string (percent-encoding, the order of parameters)
    from urllib.parse import parse_qsl

    query = links.query(ex).lstrip("?")
    back2, _ = sharing.from_params(dict(parse_qsl(query, keep_blank_values=True)), Example())
    assert_identical(back2, ex)


def test_rerandomized_matrices_travel_as_their_draw_number() -> None:
    ex = full(Example())
    draws = {"w_q": 3, "w1": 1}
    ex = ex.with_(**{k: v for k, v in sharing.seeded(ex, draws).items() if k in draws})
    blob = sharing.encode_state(ex, draws)
    assert len(blob) < 60  # a header per matrix, no values
    back, messages = sharing.from_params(sharing.to_params(ex, draws), Example())
    assert not messages
    assert_identical(back, ex)
    # without the draw numbers the link is still exact, only longer
    back2, _ = sharing.from_params(sharing.to_params(ex), Example())
    assert_identical(back2, ex)
    assert len(sharing.encode_state(ex)) > len(blob)


@pytest.mark.parametrize(
    "changes",
    [
        [{"d_model": 16}],
        [{"n_heads": 4}, {"d_k": 6}],
        [
            {"d_model": 6},
            {"d_model": 12},
            {"n_heads": 3},
            {"d_k": 2},
            {"d_ff": 40},
            {"sentence": "a b c d e f g"},
        ],
    ],
)
def test_links_stay_short_after_size_changes(changes: list[dict]) -> None:
    """conform keeps the cells that fit when a size changes; their seeded scale was the old size's, so they
    differ from the new seed's values. The link names the size each cell was drawn at instead of its value."""
    ex = full(Example())
    for change in changes:
        ex = conform(ex.with_(**change), old_tokens=sharing.tokens(ex))
    assert not all(sharing.same(getattr(ex, n), m) for n, m in sharing.seeded(ex).items())
    ex = edited(ex, 8, cells=2)
    assert url_length(ex) < 1000
    back, messages = sharing.from_params(sharing.to_params(ex), Example())
    assert not messages
    assert_identical(back, ex)


@pytest.mark.parametrize("cells", [3, 40, 400, None])
def test_a_link_under_a_limit_is_the_whole_link_exactly_at_every_limit(cells: int | None) -> None:
    """link_query gives the whole query (as `query` writes it) exactly when it fits the limit, one character
    either side of its length; past it, the settings' query alone."""
    ex = edited(full(Example()), 5, cells=cells)
    whole = links.query(ex, present=True, ask=3)
    settings = urlencode(
        {**link_params.settings_params(ex), "present": "1", "ask": "3"}, quote_via=quote, safe=""
    )
    for limit in (len(whole) - 1, len(whole), len(whole) + 1, 8000):
        got = links.link_query(ex, present=True, ask=3, limit=limit)
        assert got == ((whole, True) if len(whole) <= limit else (settings, False)), (cells, limit)


def test_an_example_far_past_the_link_limit_stops_encoding_at_the_matrix_that_takes_it_past(
    monkeypatch,
) -> None:  # noqa: ANN001
    """Every cell of the largest toy example edited (600,000 characters of link): with the link's limit, the
    edits are encoded only until they are surely past it (E and P, small, then W_Q, 32,768 cells); the file's
    encoding (no limit) has them all."""
    from explorer.sharing import state_blob

    ex = conform(Example().with_(d_model=64, n_heads=8, d_k=64))
    ex = edited(ex, 9, cells=None)
    records = []
    record = state_blob._record
    monkeypatch.setattr(state_blob, "_record", lambda *a: records.append(a[0]) or record(*a))
    assert state_blob.encode_state(ex, limit=sharing.LINK_LIMIT) is None
    assert records == [MATRIX_NAMES.index(n) for n in ("emb", "pe_table", "w_q")]
    records.clear()
    assert len(state_blob.encode_state(ex)) > 50 * sharing.LINK_LIMIT
    assert len(records) > 5


def test_a_history_record_naming_an_impossible_size_is_refused() -> None:
    ex = conform(full(Example()).with_(d_model=12))
    blob = sharing.encode_state(ex)[2:]  # after "1."
    body = zlib.decompress(base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4)))
    assert body[1] == 3  # the first record (W_Q) is a history record
    bad = bytearray(body)
    size = 2 * 12 * 4
    start = 5 + 3 * 4 + 1  # header, shape, value code
    bad[start : start + 2 * size] = np.full(size, 999, dtype="<u2").tobytes()  # d_model 999 never existed
    params = {**sharing.to_params(ex), "s": "1." + b64(zlib.compress(bytes(bad)))}
    got, messages = sharing.from_params(params, Example())
    assert messages and "a size it never had" in messages[0]
    assert np.array_equal(got.w_q, sharing.seeded(got)["w_q"])


def test_link_lengths_of_the_largest_allowed_example() -> None:
    """64 tokens, d_model 64, 8 heads, d_k 64, d_ff 256, every matrix edited."""
    big = full(
        Example(
            sentence=BIG_SENTENCE,
            d_model=table.MAX_D_MODEL,
            n_heads=table.MAX_HEADS,
            d_k=table.MAX_D_K,
            d_ff=table.MAX_D_FF,
        )
    )
    few = edited(big, 1, cells=3)  # a few cells of every matrix, as a person edits them
    n_few = url_length(few)
    assert n_few < 2000 and not links.too_long(links.make_url("", few))
    assert_identical(sharing.from_params(sharing.to_params(few), Example())[0], few)
    draws = {n: 2 for n in ("w_q", "w_k", "w_v", "w_o", "w1", "w2")}  # every weight re-randomized
    rerolled = big.with_(**{k: v for k, v in sharing.seeded(big, draws).items() if k in draws})
    assert url_length(rerolled, draws) < 1000
    rng = np.random.default_rng(2)  # every cell of every matrix a new float64 value: the worst case
    every = big.with_(
        **{n: rng.standard_normal(getattr(big, n).shape) for n in MATRIX_NAMES if n != "custom_mask"},
        custom_mask=rng.random(big.custom_mask.shape) < 0.5,
    )
    url = links.make_url("", every)
    assert links.too_long(url) and len(url) > 1_500_000  # the UI says so and offers the JSON file
    text = sharing.to_json(every)  # which opens again, exactly (written compactly)
    assert len(text.encode()) <= sharing.MAX_JSON_BYTES and "state" in json.loads(text)
    assert_identical(sharing.from_json(text), every)
    print(
        f"\nlink lengths: default {url_length(full(Example()))}, largest with 3 cells per matrix edited "
        f"{n_few}, largest re-randomized {url_length(rerolled, draws)}, largest every cell {len(url):,}"
    )


# ---------------------------------------------------------------- links: bad parameters


GOOD = sharing.to_params(edited(full(Example(d_model=6, n_heads=2, d_k=3)), 5))


@pytest.mark.parametrize(
    ("param", "value", "words"),
    [
        ("d_model", "abc", "whole number"),
        ("d_model", "0", "between 1 and 64"),
        ("d_model", "65", "between 1 and 64"),
        ("d_model", "8.5", "whole number"),
        ("heads", "-1", "between 1 and 8"),
        ("heads", "1e3", "whole number"),
        ("d_k", "", "whole number"),
        ("seed", "99999999999", "between 0 and"),
        ("window", "999", "between 1 and 64"),
        ("d_ff", "x" * 500, "too long"),
        ("base", "nan", "number between 1 and"),
        ("base", "inf", "number between 1 and"),
        ("base", "0", "number between 1 and"),
        ("base", "ten", "must be a number"),
        ("scale_k", "1e9", "between -1000 and 1000"),
        ("pe", "rotary", "one of sinusoidal"),
        ("mask", "diagonal", "one of none, causal"),
        ("scale", "cube-root", "one of sqrt"),
        ("emb", "glove", "one of random"),
        ("alibi", "maybe", "true or false"),
        ("norm", "sideways", "pre or post"),
    ],
)
def test_a_bad_setting_falls_back_to_the_current_value_with_a_message(
    param: str, value: str, words: str
) -> None:
    base = full(Example(d_model=7, n_heads=3, d_k=2, seed=11, window=4, d_ff=9, pe_base=500.0))
    params = {**GOOD, param: value}
    params.pop(sharing.STATE_PARAM)
    got, messages = sharing.from_params(params, base)
    assert len(messages) == 1 and words in messages[0], messages
    name = next(n for n, p in sharing.PARAM_OF.items() if p == param)
    assert getattr(got, name) == getattr(base, name)  # that part fell back
    assert got.sentence == GOOD["sentence"]  # the rest of the link was read
    assert got.mask_kind == GOOD["mask"] or param == "mask"


def test_markup_in_a_bad_value_is_quoted_not_lost() -> None:
    got, messages = sharing.from_params({"mask": "[x](javascript:alert(1))"}, full(Example()))
    assert got.mask_kind == "none" and "[x](javascript:alert(1))" in messages[0]


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def tamper(blob: str, at: int) -> str:
    ch = blob[at]
    return blob[:at] + ("A" if ch != "A" else "B") + blob[at + 1 :]


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda b: b[: len(b) // 2], "cut short or altered"),  # truncated
        (lambda b: b[:-3], "cut short or altered"),
        (lambda b: tamper(b, len(b) // 2), "cut short or altered"),  # one character changed
        (lambda b: "2" + b[1:], "format 2, by a newer version"),
        (lambda b: "0" + b[1:], "format 0"),
        (lambda b: b[2:], "version number"),
        (lambda b: b + "!!", "characters"),
        (lambda b: "1." + "A" * (sharing.MAX_STATE_CHARS + 1), "too long"),
        (lambda b: "1." + b64(b"not zlib at all"), "do not decompress"),
        (
            lambda b: "1." + b64(zlib.compress(b"\0" * (sharing.MAX_BODY_BYTES + 10), 9)),
            "expand to more than",
        ),  # a decompression bomb: 2 MB of zeros in a few KB
        (
            lambda b: "1." + b64(zlib.compress(b"\x63\x00\x00\x00\x00")),
            "unknown",
        ),
    ],
)
def test_a_damaged_state_param_keeps_the_settings_and_seeds_the_matrices(make, words: str) -> None:
    params = {**GOOD, sharing.STATE_PARAM: make(GOOD[sharing.STATE_PARAM])}
    got, messages = sharing.from_params(params, Example())
    assert len(messages) == 1 and words in messages[0], messages
    assert got.d_model == 6 and got.d_k == 3  # the plain parameters were read
    seeded = sharing.seeded(got)
    for name in MATRIX_NAMES:  # every matrix fell back to the seed (a damaged blob is not trusted)
        if "damaged" not in messages[0]:
            assert np.array_equal(getattr(got, name), seeded[name]), name


def test_a_matrix_that_does_not_fit_its_settings_falls_back_alone() -> None:
    ex = edited(full(Example(d_model=6, n_heads=2, d_k=3)), 9)
    params = sharing.to_params(ex)
    params["d_k"] = "4"  # W_Q, W_K, W_V, W_O in the blob no longer fit
    got, messages = sharing.from_params(params, Example())
    assert sum("w_q" in m or "w_k" in m or "w_v" in m or "w_o" in m for m in messages) == 4
    assert got.d_k == 4 and got.w_q.shape == (2, 6, 4)
    assert np.array_equal(got.w_q, sharing.seeded(got)["w_q"])
    for name in ("emb", "w1", "w2", "custom_mask"):  # the matrices that still fit are kept
        assert np.array_equal(getattr(got, name), getattr(ex, name)), name


def test_values_in_a_crafted_blob_are_checked() -> None:
    ex = full(Example())
    w = ex.w_q.copy()
    w[0, 0, 0] = 1e300  # beyond what an editor accepts
    blob = sharing.encode_state(ex.with_(w_q=w))
    got, messages = sharing.from_params({**sharing.to_params(ex), "s": blob}, Example())
    assert messages and "finite number" in messages[0]
    assert np.array_equal(got.w_q, ex.w_q)


def test_value_limit_matches_the_editors() -> None:
    assert sharing.VALUE_LIMIT == editors.LIMIT


def test_links_read_applies_present_and_reports_bad_values() -> None:
    got = links.read({"present": "1"}, Example())
    assert got.present is True and got.example is None and not got.messages
    got = links.read({"present": "perhaps"}, Example())
    assert got.present is None and "present=" in got.messages[0][1]
    got = links.read({"sentence": "x" * (sharing.MAX_SENTENCE_CHARS + 5)}, Example())
    assert len(got.example.sentence) == sharing.MAX_SENTENCE_CHARS and "cut" in got.messages[0][1]


def test_make_url_uses_the_page_address_or_a_relative_link() -> None:
    ex = full(Example())
    assert links.make_url(None, ex).startswith("?sentence=The%20cat")
    url = links.make_url("https://demo.example/scores?old=1#x", ex, present=True)
    assert url.startswith("https://demo.example/scores?sentence=") and url.endswith("&present=1")
    assert urlencode({"a": "b c"}, quote_via=quote) == "a=b%20c"


# ---------------------------------------------------------------- JSON


def test_json_round_trips_exactly_and_is_readable() -> None:
    ex = edited(full(Example(sentence="Réunion 東京 🙂 -0", mask_kind="custom")), 3, cells=5)
    text = sharing.to_json(ex, {"w_o": 2})
    doc = json.loads(text)
    assert doc["format"] == "attention-explorer" and doc["version"] == 1
    assert doc["settings"]["sentence"] == ex.sentence and doc["settings"]["mask_kind"] == "custom"
    assert doc["tokens"][0] == "Réunion" and "🙂" in doc["tokens"]
    # small: every matrix listed in full (not a real layer's biases and W_up: the toy model has none)
    assert set(doc["matrices"]) == set(MATRIX_NAMES) - set(LAYER_ONLY)
    assert doc["matrices"]["custom_mask"][0][0] in (True, False)
    assert_identical(sharing.from_json(text), ex)
    assert_identical(sharing.from_json(text.encode("utf-8")), ex)


def test_json_of_a_large_example_lists_only_what_differs_from_the_seed() -> None:
    big = full(Example(sentence=BIG_SENTENCE, d_model=64, n_heads=8, d_k=64, d_ff=256))  # over 3 MB in full
    w = big.w_k.copy()
    w[3, 2, 1] = 0.1
    ex = big.with_(w_k=w)
    text = sharing.to_json(ex)
    assert len(text.encode()) <= sharing.MAX_JSON_BYTES
    assert list(json.loads(text)["matrices"]) == ["w_k"]
    assert_identical(sharing.from_json(text), ex)


def test_a_json_file_may_leave_matrices_out() -> None:
    doc = {"format": "attention-explorer", "version": 1, "settings": {"d_model": 5, "seed": 3}}
    got = sharing.from_json(json.dumps(doc))
    want = full(Example(d_model=5, seed=3))
    assert_identical(got, want)


def doc_with(**changes) -> str:
    doc = json.loads(sharing.to_json(full(Example(d_model=4, n_heads=1, d_k=2))))
    for path, value in changes.items():
        *keys, last = path.split("__")
        node = doc
        for k in keys:
            node = node[k]
        if value is KeyError:
            del node[last]
        else:
            node[last] = value
    return json.dumps(doc)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"[1, 2, 3]", "not an Attention Explorer file"),
        (json.dumps({"format": "something-else", "version": 1}), "not an Attention Explorer file"),
        (doc_with(version=KeyError), '"version"'),
        (doc_with(version=2), "version 2, from a newer version"),
        (doc_with(version="1"), '"version"'),
        (doc_with(settings=[1]), '"settings"'),
        (doc_with(settings__colour="red"), "unknown setting"),
        (doc_with(settings__d_model=100), "between 1 and 64"),
        (doc_with(settings__d_model=4.0), "whole number"),
        (doc_with(settings__pe_base=-1.0), "number between 1 and"),
        (doc_with(settings__mask_kind="diagonal"), "one of none"),
        (doc_with(settings__rope="yes"), "true or false"),
        (
            doc_with(matrices__w_q=[[[1.0, 2.0]]]),
            "w_q has shape (1, 1, 2), but its settings ask for (1, 4, 2)",
        ),
        (doc_with(matrices__w1=[[1.0], [2.0, 3.0]]), "w1"),
        (doc_with(matrices__w_o="zeros"), "nested lists"),
        (doc_with(matrices__w_o=[["a", 0, 0, 0]] * 2), "numbers only"),
        (doc_with(matrices__bogus=[[1]]), "no matrix called"),
        (doc_with(draws={"w_q": -1}), '"draws"'),
        (doc_with(draws=[1]), '"draws"'),
        (doc_with(matrices=[]), '"matrices" must be an object'),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_a_bad_json_file_is_refused_with_a_reason(data, words: str) -> None:
    with pytest.raises(sharing.ShareError) as err:
        sharing.from_json(data)
    assert words in str(err.value)


@pytest.mark.parametrize(
    ("number", "digits"),
    [("1" * 31, 31), ("0." + "1" * 10_000 + "e-5", 10_002), ("-1" + "0" * 40 + ".5", 42)],
)
def test_a_number_of_more_than_30_digits_is_refused(number: str, digits: int) -> None:
    """A JSON number has at most 30 digits, whole or not (the longest the explorer writes has 20)."""
    text = doc_with(matrices__w1=[[123.5] + [0.0] * 15] + [[0.0] * 16] * 3).replace("123.5", number, 1)
    with pytest.raises(sharing.ShareError, match=f"number of {digits:,} digits"):
        sharing.from_json(text)
    longest = repr(-1.2345678901234567e-300)  # 17 significant digits and 3 of exponent: read as written
    ex = sharing.from_json(text.replace(number, longest, 1))
    assert ex.w1[0, 0] == -1.2345678901234567e-300


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "1e400", "1e7"])
def test_non_finite_or_huge_values_are_refused(bad: str) -> None:
    text = doc_with(matrices__w1=[[123.5] + [0.0] * 15] + [[0.0] * 16] * 3).replace("123.5", bad, 1)
    with pytest.raises(sharing.ShareError) as err:
        sharing.from_json(text)
    assert "w1" in str(err.value) or bad in str(err.value)


def test_mask_cells_must_be_booleans() -> None:
    with pytest.raises(sharing.ShareError, match="true/false"):
        sharing.from_json(doc_with(matrices__custom_mask=[[0.5] * 11] * 11))


def test_a_sentence_longer_than_the_box_is_cut_with_a_message_as_in_a_link() -> None:
    limit = sharing.MAX_SENTENCE_CHARS
    doc = json.loads(sharing.to_json(full(Example(sentence="x" * limit, d_model=4, n_heads=1, d_k=2))))
    doc["settings"]["sentence"] = "x" * (limit + 1)
    notes: list[str] = []
    ex = sharing.from_json(json.dumps(doc), notes)
    assert ex.sentence == "x" * limit
    assert notes == [f"The sentence had 501 characters; it was cut to {sharing.MAX_SENTENCE_CHARS}."]


def test_a_too_large_file_is_refused_before_it_is_parsed() -> None:
    with pytest.raises(sharing.ShareError, match="too large"):
        sharing.from_json(b" " * (sharing.MAX_JSON_BYTES + 1))


# ---------------------------------------------------------------- CSV


def test_csv_is_exact_and_safe_in_spreadsheets() -> None:
    ex = edited(full(Example(sentence='=HYPERLINK("x") said "hi"', n_heads=2)), 4)
    text = sharing.to_csv(ex, "emb", sharing.tokens(ex))
    rows = text.strip().split("\n")
    assert rows[0].startswith("token,0,1")
    assert rows[1].startswith('"\'="')  # a formula-looking token is quoted and defused
    values = [float(v) for v in rows[1].split(",")[1:]]
    assert np.array_equal(np.array(values), ex.emb[0])
    w = sharing.to_csv(ex, "w_q").strip().split("\n")
    assert w[0].startswith("head,row,0") and len(w) == 1 + 2 * ex.d_model
    assert [float(v) for v in w[-1].split(",")[2:]] == list(ex.w_q[1, -1])
    mask = sharing.to_csv(ex, "custom_mask").strip().split("\n")
    assert set(mask[1].split(",")[1:]) <= {"0", "1"}
