"""Heavy work as jobs in real worker processes (explorer.compute.jobs): where they run, joined, in fair order,
stopped when nobody waits, bounded per visitor, and a worker's death."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest

from explorer import i18n
from explorer.compute import jobs
from explorer.compute.jobs import local, probe

WAIT = 30.0


def until(cond: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


@pytest.fixture
def pool(job_pool: local.LocalPool) -> local.LocalPool:
    return job_pool


def fresh(tmp_path, name: str = "runs") -> str:  # noqa: ANN001
    return str(tmp_path / f"{name}-{time.monotonic_ns()}")


def test_a_job_runs_in_a_worker_process_at_a_lower_priority(pool: local.LocalPool) -> None:
    pid, nice, token = jobs.call(jobs.spec(probe.where, "a"))
    assert token == "a" and pid != os.getpid() and pid in pool.pids()
    assert nice >= os.nice(0) + 1
    assert jobs.call(jobs.spec(probe.where, "a")) == (pid, nice, "a")  # from the results cache


def test_the_same_job_asked_together_runs_once(pool: local.LocalPool, tmp_path) -> None:  # noqa: ANN001
    path, got = fresh(tmp_path), []
    job = jobs.spec(probe.count_runs, path, "x", keep=False)

    def ask(who: str) -> None:
        with jobs.for_visitor(who):
            got.append(jobs.call(job))

    threads = [threading.Thread(target=ask, args=(f"student {i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert got == [1] * 6


def test_progress_reaches_the_page_and_a_bad_input_says_why(pool: local.LocalPool) -> None:
    seen: list[jobs.Status] = []
    with jobs.for_visitor("v", seen.append):
        assert jobs.call(jobs.spec(probe.steps, 8, 0.1, "p")) == "p"
    running = [s for s in seen if s.state == "running"]
    assert running and running[-1].done > running[0].done
    assert any(s.message.startswith("step ") for s in running)
    with pytest.raises(ValueError, match="the sentence is empty"):
        jobs.call(jobs.spec(probe.refuse, "the sentence is empty"))


def test_a_job_that_draws_as_it_goes_hands_its_partial_results_to_a_place_that_looks(
    pool: local.LocalPool,
) -> None:
    place = pool.submit(jobs.spec(probe.growing, 6, 0.15, f"g{time.monotonic_ns()}", keep=False), "drawer")
    seen: list[list[int]] = []
    while (now := place.wait(0.05)).state in ("queued", "running"):
        if now.partial is not None and (not seen or now.partial != seen[-1]):
            seen.append(now.partial)
    assert place.result() == [1, 2, 3, 4, 5, 6]
    assert len(seen) >= 2 and all(p == list(range(1, len(p) + 1)) for p in seen)  # the steps so far, growing
    assert [len(p) for p in seen] == sorted(len(p) for p in seen)


def test_the_visitor_who_used_the_pool_least_goes_first(pool: local.LocalPool, tmp_path) -> None:  # noqa: ANN001
    jobs.call(jobs.spec(probe.steps, 2, 0.2, "warm", keep=False))  # a worker ready
    pool.submit(jobs.spec(probe.steps, 3, 0.2, "used", keep=False), "flooder").result  # noqa: B018
    until(lambda: pool.used("flooder") > 0.3, "the flooder's use counted")
    blocker = pool.submit(jobs.spec(probe.steps, 20, 0.05, "block", keep=False), "other")
    until(lambda: blocker.status().state == "running", "the blocker running")
    path = fresh(tmp_path)
    first = pool.submit(jobs.spec(probe.count_runs, path, "flooder", keep=False), "flooder")
    second = pool.submit(jobs.spec(probe.count_runs, path, "quiet", keep=False), "quiet")
    assert second.status().ahead < first.status().ahead
    for place in (blocker, first, second):
        until(lambda place=place: place.status().state == "done", "the jobs done")
    with open(path) as f:
        assert f.read().split() == ["quiet", "flooder"]


def test_waiting_counts_so_a_student_who_reads_goes_before_a_visitor_always_waiting(
    pool: local.LocalPool,
    tmp_path,  # noqa: ANN001
) -> None:
    blocker = pool.submit(jobs.spec(probe.steps, 30, 0.05, "block", keep=False), "other")
    until(lambda: blocker.status().state == "running", "the blocker running")
    path = fresh(tmp_path)
    first = pool.submit(jobs.spec(probe.count_runs, path, "flooder", keep=False), "flooder")  # waits
    # The student's own request ran (in the short lane) while the flooder's waited: the workers did more
    # for the student, but the flooder has had a request waiting for longer.
    with jobs.for_visitor("student"):
        jobs.call(jobs.spec(probe.steps, 1, 0.1, "read", cost=0.1, keep=False))
    until(lambda: pool.used("flooder") > pool.used("student") + 0.2, "the flooder's waiting counted")
    second = pool.submit(jobs.spec(probe.count_runs, path, "student", keep=False), "student")
    assert second.status().ahead < first.status().ahead
    for place in (blocker, first, second):
        until(lambda place=place: place.status().state == "done", "the jobs done")
    with open(path) as f:
        assert f.read().split() == ["student", "flooder"]


def test_a_short_request_starts_beside_a_long_one(pool: local.LocalPool) -> None:
    # The long job runs for 60 s unless cancelled: far longer than a short one takes on a loaded machine, so
    # the short one's answer while it still runs says it ran beside it, not after it (no clock read).
    long = pool.submit(jobs.spec(probe.steps, 1200, 0.05, "long", keep=False), "a")
    until(lambda: long.status().state == "running", "the long job running")
    short = jobs.spec(probe.steps, 1, 0.01, "short", cost=jobs.LANE_S, keep=False)  # a sentence's occlusion
    assert jobs.call(short) == "short"
    assert long.status().state == "running", "the short job ran beside the long one, not after it"
    long.cancel()
    until(lambda: long.status().state == "cancelled", "the long job stopped")


def test_a_job_nobody_waits_for_stops_and_a_visitor_has_a_bound(pool: local.LocalPool) -> None:
    place = pool.submit(jobs.spec(probe.steps, 200, 0.05, "left", keep=False), "leaver")
    until(lambda: place.status().state == "running", "the job running")
    place.cancel()
    until(lambda: place.status().state == "cancelled", "the job stopped")
    places = [pool.submit(jobs.spec(probe.steps, 200, 0.05, f"q{i}", keep=False), "many") for i in range(3)]
    with pytest.raises(jobs.Busy, match="3 requests waiting"):
        pool.submit(jobs.spec(probe.steps, 1, 0.01, "one more", keep=False), "many")
    for p in places:
        p.cancel()
    until(lambda: pool.info()["running"] == 0 and pool.info()["waiting"] == 0, "the pool idle")


def test_a_worker_killed_mid_job_runs_it_again_then_says_so(pool: local.LocalPool) -> None:
    deaths = pool.deaths
    job = jobs.spec(probe.steps, 10, 0.05, "again", keep=False)
    place = pool.submit(job, "v")
    until(lambda: pool.running_pid(job.key) is not None, "the job running")
    os.kill(pool.running_pid(job.key), signal.SIGKILL)
    until(lambda: place.status().state == "done", "the job run again")
    assert place.result() == "again" and pool.deaths == deaths + 1

    job = jobs.spec(probe.steps, 40, 0.05, "twice", keep=False)
    place = pool.submit(job, "v")
    for _ in range(local.TRIES):
        until(lambda: pool.running_pid(job.key) is not None, "the job running")
        pid = pool.running_pid(job.key)
        os.kill(pid, signal.SIGKILL)
        until(lambda pid=pid: pool.running_pid(job.key) != pid, "the worker replaced")
    until(lambda: place.status().state == "failed", "the job failed")
    with pytest.raises(jobs.Failed, match="try again"):
        place.result()
    assert jobs.call(jobs.spec(probe.where, "after"))[2] == "after"  # the pool works on


def test_an_uploaded_file_is_read_and_checked_in_a_worker(
    pool: local.LocalPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from explorer import sharing
    from explorer.model.example import Example, conform
    from explorer.sharing import upload

    monkeypatch.setattr(upload, "INLINE_BYTES", 0)  # a real layer's edited file, as small as a toy's here
    ex = conform(Example(sentence="the cat sat on the mat"))
    data = sharing.to_json(ex).encode()
    before = pool.started["explorer.sharing.upload:read_job"]
    got, notes, refused = upload.read(data)
    assert pool.started["explorer.sharing.upload:read_job"] == before + 1  # in a worker process
    assert refused == "" and got is not None
    assert got.sentence == ex.sentence
    np.testing.assert_array_equal(got.w_q, sharing.from_json(data).w_q)
    got, notes, refused = upload.read(data.replace(b"[", b"{", 1))
    assert got is None and refused.startswith("That file could not be opened:")


def test_a_class_opening_one_file_reads_it_once_while_a_session_holds_its_example(
    pool: local.LocalPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session keeps an opened example's matrices, not the example (explorer.ui.state): while one does,
    the same file opens the same arrays again without a read."""
    import gc

    from explorer import sharing
    from explorer.model.example import MATRIX_NAMES, Example, conform
    from explorer.sharing import upload

    monkeypatch.setattr(upload, "INLINE_BYTES", 0)
    data = sharing.to_json(conform(Example(sentence="a class opens the teachers file"))).encode()
    before = pool.started["explorer.sharing.upload:read_job"]
    first, notes, _ = upload.read(data)
    held = {name: getattr(first, name) for name in MATRIX_NAMES}  # what the first student's session keeps
    del first
    gc.collect()
    again = [upload.read(data) for _ in range(3)]  # three classmates
    assert pool.started["explorer.sharing.upload:read_job"] == before + 1
    assert all(n == notes and r == "" for _, n, r in again)
    assert all(getattr(ex, name) is held[name] for ex, _, _ in again for name in MATRIX_NAMES)
    assert again[0][0].sentence == "a class opens the teachers file"
    assert not held["w_q"].flags.writeable  # one example for every session: nobody changes it in place
    with i18n.using("es"):  # read in another language: its notes are worded there, so read anew
        upload.read(data)
    assert pool.started["explorer.sharing.upload:read_job"] == before + 2
    del held, again
    gc.collect()
    assert (
        upload.OPENED.get(f"upload:{hashlib.blake2b(data, digest_size=16).hexdigest()}:{i18n.current()}")
        is None
    )
    upload.read(data)  # nobody holds it any more: read again
    assert pool.started["explorer.sharing.upload:read_job"] == before + 3


