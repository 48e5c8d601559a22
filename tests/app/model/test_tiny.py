"""explorer.model.tiny: the model trained in the engine, one layer at a time, through the one `Layer`.

Each layer's run in the explorer is checked against attention_core.training's own forward pass on the same
token ids (the weights every head gives every key, and the logits after layer 2), and what a student is told
to look for is checked on a sentence with a repeated word: the previous-token head of layer 1 and the
induction head of layer 2, their weights computed by training's forward pass, not by the explorer.
"""

from __future__ import annotations

import contextlib
import io
from urllib.parse import parse_qsl

import numpy as np

from attention_core import training as tr
from explorer.compute import pipeline
from explorer.compute.pipeline import rule_key
from explorer.export import layer_notebook
from explorer.model import layer, models, tiny
from explorer.model.example import Example, conform
from explorer.sharing import params as link_params
from explorer.sharing import url as links

# "cat" comes back at position 8: the token after its earlier copy (position 1) is "sat" (position 2).
SENTENCE = "The cat sat on the mat because the cat was warm."
QUERY, AFTER_COPY = 8, 2


def opened(layer_index: int, sentence: str = SENTENCE) -> Example:
    """Layer `layer_index` (0-based) of the tiny model as the explorer opens it (state.open_layer)."""
    settings = layer.of_key(tiny.KEY).settings_of(tiny.KEY, layer_index)
    return conform(Example(sentence=sentence, **settings))


def reference(sentence: str = SENTENCE) -> tr.TinyTrace:
    """Training's own forward pass on the sentence's token ids."""
    t = tiny.trained()
    return tr.run(t.cfg, t.params, np.array(tiny.token_ids_of(tiny.tokens_of(sentence)[0])))


def test_the_tiny_model_is_a_layer_of_the_models_table() -> None:
    assert layer.of_key("tiny") is tiny and layer.of(opened(1)) is tiny and not tiny.DRAWN
    d = layer.describe(opened(1))
    assert (d.n_layers, d.n_heads, d.d_model, d.d_k, d.d_ff, d.causal, d.drawn) == (
        2,
        4,
        64,
        16,
        0,
        True,
        False,
    )
    assert d.norm == tiny.trained().config.norm and d.activation == "none" and "no feed-forward" in d.banner
    assert d.fixes("d_ff") and d.fixes("pe_kind") and not d.fixes("mask_kind")
    assert opened(0).mask_kind == "causal" and opened(0).pe_kind == "learned" and opened(1).pe_kind == "none"


def test_words_become_token_ids_by_a_stable_rule() -> None:
    words = ["The", "cat", "sat", "on", "the", "mat", "."]
    ids = tiny.token_ids_of(words)
    assert ids[0] == ids[4]  # a repeated word (in any case) is the same token
    assert len(set(ids)) == 6 and all(0 <= i < 32 for i in ids)  # six different words, six tokens
    assert tiny.token_ids_of(["cat"])[0] == ids[1]  # a word's number does not depend on the sentence
    many = [f"w{i}" for i in range(32)]  # 32 different words: 32 different ids, collisions moved on
    assert sorted(tiny.token_ids_of(many)) == list(range(32))
    assert tiny.tokens_of(" ".join(many + ["x"])) == (many, True)  # cut at n_ctx = 32


def test_each_layer_runs_as_the_training_forward_pass() -> None:
    ref = reference()
    for index in (0, 1):
        res = pipeline.run(opened(index))
        assert res.error is None and res.encoder is not None
        gap = np.abs(res.attention.weights - ref.attentions[0, index]).max()
        assert gap <= 1e-6, (index, gap)
    if tiny.trained().cfg.norm == "none":  # no final norm: layer 2's output, unembedded, is the logits
        logits = res.encoder.output @ tiny.trained().params["unembed"]
        assert np.abs(logits - ref.logits[0]).max() <= 1e-6


def test_the_heads_do_what_a_student_is_told() -> None:
    ref = reference().attentions[0]  # (L, h, T, T)
    previous = [h for h, r in enumerate(tiny.roles(0)) if r == "previous-token head"]
    induction = [h for h, r in enumerate(tiny.roles(1)) if r == "induction head"]
    assert previous and induction
    n = ref.shape[-1]
    rows = ref[0][previous]  # (heads, T, T) the previous-token heads' weights
    looks_back = (rows[:, 1:].argmax(axis=2) == np.arange(n - 1)).all(axis=1)  # every token, the one before
    one_before = rows[:, np.arange(1, n), np.arange(n - 1)].min(axis=1)  # each head's weakest such weight
    assert (
        looks_back & (one_before >= 0.85)
    ).any()  # a previous-token head: every token looks at the one before
    best = max(induction, key=lambda h: ref[1, h, QUERY, AFTER_COPY])
    uniform = 1.0 / (QUERY + 1)  # a head that spread its weight over the keys it may see
    assert ref[1, best, QUERY, AFTER_COPY] >= max(0.5, 4 * uniform)
    shown = pipeline.run(opened(1)).attention.weights[best, QUERY, AFTER_COPY]
    np.testing.assert_allclose(shown, ref[1, best, QUERY, AFTER_COPY], atol=1e-9)


def test_a_link_reopens_the_layer_with_its_edits() -> None:
    ex = opened(1)
    w_q = np.array(ex.w_q)
    w_q[2, 5, 3] = 0.25
    ex = ex.with_(w_q=w_q, mask_kind="none")
    query = links.query(ex)
    assert "real=tiny" in query and "real_layer=1" in query
    got, messages = link_params.from_params(dict(parse_qsl(query)), Example())
    assert messages == [] and got.digest() == ex.digest()
    plain, messages = link_params.from_params({"real": "tiny", "real_layer": "1"}, Example())
    assert messages == [] and plain.digest() == opened(1, Example().sentence).digest()


def test_each_role_names_a_key_by_its_rule() -> None:
    res = pipeline.run(opened(1))
    assert [rule_key("previous-token head", res, q) for q in (0, 1, 8)] == [0, 0, 7]
    assert rule_key("induction head", res, QUERY) == AFTER_COPY  # "cat" again: the word after the first
    assert rule_key("induction head", res, 4) == 1  # "the" after "The": one token, whatever the case
    assert rule_key("induction head", res, 2) is None and rule_key("", res, QUERY) is None  # no copy, no role


def test_the_layer_notebook_recomputes_a_trained_head() -> None:
    """The export a real layer gets ("Download as notebook"): run cell by cell, it gets the app's weights."""
    ex = opened(1)
    res = pipeline.run(ex)
    nb = layer_notebook.of_example(ex, res, tiny.lead_head(1))
    intro = nb.cells[0].source
    assert "trained by the Attention Explorer's own numpy engine" in intro and "layer 2 of 2" in intro
    assert any("This model has no norm" in c.source for c in nb.cells if c.cell_type == "markdown")
    scope: dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for cell in nb.cells:
            if cell.cell_type == "code":
                exec(cell.source, scope)  # noqa: S102 - the notebook the app writes, checked as a reader runs it
    assert "Every number is the same as in the app." in out.getvalue()


def test_the_models_table_row_agrees_with_the_shipped_run() -> None:
    """Links and files are bounded by the table without loading the run: a retrained run with other sizes
    must change the row too."""
    c, row = tiny.trained().cfg, models.choice(tiny.KEY)
    assert row.shape == (c.n_layers, c.n_heads) and row.vocab == c.vocab
    assert row.layer == (c.d_model, c.d_head, 0, 0) and row.decoder and not row.picked
