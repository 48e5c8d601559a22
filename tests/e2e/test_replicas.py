"""A class past one machine: two replicas behind HAProxy (scripts/serve.sh), in a real Chromium.

Each session sticks to its replica (HAProxy's cookie) through page loads and reruns; when a replica hangs
(SIGSTOP: HAProxy's checks take it out and cut its sessions) or dies in the middle of a lesson, its sessions
reconnect to the other one and the page is rebuilt from the address bar,
which holds the whole example (the sentence, every setting and the edited cells: explorer/ui/frame.py sync_url,
explorer/sharing). A class lives in Redis (serve.sh starts it with two replicas): a replica killed during a
question loses no answer, and its students' tabs rejoin the class on the other replica as the same students.
Which replica served what is read from HAProxy's own log (one line per request, the browser's user agent
captured), never guessed from timing.

Needs Debian's `haproxy` and `redis-server` (scripts/test.sh installs them as root, as it installs chromium);
without them the tests are skipped on a workstation and fail in CI.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose

from explorer.compute import pipeline
from explorer.model.example import Example, conform
from explorer.ui import warm
from tests.e2e.conftest import OUT, ROOT, TIMEOUT, VIEWPORT, App, free_port

pytestmark = pytest.mark.e2e

SENTENCE_A = "the lion slept under a tree"
SENTENCE_B = "a small bird sang all morning"
SENTENCE_B2 = "a river ran past an old mill"
LOG_LINE = re.compile(r" class replicas/(?P<server>\S+) .*\{(?P<agent>[^}]*)\} \"(?P<request>[^\"]*)\"")

_RUNS = """() => {  // counts the script runs this tab sees start from now on (a run counter, not a timer)
  const app = document.querySelector('[data-testid="stApp"]');
  window.__runs = 0;
  new MutationObserver(() => { if (app.dataset.testScriptState === 'running') window.__runs += 1; })
    .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""


def need_haproxy() -> None:
    if shutil.which("haproxy"):
        return
    why = (
        "haproxy is not installed (Debian: apt-get install -y haproxy; bash scripts/test.sh does it as root)"
    )
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


def need_redis() -> None:
    if shutil.which("redis-server"):
        return
    why = "redis-server is not installed (Debian: apt-get install -y redis-server)"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


class Served:
    """`bash scripts/serve.sh` running in the background: its printed lines, HAProxy's log, its URL."""

    def __init__(self, name: str, replicas: int, *args: str, env: dict[str, str] | None = None) -> None:
        OUT.mkdir(exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = OUT / f"haproxy-{name}.log"
        self.log.write_text("", encoding="utf-8")
        self.lines: list[str] = []
        self._changed = threading.Condition()
        cmd = ["bash", "scripts/serve.sh", "--replicas", str(replicas), "--port", str(self.port),
               "--address", "127.0.0.1", "--log", str(self.log), *args]  # fmt: skip
        # WARM_ENV 0: the replicas load no real model as they start (these pages need none).
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHON": sys.executable, warm.WARM_ENV: "0", **(env or {})},
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_line(r"^serving http://", timeout=240)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def wait_line(self, pattern: str, after: int = 0, timeout: float = TIMEOUT) -> re.Match[str]:
        """The first line from index `after` on that matches `pattern`, waiting for serve.sh to print it."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines[after:]:
                    if m := re.search(pattern, line):
                        return m
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"serve.sh did not print /{pattern}/:\n{self.log_tail()}")
                self._changed.wait(min(left, 1.0))

    def pid(self, replica: str) -> int:
        """The process id of the replica's current Streamlit (the last one serve.sh started)."""
        pids = [
            int(m.group(1)) for line in self.lines if (m := re.match(rf"replica {replica} pid (\d+)", line))
        ]
        assert pids, f"serve.sh named no pid for {replica}: {self.lines}"
        return pids[-1]

    def requests(self, agent: str) -> list[tuple[str, str]]:
        """(replica, request line) of every request HAProxy logged from the browser context `agent`."""
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return [
            (m["server"], m["request"])
            for m in map(LOG_LINE.search, text.splitlines())
            if m and m["agent"] == agent
        ]

    def wait_log(self, pattern: str, timeout: float = TIMEOUT) -> None:
        """Until HAProxy's log (its requests and its servers' state changes) matches `pattern`."""
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.log.read_text(encoding="utf-8", errors="replace")):
            assert time.monotonic() < deadline, f"HAProxy logged no /{pattern}/:\n{self.log_tail()}"
            time.sleep(0.2)

    def log_tail(self, n: int = 40) -> str:
        return "\n".join(
            self.lines[-n:] + self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-n:]
        )

    def stop(self) -> int:
        self.proc.terminate()  # SIGTERM: serve.sh stops everything it started
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    need_haproxy()
    need_redis()  # serve.sh keeps a class in Redis with two replicas
    srv = Served("replicas", 2, "--no-restart")  # a dead replica stays down: the sessions must move
    yield srv
    srv.stop()


