"""The teacher's tab keeps its teacher key across a reload, where no student and no projector can see it.

A reload starts a new session, and the key lived in the old one's memory. The key goes neither in the address
(the teacher's address bar is on the projector, and a copied or shared address would carry it) nor in a
cookie (sent with every request, to every tab of the site). It goes in the tab's own sessionStorage: it
survives a reload of that tab, no other tab or site reads it, nothing sends it anywhere, and it is gone when
the tab closes. This small keyed st.components.v2 component (no visible content) writes it while the tab
teaches, removes it when the class ends, and on a page that does not teach reports what it holds once per
page load; the server gives the tab the class back only if the store says the key drives that live class.

The script is ours and static; its only data are the class's code and key, sent to the teacher's own tab.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import streamlit as st

from explorer.classroom import store as cs
from explorer.ui import state

NAME = "attention_explorer.class_keep"
KEY = "class.keep"
MAX_CHARS = 120  # what the tab reports is visitor input: a code, a dot and a key are far shorter

JS = r"""
const SLOT = 'attention-explorer.class';
export default function (component) {
  const d = component.data || {};
  try {
    if (d.keep) { window.sessionStorage.setItem(SLOT, d.keep); return; }
    if (d.drop) { window.sessionStorage.removeItem(SLOT); return; }
    const kept = window.sessionStorage.getItem(SLOT);
    if (kept && !window.__aeClassKept) { // once per page load: a reload's first page
      window.__aeClassKept = true;
      component.setTriggerValue('kept', kept);
    }
  } catch (e) { /* storage is blocked in this browser: a reload starts without the class */ }
}
"""


def keep(store: Callable[[], Any]) -> None:
    """On every run of a presenting or teaching tab (the class bar): write, drop or read back the key. A key
    read back that drives a live class makes this tab the teacher again (the page runs again to show it)."""
    teaching, drop = state.classroom.teaching(), state.classroom.drop_kept()
    if teaching is None and not drop and not state.present():
        return
    data = {"keep": f"{teaching[0]}.{teaching[1]}"} if teaching else {"drop": True} if drop else {}
    result = _component()(key=KEY, data=data, height=0, on_kept_change=_ignore)
    if teaching is None and resume(getattr(result, "kept", None), store):
        st.rerun(scope="app")


def resume(kept: object, store: Callable[[], Any]) -> bool:
    """The tab reported `kept` ("CODE.KEY"): teach that class again if the key drives it; else the tab is
    told to forget it (a class that ended, a key that does not match). Nothing when no class is kept."""
    if not isinstance(kept, str) or not kept or len(kept) > MAX_CHARS or "." not in kept:
        return False
    code, key = kept.split(".", 1)
    code = cs.typed_code(code)
    try:
        ok = bool(code) and store().drives(code, key)
    except Exception:  # noqa: BLE001 - the store is away for a moment: the class stays kept, not resumed
        return False
    if ok:
        state.classroom.set_teaching(code, key)
    else:
        state.classroom.set_drop_kept()
    return ok


def _ignore() -> None:
    """The trigger's callback: the run it starts reads the value (keep)."""


@functools.cache
def _component() -> Any:
    return st.components.v2.component(NAME, js=JS, isolate_styles=False)
