"""The same jobs through RQ on a real redis-server started here (explorer.compute.jobs.rq_queue): run in
worker processes at a lower priority, joined across two replicas, progress, bad input, stopped when nobody
waits, and run again after its process is killed."""

from __future__ import annotations

import gc
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from explorer import cache
from explorer.classroom.store import Question
from explorer.compute import jobs
from explorer.compute.jobs import probe, redis_room, rq_queue
from explorer.compute.jobs.rq_worker import SHORT_NICE
from tests.core.test_jobs import until

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_server(where: Path, *options: str) -> tuple[subprocess.Popen, str]:
    """A real redis-server of its own in folder `where` (nothing saved), and its URL; skipped where none is
    installed, a failure in CI."""
    server = shutil.which("redis-server")
    if server is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have redis-server (scripts/test.sh installs it)")
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    cmd = [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
           "--dir", str(where), *options]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    return proc, f"redis://127.0.0.1:{port}/0"


WORKERS: list[subprocess.Popen] = []  # the module's queue workers (a test may add one), stopped at its end


def rq_worker(url: str, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, ATTENTION_EXPLORER_REDIS_URL=url, ATTENTION_EXPLORER_WORKER_WARM="0")
    env["PYTHONPATH"], env["ATTENTION_EXPLORER_JOB_ALIVE_S"] = str(ROOT), str(rq_queue.ALIVE_S)
    cmd = [sys.executable, "-m", "explorer.compute.jobs.rq_queue", *extra]
    WORKERS.append(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL))
    return WORKERS[-1]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    where = tmp_path_factory.mktemp("redis")
    proc, url = redis_server(where, "--maxmemory", "64mb", "--maxmemory-policy", "volatile-lru")
    workers = WORKERS
    try:
        import redis

        until(lambda: _pings(redis.Redis.from_url(url)), "redis-server")
        rq_worker(url)
        rq_worker(url, "--short")
        yield url
    finally:
        for p in [*workers, proc]:
            p.terminate()
        for p in [*workers, proc]:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def _pings(r: object) -> bool:
    try:
        return bool(r.ping())  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - not listening yet
        return False


@pytest.fixture(scope="module", autouse=True)
def _quick_to_call_a_silent_job_dead() -> Iterator[None]:
    """A worker that died with its job is found after 5 s of silence here (15 s by default): the module's
    workers are started with the same (rq_worker)."""
    before, rq_queue.ALIVE_S = rq_queue.ALIVE_S, 5.0
    yield
    rq_queue.ALIVE_S = before


@pytest.fixture
def replicas(redis_url: str) -> Iterator[tuple[rq_queue.RedisJobs, rq_queue.RedisJobs]]:
    a, b = rq_queue.RedisJobs(redis_url), rq_queue.RedisJobs(redis_url)
    before = jobs.use(a)
    yield a, b
    jobs.use(before)


def test_a_job_runs_in_a_worker_at_a_lower_priority_and_says_its_progress(replicas) -> None:  # noqa: ANN001
    pid, nice, token = jobs.call(jobs.spec(probe.where, f"r{time.time()}"))
    assert pid != os.getpid() and nice >= os.nice(0) + 1 and token.startswith("r")
    seen: list[jobs.Status] = []
    with jobs.for_visitor("v", seen.append):
        assert jobs.call(jobs.spec(probe.steps, 6, 0.3, f"p{time.time()}")).startswith("p")
    running = [s for s in seen if s.state == "running" and s.message]
    assert running and running[-1].done >= running[0].done and running[0].message.startswith("step ")
    with pytest.raises(ValueError, match="no such word"):
        jobs.call(jobs.spec(probe.refuse, "no such word"))


