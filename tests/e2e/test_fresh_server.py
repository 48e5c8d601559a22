"""Links opened on a server that has not run the app yet (the first visitors after a deploy).

Streamlit decides on its very first script run whether the app is a `app_pages/`-directory app; a link to
/scores must still get the frame (sentence box, model size) around the page, not the page script alone.
"""

from __future__ import annotations

import os
from urllib.parse import urlencode

import pytest

from explorer.model.example import DEFAULT_SENTENCE

pytestmark = pytest.mark.e2e

# (page, the sentence its shared link carries: each its own word, to tell them apart); None: a plain deep
# link, which shows the default example. The plain deep link is sent first and the front page last, so the
# server's very first script run is a deep link's.
LINKS: list[tuple[str, str | None]] = [
    ("scores", None),
    ("encoder", "Bravo the ship sailed at dawn."),
    ("heads", "Delta rivers meet the sea."),
    ("projections", "Echo answers from the hills."),
    ("scores", "Alpha birds fly south in winter."),
    ("", "Charlie reads a long book."),
]


def test_six_links_opened_at_once_on_a_fresh_server_each_get_the_frame_and_their_example(browser) -> None:  # noqa: ANN001
    """A class opening links right after the server started: six tabs at once, a plain deep link and five
    shared links; every one shows its own page inside the frame (sentence box, sidebar), with its own
    sentence (the plain link: the default one, with its page's charts)."""
    from tests.e2e.conftest import TIMEOUT, VIEWPORT, App, start_server

    srv = start_server(f"fresh-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}")
    contexts = [browser.new_context(viewport=VIEWPORT) for _ in LINKS]
    try:
        apps = []
        for ctx, (path, sentence) in zip(contexts, LINKS, strict=True):
            page = ctx.new_page()
            page.set_default_timeout(TIMEOUT * 1000)
            apps.append(App(page, srv))
            query = f"?{urlencode({'sentence': sentence})}" if sentence is not None else ""
            page.goto(f"{srv.url}/{path}{query}", wait_until="commit")
            # every request is sent before any page is waited for
        for app, (path, sentence) in zip(apps, LINKS, strict=True):
            app.settle(min_charts=1 if sentence is not None else 3)
            if sentence is None:
                app.screenshot("fresh-server-scores")
            assert app.exceptions() == []
            assert app.sentence_box().count() == 1, f"/{path}: no frame (sentence box)"
            want = DEFAULT_SENTENCE if sentence is None else sentence
            assert app.sentence_box().input_value() == want, f"/{path} shows another example"
            sidebar = app.page.locator('[data-testid="stSidebar"]')
            assert sidebar.get_by_text("Model size").count() == 1, f"/{path}: no sidebar"
            assert app.page.url.split("?")[0].rstrip("/") == f"{srv.url}/{path}".rstrip("/")
    finally:
        for ctx in contexts:
            ctx.close()
        srv.stop()
