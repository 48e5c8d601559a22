"""The settings table and the page table: each idea declared once, read everywhere.

The throwaway test adds one row to each table (and the setting's field to Example), in a fresh interpreter
(the tables are read when the modules are imported, as a real new row would be), and finds the new setting in the Example, its widget, the link
and the JSON file, and the new page in the navigation, the step-through and the pipeline map; a row marked
listed=False stays unreachable.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import fields
from pathlib import Path

from explorer.model import settings_table as table
from explorer.model.example import MATRIX_NAMES, Example
from explorer.ui import page_table, present

ROOT = Path(__file__).resolve().parents[3]


def test_every_setting_row_is_complete_and_unique() -> None:
    assert [f.name for f in fields(Example)] == [*table.names(), *MATRIX_NAMES]
    for attr in ("name", "key", "param", "label"):
        values = [getattr(s, attr) for s in table.SETTINGS]
        assert len(set(values)) == len(values), f"two settings share a {attr}"
    for s in table.SETTINGS:
        assert s.kind in table.KINDS and s.widget, s.name
        assert getattr(Example(), s.name) == s.default and isinstance(s.default, s.pytype), s.name
        if s.kind in ("int", "float"):
            lo, hi = s.bounds
            assert lo <= s.default <= hi, s.name
        if s.kind == "choice":
            assert s.default in s.choices and set(s.titles) == set(s.choices), s.name
    assert table.row("window").bounds == (1, table.MAX_TOKENS)  # the window bound is the token limit


def test_every_page_row_is_complete_and_unique() -> None:
    rows = page_table.PAGES
    assert len({p.url_path for p in rows}) == len(rows) and len({p.title for p in rows}) == len(rows)
    for p in rows:
        assert (ROOT / p.script).is_file() and p.steps and p.summary, p.script
        assert all(s.url_path == p.url_path for s in p.steps)
    names = [s.name for s in page_table.steps()]
    assert len(set(names)) == len(names)
    assert page_table.steps() == present.STEPS
    assert page_table.by_path("why-scale").title == "Why divide by √d_k?"  # one title per page


THROWAWAY = r"""
import json, sys
from urllib.parse import parse_qsl

sys.path.insert(0, ROOT)
from dataclasses import dataclass
from explorer.model import settings_table as table
from explorer.model import example

# One new setting and two new pages: one row each (and a page script), and the setting's field in Example
# (declared there, typed; its default read from the row), nothing else.
table.SETTINGS = (*table.SETTINGS, table.Setting(
    name="zz_knob", kind="int", default=3, key="test.knob", param="knob", label="test knob", widget="Knob",
    help="A throwaway setting.", bounds=(1, 9)))

@dataclass(frozen=True, eq=False)
class Example(example.Example):
    zz_knob: int = example._default("zz_knob")

example.Example = Example
from explorer.ui import page_table
Step = page_table.Step
page_table.PAGES = (*page_table.PAGES,
    page_table.page(SCRIPT, "throwaway", "Throwaway", ":material/science:", "a throwaway row",
                    (Step("throwaway", "Throwaway step", "Look at the knob."),), section="Extra"),
    page_table.page(HIDDEN, "hidden", "Hidden", ":material/science:", "a half-built page",
                    (Step("hidden", "Hidden step", "Not yet."),), listed=False))

from streamlit.testing.v1 import AppTest
from explorer import sharing
from explorer.sharing import url as links

from explorer.model.example import Example, conform

out = {}
at = AppTest.from_file(ROOT + "/app.py", default_timeout=60).run()
assert not at.exception, at.exception
out["map"] = [p.proto.label for p in at.get("page_link")]
out["default"] = at.session_state["test.knob"]
at.switch_page(SCRIPT).run()
assert not at.exception, at.exception
out["title"] = [t.value for t in at.title]
out["step"] = [c.value for c in at.caption if c.value.startswith("Step ")]
out["prev"] = [p.proto.label for p in at.get("page_link") if p.proto.label.startswith("← ")]
knob = at.number_input(key="test.knob")
out["widget"] = [knob.label, knob.min, knob.max, knob.help]
knob.set_value(7).run()
at.session_state["share.panel"] = True  # Share and export opened (state.K_SHARE_OPEN)
at.run()
out["link_in_panel"] = [c.value for c in at.code if "knob=" in c.value]
try:
    at.switch_page(HIDDEN)
    out["hidden"] = "reached"
except ValueError as e:  # AppTest knows only the pages st.navigation registered
    out["hidden"] = str(e)

query = links.query(conform(Example(zz_knob=7)))
params = dict(parse_qsl(query))
out["link"] = params["knob"]
out["from_link"] = sharing.from_params(params, Example())[0].zz_knob
bad, msgs = sharing.from_params({**params, "knob": "99"}, Example())
out["bad_link"] = [bad.zz_knob, msgs]
doc = json.loads(sharing.to_json(conform(Example(zz_knob=8))))
out["json"] = doc["settings"]["zz_knob"]
out["from_json"] = sharing.from_json(json.dumps(doc)).zz_knob
opened = AppTest.from_file(ROOT + "/app.py", default_timeout=60)
opened.query_params["knob"] = "5"
opened.run()
out["opened"] = opened.session_state["test.knob"]
print("RESULT" + json.dumps(out))
"""


def test_a_throwaway_setting_and_page_are_found_everywhere(tmp_path: Path) -> None:
    script, hidden = tmp_path / "throwaway.py", tmp_path / "hidden.py"
    script.write_text(
        textwrap.dedent("""
        import streamlit as st
        from explorer.ui import state, widgets as ui
        state.init()
        st.title("Throwaway page", anchor=False)
        ui.setting("zz_knob")
        """),
        encoding="utf-8",
    )
    hidden.write_text('import streamlit as st\nst.title("Hidden page", anchor=False)\n', encoding="utf-8")
    code = f"ROOT = {str(ROOT)!r}\nSCRIPT = {str(script)!r}\nHIDDEN = {str(hidden)!r}\n" + THROWAWAY
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT")]
    assert lines, done.stdout[-2000:] + done.stderr[-4000:]
    got = json.loads(lines[0][len("RESULT") :])
    n = len(page_table.listed()) + 1
    # the page: in the pipeline map (last), the navigation (it opens), the step-through (last step)
    assert f"{n}. Throwaway" in got["map"] and not any("Hidden" in m for m in got["map"])
    assert got["title"] == ["Throwaway page"]
    assert got["step"] == [f"Step {n} of {n}: Throwaway"]  # the sidebar's count: one more page
    assert got["prev"] == [f"← {page_table.listed()[-1].title}"]  # off the projector: the page before it
    # the unlisted page cannot be reached: st.navigation did not register it
    assert got["hidden"].startswith("Could not find a navigation page") and "throwaway.py" in got["hidden"]
    # the setting: state, its widget (bounds and help from its row), the link (both ways), the JSON file
    assert got["default"] == 3
    assert got["widget"] == ["Knob", 1, 9, "A throwaway setting."]
    assert got["link_in_panel"] and all("knob=7" in link for link in got["link_in_panel"])
    assert got["link"] == "7" and got["from_link"] == 7
    assert got["bad_link"][0] == 3
    assert got["bad_link"][1] == ["The link's test knob must be between 1 and 9, not 99. Kept test knob = 3."]
    assert got["json"] == 8 and got["from_json"] == 8
    assert got["opened"] == 5