def test_a_job_that_draws_as_it_goes_hands_its_partial_results_to_every_replica(replicas) -> None:  # noqa: ANN001
    a, b = replicas
    job = jobs.spec(probe.growing, 8, 0.3, f"g{time.time()}")
    mine, theirs = a.submit(job, "teacher"), b.submit(job, "student")
    seen: list[list[int]] = []
    while (now := theirs.wait(0.1)).state in ("queued", "running"):
        mine.status()  # both places keep looking
        if now.partial is not None and (not seen or now.partial != seen[-1]):
            seen.append(now.partial)
    assert mine.result() == theirs.result() == list(range(1, 9))
    assert len(seen) >= 2 and all(p == list(range(1, len(p) + 1)) for p in seen)


def test_every_place_at_a_job_wakes_when_it_ends_not_at_its_next_poll(replicas) -> None:  # noqa: ANN001
    a, b = replicas
    job = jobs.spec(probe.hold, 1, f"w{time.time()}")
    places = [a.submit(job, "s1"), b.submit(job, "s2")]
    woke: list[tuple[str, float]] = []

    def wait(place: object) -> None:
        t0 = time.monotonic()
        woke.append((place.wait(120.0).state, time.monotonic() - t0))  # type: ignore[attr-defined]

    threads = [threading.Thread(target=wait, args=(p,)) for p in places]
    for t in threads:
        t.start()
    for t in threads:
        t.join(150)
    # a one-second job: a place that slept its whole wait would return after 120 s
    assert [state for state, _ in woke] == ["done", "done"] and max(s for _, s in woke) < 60
    assert [p.result() for p in places] == [f"{job.args[1]}"] * 2
    assert a.until_done("explorer-" + job.key, 5.0)  # said once, read by every later look


def test_two_replicas_asking_for_one_job_share_one_run(replicas, tmp_path: Path) -> None:  # noqa: ANN001
    a, b = replicas
    job = jobs.spec(probe.count_runs, str(tmp_path / "runs"), f"x{time.time()}")
    places = [a.submit(job, "s1"), b.submit(job, "s2"), a.submit(job, "s3")]
    for p in places:
        until(lambda p=p: p.status().state == "done", "the job done")
    assert [p.result() for p in places] == [1, 1, 1]


def test_short_jobs_run_least_used_visitor_first_however_much_the_class_used(
    replicas, tmp_path: Path
) -> None:  # noqa: ANN001
    """A class that has used the workers for a while (10 to 90 s each) and a quiet student (6 s): the
    student's short job, queued last, runs first, and the others by their use; FIFO for all of them before."""
    a, _ = replicas
    stamp = time.time()
    hold = a.submit(jobs.spec(probe.steps, 20, 0.3, f"busy{stamp}", cost=5.0), "holder")  # the other worker
    until(lambda: hold.status().state == "running", "the general worker busy")
    lane = a.submit(jobs.spec(probe.steps, 1, 1.5, f"lane{stamp}", cost=0.1), "holder")  # the short lane
    until(lambda: lane.status().state == "running", "the short lane busy")
    path, used = str(tmp_path / "order"), {"v90": 90.0, "v10": 10.0, "v40": 40.0, "quiet": 6.0}
    places = []
    for who, seconds in used.items():  # the quiet student asks last
        a.charge(f"{who}{stamp}", seconds)
        places.append(a.submit(jobs.spec(probe.count_runs, path, who, cost=0.3), f"{who}{stamp}"))
    assert places[-1].status().ahead < min(p.status().ahead for p in places[:-1])
    for p in [lane, *places]:
        until(lambda p=p: p.status().state == "done", "the short jobs done")
    hold.cancel()
    assert Path(path).read_text().split() == ["quiet", "v10", "v40", "v90"]


def test_a_job_nobody_waits_for_stops(replicas) -> None:  # noqa: ANN001
    a, _ = replicas
    place = a.submit(jobs.spec(probe.steps, 400, 0.05, f"left{time.time()}"), "leaver")
    until(lambda: place.status().state == "running", "the job running")
    place.cancel()
    until(lambda: place.status().state in ("done", "failed"), "the job stopped")
    with pytest.raises(jobs.Failed, match="stopped"):
        place.result()


