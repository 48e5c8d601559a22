"""Browser tests: `streamlit run app.py` on a free localhost port, driven by a real headless Chromium.

The browser: $CHROMIUM_PATH, else the system's /usr/bin/chromium(-browser), else Playwright's own. With
none of them, the tests are skipped on a workstation and fail in CI (the CI variable is set).
Screenshots and the server's log land in test-output/ (not committed).
"""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
import time
import urllib.request
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Page

from explorer import i18n
from explorer.i18n import languages

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test-output"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1920, "height": 1080}
LAPTOP = {"width": 1280, "height": 800}
TIMEOUT = float(os.environ.get("E2E_TIMEOUT", "120"))  # seconds for one page to settle (a loaded CI box)


# ------------------------------------------------------------------------------------------- browser


def system_chromium() -> str | None:
    for path in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if path and os.access(path, os.X_OK):
            return path
    return None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict, browser_type: Any) -> dict:
    """Headless Chromium: the system's where there is one, else Playwright's own; none: skip, or fail in CI."""
    path = system_chromium()
    if path is None and not Path(browser_type.executable_path).exists():
        why = (
            "no Chromium for the browser tests: set CHROMIUM_PATH, install Debian's `chromium`, "
            "or run `.venv/bin/python -m playwright install chromium` (bash scripts/test.sh does this)"
        )
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    args = {**browser_type_launch_args, "headless": True, "args": CHROMIUM_ARGS}
    if path is not None:
        args["executable_path"] = path
    return args


@pytest.fixture(scope="session")
def base_url() -> None:
    """No base URL: every test opens the full address of its own server (Server.url).

    Defined here because pytest-playwright's own fallback (used when pytest-base-url is not installed) is a
    session fixture written as an instance method, which pytest deprecates (PytestRemovedIn10Warning, an
    error in pyproject.toml); this one takes its place.
    """
    return None


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    return {**browser_context_args, "viewport": VIEWPORT}


# -------------------------------------------------------------------------------------------- server


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    proc: subprocess.Popen
    log: Path

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)

    def log_tail(self, n: int = 60) -> str:
        lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        return "\n".join(lines[-n:])


# The languages the browser tests' servers offer: every language with a catalog, whether or not it is offered
# to visitors by default yet (explorer.i18n.languages.DEFAULT_OFFERED), so a lesson can be run in each.
LANGUAGES = ",".join(row.code for row in i18n.LANGUAGES if row.code != i18n.PSEUDO)


def start_server(name: str, entry: str = "app.py", env: dict[str, str] | None = None) -> Server:
    """`streamlit run app.py` (or `entry`: server.py) on a free port, with this environment and `env`;
    returns once /_stcore/health answers "ok"."""
    OUT.mkdir(exist_ok=True)
    env = {**os.environ, languages.ENV: os.environ.get(languages.ENV, LANGUAGES), **(env or {})}
    for _attempt in range(3):  # a port taken between free_port() and the bind: try another
        port = free_port()
        log = OUT / f"streamlit-{name}.log"
        cmd = [
            sys.executable, "-m", "streamlit", "run", entry,
            "--server.headless", "true",
            "--server.port", str(port),
            "--server.address", "127.0.0.1",
            "--server.fileWatcherType", "none",
            "--browser.gatherUsageStats", "false",
        ]  # fmt: skip
        with log.open("w", encoding="utf-8") as fh:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT)
        server = Server(f"http://127.0.0.1:{port}", proc, log)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=2) as r:
                    if r.read().decode().strip() == "ok":
                        return server
            except OSError:
                time.sleep(0.2)
        if proc.poll() is None:
            server.stop()
            pytest.fail(f"streamlit did not become healthy in 90 s:\n{server.log_tail()}")
    pytest.fail(f"streamlit could not start:\n{server.log_tail()}")


@pytest.fixture(scope="session")
def server(browser: Any) -> Iterator[Server]:
    """One app server per test worker, warmed by one visit to the front page (links opened on a server
    that has not run the app yet: tests/e2e/test_fresh_server.py)."""
    srv = start_server(os.environ.get("PYTEST_XDIST_WORKER", "main"))
    ctx = browser.new_context(viewport=VIEWPORT)
    try:
        App(ctx.new_page(), srv).open("")
    finally:
        ctx.close()
    yield srv
    srv.stop()


