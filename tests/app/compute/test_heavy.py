"""Heavy real-model work takes turns (explorer.compute.heavy): at most `slots` at once, the visitor who used
the pool least going first (the first comer among equals), the waiting told how many are ahead, a visitor who
leaves gives the place up, a run the cache holds never waits."""

from __future__ import annotations

import threading
import time

import pytest

from explorer.compute import heavy, model_compute
from tests.core.models import need

WAIT = 10.0  # seconds any step may take on a loaded machine before the test fails


def until(check, what: str) -> None:  # noqa: ANN001
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_one_at_a_time_in_the_order_they_came_each_told_how_many_are_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(heavy, "POLL_S", 0.02)
    pool = heavy.Pool(1)
    release = {name: threading.Event() for name in "abc"}
    order: list[str] = []
    told: dict[str, list[int]] = {name: [] for name in "abc"}
    running, most = [0], [0]

    def job(name: str) -> None:
        with pool.slot(name, told[name].append):
            order.append(name)
            running[0] += 1
            most[0] = max(most[0], running[0])
            release[name].wait(WAIT)
            running[0] -= 1

    threads = {}
    for name in "abc":  # b and c queue behind a, in this order
        threads[name] = threading.Thread(target=job, args=(name,))
        threads[name].start()
        until(lambda: pool.info()["running"] + pool.info()["waiting"] == len(threads), f"{name} queued")
    until(lambda: told["c"] and told["b"], "b and c told they wait")
    assert told["b"][-1] == 1 and told["c"][-1] == 2  # a runs; c has a and b ahead
    for name in "abc":
        release[name].set()
        threads[name].join(WAIT)
    assert order == ["a", "b", "c"] and most[0] == 1
    assert told["a"] == [] and pool.info() == {"slots": 1, "running": 0, "waiting": 0}


def test_a_visitor_who_leaves_while_waiting_gives_the_place_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heavy, "POLL_S", 0.02)
    pool, go, left = heavy.Pool(1), threading.Event(), []

    def holder() -> None:
        with pool.slot():
            go.wait(WAIT)

    def leave(ahead: int) -> None:
        raise RuntimeError("the visitor moved on")  # as Streamlit stops a run the visitor replaced

    t = threading.Thread(target=holder)
    t.start()
    until(lambda: pool.info()["running"] == 1, "the holder")
    with pytest.raises(RuntimeError), pool.slot("leaver", leave):
        left.append("ran")  # never: it was waiting
    assert left == [] and pool.info()["waiting"] == 0
    go.set()
    t.join(WAIT)
    with pool.slot():  # the next comer is not blocked by the one who left
        assert pool.info() == {"slots": 1, "running": 1, "waiting": 0}


def test_a_visitor_who_used_the_pool_waits_behind_one_who_did_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heavy, "POLL_S", 0.02)
    now = [100.0]
    pool = heavy.Pool(1, clock=lambda: now[0])
    with pool.slot("flooder"):
        now[0] += 8.0  # eight seconds of 64-token sentences
    assert pool.used("flooder") == pytest.approx(8.0)
    now[0] += heavy.HALF_LIFE_S
    assert pool.used("flooder") == pytest.approx(4.0) and pool.used("quiet") == 0.0
    go, order = threading.Event(), []

    def holder() -> None:
        with pool.slot("other"):
            go.wait(WAIT)

    def ask(who: str) -> None:
        with pool.slot(who):
            order.append(who)

    threads = [threading.Thread(target=holder)]
    threads[0].start()
    until(lambda: pool.info()["running"] == 1, "the holder")
    for who in ("flooder", "quiet"):  # the flooder asks first
        threads.append(threading.Thread(target=ask, args=(who,)))
        threads[-1].start()
        until(lambda: pool.info()["waiting"] == len(threads) - 1, f"{who} waiting")
    go.set()
    for t in threads:
        t.join(WAIT)
    assert order == ["quiet", "flooder"]


