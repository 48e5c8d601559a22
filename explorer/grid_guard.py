"""Nothing typed into a data editor is lost: a small script, mounted once by the frame (issue 14 item 4).

Three races in Streamlit 1.67's data editor (glide-data-grid, read in streamlit/static/static/js):

1. The cell editor handles every key with a check it runs on a timer (`setTimeout(0)`): "if a move was set
   and the editor is not closed yet, close it, with the value only if THIS key was Enter or Tab". Enter sets
   the move. When Enter arrives before the timers of the keys typed just before it have run (a fast typist,
   a paste then Enter, or any moment the page is busy: the browser serves key events before timers), a digit's
   timer finds the move, closes the editor without the value and marks it closed; Enter's own timer then does
   nothing. The cell keeps its old number and nothing is sent (about 1 typed edit in 6 to 8 on a loaded
   machine).
2. The grid sends its edits 150 ms after the last one (a debounce, `setTimeout`), and the timer is cleared when
   the grid is unmounted: Enter, then a click on another page within 150 ms, and the edit is never sent.
3. When the app's new numbers arrive, the grid drops the edits they now contain and sends that, again 150 ms
   later. That message names the page the grid is on: after a click on another page it takes the person back
   (the click is lost instead of the edit).

The guard holds Enter and Tab in a cell editor back for two timer turns (the earlier keys' timers then find no
move and do nothing) and hands the same key to the editor. After an edit it holds a click elsewhere, or a
presenter's next/previous key, until the edit has been sent, its run has finished and the grid's follow-up
message has gone (at most 8 s), then replays it.

The script is ours and static (no user text reaches it). tests/e2e/test_editing.py makes 50 edits, some followed at once by navigation, and checks none is lost.
"""

from __future__ import annotations

import functools
from typing import Any

NAME = "attention_explorer.grid_guard"
KEY = "frame.grid_guard"