# ---------------------------------------------------------------------------------- driving the app

# Counts, in the page, the runs the app was asked for and the runs it finished (a run counter, not a timer):
# every BackMsg the tab sends that asks for a run (rerun_script, field 11) takes the next number; a run covers
# the numbers sent before it started (new_session, ForwardMsg field 4) and counts once it finishes
# (script_finished, field 6) other than early for another run (status 2). Installed before the app's own
# scripts on every page load (App.__init__), so it sees the WebSocket from its first message.
_RUN_COUNTER = """(() => {
  const runs = (window.__explorerRuns = {asked: 0, covered: 0, started: 0, finished: 0});
  const fields = (data) => {  // the top-level fields of a protobuf message: [number, varint value or null]
    const b = data instanceof ArrayBuffer ? new Uint8Array(data)
      : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : null;
    const out = [];
    if (!b) return out;
    let i = 0;
    const varint = () => { let x = 0, s = 1, c; do { c = b[i++]; x += (c & 0x7f) * s; s *= 128; } while (c & 0x80); return x; };
    while (i < b.length) {
      const tag = varint(), kind = tag % 8;
      if (kind === 0) { out.push([Math.floor(tag / 8), varint()]); continue; }
      out.push([Math.floor(tag / 8), null]);
      if (kind === 2) i += varint(); else if (kind === 1) i += 8; else if (kind === 5) i += 4; else break;
    }
    return out;
  };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (fields(data).some(([n]) => n === 11)) runs.asked += 1;
    return send.call(this, data);
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        for (const [n, value] of fields(event.data)) {
          if (n === 4) runs.started = runs.asked;
          if (n === 6 && value !== 2) { runs.covered = runs.started; runs.finished += 1; }
        }
      });
    }
  };
})();"""

# Settled: every run asked for has finished (by the counter above, where it is installed), and the page shows
# it: connected, not running, nothing still loading.
_SETTLED = """() => {
  const runs = window.__explorerRuns;
  const app = document.querySelector('[data-testid="stApp"]');
  return (!runs || (runs.finished > 0 && runs.covered >= runs.asked))
    && !!app && app.dataset.testScriptState === 'notRunning'
    && app.dataset.testConnectionState === 'CONNECTED'
    && !document.querySelector('[data-testid="stSkeleton"]')
    && !document.querySelector('[data-testid="stStatusWidget"] [data-testid="stStatusWidgetRunningIcon"]');
}"""

# The page has stopped moving: the main column's blocks sit where they sat one frame before (charts drawn,
# formulas typeset, editors mounted), read twice, two animation frames apart.
_STILL = """async () => {
  const spots = () => JSON.stringify([...document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stVerticalBlock"] > div')].map(e => {
      const r = e.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.height)]; }));
  const before = spots();
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  return spots() === before;
}"""

_EDITING = "() => !!document.activeElement && document.activeElement.classList.contains('gdg-input')"

_CHARTS = """() => {
  const plain = (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
  const out = {};
  document.querySelectorAll('.js-plotly-plot').forEach((el, i) => {
    const holder = el.closest('[class*="st-key-"]');
    const cls = holder ? [...holder.classList].find(c => c.startsWith('st-key-')) : null;
    const key = cls ? cls.slice('st-key-'.length) : `chart-${i}`;
    const data = el.data.map(t => ({type: t.type, x: t.x, y: t.y, z: t.z, text: t.text, name: t.name, meta: t.meta}));
    const l = el.layout;
    out[key] = JSON.parse(JSON.stringify({data, layout: {title: l.title, xaxis: l.xaxis, yaxis: l.yaxis,
      annotations: l.annotations, meta: l.meta}}, plain));
  });
  return out;
}"""


