"""Links and JSON files saved at commit 0ee9514 open the same example, now and after any change of the app's
defaults (the dependence of old links on the seeded defaults, made explicit).

tests/app/sharing/saved/<case>.json holds what the explorer writes with the defaults of commit 0ee9514 (before the seeding was frozen)
for one example: its link's query string, its JSON file, and the example both must open (every setting and
every matrix, exact). A link or a file lists only what differs from the seeded matrices of scheme 1
(explorer.model.seeding), so the test also opens them with other app defaults in place.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer import sharing
from explorer.model import example as exm
from explorer.model import seeding
from explorer.model import settings_table as table
from explorer.model.example import MATRIX_NAMES, Example

ROOT = Path(__file__).resolve().parents[3]
CASES = sorted((Path(__file__).parent / "saved").glob("*.json"))
NAMES = [p.stem for p in CASES]


def saved(name: str) -> dict:
    return json.loads((Path(__file__).parent / "saved" / f"{name}.json").read_text("utf-8"))


def params_of(query: str) -> dict[str, str]:
    return dict(parse_qsl(query, keep_blank_values=True))


def assert_opens(ex: Example, opens: dict) -> None:
    """Every saved setting and every matrix, bit for bit (a setting added later keeps its default; a matrix
    added later, a real layer's biases, is empty in the toy model these were saved from)."""
    got = sharing.plain_settings(ex)
    assert {k: got[k] for k in opens["settings"]} == opens["settings"]
    for name in MATRIX_NAMES:
        if name not in opens["matrices"]:
            assert getattr(ex, name).size == 0, name
            continue
        want = np.array(opens["matrices"][name], dtype=bool if name == "custom_mask" else np.float64)
        have = np.asarray(getattr(ex, name))
        assert have.shape == want.shape and have.dtype == want.dtype, name
        assert sharing.same(np.ascontiguousarray(have), want.reshape(have.shape)), name


def test_the_fixtures_cover_every_kind_of_record() -> None:
    assert len(CASES) >= 10
    links = [saved(n)["query"] for n in NAMES]
    assert sum("&s=" in q for q in links) >= 8  # edited, re-randomized, resized, preset matrices
    assert any("&s=" not in q for q in links)  # settings only: every matrix seeded


@pytest.mark.parametrize("name", NAMES)
def test_a_saved_link_opens_the_same_example(name: str) -> None:
    doc = saved(name)
    ex, messages = sharing.from_params(params_of(doc["query"]), Example())
    assert messages == []
    assert_opens(ex, doc["opens"])


@pytest.mark.parametrize("name", NAMES)
def test_a_saved_json_file_opens_the_same_example(name: str) -> None:
    doc = saved(name)
    assert_opens(sharing.from_json(doc["json"]), doc["opens"])


@pytest.fixture
def other_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's defaults changed (another seed stream, another scale): what reset and conform now give."""

    def changed(ex, tokens, draws=None):  # noqa: ANN001, ANN202
        mats = seeding.matrices(ex.with_(seed=ex.seed + 1), tokens, draws)
        return {k: (v if v.dtype == bool else 2.0 * v + 0.5) for k, v in mats.items()}

    monkeypatch.setattr(exm, "default_matrices", changed)
    ex = Example()
    assert not np.array_equal(exm.default_matrices(ex, ["a"])["w_q"], seeding.matrices(ex, ["a"])["w_q"])


@pytest.mark.parametrize("name", NAMES)
def test_saved_links_and_files_do_not_follow_the_app_defaults(name: str, other_defaults: None) -> None:
    doc = saved(name)
    ex, messages = sharing.from_params(params_of(doc["query"]), Example())
    assert messages == []
    assert_opens(ex, doc["opens"])
    assert_opens(sharing.from_json(doc["json"]), doc["opens"])


@pytest.mark.parametrize("name", NAMES)
def test_links_written_today_are_the_saved_ones(name: str) -> None:
    """The writer has not changed either: the same example gives the same link (and so opens the same)."""
    doc = saved(name)
    ex = sharing.from_json(doc["json"])
    draws = json.loads(doc["json"])["draws"]
    assert sharing.to_params(ex, draws) == params_of(doc["query"])


def test_the_seeding_blocks_cover_every_size_a_setting_allows() -> None:
    """Scheme 1 draws its blocks at these sizes: a larger bound needs a new scheme (and link format)."""
    assert table.MAX_D_MODEL <= seeding.BLOCK_D_MODEL
    assert table.MAX_D_K <= seeding.BLOCK_D_K
    assert table.MAX_D_FF <= seeding.BLOCK_D_FF


@pytest.mark.parametrize("name", ["edited-matrix", "resized-after-edit", "preset-me-gusta"])
def test_the_app_opens_a_saved_link(name: str) -> None:
    doc = saved(name)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for key, value in params_of(doc["query"]).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    settings = {s.name: at.session_state[s.key] for s in table.SETTINGS}
    ex = Example(**settings, **at.session_state["m.matrices"])
    assert_opens(ex, doc["opens"])