JS = """
export default function () {
  if (window.__attentionGridGuard) return;
  window.__attentionGridGuard = true;

  const SEND_MS = 400; // the grid sends an edit 150 ms after it is made (a debounce); room for a busy page
  const FOLLOW_MS = 400; // after the new numbers arrive, the grid sends one more message 150 ms later
  const START_MS = 1500; // an edit that started no run within this was not sent (it changed nothing)
  const MAX_HOLD_MS = 8000; // never hold a click longer than this
  const NAV_KEYS = new Set(["ArrowLeft", "ArrowRight", "PageUp", "PageDown", " "]);
  const replayed = new WeakSet();
  const state = (window.__attentionGridGuardState = { deferredEnters: 0, delayedClicks: 0, delayedKeys: 0 });
  let editedAt = -1e9; // the last edit made in a grid (a cell committed, a paste, cells cleared)
  let touchedAt = -1e9; // the last key or click in a grid (an edit may follow)
  let runStartedAt = -1e9;
  let runEndedAt = -1e9;

  const now = () => performance.now();
  const later = (fn, ms) => setTimeout(fn, Math.max(0, ms));
  const inGrid = (el) =>
    !!(el && el.closest && (el.closest('[data-testid="stDataFrame"]') || el.closest(".gdg-clip-region")));
  const isField = (el) =>
    !!(el && el.closest && el.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']"));
  const stApp = () => document.querySelector('[data-testid="stApp"]');
  const running = () => stApp()?.dataset.testScriptState === "running";

  (function watchRuns() {
    const app = stApp();
    if (!app) return later(watchRuns, 200);
    let was = running();
    new MutationObserver(() => {
      const is = running();
      if (is && !was) runStartedAt = now();
      if (!is && was) runEndedAt = now();
      was = is;
    }).observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] });
  })();

  // Hold a click elsewhere while the last edit is on its way: sent, run, and the grid's follow-up message sent
  // (a message of the old page after a click on another page would take the person back to the old page).
  const busy = () => {
    const t = now();
    if (t - touchedAt < SEND_MS) return true;
    const since = t - editedAt;
    if (since < SEND_MS) return true;
    if (since > MAX_HOLD_MS) return false;
    if (runStartedAt < editedAt) return since < START_MS;
    if (running()) return true;
    return t - runEndedAt < FOLLOW_MS;
  };
  const whenQuiet = (fn) => (busy() ? later(() => whenQuiet(fn), 50) : fn());

  document.addEventListener(
    "keydown",
    (e) => {
      const t = e.target;
      if (replayed.has(e)) {
        if (e.key === "Enter" || e.key === "Tab") editedAt = now();
        return;
      }
      const editing = !!(t && t.classList && t.classList.contains("gdg-input"));
      // 1. Enter or Tab in a cell editor: every key typed before it scheduled a check that runs on a timer and
      //    closes the editor WITHOUT its value once Enter has set the move. Let those timers run first.
      if (editing && (e.key === "Enter" || e.key === "Tab")) {
        if (e.isComposing || e.keyCode === 229) return;
        e.preventDefault();
        e.stopImmediatePropagation();
        const init = {
          key: e.key, code: e.code, location: e.location, shiftKey: e.shiftKey, ctrlKey: e.ctrlKey,
          altKey: e.altKey, metaKey: e.metaKey, bubbles: true, cancelable: true, composed: true,
        };
        state.deferredEnters += 1;
        touchedAt = now();
        later(() =>
          later(() => {
            if (!t.isConnected) return;
            const again = new KeyboardEvent("keydown", init);
            replayed.add(again);
            t.dispatchEvent(again);
          }, 0), 0);
        return;
      }
      // 2. Other keys in a grid: Delete or Backspace on selected cells clears them (an edit); typing opens a
      //    cell editor (an edit may follow).
      if (inGrid(t)) {
        if (!editing && (e.key === "Delete" || e.key === "Backspace")) editedAt = now();
        touchedAt = now();
        return;
      }
      // 3. A presenter's next/previous key while an edit is on its way: once it has arrived.
      if (NAV_KEYS.has(e.key) && !isField(t) && busy()) {
        e.preventDefault();
        e.stopImmediatePropagation();
        state.delayedKeys += 1;
        const init = { key: e.key, code: e.code, shiftKey: e.shiftKey, bubbles: true, cancelable: true, composed: true };
        whenQuiet(() => {
          const again = new KeyboardEvent("keydown", init);
          replayed.add(again);
          (t.isConnected ? t : document.body).dispatchEvent(again);
        });
      }
    },
    true,
  );

  document.addEventListener("paste", (e) => inGrid(e.target) && (editedAt = now()), true);
  document.addEventListener("pointerup", (e) => inGrid(e.target) && (touchedAt = now()), true);

  // 4. A click outside the grid (a page link, a step button, any control) while an edit is on its way: the grid
  //    would be unmounted before it sends, or its follow-up message would take the person back. Replay it later.
  document.addEventListener(
    "click",
    (e) => {
      if (replayed.has(e) || inGrid(e.target) || !busy()) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      state.delayedClicks += 1;
      const t = e.target;
      const init = {
        bubbles: true, cancelable: true, composed: true, view: window, button: e.button, buttons: e.buttons,
        clientX: e.clientX, clientY: e.clientY, screenX: e.screenX, screenY: e.screenY, detail: e.detail,
        shiftKey: e.shiftKey, ctrlKey: e.ctrlKey, altKey: e.altKey, metaKey: e.metaKey,
      };
      // The page may have been redrawn meanwhile: the same element, the same link, else what is there now.
      const link = t.closest && t.closest("a[href]");
      const href = link && link.getAttribute("href");
      whenQuiet(() => {
        let el = t.isConnected ? t : null;
        if (!el && href) el = document.querySelector(`a[href="${CSS.escape(href)}"]`);
        if (!el) el = document.elementFromPoint(init.clientX, init.clientY);
        if (!el) return;
        const again = new MouseEvent("click", init);
        replayed.add(again);
        el.dispatchEvent(again);
      });
    },
    true,
  );
}
"""


def mount() -> None:
    """Install the guard in the page (once per browser tab; the script ignores a second mount)."""
    _component()(key=KEY, height=0)


@functools.cache
def _component() -> Any:
    import streamlit as st

    return st.components.v2.component(NAME, js=JS, isolate_styles=False)