def test_a_workers_beat_killed_on_its_own_is_started_again_after_its_next_job(
    replicas, tmp_path: Path
) -> None:  # noqa: ANN001
    """The process that says a worker's job is alive, killed while the worker lives: the worker starts another
    after its next job, so the job after that is not taken for dead."""
    a, _ = replicas
    path = tmp_path / "pid"

    def run(token: str) -> int:
        place = a.submit(jobs.spec(probe.steps_from, str(path), 1, 0.01, f"{token}{time.time()}"), "v")
        until(lambda: place.status().state == "done", "the job done")
        return int(path.read_text())

    worker = run("first")  # the module's one worker of the general queues
    (beat,) = _children(worker)
    os.kill(beat, signal.SIGKILL)
    until(lambda: _zombie(beat), "the beat gone")
    assert run("second") == worker
    until(lambda: [p for p in _children(worker) if not _zombie(p)] not in ([], [beat]), "a new beat")


@pytest.mark.load
def test_a_job_that_holds_its_interpreter_longer_than_a_beat_is_not_taken_for_dead(replicas) -> None:  # noqa: ANN001
    """A job that keeps its process's GIL past ALIVE_S (json.loads of a 43 MB file on a busy machine) runs once
    and finishes: its worker's main process says it is alive, not a thread of the job's process (8 s)."""
    a, _ = replicas
    place = a.submit(jobs.spec(probe.hold, int(rq_queue.ALIVE_S) + 2, f"held{time.time()}"), "v")
    seen = []
    deadline = time.monotonic() + 60
    while (now := place.status()).state not in ("done", "failed"):
        seen.append(now.state)
        assert time.monotonic() < deadline, seen
        time.sleep(0.2)
    assert "running" in seen and "queued" not in seen[seen.index("running") :], seen  # never put back
    assert place.result().startswith("held")


def test_a_job_whose_worker_dies_with_it_runs_again_on_another(
    replicas, redis_url: str, tmp_path: Path
) -> None:  # noqa: ANN001
    """A job runs in its worker's own process (rq_worker's module doc): killed, the worker takes the job with
    it, its beat stops, and a place puts the job back in its queue for the other worker."""
    a, _ = replicas
    spare = rq_worker(redis_url)  # a second worker of the queues: one of the two is killed
    path = tmp_path / "pid"
    place = a.submit(jobs.spec(probe.steps_from, str(path), 10, 0.1, f"orphan{time.time()}"), "v")
    until(lambda: path.exists() and path.read_text().strip().isdigit(), "the job started")
    ran_in = int(path.read_text())
    assert ran_in in {p.pid for p in WORKERS} | {spare.pid}  # the worker itself, no process per job
    beats = _children(ran_in)
    assert len(beats) == 1, beats  # its beat, a process of its own
    os.kill(ran_in, signal.SIGKILL)  # nobody left to say so but the silence of its beat
    seen = set()
    deadline = time.monotonic() + 60
    while (now := place.status()).state != "done":
        seen.add(now.state)
        assert now.state != "failed" and time.monotonic() < deadline, seen
        time.sleep(0.2)
    assert "queued" in seen  # put back in its queue, then run by the other worker
    assert int(path.read_text()) != ran_in and place.result().startswith("orphan")
    until(lambda: not Path(f"/proc/{beats[0]}").exists() or _zombie(beats[0]), "the dead worker's beat gone")


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_a_result_its_caller_keeps_leaves_redis_soon(replicas) -> None:  # noqa: ANN001
    """A run's trace or an uploaded file's example (tens of MB) stays in Redis only for its places to fetch."""
    a, _ = replicas
    kept, passed = (
        jobs.spec(probe.where, f"k{time.time()}"),
        jobs.spec(probe.where, f"p{time.time()}", keep=False),
    )
    for job in (kept, passed):
        place = a.submit(job, "s")
        until(lambda place=place: place.status().state == "done", "the job done")
    ttl = {job.keep: a.redis.ttl(f"rq:job:explorer-{job.key}") for job in (kept, passed)}
    assert 0 < ttl[False] <= rq_queue.PASSED_TTL_S < ttl[True] <= rq_queue.RESULT_TTL_S, ttl


