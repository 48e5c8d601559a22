"""The largest example the app allows goes out and comes back exactly; an over-long sentence is cut the same
way everywhere.

The largest example: a 500-character sentence of at least 64 tokens, d_model 64, 8 heads, d_k 64, d_ff 256.
A link carries it while it is short enough (the panel offers the JSON file otherwise), the JSON file always
(written compactly over the readable size), a CSV file every matrix. A 25,000-character sentence is cut to
500 characters with a message in the box (the browser's max_chars, then a note), a link and a JSON file.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer.model import settings_table as table
from explorer.model.example import MATRIX_NAMES, Example, conform
from explorer.sharing import csv_file, json_file, values
from explorer.sharing import params as link_params
from explorer.sharing import url as links
from tests.app.fixtures import (
    ROOT,
    TIMEOUT,
    assert_identical,
    errors,
    example_of,
    execute,
    import_session,
    open_link,
    printed_numbers,
)

LIMIT = table.MAX_SENTENCE_CHARS
WORDS = [
    "the",
    "cat",
    "sat",
    "on",
    "a",
    "warm",
    "mat",
    "because",
    "it",
    "was",
    "tired",
    "and",
    "the",
    "dog",
    "watched",
    "her",
    "from",
    "the",
    "door",
]


def sentence_of(chars: int) -> str:
    text, i = "", 0
    while len(text) < chars:
        text += WORDS[i % len(WORDS)] + " "
        i += 1
    return text[:chars]


LONGEST = sentence_of(LIMIT)
LARGEST = conform(
    Example(
        sentence=LONGEST,
        d_model=table.MAX_D_MODEL,
        n_heads=table.MAX_HEADS,
        d_k=table.MAX_D_K,
        d_ff=table.MAX_D_FF,
    )
)


def every_cell_edited(ex: Example, seed: int) -> Example:
    rng = np.random.default_rng(seed)
    mats = {n: rng.standard_normal(getattr(ex, n).shape) for n in MATRIX_NAMES if n != "custom_mask"}
    return ex.with_(**mats, custom_mask=rng.random(ex.custom_mask.shape) < 0.5)


def csv_matrix(ex: Example, name: str) -> np.ndarray:
    m = np.asarray(getattr(ex, name))
    rows = list(csv.reader(io.StringIO(csv_file.to_csv(ex, name, values.tokens(ex)))))
    lead = 2 if m.ndim == 3 else 1
    cells = [r[lead:] for r in rows[1:]]
    if m.dtype == bool:
        return np.array([[c == "1" for c in r] for r in cells]).reshape(m.shape)
    return np.array([[float(c) for c in r] for r in cells]).reshape(m.shape)


def test_the_largest_example_is_64_tokens_of_500_characters() -> None:
    assert len(LARGEST.sentence) == LIMIT and len(values.tokens(LARGEST)) == table.MAX_TOKENS


@pytest.mark.parametrize(
    "make",
    [
        lambda: LARGEST,  # as seeded
        lambda: every_cell_edited(LARGEST, 1),  # every cell of every matrix a new float64
        lambda: conform(every_cell_edited(LARGEST, 2).with_(d_model=63)),  # the d_model 64 -> 63
    ],
    ids=["seeded", "every-cell", "d_model-63"],
)
def test_the_largest_examples_go_through_json_and_csv_exactly(make) -> None:  # noqa: ANN001
    ex = make()
    text = json_file.to_json(ex)
    assert len(text.encode()) <= values.MAX_JSON_BYTES  # the app never writes a file it cannot read
    assert_identical(json_file.from_json(text.encode()), ex)
    for name in MATRIX_NAMES:
        assert csv_matrix(ex, name).tobytes() == np.ascontiguousarray(getattr(ex, name)).tobytes(), name
    url = links.make_url("https://example.org/", ex)
    if not links.too_long(url):  # else the panel offers the JSON file (sharing/test_links.py)
        back, messages = link_params.from_params(link_params.to_params(ex), Example())
        assert messages == [] and back.sentence == LONGEST
        assert_identical(back, ex)


def test_the_largest_file_opens_in_the_app() -> None:
    ex = every_cell_edited(LARGEST, 3)
    at = import_session(json_file.to_json(ex).encode())
    assert [s.value for s in at.success] and not at.error
    assert_identical(example_of(at), ex)


LONG = sentence_of(25_000)
CUT = f"The sentence had 25,000 characters; it was cut to {LIMIT}."


def shown(at: AppTest) -> str:
    return " ".join(m.value.replace("\\", "") for m in [*at.warning, *at.info, *at.error])


def test_a_25000_character_sentence_is_cut_with_a_message_in_every_way_in() -> None:
    # a link with only the sentence, and a shared link with settings
    for params in ({"sentence": LONG}, {"sentence": LONG, "d_model": "6"}):
        at = open_link(params)
        assert at.session_state["sentence"] == LONG[:LIMIT], params
        assert CUT in shown(at), params
    # a JSON file (hand-made: the app never writes one)
    doc = json.loads(json_file.to_json(conform(Example(sentence=LONG[:LIMIT]))))
    doc["settings"]["sentence"] = LONG
    at = import_session(json.dumps(doc).encode())
    assert example_of(at).sentence == LONG[:LIMIT] and CUT in shown(at)
    # the box: a browser cuts a paste at max_chars; Streamlit cuts what a crafted message sends; either way
    # the page says the sentence is at its limit
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.text_input(key="sentence").set_value(LONG).run()  # as a crafted message (input() stops at max_chars)
    assert not at.exception
    assert at.session_state["sentence"] == LONG[:LIMIT]
    assert f"at its limit of {LIMIT} characters" in shown(at)


def test_the_notebook_of_the_largest_example_is_written_whole() -> None:
    """Written (not executed: `pytest -m load` does that, below), the largest example's notebook is a valid
    notebook whose code holds every number of every edited matrix: about 6 MB of literals."""
    import nbformat

    from explorer.compute import pipeline
    from explorer.export import notebook, walkthrough

    ex = every_cell_edited(LARGEST, 7).with_(emb_source="table", pe_kind="learned", mask_kind="custom")
    res = pipeline.run(ex)
    w = walkthrough.from_example(ex, res, query=res.n - 1, head=ex.n_heads - 1, link="")
    data = notebook.to_bytes(w)
    nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    nbformat.validate(nb)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert len(data) > 5_000_000
    for name in ("w_q", "w_o", "w1", "w2"):
        last = float(np.asarray(getattr(ex, name)).reshape(-1)[-1])
        assert repr(last) in code, name  # the last cell of each matrix, written exactly


# About 20 s: a kernel reads 6 MB of literals. CI executes the presets' notebooks (test_export_notebook) and
# writes this one (the JSON and CSV tests above); `pytest -m load` executes it too.
@pytest.mark.load
def test_the_notebook_of_the_largest_example_executes_and_prints_the_apps_numbers(kernel) -> None:  # noqa: ANN001
    """The app's largest sizes (settings table) at 64 tokens, every cell of every matrix edited: about 6 MB of
    literals. Executed, it prints the app's numbers to CHECK_ATOL, like the small ones."""
    import time

    import nbformat

    from explorer.compute import pipeline
    from explorer.export import notebook, walkthrough

    ex = every_cell_edited(LARGEST, 7).with_(emb_source="table", pe_kind="learned", mask_kind="custom")
    res = pipeline.run(ex)
    assert res.error is None and res.n == table.MAX_TOKENS
    w = walkthrough.from_example(ex, res, query=res.n - 1, head=ex.n_heads - 1, link="")
    started = time.perf_counter()
    data = notebook.to_bytes(w)
    nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    done = execute(nb, kernel)
    took = time.perf_counter() - started
    assert errors(done) == []
    got = printed_numbers(done)
    for key, app in w.numbers.items():
        np.testing.assert_allclose(got[key], app, rtol=0, atol=1e-12, err_msg=key)
    assert "Every number is the same as in the app." in json.dumps(
        [c for c in done.cells if c.cell_type == "code"][-1].outputs
    )  # the glossary's cell is last
    print(f"largest notebook: {len(data):,} bytes, written and executed in {took:.1f} s")
