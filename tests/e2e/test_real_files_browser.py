"""A real layer's file in a real Chromium, through Streamlit's own upload (server.maxUploadSize and the
uploader's limit are what a browser meets): "Download the example (JSON)" after "Open layer L in the
explorer" gives a file that "Open an example (JSON)" opens again, and the largest state a person can reach
(every cell of a SmolLM2 layer edited, 43 MB) is accepted and opened."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from explorer import sharing
from explorer.model import bridge
from explorer.model import example as exm
from explorer.model.example import MATRIX_NAMES, Example
from explorer.sharing import json_file
from tests.e2e.test_bridge_browser import need, open_layer, query
from tests.e2e.test_links_browser import toggle_presenting

pytestmark = pytest.mark.e2e

OPENED = "Opened the example from the file"


def largest_smollm2() -> Example:
    """SmolLM2's last layer at 64 tokens with every cell a random float64 (as tests/app/sharing/test_real_files.py)."""
    ex = Example(sentence=" ".join(["word"] * 80)).with_(**bridge.settings_of("smollm2", 29))
    ex = ex.with_(**exm.default_matrices(ex, exm.tokens_for(ex)[0]))
    rng = np.random.default_rng(7)
    mats = {n: getattr(ex, n) for n in MATRIX_NAMES}
    return ex.with_(
        **{
            n: rng.random(m.shape) < 0.5 if m.dtype == bool else rng.normal(size=m.shape)
            for n, m in mats.items()
        }
    )


def share_panel(app):  # noqa: ANN001, ANN201 - the conftest's App; a Playwright Locator
    sidebar = app.page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Share and export").click()
    sidebar.get_by_text("Open an example (JSON)").wait_for()
    # The panel's contents arrive while its run still goes: a download button clicked before the last run
    # has ended may carry the file id of a run that a later one replaced, and no download comes.
    app.settle()
    return sidebar


def upload(app, path: Path) -> None:  # noqa: ANN001
    """Give `path` to "Open an example (JSON)" and wait for the app to say it opened it (or why not)."""
    box = share_panel(app).locator('[data-testid="stFileUploader"] input[type="file"]')
    box.set_input_files(str(path))
    app.poll(
        '() => [...document.querySelectorAll(\'[data-testid="stAlert"], [data-testid="stFileUploaderFileErrorMessage"]\')]'
        ".some(e => /Opened the example from the file|could not be opened|File must be/.test(e.innerText))",
        what="the upload's message",
    )


def page_text(app) -> str:  # noqa: ANN001
    return app.page.inner_text("body")


def test_a_downloaded_layer_reopens_from_its_file(app, tmp_path: Path) -> None:  # noqa: ANN001
    need("all-MiniLM-L6-v2")
    open_layer(app, 2, 5)
    button = share_panel(app).get_by_role("button", name="Download the example (JSON)")
    button.scroll_into_view_if_needed()
    with app.page.expect_download(timeout=120_000) as info:
        button.click()
    path = tmp_path / "layer.json"
    info.value.save_as(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["settings"]["real"] == "minilm" and doc["settings"]["real_layer"] == 2 and "state" not in doc
    app.open("", min_charts=1)  # a fresh session on the toy model
    upload(app, path)
    body = page_text(app)
    assert OPENED in body and "could not be opened" not in body, body[:2000]
    app.poll(
        "() => new URLSearchParams(location.search).get('real') === 'minilm'", what="the layer's address"
    )
    assert query(app).get("real_layer") == "2" and app.exceptions() == []
    # Presenting hides the sidebar and its uploader, whose file the app let go of once read: the uploader's
    # value comes back as a deleted file, which opens nothing and breaks nothing; and the toy's controls,
    # sent again with it (d_model 8), change nothing the layer fixes: the page still computes.
    toggle_presenting(app)
    app.settle()
    body = page_text(app)
    assert app.exceptions() == [] and "encountered an error" not in body, body[:2000]
    assert "cannot be computed" not in body and "Step 1 of" in body, body[:2000]
    assert query(app).get("real_layer") == "2"


# About 20 s (43 MB through the browser, read in a worker): `pytest -m load`. CI checks the same bound without
# the browser: the server's maxUploadSize is sharing.UPLOAD_MB and the largest file fits it
# (tests/app/ui/test_bad_input.py), each model's largest file reopens identically
# (tests/app/sharing/test_real_files.py), and a layer's file goes through the browser above.
@pytest.mark.load
def test_the_largest_file_a_person_can_make_is_accepted_and_opened(app, tmp_path: Path) -> None:  # noqa: ANN001
    need("SmolLM2-135M")
    path = tmp_path / "largest.json"
    path.write_text(json_file.to_json(largest_smollm2()), encoding="utf-8")
    assert 40_000_000 < path.stat().st_size <= sharing.UPLOAD_MB * 1_000_000
    app.open("", min_charts=1)
    upload(app, path)
    body = page_text(app)
    assert OPENED in body and "could not be opened" not in body, body[:2000]
    app.poll(
        "() => new URLSearchParams(location.search).get('real') === 'smollm2'", what="the layer's address"
    )
    assert query(app).get("real_layer") == "29" and app.exceptions() == []
    # Presenting draws the page anew, and the browser sends the toy's controls again (d_model 8): the layer
    # keeps what it fixes (its edits too large for the address bar), and its page still computes.
    toggle_presenting(app)
    app.settle()
    body = page_text(app)
    assert app.exceptions() == [] and "Step 1 of" in body, body[:2000]
    assert "cannot be computed" not in body, body[:2000]