def test_a_job_redis_has_no_room_for_says_so(tmp_path: Path) -> None:
    """A big job alone larger than Redis's maxmemory: the visitor reads that the server is too busy, and the
    page goes on."""
    import redis

    proc, url = redis_server(tmp_path, "--maxmemory", "2mb", "--maxmemory-policy", "volatile-lru")
    before = jobs.use(None)
    try:
        until(lambda: _pings(redis.Redis.from_url(url)), "redis-server")
        jobs.use(rq_queue.RedisJobs(url))
        with pytest.raises(jobs.Busy, match="too busy"), jobs.for_visitor("s"):
            jobs.call(jobs.spec(probe.echo, os.urandom(3_000_000), 0.0, keep=False))
    finally:
        jobs.use(before)
        proc.terminate()
        proc.wait(10)


def test_a_class_of_uploads_takes_turns_for_room_in_redis_and_every_other_write_goes_through(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five visitors open a large file at once (its bytes the job's arguments, its example as large a result)
    on a Redis whose maxmemory holds one of them in flight: the big jobs take turns for room, so every
    visitor's file is read, and meanwhile a classmate's small job and a class's question and answer go
    through and nothing is dropped (past maxmemory, Redis refuses every write that needs memory and drops
    keys that expire, a class's too; queued arguments it may not drop)."""
    from explorer.classroom.redis_store import RedisStore

    backend = rq_queue.RedisJobs(redis_url)
    backend.redis.config_set("maxmemory", "24mb")  # one 3 MB file in flight takes Redis to 13.6 MB
    evicted = backend.redis.info("stats")["evicted_keys"]
    before = jobs.use(backend)
    monkeypatch.setattr(jobs, "POLL_S", 0.05)  # the places look often: the files take turns quickly
    try:
        files = [os.urandom(3_000_000) for _ in range(5)]  # 5 x 3 MB of arguments alone are 15 MB
        got: dict[int, object] = {}

        def visitor(i: int) -> None:
            try:
                with jobs.for_visitor(f"v{i}", lambda now: None):
                    got[i] = jobs.call(jobs.spec(probe.echo, files[i], 0.05, keep=False))
            except Exception as exc:  # noqa: BLE001 - what the visitor would read, checked below
                got[i] = exc

        threads = [threading.Thread(target=visitor, args=(i,)) for i in range(len(files))]
        for t in threads:
            t.start()
        until(lambda: backend.redis.zcard(rq_queue.LINE) > 0, "files in line for room")
        classes = RedisStore(redis_url)
        opened = classes.create()
        student = classes.join(opened.code, "s1")
        classes.ask(opened.code, opened.key, Question("q1", "which?", ("a", "b")))
        assert jobs.call(jobs.spec(probe.where, f"small{time.time()}"))[2].startswith("small")
        classes.answer(opened.code, student, "q1", 1)
        assert backend.redis.zcard(rq_queue.LINE) > 0  # all that while, files still in line
        for t in threads:
            t.join(60)
        assert classes.counts(opened.code, "q1") == (0, 1)
        assert {i: v if isinstance(v, Exception) else v == files[i][::-1] for i, v in got.items()} == {
            i: True for i in range(len(files))
        }
        assert backend.redis.info("stats")["evicted_keys"] == evicted  # nothing dropped to make room
        assert backend.redis.zcard(rq_queue.ROOM) == 0  # every file's room given back, its bytes gone
        assert backend.redis.keys(rq_queue.PREFIX + "payload*") == []
        kept = backend.redis.keys(redis_room.OUTCOME + "*")  # (each file's example, kept raw till read)
        assert [k for k in kept if backend.redis.ttl(k) == -1] == []
    finally:
        jobs.use(before)
        backend.redis.config_set("maxmemory", "64mb")


def test_a_class_opening_one_file_reads_its_result_from_redis_once_per_process(
    replicas, monkeypatch: pytest.MonkeyPatch
) -> None:  # noqa: ANN001
    """Six visitors open the same large file: one job, its tens of MB read from Redis once by this process (each
    reader's copy sits in Redis's output buffers, past its maxmemory)."""
    a, _ = replicas
    data = os.urandom(2_000_000)
    reads: list[int] = []
    read = rq_queue.outcome_of
    monkeypatch.setattr(
        rq_queue, "outcome_of", lambda r, job_id, big=False: reads.append(len(reads)) or read(r, job_id, big)
    )
    key = f"one-file-{time.time_ns()}"
    places = [a.submit(jobs.spec(probe.echo, data, 0.3, keep=False, key=key), f"same{i}") for i in range(6)]
    until(lambda: all(p.status().state == "done" for p in places), "the job done")
    outcomes = [p.result() for p in places]
    assert all(o == data[::-1] for o in outcomes)
    assert len(reads) == 1


def test_a_big_jobs_outcome_is_one_read_only_value_for_its_places_let_go_when_the_class_has_gone(
    replicas,
) -> None:  # noqa: ANN001
    """Three visitors open the same large file: each gets the one value this process read (no copy of its
    tens of MB per visitor), its arrays read-only; once the class has gone (jobs.let_go, as the web process
    empties its caches), this process holds it no more."""
    a, _ = replicas
    data = os.urandom(2_000_000)
    key = f"array-{time.time_ns()}"
    places = [
        a.submit(jobs.spec(probe.as_array, data, 0.3, keep=False, key=key), f"arr{i}") for i in range(3)
    ]
    until(lambda: all(p.status().state == "done" for p in places), "the job done")
    outcomes = [p.result() for p in places]
    assert all(o is outcomes[0] for o in outcomes)
    array, notes = outcomes[0]
    assert not array.flags.writeable and notes == ["read"]
    np.testing.assert_array_equal(array, np.frombuffer(data, np.uint8)[::-1])
    held = weakref.ref(array)
    del outcomes, array, notes
    gc.collect()
    assert held() is not None  # kept for its other places meanwhile
    jobs.let_go()
    gc.collect()
    assert held() is None


def test_arrays_from_two_workers_runs_are_shared_by_sessions_and_digested_once(replicas, monkeypatch) -> None:  # noqa: ANN001
    """Two visitors open the same large file at different times (two runs, two results): a session keeps an
    array as explorer.ui.state does (read-only, then explorer.cache.SHARED_ARRAYS), so both hold one array,
    whose digest is computed once however often the page asks for it (the share link, at every rerun)."""
    data = os.urandom(400_000)
    got = []
    for i in range(2):
        job = jobs.spec(probe.as_array, data, 0.0, keep=False, key=f"twice-{i}-{time.time_ns()}")
        array, _notes = jobs.call(job)
        array.flags.writeable = False
        got.append(cache.SHARED_ARRAYS(array))
    assert got[0] is got[1]
    hashed = []
    monkeypatch.setattr(cache, "hash_bytes", lambda v: hashed.append(v.nbytes) or b"d" * 16)
    digests = {cache.ARRAY_DIGESTS.of(got[1]) for _ in range(3)}
    assert len(digests) == 1 and len(hashed) <= 1


def test_a_big_jobs_file_leaves_redis_soon_after_it_ran_though_its_visitors_left(replicas) -> None:  # noqa: ANN001
    """A visitor opens a large file and leaves while a worker reads it: nobody is left to fetch the result and
    delete the file's bytes, so they leave Redis with the result (PASSED_TTL_S), not ten minutes later."""
    a, _ = replicas
    job = jobs.spec(probe.echo, os.urandom(2_000_000), 1.0, keep=False, key=f"left-{time.time_ns()}")
    place = a.submit(job, "leaver")
    job_id = "explorer-" + job.key
    until(lambda: place.status().state == "running", "the job running")
    payloads = redis_room.payload_keys(a.redis, job_id)
    assert len(payloads) == 2 and all(a.redis.ttl(k) == -1 for k in payloads)  # never dropped in flight
    place.cancel()
    until(lambda: rq_queue.peek(a.redis, job_id)[0] == "finished", "the job finished")
    assert all(a.redis.ttl(k) == -2 or 0 <= a.redis.ttl(k) <= rq_queue.PASSED_TTL_S for k in payloads)


def test_a_queued_big_jobs_file_leaves_redis_once_its_room_ends_though_nobody_cancelled_it(
    replicas, monkeypatch: pytest.MonkeyPatch
) -> None:  # noqa: ANN001
    """The replica of the only visitor at a queued big job dies (nobody cancels the job, nobody looks): its
    file has no expiry while in flight, so the room's end lets go of it, at the next big job's admission."""
    a, _ = replicas
    monkeypatch.setattr(rq_queue, "ROOM_TTL_S", 1.0)
    busy = a.submit(jobs.spec(probe.steps, 20, 0.5, f"busy-{time.time()}"), "b")  # the worker of long jobs
    until(lambda: busy.status().state == "running", "the worker busy")
    job = jobs.spec(probe.echo, os.urandom(2_000_000), 0.0, keep=False, key=f"vanished-{time.time_ns()}")
    job_id = "explorer-" + job.key
    place = a.submit(job, "vanished")
    until(lambda: place.status().state == "queued", "its job queued")
    payloads = redis_room.payload_keys(a.redis, job_id)
    assert len(payloads) == 2 and all(a.redis.ttl(k) == -1 for k in payloads)
    # (its replica dies: the place never looks again; the busy visitor's page still does)
    until(lambda: busy.status() and a.redis.zscore(rq_queue.ROOM, job_id) < time.time() * 1000, "room ended")
    other = a.submit(jobs.spec(probe.echo, os.urandom(2_000_000), 0.0, keep=False, key=f"o-{time.time_ns()}"))
    assert other.status().state == "queued"  # its admission ended the silent room, and let go of its file
    assert all(0 <= a.redis.ttl(k) <= rq_queue.PASSED_TTL_S for k in payloads)
    other.cancel()
    busy.cancel()


def test_a_big_jobs_file_waiting_in_line_is_kept_while_the_class_results_fill_redis(replicas) -> None:  # noqa: ANN001
    """A visitor's large file waits in the queue while the class's results (keys that expire) fill Redis past
    its maxmemory: Redis drops results to make room, never the file a queued job still has to read."""
    a, _ = replicas
    a.redis.config_set("maxmemory", "24mb")
    evicted = a.redis.info("stats")["evicted_keys"]
    fillers = [f"{rq_queue.PREFIX}class-result:{i}" for i in range(40)]
    try:
        busy = a.submit(
            jobs.spec(probe.steps, 20, 0.5, f"busy-{time.time()}"), "b"
        )  # the worker of long jobs
        until(lambda: busy.status().state == "running", "the worker busy")
        data = os.urandom(3_000_000)
        job = jobs.spec(probe.echo, data, 0.0, keep=False, key=f"waits-{time.time_ns()}")
        place = a.submit(job, "uploader")
        until(lambda: place.status().state == "queued", "the file's job queued")
        for key in fillers:  # 40 MB of results past a 24 MB maxmemory, while both visitors' pages look
            a.redis.set(key, os.urandom(1_000_000), ex=rq_queue.RESULT_TTL_S)
            assert (busy.status().state, place.status().state) == ("running", "queued")
            time.sleep(0.05)
        assert a.redis.info("stats")["evicted_keys"] - evicted >= 20  # Redis did drop results for room
        busy.cancel()  # (the worker takes the file's job at once)
        until(lambda: place.status().state in ("done", "failed"), "the file's job ended")
        assert place.result() == data[::-1]
    finally:
        a.redis.delete(*fillers)
        a.redis.config_set("maxmemory", "64mb")


def test_a_large_outcome_lies_raw_in_redis_not_in_base64_and_reaches_every_replica_whole(replicas) -> None:  # noqa: ANN001
    """An outcome of a MB or more from small arguments (an induction run's attentions, 10.8 MB) is kept raw
    under a key of its own for as long as a result is: RQ would keep it in base64, a third larger, which each
    place decodes inside its web process's interpreter lock."""
    a, b = replicas
    n, token = 3_000_000, f"large-{time.time_ns()}"
    places = [
        a.submit(jobs.spec(probe.large, n, token), "x"),
        b.submit(jobs.spec(probe.large, n, token), "y"),
    ]
    until(lambda: all(p.status().state == "done" for p in places), "the job done")
    job_id = places[0].id
    assert n <= a.redis.strlen(redis_room.OUTCOME + job_id) < n + 1000  # its bytes and a pickle's framing
    assert a.redis.memory_usage(f"rq:results:{job_id}") < 10_000  # RQ's result: only the note
    assert rq_queue.PASSED_TTL_S < a.redis.ttl(redis_room.OUTCOME + job_id) <= rq_queue.RESULT_TTL_S
    want = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8)
    for place in places:
        array, said = place.result()
        np.testing.assert_array_equal(array, want)
        assert said == token


def test_a_big_jobs_outcome_not_yet_read_is_kept_while_the_class_results_fill_redis(replicas) -> None:  # noqa: ANN001
    """A visitor's large file has been read (its example is in Redis) and their page has not fetched it yet when
    the class's results fill Redis past its maxmemory: Redis drops results, never what a place still waits
    to read (RQ's own keys of the job may go: the outcome is enough)."""
    a, _ = replicas
    data = os.urandom(3_000_000)
    place = a.submit(jobs.spec(probe.echo, data, 0.0, keep=False, key=f"unread-{time.time_ns()}"), "u")
    until(lambda: place.status().state == "done", "the file read")
    a.redis.config_set("maxmemory", "24mb")
    evicted = a.redis.info("stats")["evicted_keys"]
    fillers = [f"{rq_queue.PREFIX}class-result:{i}" for i in range(40)]
    try:
        for key in fillers:  # 40 MB of results past a 24 MB maxmemory, while the page looks
            a.redis.set(key, os.urandom(1_000_000), ex=rq_queue.RESULT_TTL_S)
            assert place.status().state == "done"
            time.sleep(0.05)
        assert a.redis.info("stats")["evicted_keys"] - evicted >= 20  # Redis did drop results for room
        assert place.result() == data[::-1]
        assert not a.redis.exists(redis_room.OUTCOME + place.id)  # fetched by its last place: gone
    finally:
        a.redis.delete(*fillers)
        a.redis.config_set("maxmemory", "64mb")


def test_the_short_lanes_worker_runs_above_the_others_and_below_the_web_process(replicas) -> None:  # noqa: ANN001
    """A short job (a sentence's run) waits on the CPU behind the web process only; the others behind it too."""
    a, _ = replicas
    busy = a.submit(jobs.spec(probe.steps, 20, 0.5, f"busy-{time.time()}"), "b")  # the worker of long jobs
    until(lambda: busy.status().state == "running", "the worker busy")
    short = jobs.spec(probe.where, f"short{time.time()}", cost=jobs.LANE_S / 2)
    place = a.submit(short, "s")
    until(lambda: busy.status() and place.status().state == "done", "the short job run")
    _, short_nice, _ = place.result()
    busy.cancel()
    _, long_nice, _ = jobs.call(jobs.spec(probe.where, f"long{time.time()}"))
    assert (short_nice - os.nice(0), long_nice - os.nice(0)) == (SHORT_NICE, 10)