def test_a_page_waiting_for_its_job_holds_no_turn_of_the_pages_that_draw(pool: local.LocalPool) -> None:
    from explorer.compute import heavy

    job = jobs.spec(probe.steps, 10, 0.1, "turn", keep=False)
    got: list[str] = []

    def page() -> None:
        with heavy.script_run():
            got.append(jobs.call(job))

    held = heavy.RUNS.info()["held"]
    thread = threading.Thread(target=page)
    thread.start()
    # The job may start at the workers a moment before the page steps out of its turn: wait for both.
    until(
        lambda: pool.running_pid(job.key) is not None and heavy.RUNS.info()["held"] == held,
        "the job running and the page's turn given up while it waits",
    )
    assert pool.running_pid(job.key) is not None  # given up while the job still runs, not after
    thread.join(WAIT)
    assert got == ["turn"] and heavy.RUNS.info()["held"] == held


class MovedOnError(Exception):
    """What Streamlit raises in a run whose visitor moved on (the clicker's next key)."""


def moved_on(now: jobs.Status) -> None:
    """A page's progress drawing, in a run stopped once the job is running."""
    if now.state == "running":
        raise MovedOnError


def test_a_job_asked_to_run_on_finishes_after_its_visitor_moved_on(pool: local.LocalPool) -> None:
    """A sweep started with a button, then the clicker's next key: Streamlit stops the run (here: the page's
    progress drawing raises), the job runs to its end all the same and its result waits in RESULTS."""
    job = jobs.spec(probe.steps, 12, 0.05, f"kept{time.monotonic_ns()}")

    with jobs.for_visitor("clicker", moved_on), pytest.raises(MovedOnError):
        jobs.call(job, run_on=True)
    until(lambda: jobs.RESULTS.get(job.key)[0], "the job's result")
    assert jobs.RESULTS.get(job.key) == (True, job.args[2])
    assert jobs.call(job) == job.args[2]  # the visitor back: at once, from the results