def array_of(value: Any) -> np.ndarray:
    """A Plotly data array as numpy: (nested) lists, or the typed-array dict {dtype, bdata, shape}."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if value.get("shape"):
            arr = arr.reshape([int(s) for s in str(value["shape"]).split(",")])
        return arr.astype(np.float64)
    if isinstance(value, dict):  # a typed array that JSON wrote as {"0": .., "1": ..}
        value = [value[str(i)] for i in range(len(value))]
    return np.array(
        [array_of(v) if isinstance(v, list | dict) else (np.nan if v is None else v) for v in value],
        dtype=np.float64,
    )


_COUNTED: weakref.WeakSet[Page] = weakref.WeakSet()  # the tabs the run counter is installed in


class App:
    """One browser tab on the app: open pages, wait for it to settle, read charts, type, navigate."""

    def __init__(self, page: Page, server: Server) -> None:
        self.page, self.server = page, server
        self.link: dict[str, str] | None = None  # the link the tab's session was opened with by visit()
        self.listeners: list[tuple[str, Callable[..., Any]]] = []  # listen(): removed by forget()
        if page not in _COUNTED:
            page.add_init_script(_RUN_COUNTER)  # before the next page load's own scripts
            _COUNTED.add(page)

    def listen(self, event: str, handler: Callable[..., Any]) -> None:
        """page.on(event, handler), for as long as this App has the tab (forget() removes it)."""
        self.page.on(event, handler)
        self.listeners.append((event, handler))

    def forget(self) -> None:
        """Leave the tab as a new one starts: blank, 1920x1080 in light colours, nothing stored, no cookie
        or permission, none of this App's listeners (the `app` fixture hands the tab to the next test)."""
        for event, handler in self.listeners:
            self.page.remove_listener(event, handler)
        self.listeners.clear()
        if self.page.url.startswith(self.server.url):
            self.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        self.page.goto("about:blank")
        self.page.set_viewport_size(VIEWPORT)
        self.page.emulate_media(color_scheme="light")
        self.page.context.clear_cookies()
        self.page.context.clear_permissions()

    def poll(self, js: str, arg: Any = None, timeout: float = TIMEOUT, what: str = "") -> Any:
        """Evaluate `js` until it returns something truthy. Polls from Python: Playwright's own
        wait_for_function slowed this app's lazy loading down several times over on a loaded machine."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.page.evaluate(js, arg)
            if value:
                return value
            if time.monotonic() > deadline:
                self.page.screenshot(path=str(OUT / "timeout.png"))
                raise AssertionError(f"timed out waiting for {what or js[:80]}\n{self.server.log_tail(30)}")
            self.page.wait_for_timeout(50)  # a wait is over within a frame or so of its signal

    def settle(self, min_charts: int = 0) -> None:
        """Wait until every run the tab has asked for has finished, at least `min_charts` charts are on the
        page, nothing is loading and the page has stopped moving (positive signals only: the run counter,
        the DOM, two animation frames alike).

        A run the app is asked for later (a grid sends its edits 150 ms after the last one) is not waited
        for: after an action, wait for its visible effect first (wait_labels, wait_chart_change, a poll on
        the DOM), or use the helpers that wait until the action's request has gone (type_sentence), then
        settle.
        """
        self.poll(_SETTLED, what="the app to finish running")
        if min_charts:
            self.poll(
                "n => document.querySelectorAll('.js-plotly-plot').length >= n",
                min_charts,
                what=f"{min_charts} charts",
            )
        self.poll(_STILL, what="the page to stop moving")
        self.poll(_SETTLED, what="the app to finish running")

    def wait_run_over(self) -> None:
        """Wait until the script run has finished (no fixed wait: for a run an action is known to have begun)."""
        self.poll(_SETTLED, what="the run to finish")

    def open(self, path: str, min_charts: int = 1, **query: str) -> App:
        from urllib.parse import urlencode

        url = f"{self.server.url}/{path}" + (f"?{urlencode(query)}" if query else "")
        self.link = None  # a session of its own (visit)
        self.page.goto(url)
        self.settle(min_charts)
        return self

    def charts(self) -> dict[str, dict[str, Any]]:
        return self.page.evaluate(_CHARTS)

    def chart(self, key: str) -> dict[str, Any]:
        """A chart by its Streamlit key, dots written as dashes (the st-key-... class): "scores-weights"."""
        charts = self.charts()
        assert key in charts, f"no chart {key!r}; the page has {sorted(charts)}"
        return charts[key]

    def z(self, key: str, trace: int = 0) -> np.ndarray:
        """The numbers chart `key` draws (trace `trace`), as float64 (masked cells are NaN)."""
        return array_of(self.chart(key)["data"][trace]["z"])

    def labels(self, key: str, axis: str = "yaxis") -> list[str]:
        return list(self.chart(key)["layout"][axis]["ticktext"])

    def wait_labels(self, key: str, labels: list[str]) -> None:
        js = """([key, want]) => {
          const el = document.querySelector(`.st-key-${key} .js-plotly-plot`);
          const got = el && el.layout.yaxis && el.layout.yaxis.ticktext;
          return !!got && JSON.stringify(Array.from(got)) === JSON.stringify(want);
        }"""
        self.poll(js, [key, labels], what=f"chart {key} to show rows {labels}")
        self.settle()

    def after_a_marker_run(self, word: str = "zzmarker") -> None:
        """Add `word` to the sentence, press Enter and wait until some chart shows it: every key, click or
        rerun sent before has then been handled (one session's events and runs go in order), so a test can
        assert that they changed nothing, without a fixed wait."""
        box = self.sentence_box()
        box.click()
        box.press("End")
        box.type(f" {word}")
        box.press("Enter")
        js = """w => Array.from(document.querySelectorAll('.js-plotly-plot')).some(el =>
          ['xaxis', 'yaxis'].some(a => el.layout && el.layout[a] && Array.from(el.layout[a].ticktext || [])
            .some(t => String(t).includes(w))))"""
        self.poll(js, word, what=f"a chart showing {word!r}")
        self.wait_run_over()

    def exceptions(self) -> list[str]:
        return self.page.locator('[data-testid="stException"]').all_inner_texts()

    def sentence_box(self):  # noqa: ANN201 - a Playwright Locator
        return self.page.locator('[data-testid="stTextInput"] input[aria-label="Sentence"]')

    def runs_asked(self) -> int | None:
        """How many runs this tab has asked the app for (the run counter; None where it is not installed)."""
        return self.page.evaluate("() => window.__explorerRuns ? window.__explorerRuns.asked : null")

    def type_sentence(self, text: str) -> None:
        """Type `text` into the sentence box and press Enter; returns once the tab has asked for the run
        (when the text differs from what the box held)."""
        box = self.sentence_box()
        asked, held = self.runs_asked(), box.input_value()
        box.click()
        box.press("Control+A")
        box.fill(text)
        box.press("Enter")
        if asked is not None and text != held:
            self.poll(
                "n => window.__explorerRuns.asked > n", asked, what="the sentence's run to be asked for"
            )

    def visit(self, path: str, min_charts: int = 1, link: dict[str, str] | None = None, **query: str) -> App:
        """Open /path?query in this tab's session, as the browser's back and forward buttons do: Streamlit
        follows the history's address without loading the page again (a page load boots the whole frontend
        again: seconds of a 2-core machine). `link` holds what the app reads once per session (the example,
        the model, presenting, the language: explorer.ui.frame.read_url): a tab whose session was not opened
        by visit() with this very link opens it with a page load; the page's own (step=, lesson=) are read
        on every arrival. Cases that share a link, run one after the other, share one page load."""
        from urllib.parse import urlencode

        link = dict(link or {})
        if link != self.link or self.page.url in ("about:blank", ""):
            self.open(path, min_charts, **link, **query)
            self.link = link
            return self
        url = f"/{path}?" + urlencode({**link, **query})
        asked = self.runs_asked()
        # At the top of the page, as a page load starts (a test before may have scrolled it).
        self.page.evaluate(
            """u => { document.querySelectorAll('[data-testid="stMain"]').forEach(m => m.scrollTo(0, 0));
              window.scrollTo(0, 0);
              history.pushState(null, '', u); window.dispatchEvent(new PopStateEvent('popstate')); }""",
            url,
        )
        self.poll("n => window.__explorerRuns.asked > n", asked, what=f"the run of {url} to be asked for")
        self.settle(min_charts)
        return self

    def go(self, url_path: str, min_charts: int = 1) -> None:
        """Navigate inside the session (the sidebar's page link), as a person does; a blank tab opens the
        front page first."""
        if self.page.url in ("about:blank", ""):
            self.open("", min_charts=0)
        self.page.locator(f'.st-key-nav a[href="{url_path}"]').click()  # explorer.ui.frame.navigation
        self.poll(
            "p => location.pathname.replace(/\\/+$/, '') === (p ? '/' + p : '')",
            url_path,
            what=f"/{url_path}",
        )
        self.settle(min_charts)

    def editor(self, index: int = 0):  # noqa: ANN201 - a Playwright Locator
        """The index-th data editor on the page (glide-data-grid on a canvas)."""
        return self.page.locator('[data-testid="stDataFrame"]').nth(index)

    def edit_cell(
        self, index: int, row: int, col: int, text: str, *, at_once: bool = False, wait: bool = True
    ) -> None:
        """Type `text` into cell (row, col) of the index-th data editor (col 0 = the first value column), press
        Enter, and wait until the grid has taken it (its cell editor closed).

        The grid is a canvas: click where the cell is (cell_centre), check the grid selected that cell (its
        accessible table marks it), then double-click to edit. at_once: Enter straight after the last key,
        as a fast typist presses it (the moment the grid used to drop edits: explorer/ui/grid_guard.py);
        otherwise the text is typed again until the editor holds exactly it (a select-all typed while the
        editor is still opening leaves the old number in: "0.11322.5"). wait=False: return right after Enter.
        """
        ed = self.editor(index)
        want = f"glide-cell-{col + 1}-{row}"
        selected = "e => { const c = e.querySelector('td[aria-selected=\"true\"]'); return c ? c.id : null; }"
        got = None
        for _attempt in range(3):  # a click while the page still moves (a message above, a redraw) misses
            x, y = self.cell_centre(index, row, col)
            self.page.mouse.click(x, y)
            # The grid's accessible table follows the selection a moment later (and still names the cell
            # selected before, after an edit): wait for the clicked one.
            until = time.monotonic() + 5
            while (got := ed.evaluate(selected)) != want and time.monotonic() < until:
                self.page.wait_for_timeout(100)
            if got == want:
                break
        assert got == want, f"clicked {got}, wanted {want}: the grid's geometry changed"
        self.page.mouse.dblclick(x, y)
        self.poll(_EDITING, what="the cell editor to open")
        for _ in range(1 if at_once else 5):
            self.page.keyboard.press("Control+A")
            self.page.keyboard.type(text)
            if at_once or self.page.evaluate("() => document.activeElement.value") == text:
                break
            self.page.wait_for_timeout(200)
        self.page.keyboard.press("Enter")
        if wait:
            self.poll(f"() => !({_EDITING[6:]})", what="the grid to take the edit (its cell editor to close)")

    def cell_centre(self, index: int, row: int, col: int) -> tuple[float, float]:
        """Where cell (row, col) of the index-th data editor is on the screen, once the editor stops moving
        and that point is the editor's own (the row label column is about 52 px wide, value columns share
        the rest, rows and header are 35 px). A page still laying itself out can hold the editor somewhere
        else for a while, even still across frames; a click there lands on whatever covers that point (a
        sidebar link: another page), so the point is checked with the browser's own hit test."""
        ed = self.editor(index)
        # The grid's accessible table (its header names the columns) is drawn a moment after the canvas.
        ed.locator("thead th").nth(1).wait_for(state="attached", timeout=15_000)
        ed.scroll_into_view_if_needed()
        js = """(e, [row, col]) => {
          const b = e.getBoundingClientRect(), n = e.querySelectorAll('thead th').length - 1;
          if (n < 1 || b.width < 60) return null;
          const x = b.x + 52 + (b.width - 52) / n * (col + 0.5), y = b.y + 35 * (row + 1) + 17;
          const hit = document.elementFromPoint(x, y);
          return hit && e.contains(hit) ? [x, y, b.x, b.y, b.width, b.height] : null;
        }"""
        last, deadline = None, time.monotonic() + TIMEOUT
        while True:
            got = ed.evaluate(js, [row, col])
            if got is not None and got == last:  # two reads 100 ms apart alike, the point on the grid
                return got[0], got[1]
            if time.monotonic() > deadline:
                raise AssertionError(f"editor {index}'s cell ({row}, {col}) is not on the screen: {got}")
            last = got
            self.page.wait_for_timeout(100)

    def poll_locator(self, locator, js: str, what: str = "") -> Any:  # noqa: ANN001 - a Locator
        deadline = time.monotonic() + TIMEOUT
        while not (value := locator.evaluate(js)):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what or js[:80]}")
            self.page.wait_for_timeout(100)
        return value

    def remember(self, key: str) -> None:
        """Keep chart `key`'s first trace in the tab, for wait_chart_change to compare against."""
        js = """key => {
          const el = document.querySelector(`.st-key-${key} .js-plotly-plot`);
          window.__e2e = Object.assign(window.__e2e || {}, {[key]: JSON.stringify(el.data[0].z)});
        }"""
        self.page.evaluate(js, key)

    def wait_chart_change(self, key: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Wait until chart `key` differs from what remember(key) kept (a rerun redrew it); the new chart."""
        js = """key => {
          const el = document.querySelector(`.st-key-${key} .js-plotly-plot`);
          return !!el && JSON.stringify(el.data[0].z) !== window.__e2e[key];
        }"""
        self.poll(js, key, timeout=timeout, what=f"chart {key} to change")
        self.settle()
        return self.chart(key)

    def edit_until_chart_changes(self, index: int, row: int, col: int, text: str, key: str) -> dict[str, Any]:
        """edit_cell, then wait for chart `key` to change (the app received the edit and redrew)."""
        self.remember(key)
        self.edit_cell(index, row, col, text)
        return self.wait_chart_change(key)

    def screenshot(self, name: str) -> Path:
        OUT.mkdir(exist_ok=True)
        path = OUT / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path


@pytest.fixture(scope="module")
def _module_tab(browser: Any) -> Iterator[dict[str, Any]]:
    """The tab `app` hands the tests of one module, one after the other (made by the first that asks)."""
    held: dict[str, Any] = {}
    yield held
    if "context" in held:
        held["context"].close()


@pytest.fixture
def app(_module_tab: dict[str, Any], browser: Any, server: Server) -> Iterator[App]:
    """A tab for the test, blank, at 1920x1080, as a new one starts. The tests of a module share one, left
    as a new tab between them (App.forget): a page load in an open tab costs about a second of a 2-core
    machine, a new tab two or three more. A tab a test left broken is replaced."""
    held = _module_tab
    if "page" not in held or held["page"].is_closed():
        if "context" in held:
            held.pop("context").close()
        held["context"] = browser.new_context(viewport=VIEWPORT)
        held["page"] = held["context"].new_page()
        held["page"].set_default_timeout(TIMEOUT * 1000)
    tab = App(held["page"], server)
    yield tab
    try:
        tab.forget()
    except Exception:  # noqa: BLE001 - a tab that cannot be emptied is closed; the next test gets a new one
        held.pop("page")
        held.pop("context").close()


def _shared_tab(browser: Any, server: Server, viewport: dict[str, int]) -> Iterator[App]:
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT * 1000)
    yield App(page, server)  # blank: its first open, visit or go loads the page it asks for
    ctx.close()


@pytest.fixture(scope="module")
def shared_app(browser: Any, server: Server) -> Iterator[App]:
    """One tab for a whole test module, blank until a test opens a page in it: for tests that only look.

    Moving between pages inside one session (the sidebar's links) costs a few seconds; opening a new tab
    boots the whole frontend again (20 s and more on a loaded 2-core machine), with nothing in its cache.
    """
    yield from _shared_tab(browser, server, VIEWPORT)


@pytest.fixture(scope="module")
def shared_laptop_app(browser: Any, server: Server) -> Iterator[App]:
    """shared_app at 1280x800, a laptop's screen."""
    yield from _shared_tab(browser, server, LAPTOP)


@pytest.fixture
def new_tab(browser: Any, server: Server) -> Iterator[Callable[..., App]]:
    """Tabs of their own on the shared server, closed after the test: new_tab(viewport=..., color_scheme=...)
    takes the arguments of browser.new_context (the viewport defaults to 1920x1080)."""
    made = []

    def make(**context_args: Any) -> App:
        ctx = browser.new_context(**{"viewport": VIEWPORT, **context_args})
        made.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT * 1000)
        return App(page, server)

    yield make
    for ctx in made:
        ctx.close()