def test_a_turn_inside_a_turn_just_runs() -> None:
    with heavy.slot(), heavy.slot():  # a ranking's own model runs, in the ranking's turn
        assert heavy.POOL.info()["running"] == 1
    assert heavy.POOL.info()["running"] == 0


def test_a_new_sentence_waits_its_turn_and_a_cached_one_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    need("all-MiniLM-L6-v2")
    monkeypatch.setattr(heavy, "POLL_S", 0.02)
    model_compute.run("minilm", "The cat sat on the mat.")  # now in the results cache
    busy, lane, told = threading.Event(), threading.Event(), []
    release = threading.Event()

    def other_visitor() -> None:
        with heavy.slot():
            busy.set()
            release.wait(WAIT)

    def short_visitor() -> None:  # a short request of another visitor in the short lane
        with heavy.POOL.slot("short", None, heavy.SHORT_S):
            lane.set()
            release.wait(WAIT)

    t = threading.Thread(target=other_visitor)
    t.start()
    busy.wait(WAIT)
    t2 = threading.Thread(target=short_visitor)
    t2.start()
    lane.wait(WAIT)
    try:
        with heavy.for_visitor("quiet", told.append):
            cached = model_compute.run("minilm", "The cat sat on the mat.")  # no wait: from the cache
            assert told == [] and cached.tokens[1] == "the"

            def free_when_told(ahead: int) -> None:
                told.append(ahead)
                release.set()  # the other visitor's run ends once this one has been told it waits

            with heavy.for_visitor("quiet", free_when_told):
                fresh = model_compute.run("minilm", f"A sentence never run before, {time.time()}.")
    finally:
        release.set()
        t.join(WAIT)
        t2.join(WAIT)
    assert told and told[0] == 1 and fresh.tokens[0] == "[CLS]"


def test_a_page_keeps_its_turn_until_its_run_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """The frame's page_run: a new sentence's turn lasts the whole page (its trace is drawn after the run),
    so another visitor's new sentence starts only when that page is done."""
    monkeypatch.setattr(heavy, "POLL_S", 0.02)
    other_started = threading.Event()

    def other() -> None:
        with heavy.slot():
            other_started.set()

    with heavy.page_run():
        with heavy.slot():  # the model run
            pass
        t = threading.Thread(target=other)
        t.start()
        until(lambda: heavy.POOL.info()["waiting"] == 1, "the other visitor waiting")
        assert heavy.POOL.info()["running"] == 1 and not other_started.is_set()  # drawing: still its turn
        with heavy.slot():  # a second run of the same page (another mask): no second turn
            assert heavy.POOL.info()["running"] == 1
    t.join(WAIT)
    assert other_started.is_set() and heavy.POOL.info() == {"slots": 1, "running": 0, "waiting": 0}