def test_a_job_not_asked_to_run_on_stops_when_its_visitor_moves_on(pool: local.LocalPool) -> None:
    job = jobs.spec(probe.steps, 400, 0.05, f"left{time.monotonic_ns()}")

    with jobs.for_visitor("leaver", moved_on), pytest.raises(MovedOnError):
        jobs.call(job)
    until(lambda: pool.info()["running"] == 0, "the job stopped")
    assert not jobs.RESULTS.get(job.key)[0]


def shown_raw(seen: list[jobs.Status]) -> str:
    """The last progress message a page was sent, as the worker sent it."""
    return [s.message for s in seen if s.state == "running" and s.message][-1]


def test_a_workers_words_reach_the_page_in_the_visitors_language(pool: local.LocalPool) -> None:
    """A worker knows no visitor's language: its progress and its refusals travel as the catalog's string and
    values (jobs.said, jobs.Refusal) and are worded where the page reads them, in that page's language."""
    seen: list[jobs.Status] = []
    with i18n.using("es"), jobs.for_visitor("v", seen.append):
        assert jobs.call(jobs.spec(probe.steps_in_words, 4, 0.05)) == 4
        shown = [jobs.words(s.message) for s in seen if s.state == "running" and s.message]
        with pytest.raises(ValueError, match=r"^SmolLM2 tiene las capas 1 a 30; no hay capa 31$"):
            jobs.call(jobs.spec(probe.refuse_in_words, "SmolLM2", 30, 31))
    assert shown and all(re.fullmatch(r"Entrenando: paso [1-4] de 4", s) for s in shown), shown
    with i18n.using("en"):
        assert re.fullmatch(r"Training: step [1-4] of 4", jobs.words(shown_raw(seen)))
        with pytest.raises(ValueError, match=r"^SmolLM2 has layers 1 to 30; there is no layer 31$"):
            jobs.call(jobs.spec(probe.refuse_in_words, "SmolLM2", 30, 31))
    lost = jobs.Failed(jobs.LOST)  # made in a backend, where no visitor's language is known
    with i18n.using("es"):
        assert str(lost).startswith("El servidor tuvo que soltar esta petición")


def test_an_idle_worker_lets_go_of_its_caches() -> None:
    from attention_core import pretrained
    from explorer import cache
    from explorer.compute.jobs import worker

    store = jobs.RESULTS
    store.put("held", np.zeros(1000))
    pretrained.PARTS.put("held", np.zeros(1000), 8000)
    worker.let_go()
    assert store.get("held") == (False, None) and cache.held() == 0
    assert pretrained.PARTS.get("held") is None
