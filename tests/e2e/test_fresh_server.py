"""A link to a page opened on a server that has not run the app yet (the first visitor after a deploy).

Streamlit decides on its very first script run whether the app is a `app_pages/`-directory app; a link to
/scores must still get the frame (sentence box, model size) around the page, not the page script alone.
"""

from __future__ import annotations

import os
from urllib.parse import urlencode

import pytest

from explorer.model.example import DEFAULT_SENTENCE

pytestmark = pytest.mark.e2e


def test_deep_link_first_visit_gets_the_frame(fresh_app) -> None:
    fresh_app.open("scores", min_charts=3)
    fresh_app.screenshot("fresh-server-scores")
    assert fresh_app.exceptions() == []
    assert fresh_app.sentence_box().count() == 1, "the frame (sentence box) is missing around /scores"
    assert fresh_app.sentence_box().input_value() == DEFAULT_SENTENCE
    sidebar = fresh_app.page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_by_text("Model size").count() == 1


FIVE_LINKS = {  # page -> the sentence its shared link carries (each its own word, to tell them apart)
    "scores": "Alpha birds fly south in winter.",
    "encoder": "Bravo the ship sailed at dawn.",
    "": "Charlie reads a long book.",
    "heads": "Delta rivers meet the sea.",
    "projections": "Echo answers from the hills.",
}


def test_five_shared_links_opened_at_once_on_a_fresh_server_each_get_their_own_example(browser) -> None:  # noqa: ANN001
    """A class opening a link right after the server started: five tabs at once, five different links;
    every one shows its own page inside the frame (sentence box, sidebar), with its own sentence."""
    from tests.e2e.conftest import TIMEOUT, VIEWPORT, App, start_server

    srv = start_server(f"five-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}")
    contexts = [browser.new_context(viewport=VIEWPORT) for _ in FIVE_LINKS]
    try:
        apps = []
        for ctx, (path, sentence) in zip(contexts, FIVE_LINKS.items(), strict=True):
            page = ctx.new_page()
            page.set_default_timeout(TIMEOUT * 1000)
            apps.append(App(page, srv))
            page.goto(f"{srv.url}/{path}?{urlencode({'sentence': sentence})}", wait_until="commit")
            # every request is sent before any page is waited for
        for app, (path, sentence) in zip(apps, FIVE_LINKS.items(), strict=True):
            app.settle(min_charts=1)
            assert app.exceptions() == []
            assert app.sentence_box().count() == 1, f"/{path}: no frame (sentence box)"
            assert app.sentence_box().input_value() == sentence, f"/{path} shows another example"
            sidebar = app.page.locator('[data-testid="stSidebar"]')
            assert sidebar.get_by_text("Model size").count() == 1, f"/{path}: no sidebar"
            assert app.page.url.split("?")[0].rstrip("/") == f"{srv.url}/{path}".rstrip("/")
    finally:
        for ctx in contexts:
            ctx.close()
        srv.stop()
