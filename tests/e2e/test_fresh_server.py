"""A link to a page opened on a server that has not run the app yet (the first visitor after a deploy).

Streamlit decides on its very first script run whether the app is a `app_pages/`-directory app; a link to
/scores must still get the frame (sentence box, model size) around the page, not the page script alone.
"""

from __future__ import annotations

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
