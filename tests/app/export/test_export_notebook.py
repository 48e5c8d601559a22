"""The "Download as notebook" export: executed in a real kernel (nbclient + ipykernel), it prints the app's
numbers, equal to 1e-12, for every setting the pipeline honours; it never imports the app."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace

import nbformat
import numpy as np
import pytest
from jupyter_client.manager import start_new_kernel

import attention_core as ac
from explorer.compute import pipeline
from explorer.export import notebook, walkthrough
from explorer.export.walkthrough import NUMBERS, STEPS
from explorer.model import glossary
from explorer.model.example import Example, conform
from explorer.model.layer import describe
from tests.app.fixtures import errors, execute, printed_numbers

ATOL = 1e-12

# (id, settings, changes to the matrices after conform): together they cover every setting of an Example.
SCENARIOS = {
    "default": ({}, {}),
    "causal-alibi-rope-prenorm-odd-sizes": (
        dict(mask_kind="causal", alibi=True, rope=True, norm_first=True, n_heads=3, d_k=5, d_model=7, d_ff=9),
        {},
    ),
    "window-split-scaled-custom-scale": (
        dict(
            mask_kind="window",
            window=2,
            pe_kind="sinusoidal_split",
            pe_base=100.0,
            pe_scale=True,
            scale_mode="custom",
            scale_custom=0.37,
            seed=7,
        ),
        {},
    ),
    "padding-learned-table-noscale": (
        dict(
            sentence="I like green tea [PAD] [PAD]",
            mask_kind="padding",
            pe_kind="learned",
            emb_source="table",
            scale_mode="none",
            d_model=6,
        ),
        {"emb": lambda m: m * 0.5 + 0.25, "pe_table": lambda m: m[::-1] * 2.0},
    ),
    "custom-mask-empty-row-no-pe-one-head": (
        dict(sentence="It's snowing outside today", mask_kind="custom", pe_kind="none", n_heads=1, rope=True),
        {"custom_mask": lambda m: np.where(np.arange(len(m))[:, None] == 2, False, ~m)},
    ),
    "all-padding": (dict(sentence="[PAD] [PAD] [PAD]", mask_kind="padding"), {}),
}


def build(settings: dict, changes: dict) -> tuple[Example, pipeline.Result]:
    ex = conform(Example(**settings))
    ex = ex.with_(**{name: f(getattr(ex, name)) for name, f in changes.items()})
    res = pipeline.run(ex)
    assert res.error is None, res.error
    return ex, res


def kernel():
    """One kernel for the module (starting one takes seconds); each notebook starts with %reset -f."""
    km, kc = start_new_kernel(kernel_name="python3")
    yield km
    kc.stop_channels()
    km.shutdown_kernel(now=True)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_executed_notebook_prints_the_apps_numbers(name: str, kernel) -> None:  # noqa: ANN001
    ex, res = build(*SCENARIOS[name])
    w = walkthrough.from_example(ex, res, query=res.n - 1, head=ex.n_heads - 1, link="http://x/?a=1")
    nb = nbformat.reads(notebook.to_bytes(w).decode("utf-8"), as_version=4)
    done = execute(nb, kernel)
    assert errors(done) == []
    got = printed_numbers(done)
    assert set(got) == set(w.numbers), set(w.numbers) ^ set(got)
    for key, app in w.numbers.items():
        assert got[key].shape == app.shape, key
        np.testing.assert_allclose(got[key], app, rtol=0, atol=ATOL, err_msg=key)
    # The numbers are the app's: the attention trace and the encoder block the pages draw.
    np.testing.assert_array_equal(w.numbers["A"], res.attention.weights)
    np.testing.assert_array_equal(w.numbers["Y"], res.encoder.output)
    assert "Every number is the same as in the app." in json.dumps(
        [c for c in done.cells if c.cell_type == "code"][-1].outputs
    )  # the glossary's cell is last


def test_a_fully_masked_row_is_zero_in_the_notebook_too(kernel) -> None:  # noqa: ANN001
    ex, res = build(*SCENARIOS["custom-mask-empty-row-no-pe-one-head"])
    assert not res.mask[2].any()
    w = walkthrough.from_example(ex, res)
    got = printed_numbers(execute(notebook.notebook(w), kernel))
    assert np.all(got["A"][0, 2] == 0.0) and np.all(np.isneginf(got["S_masked"][0, 2]))


def test_a_layer_with_feed_forward_biases(kernel) -> None:  # noqa: ANN001
    """The hook for other layers (e.g. a real model's): biases are written and used, the source is said."""
    ex, res = build({}, {})
    rng = np.random.default_rng(3)
    b1, b2 = rng.standard_normal(ex.d_ff), rng.standard_normal(ex.d_model)
    enc = ac.encoder_layer(res.x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, ex.w1, ex.w2, b1, b2, scale=res.scale)
    w = walkthrough.from_example(ex, res)
    layer = replace(w.layer, b1=b1, b2=b2, source="a test layer with biases", heads=("L0 H3", "L0 H7"))
    numbers = dict(w.numbers) | {
        "enc_attn_in": enc.attn_input,
        "enc_attn": enc.attention.output,
        "enc_sum1": enc.sum1,
        "enc_norm1": enc.norm1,
        "enc_hidden": enc.ffn_hidden,
        "enc_ffn": enc.ffn_out,
        "enc_sum2": enc.sum2,
        "Y": enc.output,
    }
    w = replace(w, layer=layer, numbers=numbers, notes=("Not reproduced: nothing, this is a test.",))
    nb = notebook.notebook(w)
    text = json.dumps(nb)
    assert "a test layer with biases" in text and "L0 H3" in text and "Not reproduced" in text
    done = execute(nb, kernel)
    assert errors(done) == []
    np.testing.assert_allclose(printed_numbers(done)["Y"], enc.output, rtol=0, atol=ATOL)


def test_the_notebook_imports_numpy_and_the_standard_library_only() -> None:
    ex, res = build(*SCENARIOS["causal-alibi-rope-prenorm-odd-sizes"])
    nb = notebook.notebook(walkthrough.from_example(ex, res))
    imported = set()
    for cell in nb.cells:
        if cell.cell_type == "code":
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.Import):
                    imported |= {a.name.split(".")[0] for a in node.names}
                elif isinstance(node, ast.ImportFrom):
                    imported.add((node.module or "").split(".")[0])
    assert imported == {"numpy", "sys", "hashlib"}