def tab(browser: Any, served: Served, agent: str) -> App:
    ctx = browser.new_context(viewport=VIEWPORT, user_agent=agent)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT * 1000)
    return App(page, served)  # type: ignore[arg-type] - Served has the url and log_tail App uses


def replica_of(app: App) -> str:
    got = [c["value"] for c in app.page.context.cookies() if c["name"] == "explorer_replica"]
    assert len(got) == 1, f"HAProxy set no replica cookie: {app.page.context.cookies()}"
    return got[0]


def streams(served: Served, agent: str) -> list[str]:
    """The replicas that took each WebSocket (one per page load or reconnection) of context `agent`."""
    return [server for server, request in served.requests(agent) if "/_stcore/stream" in request]


def weights_of(sentence: str, w_q: np.ndarray, mask: str) -> np.ndarray:
    """Head 1's attention weights as the engine computes them (masked cells NaN, as the chart draws them)."""
    ex = conform(Example(sentence=sentence, mask_kind=mask))
    w = np.array(pipeline.run(ex.with_(w_q=w_q)).attention.weights[0], dtype=np.float64)
    if mask == "causal":
        w[~np.tril(np.ones(w.shape, dtype=bool))] = np.nan
    return w


def same_numbers(got: np.ndarray, want: np.ndarray) -> None:
    assert_allclose(got, want, rtol=1e-12, atol=1e-15, equal_nan=True)


