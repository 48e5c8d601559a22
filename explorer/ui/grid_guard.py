"""Nothing typed into a data editor is lost: a small script, mounted once by the frame.

Three races in Streamlit 1.67's data editor (glide-data-grid, read in streamlit/static/static/js):

1. The cell editor handles every key with a check it runs on a timer (`setTimeout(0)`): "if a move was set
   and the editor is not closed yet, close it, with the value only if THIS key was Enter or Tab". Enter sets
   the move. When Enter arrives before the timers of the keys typed just before it have run (a fast typist,
   a paste then Enter, or any moment the page is busy: the browser serves key events before timers), a digit's
   timer finds the move, closes the editor without the value and marks it closed; Enter's own timer then does
   nothing. The cell keeps its old number and nothing is sent (often, on a loaded machine).
2. The grid sends its edits 150 ms after the last one (a debounce, `setTimeout`), and the timer is cleared when
   the grid is unmounted: Enter, then a click on another page within 150 ms, and the edit is never sent.
3. When the app's new numbers arrive, the grid drops the edits they now contain and sends that, again 150 ms
   later. That message names the page the grid is on: after a click on another page it takes the person back
   (the click is lost instead of the edit).

A paste into a number grid is checked cell by cell (the grid drops "abc", "NaN", "=1+1" silently and reads
"1,5" as 15): a Unicode minus is read as a minus; any other cell that is not a plain number refuses the
whole paste with a message naming the cell (the app checks the range of what arrives).

The guard holds Enter and Tab in a cell editor back for two timer turns (the earlier keys' timers then find no
move and do nothing) and hands the same key to the editor. After an edit it holds a click elsewhere, or a
presenter's next/previous key, until the edit has been sent, its run has finished and the page has sent the
app nothing for a second (the grid's follow-up message has gone: on a loaded machine its 150 ms timer runs
late, so no fixed wait after the run is enough), at most 12 s, then replays it.

The script is ours and static (no user text reaches it). tests/e2e/test_editing.py makes fast edits (10 in CI, 40 under
-m load), some followed at once by navigation, and checks none is lost.
"""

from __future__ import annotations

import functools
from typing import Any

NAME = "attention_explorer.grid_guard"
KEY = "frame.grid_guard"