def test_every_step_has_its_section_with_the_pages_formula() -> None:
    ex, res = build({}, {})
    w = walkthrough.from_example(ex, res)
    nb = notebook.notebook(w)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for step in STEPS:
        assert f"{step.title}\n" in markdown and w.formula(step.name) in markdown, step.name
    assert set(NUMBERS) <= set(walkthrough.from_example(ex, res).numbers)


def test_every_matrix_is_a_literal_at_full_precision() -> None:
    ex, res = build(*SCENARIOS["padding-learned-table-noscale"])
    w = walkthrough.from_example(ex, res)
    code = "\n".join(c.source for c in notebook.notebook(w).cells if c.cell_type == "code")
    for name, arr in (("W_Q", ex.w_q), ("W_O", ex.w_o), ("W1", ex.w1), ("E", ex.emb), ("P", ex.pe_table)):
        m = re.search(rf"^{name} = (np\.array\(.*?\))(?:  #.*)?$", code, flags=re.S | re.M)
        assert m, name
        np.testing.assert_array_equal(eval(m.group(1), {"np": np}), arr)  # noqa: S307 - our own output


def test_hostile_text_stays_a_string() -> None:
    """A sentence with quotes, newlines and Markdown stays data: the code parses and prints it as it was."""
    sentence = "It's \"here\"\n''' $x$ <script>alert(1)</script> **b** \\ end"
    ex, res = build({"sentence": sentence}, {})
    nb = notebook.notebook(walkthrough.from_example(ex, res))
    first = next(c for c in nb.cells if c.cell_type == "code" and "sentence =" in c.source)
    scope: dict = {}
    exec(first.source.replace('print(n, "tokens:", tokens)', ""), scope)  # noqa: S102 - our own output
    assert scope["sentence"] == sentence and scope["tokens"] == res.tokens
    title = nb.cells[0].source
    assert "<script>" not in title and "\\<script\\>" in title


def test_the_encoder_section_says_when_it_cannot_be_computed() -> None:
    ex, res = build({}, {})
    w = walkthrough.from_example(ex, res)
    w = replace(
        w, encoder_error="the FFN overflowed", numbers={k: v for k, v in w.numbers.items() if k != "Y"}
    )
    nb = notebook.notebook(w)
    text = "\n".join(c.source for c in nb.cells)
    assert "not computed for this example: the FFN overflowed" in text and "def feed_forward" not in text


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.name)
def test_each_steps_formula_is_the_one_its_page_shows(step, kit) -> None:  # noqa: ANN001
    at = kit.open(step.url_path, via_app=False)
    assert not at.exception
    shown = [el.value.strip("$\n") for el in at.latex]
    wrote = step.formula(describe(Example()))  # what the exports write for the default example
    assert wrote in shown, f"/{step.url_path} shows another formula than the exports' {wrote}"


def test_the_notebook_ends_with_the_words_it_uses_from_the_glossary() -> None:
    """Its last cell says, in the glossary's plain words, what each term its Markdown uses means."""
    ex = conform(Example(mask_kind="causal"))
    nb = notebook.notebook(walkthrough.from_example(ex, pipeline.run(ex), query=1, head=0))
    last = nb.cells[-1]
    assert last.cell_type == "markdown" and last.source.startswith("## Words used here")
    for key in ("softmax", "qkv", "mask", "embedding"):
        assert f"- **{glossary.by_key(key).word}**:" in last.source, key