def test_sessions_stick_to_their_replica_and_move_whole_when_it_hangs_or_dies(
    browser: Any, served: Served
) -> None:
    w_q = np.array(conform(Example()).w_q, copy=True)
    a, b = tab(browser, served, "explorer-e2e-A"), tab(browser, served, "explorer-e2e-B")
    a.open("scores", min_charts=3, sentence=SENTENCE_A)
    b.open("scores", min_charts=3, sentence=SENTENCE_B)
    ra, rb = replica_of(a), replica_of(b)
    assert ra != rb, "leastconn sends the second visitor to the replica without an open session"

    # Page loads and reruns stay on the replica the cookie names.
    a.page.reload()
    a.settle(3)
    b.type_sentence(SENTENCE_B2)
    b.wait_labels("scores-weights", SENTENCE_B2.split())
    b.page.reload()
    b.settle(3)
    assert b.sentence_box().input_value() == SENTENCE_B2

    # A's lesson: a mask, an edited cell of W_Q on another page, back to the scores.
    a.remember("scores-weights")
    a.page.locator('[data-testid="stRadio"] label', has_text="causal").first.click()
    a.wait_chart_change("scores-weights")
    a.go("projections", min_charts=3)
    a.edit_until_chart_changes(0, row=0, col=0, text="2.5", key="projections-w_q")
    w_q[0, 0, 0] = 2.5
    a.go("scores", min_charts=3)
    want = weights_of(SENTENCE_A, w_q, "causal")
    same_numbers(a.z("scores-weights"), want)
    address, charts = a.page.url, {k: a.z(k) for k in a.charts()}
    assert "s=" in address and "mask=causal" in address, address  # the edit and the mask are in the link

    for agent, replica in (("explorer-e2e-A", ra), ("explorer-e2e-B", rb)):
        assert len(streams(served, agent)) >= 2, served.log_tail()  # a page load, then a reload
        assert {r for r, _ in served.requests(agent)} == {replica}, served.requests(agent)
    assert replica_of(a) == ra and replica_of(b) == rb

    # A's replica hangs in the middle of the lesson (SIGSTOP: its kernel still holds the connections, it answers
    # nothing). HAProxy's checks take it out and cut its sessions; A moves to B's replica as after a death.
    hung, seen = served.pid(ra), watch(a, served, "explorer-e2e-A")
    stopped = time.monotonic()
    os.kill(hung, signal.SIGSTOP)
    try:
        ran = moved_whole(a, served, "explorer-e2e-A", rb, seen, address, charts)
        print(f"a session on a hung replica ran again on another replica {ran - stopped:.1f} s later")
    finally:
        os.kill(hung, signal.SIGCONT)
    back = rf"Server replicas/{ra} is DOWN.*\n(.*\n)*.*Server replicas/{ra} is UP"
    served.wait_log(back)  # HAProxy's checks put the replica back in service
    a.go("projections", min_charts=3)
    assert float(a.editor(0).locator("#glide-cell-1-0").inner_text()) == 2.5
    a.go("scores", min_charts=3)

    # Now the replica holding both sessions dies (SIGKILL: no goodbye to the browser): both move to the one
    # that hung and came back.
    b_address, b_charts = b.page.url, {k: b.z(k) for k in b.charts()}
    seen_a, seen_b = watch(a, served, "explorer-e2e-A"), watch(b, served, "explorer-e2e-B")
    os.kill(served.pid(rb), signal.SIGKILL)
    moved_whole(a, served, "explorer-e2e-A", ra, seen_a, address, charts)
    moved_whole(b, served, "explorer-e2e-B", ra, seen_b, b_address, b_charts)
    assert b.sentence_box().input_value() == SENTENCE_B2

    # Both sessions go on, on the surviving replica.
    a.go("projections", min_charts=3)
    assert float(a.editor(0).locator("#glide-cell-1-0").inner_text()) == 2.5
    a.type_sentence(SENTENCE_B2)
    a.wait_labels("projections-w_q", SENTENCE_B2.split())
    b.type_sentence(SENTENCE_A)
    b.wait_labels("scores-weights", SENTENCE_A.split())
    assert a.exceptions() == [] and b.exceptions() == []
    a.screenshot("replicas-moved-session")


def watch(app: App, served: Served, agent: str) -> int:
    """Before a replica is stopped: the tab counts its script runs from now on; returns how many requests of
    `agent` HAProxy logged so far."""
    app.page.evaluate(_RUNS)
    return len(served.requests(agent))


def moved_whole(
    app: App, served: Served, agent: str, to: str, seen: int, address: str, charts: dict
) -> float:
    """The session of `agent` runs again on replica `to` (its WebSockets after the first `seen` requests go
    there, its cookie names it), rebuilt from its address bar: the same address, every chart's numbers.
    Returns when (time.monotonic) its run there was seen."""
    app.poll("() => window.__runs > 0", what=f"a run on replica {to}, where the session moved")
    ran = time.monotonic()
    app.settle(3)
    assert replica_of(app) == to, "the browser's cookie names the replica that took the session"
    moved = [r for r, req in served.requests(agent)[seen:] if "/_stcore/stream" in req]
    assert moved and set(moved) == {to}, served.log_tail()
    assert app.page.url == address
    for key, z in charts.items():
        same_numbers(app.z(key), z)
    return ran


def test_serve_sh_starts_a_dead_replica_again_and_sigterm_stops_everything() -> None:
    need_haproxy()
    srv = Served("restart", 1, env={"SERVE_RESTART_DELAY": "0"})
    try:
        first, printed = srv.pid("r1"), len(srv.lines)
        os.kill(first, signal.SIGKILL)
        second = int(srv.wait_line(r"^replica r1 pid (\d+)", after=printed).group(1))
        assert second != first
        deadline = time.monotonic() + TIMEOUT  # through the proxy, once HAProxy's checks see it up again
        while True:
            try:
                with urllib.request.urlopen(f"{srv.url}/_stcore/health", timeout=5) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, srv.log_tail()
            time.sleep(0.5)
    finally:
        status = srv.stop()
    assert status == 143, f"serve.sh ended with {status} on SIGTERM:\n{srv.log_tail()}"
    for pid in (first, second):
        assert not Path(f"/proc/{pid}").exists(), f"replica pid {pid} outlived serve.sh"
    with pytest.raises(OSError):  # HAProxy is gone: nothing listens on the class's port
        urllib.request.urlopen(f"{srv.url}/_stcore/health", timeout=5)