JS = r"""
export default function () {
  if (window.__attentionGridGuard) return;
  window.__attentionGridGuard = true;

  const SEND_MS = 400; // the grid sends an edit 150 ms after it is made (a debounce); room for a busy page
  const FOLLOW_MS = 1000; // after the new numbers arrive, the grid sends one more message 150 ms later: wait
  //                         until the app has been quiet (no run, nothing sent) this long, timers run late
  //                         on a loaded machine
  const START_MS = 4000; // an edit that started no run within this was not sent (it changed nothing)
  const MAX_HOLD_MS = 12000; // never hold a click longer than this
  const NAV_KEYS = new Set(["ArrowLeft", "ArrowRight", "PageUp", "PageDown", " "]);
  const replayed = new WeakSet();
  const state = (window.__attentionGridGuardState = { deferredEnters: 0, delayedClicks: 0, delayedKeys: 0 });
  let editedAt = -1e9; // the last edit made in a grid (a cell committed, a paste, cells cleared)
  let touchedAt = -1e9; // the last key or click in a grid (an edit may follow)
  let runStartedAt = -1e9;
  let runEndedAt = -1e9;
  let sentAt = -1e9; // the last message the page sent the app (an edit, the grid's follow-up, a click)

  const now = () => performance.now();
  const later = (fn, ms) => setTimeout(fn, Math.max(0, ms));
  const inGrid = (el) =>
    !!(el && el.closest && (el.closest('[data-testid="stDataFrame"]') || el.closest(".gdg-clip-region")));
  const isField = (el) =>
    !!(el && el.closest && el.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']"));
  const stApp = () => document.querySelector('[data-testid="stApp"]');
  const running = () => stApp()?.dataset.testScriptState === "running";

  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (...args) {
    sentAt = now();
    return send.apply(this, args);
  };

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
    return t - Math.max(runEndedAt, sentAt) < FOLLOW_MS;
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

  // 5. A paste into a number grid: the grid drops "abc", "NaN", "=1+1" without a word and reads "1,5" as 15.
  //    Each pasted cell must be a plain number (the app then checks its range and says so): a Unicode minus
  //    (−2) is read as -2; anything else refuses the whole paste, with a message naming the cell.
  const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
  const problem = (text) => {
    if (text === "") return null; // an empty cell clears it: the app says so and keeps its value
    if (NUMBER.test(text)) return Number.isFinite(Number(text)) ? null : "is too large to be a number";
    if (/^[+-]?\d+,\d+$/.test(text)) return "has a decimal comma (write 1.5, not 1,5)";
    if (text.startsWith("=")) return "is a formula (paste its value)";
    return "is not a number";
  };
  const cellText = (grid, col, row) => (grid.querySelector(`#glide-cell-${col}-${row}`)?.innerText ?? "").trim();
  const quote = (text) => "'" + (text.length > 40 ? text.slice(0, 39) + "…" : text) + "'";
  function say(text) {
    let box = document.getElementById("attention-paste-message");
    if (!box) {
      box = document.createElement("div");
      box.id = "attention-paste-message";
      box.setAttribute("role", "alert");
      box.style.cssText =
        "position:fixed;right:1rem;bottom:1rem;z-index:100000;max-width:32rem;padding:0.75rem 2.25rem 0.75rem " +
        "1rem;border-radius:0.5rem;background:#fff4e5;color:#111827;border:1px solid #c2410c;" +
        "box-shadow:0 4px 12px rgba(0,0,0,.25);font:0.95rem/1.4 'Source Sans Pro',sans-serif;";
      const close = document.createElement("button");
      close.textContent = "×";
      close.setAttribute("aria-label", "Close");
      close.style.cssText = "position:absolute;top:0.25rem;right:0.5rem;border:0;background:none;font-size:1.25rem;cursor:pointer";
      close.onclick = () => box.remove();
      box.appendChild(document.createElement("span"));
      box.appendChild(close);
      document.body.appendChild(box);
    }
    box.firstChild.textContent = text; // text, never HTML: it quotes what was pasted
  }
  // The grid reads a paste from navigator.clipboard (read(), else readText()), not from the paste event, and
  // its listener may run before any other: the check sits in those two functions, for a paste into a grid.
  function checked(raw) {
    const focus = document.activeElement;
    const grid = (focus && focus.closest && focus.closest('[data-testid="stDataFrame"]'))
      || document.querySelector('[data-testid="stDataFrame"]:has(td[aria-selected="true"])');
    const at = grid && grid.querySelector('td[aria-selected="true"]');
    const where = at && /^glide-cell-(\d+)-(\d+)$/.exec(at.id);
    if (!where || typeof raw !== "string") return { text: raw };
    const [col0, row0] = [Number(where[1]), Number(where[2])];
    if (["true", "false"].includes(cellText(grid, col0, row0))) return { text: raw }; // a mask: check boxes
    state.pastesChecked = (state.pastesChecked || 0) + 1;
    editedAt = now();
    const plain = raw.replace(/\r?\n$/, "").replace(/\r\n/g, "\n");
    const heads = Array.from(grid.querySelectorAll("thead th")).map((th) => th.innerText.trim());
    const bad = [];
    const text = plain.split("\n").map((line, i) => line.split("\t").map((cell, j) => {
      const clean = cell.replace(/[\u00a0\u2009\u202f]/g, " ").trim().replace(/^\u2212/, "-");
      const no = problem(clean);
      if (no) {
        const r = cellText(grid, 0, row0 + i);
        bad.push(`row ${quote(r)}, column ${quote(heads[col0 + j] ?? "")}: ${quote(cell.trim())} ${no}`);
      }
      return clean;
    }).join("\t")).join("\n");
    if (!bad.length) return { text, fixed: text !== plain };
    state.pastesRefused = (state.pastesRefused || 0) + 1;
    const more = bad.length > 3 ? ` (and ${bad.length - 3} more)` : "";
    say(`Nothing was pasted. ${bad.slice(0, 3).join("; ")}${more}.`);
    return { refused: true };
  }
  const clip = navigator.clipboard;
  if (clip && clip.read) {
    const read = clip.read.bind(clip);
    clip.read = async () => {
      const items = await read();
      const item = items.find((it) => it.types.includes("text/plain"));
      if (!item) return items;
      const got = checked(await (await item.getType("text/plain")).text());
      if (got.refused) return [];
      if (!got.fixed) return items;
      return [new ClipboardItem({ "text/plain": new Blob([got.text], { type: "text/plain" }) })];
    };
  }
  if (clip && clip.readText) {
    const readText = clip.readText.bind(clip);
    clip.readText = async () => {
      const got = checked(await readText());
      return got.refused ? "" : got.text;
    };
  }
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