def test_a_short_request_goes_before_long_ones_of_visitors_who_have_not_used_the_pool_yet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A classmate who just started sending 64-token sentences has used nothing yet: the quiet student's
    8-word sentence (a fraction of the cost) still goes first."""
    monkeypatch.setattr(heavy, "POLL_S", 0.02)
    pool, go, order = heavy.Pool(1), threading.Event(), []
    long_, short = (
        model_compute.run_cost("smollm2", " ".join(["word"] * 70)),
        model_compute.run_cost("smollm2", "a short sentence of eight words here now"),
    )
    assert short < long_ / 5

    def holder(who: str, cost: float) -> None:
        with pool.slot(who, None, cost):
            go.wait(WAIT)

    def ask(who: str, cost: float) -> None:
        with pool.slot(who, None, cost):
            order.append(who)

    threads = [threading.Thread(target=holder, args=("first", 0.0))]
    threads[0].start()
    until(lambda: pool.info()["running"] == 1, "the holder")
    threads.append(threading.Thread(target=holder, args=("second", short)))  # the short lane busy too
    threads[1].start()
    until(lambda: pool.info()["running"] == 2, "the short lane's holder")
    for who, cost in (("busy-1", long_), ("busy-2", long_), ("quiet", short)):
        threads.append(threading.Thread(target=ask, args=(who, cost)))
        threads[-1].start()
        until(lambda: pool.info()["waiting"] == len(threads) - 2, f"{who} waiting")
    go.set()
    for t in threads:
        t.join(WAIT)
    assert order == ["quiet", "busy-1", "busy-2"]


def test_a_short_request_starts_beside_a_long_run_in_the_short_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every slot busy with a classmate's 64-token sentence: a student's 8-word sentence starts at once in
    the short lane; a second short request waits for the lane (one short trace more, not one per request),
    and another long one waits for the slot."""
    monkeypatch.setattr(heavy, "POLL_S", 0.02)
    pool, go, order = heavy.Pool(1), threading.Event(), []
    long_ = model_compute.run_cost("smollm2", " ".join(["word"] * 70))
    short = model_compute.run_cost("smollm2", "a short sentence of eight words here now")
    assert short <= heavy.SHORT_S < long_
    told: dict[str, list[int]] = {"short-2": [], "long-2": []}

    def job(who: str, cost: float, hold: bool) -> None:
        with pool.slot(who, told.get(who, [None]).append, cost):
            order.append(who)
            if hold:
                go.wait(WAIT)

    threads = [threading.Thread(target=job, args=("long-1", long_, True))]
    threads[0].start()
    until(lambda: pool.info()["running"] == 1, "the long run")
    threads.append(threading.Thread(target=job, args=("short-1", short, True)))
    threads[1].start()
    until(lambda: pool.info()["running"] == 2, "the short run beside it")
    assert order == ["long-1", "short-1"]
    for who, cost in (("short-2", short), ("long-2", long_)):
        threads.append(threading.Thread(target=job, args=(who, cost, False)))
        threads[-1].start()
    until(lambda: pool.info()["waiting"] == 2 and told["short-2"] and told["long-2"], "both told they wait")
    assert pool.info()["running"] == 2 and order == ["long-1", "short-1"]
    assert told["short-2"][-1] == 1 and told["long-2"][-1] == 2  # short-2 goes first of the two
    go.set()
    for t in threads:
        t.join(WAIT)
    assert sorted(order[2:]) == ["long-2", "short-2"]
    assert pool.info() == {"slots": 1, "running": 0, "waiting": 0}


def test_script_runs_take_turns_first_come_first_served_and_a_returning_run_goes_first() -> None:
    gate = heavy.Gate(1)
    first = gate.take()
    order: list[str] = []

    def later(name: str, first_in_queue: bool = False) -> None:
        token = gate.take(first=first_in_queue)
        order.append(name)
        gate.give(token)

    threads = []
    for name, front in (("b", False), ("c", False), ("back", True)):  # "back": a run back from heavy work
        threads.append(threading.Thread(target=later, args=(name, front)))
        threads[-1].start()
        until(lambda: gate.info()["waiting"] == len(threads), f"{name} waiting")
    assert gate.info()["busy"] == 1 and order == []
    gate.give(first)
    for t in threads:
        t.join(WAIT)
    assert order == ["back", "b", "c"] and gate.info() == {"turns": 1, "busy": 0, "held": 0, "waiting": 0}


