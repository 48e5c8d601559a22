"""Every page in the pseudo-language (AppTest, one session): every text a page shows (its elements' and its
charts': titles, labels, help, options, messages, axis titles, legends, hover templates) is marked for the
catalogs, or is a token, code, maths, a name or a symbol (tests/app/i18n/pseudo.py). A string shown unmarked
fails the test with its page and its text: mark it (explorer.i18n) and translate it (docs/LANGUAGES.md).

The two-sentence experiments are filled in (a corrupt sentence on /patching, a second one on /minimal-pairs)
so that their controls, charts and words are drawn; the real models' heavy sweeps behind a button are not
run (the words their jobs send are checked by tests/app/compute/test_job_words.py)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from explorer.i18n import languages
from explorer.model import pairs, patching
from explorer.model.example import DEFAULT_SENTENCE
from explorer.ui import page_table, state
from explorer.ui.state.keys import MODEL_DEFAULTS
from tests.app.fixtures import MODEL_TIMEOUT, ROOT, charts
from tests.app.i18n.pseudo import shown_texts, unmarked_words, words_of

CORRUPT = "The cat sat on the rug because it was warm."  # as many tokens as the default sentence
SECOND = "The cat sat on the mat because it was cold."
# The sentences the models read and the example pairs' names (their changed words): tokens, never translated
TOKENS = words_of(
    DEFAULT_SENTENCE,
    CORRUPT,
    SECOND,
    MODEL_DEFAULTS[state.K_OTHER],
    *(s for p in pairs.PAIRS for s in (p.name, p.first, p.second)),
    *(s for p in patching.PAIRS for s in (p.name, p.clean, p.corrupt)),
)


def test_every_page_in_the_pseudo_language_shows_no_word_unmarked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(languages.ENV, "en,xx")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=MODEL_TIMEOUT)
    at.query_params["lang"] = "xx"
    at.session_state[state.K_PATCH_CORRUPT] = CORRUPT
    at.session_state[state.K_PAIR_OTHER] = SECOND
    at.run()
    assert not at.exception, at.exception
    left: dict[str, list[str]] = {}
    shown = 0
    for page in page_table.listed():
        at.switch_page(page.script).run()
        assert not at.exception, (page.url_path, at.exception)
        texts = shown_texts(at)
        shown += len(texts)
        unmarked = sorted({t[:200] for t in texts if unmarked_words(t, TOKENS)})
        if unmarked:
            left[page.url_path or "/"] = unmarked
        if page.url_path == "model":  # tick labels are tokens elsewhere; on the grid, its heads and layers
            grid = charts(at)["model.grid"]["layout"]
            ticks = [*grid["xaxis"]["ticktext"], *grid["yaxis"]["ticktext"]]
            assert ticks and all(unmarked_words(t) == "" for t in ticks), ticks
    assert shown > 40 * len(page_table.listed())  # the pages were read: every one shows dozens of texts
    assert left == {}, "shown unmarked:\n" + "\n".join(f"{p}: {t!r}" for p, ts in left.items() for t in ts)
