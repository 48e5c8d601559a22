"""The presenter's clicker: keys that walk the step-through.

A clicker sends → / PageDown / Space for "next" and ← / PageUp for "back". A small keyed st.components.v2
component (no visible content) listens for them on the app's document while presentation mode is on and
follows the step-through's own links ("step-next" / "step-prev", explorer.ui.frame.step_controls), so a key
does exactly what a click on the link does. A step with a walk of its own (/learn's checkpoints) draws
buttons keyed OWN_NEXT / OWN_BACK while there is more of it that way: the keys press those first. Keys typed into a text box, a number box, a select box, a
data editor or a chart that takes the arrow keys (the /model head grid: role "application") are left alone, as are keys with Ctrl, Alt or Meta (the browser's own shortcuts).
A key pressed while the page still draws what the key before asked for (a presenter pressing twice: reveal,
then on) waits for that run to end and then acts on the page as drawn, one action per key.

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

const START_MS = 1500; // a click that started no run within this asked for none
const MAX_HELD = 4; // keys held at most (a presenter's few quick presses)

function typingIn(event) {
  const path = event.composedPath ? event.composedPath() : [event.target];
  return path.some((el) => el instanceof Element && el.matches && el.matches(TYPING));
}

export default function (component) {
  const { data } = component;
  const keys = data || {};
  const doc = window.document;
  const app = () => doc.querySelector('[data-testid="stApp"]');
  const running = () => ['running', 'rerunRequested'].includes((app() || {dataset: {}}).dataset.testScriptState);
  // Keys pressed while the page is still drawing what the last key asked for wait for it, one action per key:
  // mid-run the page still shows the elements of the run before (a Reveal already pressed, the links of the
  // page being left), and a key acting on them would be lost. Kept on the window: it outlives a remount.
  const held = (window.__aeClickerHeld = window.__aeClickerHeld || {keys: [], clickedAt: -1e9});
  const busy = () => running() || performance.now() - held.clickedAt < START_MS;
  const live = (selector) => [...doc.querySelectorAll(selector)].find((el) => !el.closest('[data-stale="true"]'));
  function act(next) {
    const first = [...(keys.run || []), ...(keys.reveal || [])];
    const target = (next && first.map((k) => live(`.st-key-${k} button:not([disabled])`)).find(Boolean)) // run, then reveal
      || live(`.st-key-${next ? keys.own_next : keys.own_back} button:not([disabled])`) // the step's own walk
      || live(`.st-key-${next ? keys.next_link : keys.back_link} a`); // the next or previous step
    if (!target) return false; // the first or last step: nothing that way
    held.clickedAt = performance.now(); // busy until the run it asks for has started (or START_MS passed)
    target.click();
    setTimeout(drain, START_MS + 50);
    return true;
  }
  function drain() { // the keys held, in order, until one asks for a run
    while (!busy() && held.keys.length) if (act(held.keys.shift())) return;
  }
  function onKey(event) {
    if (event.defaultPrevented || event.repeat || event.ctrlKey || event.altKey || event.metaKey) return;
    const next = (keys.next || []).includes(event.key);
    const back = (keys.back || []).includes(event.key);
    if ((!next && !back) || typingIn(event)) return;
    if (busy() || held.keys.length) {
      event.preventDefault(); // Space and PageDown would scroll the page first
      if (held.keys.length < MAX_HELD) held.keys.push(next);
      return;
    }
    if (act(next)) event.preventDefault();
  }
  const watch = new MutationObserver(() => {
    if (running()) held.clickedAt = -1e9; // the run asked for has begun: busy while it runs
    else requestAnimationFrame(drain); // the page drawn: the next key held acts on it
  });
  if (app()) watch.observe(app(), {attributes: true, attributeFilter: ['data-test-script-state']});
  // One listener per document, however often Streamlit calls this (mount, data change).
  if (window.__aeClicker) doc.removeEventListener('keydown', window.__aeClicker, true);
  window.__aeClicker = onKey;
  doc.addEventListener('keydown', onKey, true);
  return () => {
    watch.disconnect();
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