def test_a_visitor_who_kept_the_runs_busy_least_goes_first_whoever_came_first() -> None:
    now = [0.0]
    gate = heavy.Gate(1, clock=lambda: now[0])
    for _ in range(3):  # a flooder's reruns: each waited and held its turn a second
        token = gate.take(who="flood")
        now[0] += 1.0
        gate.give(token)
    token = gate.take(who="student")
    now[0] += 0.1
    gate.give(token)
    assert gate.used("flood") == pytest.approx(3.0, rel=0.1) and gate.used("student") == pytest.approx(
        0.1, rel=0.1
    )

    holder = gate.take(who="teacher")
    order: list[str] = []

    def later(who: str) -> None:
        gate.give(gate.take(who=who))
        order.append(who)

    threads = []
    for who in ("flood", "student", "newcomer"):  # the flooder asks first, the newcomer last
        threads.append(threading.Thread(target=later, args=(who,)))
        threads[-1].start()
        until(lambda: gate.info()["waiting"] == len(threads), f"{who} waiting")
    gate.give(holder)
    for t in threads:
        t.join(WAIT)
    assert order == ["newcomer", "student", "flood"]
    assert gate.use.visitors() == {"flood", "student"}  # the others asked and held no time on this clock
    now[0] += 40 * heavy.HALF_LIFE_S  # long after: every use forgotten, the table empty
    gate.give(gate.take(who="late"))
    assert gate.used("flood") == 0.0 and gate.use.visitors() == set()


def test_a_flooders_run_back_from_heavy_work_waits_behind_a_student_who_used_the_runs_less() -> None:
    now = [0.0]
    gate = heavy.Gate(1, clock=lambda: now[0])
    token = gate.take(who="flood")  # the flooder's earlier runs: two seconds of turns
    now[0] += 2.0
    gate.give(token)
    holder = gate.take(who="teacher")
    order: list[str] = []

    def later(who: str, back: bool) -> None:
        gate.give(gate.take(first=back, who=who))
        order.append(who)

    threads = []
    for who, back in (("flood", True), ("student", False)):  # the flooder's run back from its job asks first
        threads.append(threading.Thread(target=later, args=(who, back)))
        threads[-1].start()
        until(lambda: gate.info()["waiting"] == len(threads), f"{who} waiting")
    gate.give(holder)
    for t in threads:
        t.join(WAIT)
    assert order == ["student", "flood"]


def test_a_run_that_holds_its_turn_long_stops_keeping_the_others_waiting() -> None:
    now = [0.0]
    gate = heavy.Gate(1, clock=lambda: now[0])
    slow = gate.take()  # a run waiting on a model's load, say
    done = threading.Event()

    def quick() -> None:
        gate.give(gate.take())
        done.set()

    t = threading.Thread(target=quick)
    t.start()
    until(lambda: gate.info()["waiting"] == 1, "the quick run waiting")
    assert not done.is_set()
    now[0] += heavy.HOLD_S  # the slow run has held its turn HOLD_S
    t.join(WAIT)
    assert done.is_set() and gate.info()["held"] == 1  # the slow run still holds it, uncounted
    gate.give(slow)


def test_heavy_work_inside_a_script_run_gives_the_run_turn_up_meanwhile() -> None:
    with heavy.script_run():
        assert heavy.RUNS.info()["held"] == 1
        with heavy.slot():
            assert heavy.RUNS.info()["held"] == 0 and heavy.POOL.info()["running"] == 1
        assert heavy.RUNS.info()["held"] == 1
    assert heavy.RUNS.info()["held"] == 0


def test_the_use_ledger_halves_each_visitors_use_every_half_life_and_forgets_the_long_gone() -> None:
    now = [10.0]
    use = heavy.UseLedger(lambda: now[0], half_life=30.0)
    use.add("a", 6.0)
    now[0] += 30.0
    assert use("a") == pytest.approx(3.0) and use("b") == 0.0
    use.add("a", 1.0)  # 3 s faded + 1 s now
    use.add("b", 2.0)
    now[0] += 60.0
    assert use("a") == pytest.approx(1.0) and use("b") == pytest.approx(0.5)
    assert use.visitors() == {"a", "b"}
    now[0] += 30.0 * 20  # a millionth of a second left of each: both forgotten at the next count
    use.add("c", 0.5)
    assert use.visitors() == {"c"} and use("a") == 0.0