def class_bar(app: App, text: str) -> None:
    app.poll(
        "t => { const b = document.querySelector('.st-key-class-bar'); return !!b && b.innerText.includes(t); }",
        text,
        what=f"the class bar to say {text!r}",
    )


def test_a_replica_killed_during_a_question_loses_no_answer_and_its_student_rejoins(browser: Any) -> None:
    """Two replicas and Redis (serve.sh starts it with two replicas): the teacher asks, a student on the other
    replica answers, and that replica dies; the student's tab moves to the teacher's replica and is the same
    student of the class again (its answer still there, counted once) and follows the teacher's next move.
    The fuller form (-m load) adds a student who stays, and the reveal."""
    killed_during_a_question(browser, students=1)


@pytest.mark.load
def test_a_replica_killed_during_a_question_with_a_class_that_stays_and_the_reveal(browser: Any) -> None:
    killed_during_a_question(browser, students=2)


def killed_during_a_question(browser: Any, students: int) -> None:
    need_haproxy()
    need_redis()
    srv = Served("class", 2, "--no-restart")  # a dead replica stays down: its students must move
    try:
        teacher = tab(browser, srv, "explorer-e2e-teacher")
        teacher.open("scores", min_charts=0, present="1", step="softmax", ask="7")
        teacher.page.locator(".st-key-present-class button").click()
        code = teacher.page.locator(".st-key-class-code").inner_text().strip().replace("-", "")
        teacher.page.keyboard.press("Escape")
        tabs = [tab(browser, srv, f"explorer-e2e-student-{i}") for i in range(students)]
        for s in tabs:
            s.page.goto(f"{srv.url}/?join={code}", wait_until="commit")
            class_bar(s, "(head 1)?")  # following the teacher to the question
        rt = replica_of(teacher)
        moving = tabs[0]
        assert replica_of(moving) != rt, (
            "leastconn sends the first student to the replica without the teacher"
        )
        picks = ("cat", "mat")[:students]
        for s, choice in zip(tabs, picks, strict=True):
            s.page.locator('[class*="st-key-class-answer-"] label').filter(
                has_text=re.compile(f"^{choice}$")
            ).click()
            s.page.locator(".st-key-class-send button").click()
            class_bar(s, f"You answered “{choice}”")
        joined = f"{students} student{'s' if students > 1 else ''} joined. {students} of {students} answered."
        class_bar(teacher, joined)

        seen = watch(moving, srv, "explorer-e2e-student-0")
        os.kill(srv.pid(replica_of(moving)), signal.SIGKILL)  # in the middle of the question
        moving.poll("() => window.__runs > 0", what="a run on the other replica")
        moving.settle()  # its runs there ended: the class bar below is theirs, not the dead replica's last
        class_bar(moving, "you follow the teacher")
        class_bar(moving, "You answered “cat”")  # the same student: its answer is in the class's store
        assert replica_of(moving) == rt
        assert {
            r for r, req in srv.requests("explorer-e2e-student-0")[seen:] if "/_stcore/stream" in req
        } == {rt}
        class_bar(teacher, joined)  # no answer lost, nobody counted twice

        teacher.page.locator(".st-key-ui-head").get_by_text("head 2").click()  # the teacher moves on
        for s in tabs:
            class_bar(s, "(head 2)?")
        if students > 1:
            teacher.page.locator(".st-key-ui-head").get_by_text("head 1").click()
            class_bar(teacher, f"{students} of {students} answered.")  # head 1's question again: kept
            teacher.page.locator(".st-key-reveal button").click()
            class_bar(teacher, "✓ right answer")
            for s in tabs:
                s.poll("() => /Right:|The answer is/.test(document.querySelector('.st-key-class-bar').innerText)",
                       what="the student's result")  # fmt: skip
        assert teacher.exceptions() == [] and all(s.exceptions() == [] for s in tabs)
    finally:
        srv.stop()
