"""The export buttons of "Share and export": drawn on every page, and their files made only when asked."""

from __future__ import annotations

import json

import nbformat
import numpy as np
import pytest

from explorer.export import notebook
from explorer.model.example import Example, conform
from explorer.ui import export_ui
from tests.app.fixtures import open_share


def test_the_notebook_button_is_there_and_builds_nothing_on_a_rerun(kit, monkeypatch) -> None:  # noqa: ANN001
    calls = []
    real = notebook.to_bytes
    monkeypatch.setattr(notebook, "to_bytes", lambda w: calls.append(w) or real(w))
    at = kit.app()
    at.run()
    assert "share.notebook" not in {b.key for b in at.download_button}  # Share and export is closed
    open_share(at)
    buttons = {b.key: b for b in at.download_button}
    assert "share.notebook" in buttons, sorted(buttons)
    assert buttons["share.notebook"].proto.label == "Download as notebook (.ipynb)"
    assert calls == []  # deferred: made when the browser asks for the file, not on each run


@pytest.mark.parametrize("query, head", [(0, 0), (7, 1)])
def test_the_file_is_the_notebook_of_the_example_on_screen(query: int, head: int) -> None:
    ex = conform(Example(mask_kind="causal"))
    data = export_ui.notebook_bytes(ex, query, head, "http://localhost:8501/scores?sentence=x")
    nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    nbformat.validate(nb)
    text = json.dumps(nb.cells)
    assert "http://localhost:8501/scores?sentence=x" in text
    assert f"i, h = {query}, {head}" in text and "np.tri(n, dtype=bool)" in text


def test_an_example_that_cannot_compute_gets_a_note_not_a_button(kit) -> None:  # noqa: ANN001
    at = open_share(kit.app())
    at.text_input(key="sentence").set_value("   ").run()
    assert "share.notebook" not in {b.key for b in at.download_button}
    assert any("need an example that computes" in c.value for c in at.caption)


def test_a_download_is_a_job_made_in_the_language_on_screen(monkeypatch) -> None:  # noqa: ANN001
    """The file is made by a job (in a worker where there is a pool), keyed by the example's digest: a
    repr of its matrices would be cut short."""
    from explorer.compute import jobs
    from explorer.export import files

    asked: list[jobs.Spec] = []
    monkeypatch.setattr(jobs, "call", lambda job: asked.append(job) or jobs.execute(job.fn, job.args))
    ex = conform(Example(mask_kind="causal"))
    data = files.make("notebook", "es", ex, 2, 1, "http://x/scores?sentence=a")
    (job,) = asked
    assert job.fn == "explorer.export.files:made" and not job.keep and 0 < job.cost <= jobs.LANE_S
    other = files.make("notebook", "es", ex.with_(w_q=ex.w_q + 1), 2, 1, "http://x/scores?sentence=a")
    assert asked[1].key != job.key and other != data  # another matrix, another file
    cells = json.loads(data)["cells"]
    text = json.dumps(cells, ensure_ascii=False)
    assert "http://x/scores?sentence=a" in text and "i, h = 2, 1" in text
    assert "Cabezas" in text or "cabeza" in text, text[:500]  # the words in Spanish


def test_a_real_layers_json_file_is_made_in_a_job_a_toys_at_once(monkeypatch) -> None:  # noqa: ANN001
    from explorer import sharing
    from explorer.compute import jobs
    from explorer.export import files
    from tests.app.export.test_export_layer_notebook import opened
    from tests.app.fixtures import CAT, need

    need("minilm")
    asked: list[jobs.Spec] = []
    monkeypatch.setattr(jobs, "call", lambda job: asked.append(job) or jobs.execute(job.fn, job.args))
    toy = conform(Example())
    assert files.json_text(toy, {}) == sharing.to_json(toy) and asked == []
    layer = opened("minilm", CAT, 2)
    layer = layer.with_(w_q=layer.w_q + 0.5)  # an edited layer: its cells are in the file
    text = files.json_text(layer, {})
    (job,) = asked
    assert job.fn == "explorer.export.files:json_job" and not job.keep
    assert text == sharing.to_json(layer, {})
    files.json_text(layer.with_(w_q=layer.w_q + 1), {})
    assert asked[1].key != job.key  # keyed by the matrices, not by a repr that cuts them short
    np.testing.assert_allclose(sharing.from_json(text.encode()).w_q, layer.w_q)
