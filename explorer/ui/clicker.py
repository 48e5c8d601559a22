"""The presenter's clicker: keys that walk the step-through.

A clicker sends → / PageDown / Space for "next" and ← / PageUp for "back". A small keyed st.components.v2
component (no visible content) listens for them on the app's document while presentation mode is on and
follows the step-through's own links ("step-next" / "step-prev", explorer.ui.frame.step_controls), so a key
does exactly what a click on the link does. A step with a walk of its own (/learn's checkpoints) draws
buttons keyed OWN_NEXT / OWN_BACK while there is more of it that way: the keys press those first. Keys typed into a text box, a number box, a select box, a
data editor or a chart that takes the arrow keys (the /model head grid: role "application") are left alone, as are keys with Ctrl, Alt or Meta (the browser's own shortcuts).

The script is ours and static (no user text reaches it): NEXT_KEYS / BACK_KEYS below are its only data.
"""

from __future__ import annotations

import functools
import json
from typing import Any

NAME = "attention_explorer.clicker"
KEY = "frame.clicker"
NEXT_KEYS = ("ArrowRight", "PageDown", " ")
BACK_KEYS = ("ArrowLeft", "PageUp")
NEXT_LINK = "step-next"  # the st.container keys of the step-through's links
BACK_LINK = "step-prev"
# A step that walks through something of its own (/learn's checkpoints) draws buttons with these keys while
# there is more to walk through that way: the keys press them before they follow the step-through's links.
OWN_NEXT = "clicker-next"
OWN_BACK = "clicker-back"
# The keys of the Reveal buttons "next" presses first, in this order: a lesson's question (its Reveal also
# shows the page's hidden weights: explorer.ui.lesson_ui), then a page's own (explorer.ui.questions.question_hides).
REVEAL = ("lesson-reveal", "reveal")
# The keys of the buttons that run a step's experiment, pressed before any Reveal: presenting with the clicker
# alone, "next" runs the patching (explorer.ui.patching_ui.RUN), then reveals the answer, then moves on.
RUN = ("patching-run",)

JS = """
const TYPING = 'input, textarea, select, [contenteditable=""], [contenteditable="true"], [role="textbox"], '
  + '[role="combobox"], [role="listbox"], [data-testid="stDataFrame"], [data-testid="stDataFrameResizable"], '
  + '.gdg-overlay-editor, #portal, [role="application"]';

function typingIn(event) {
  const path = event.composedPath ? event.composedPath() : [event.target];
  return path.some((el) => el instanceof Element && el.matches && el.matches(TYPING));
}

export default function (component) {
  const { data } = component;
  const keys = data || {};
  const doc = window.document;
  function onKey(event) {
    if (event.defaultPrevented || event.repeat || event.ctrlKey || event.altKey || event.metaKey) return;
    const next = (keys.next || []).includes(event.key);
    const back = (keys.back || []).includes(event.key);
    if ((!next && !back) || typingIn(event)) return;
    const first = [...(keys.run || []), ...(keys.reveal || [])];
    const reveal = next && first.map((k) => doc.querySelector(`.st-key-${k} button:not([disabled])`)).find(Boolean);
    if (reveal) { // run the experiment, predict, then reveal: "next" presses these first
      event.preventDefault();
      reveal.click();
      return;
    }
    const own = doc.querySelector(`.st-key-${next ? keys.own_next : keys.own_back} button:not([disabled])`);
    if (own) { // the step's own walk (a training run's checkpoints) before the next step
      event.preventDefault();
      own.click();
      return;
    }
    const link = doc.querySelector(`.st-key-${next ? keys.next_link : keys.back_link} a`);
    if (!link) return; // the first or last step: nothing that way
    event.preventDefault(); // Space and PageDown would scroll the page first
    link.click();
  }
  // One listener per document, however often Streamlit calls this (mount, data change).
  if (window.__aeClicker) doc.removeEventListener('keydown', window.__aeClicker, true);
  window.__aeClicker = onKey;
  doc.addEventListener('keydown', onKey, true);
  return () => {
    doc.removeEventListener('keydown', onKey, true);
    if (window.__aeClicker === onKey) window.__aeClicker = null;
  };
}
"""


def listen() -> None:
    """Mount the (invisible) key listener: call it on every run while presenting, never otherwise (when it
    is not mounted, its clean-up removes the listener)."""
    data = {
        "next": list(NEXT_KEYS),
        "back": list(BACK_KEYS),
        "next_link": NEXT_LINK,
        "back_link": BACK_LINK,
        "reveal": list(REVEAL),
        "run": list(RUN),
        "own_next": OWN_NEXT,
        "own_back": OWN_BACK,
    }
    _component()(key=KEY, data=json.loads(json.dumps(data)), height=0)


@functools.cache
def _component() -> Any:
    import streamlit as st

    return st.components.v2.component(NAME, js=JS, isolate_styles=False)
