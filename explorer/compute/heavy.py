"""Heavy real-model work takes turns: a bounded pool per process, the visitor who used it least going first.

A real model's run of a sentence it has not run yet (a 64-token SmolLM2 trace is 130 MB and most of a second
of CPU) and a ranking of heads go through `slot()`: at most SLOTS of them run at once in the process, and the
others wait, told how many requests are ahead of them. The next to run is the waiting request whose visitor has
used the pool least lately (seconds of heavy work, halved every HALF_LIFE_S) plus its own expected cost (a
long sentence costs more than a short one); the first comer among equals. So a student who asks for one
sentence waits for at most the runs already under way, not behind a classmate who sends sentence after
sentence. A session's own runs come one after the other (Streamlit runs a session's
script in one thread): a flood holds one place at a time. The toy pages never come here, so their reruns never
wait behind a model; and a page keeps its turn until its run ends (`page_run`, in the frame), so a flood of
new sentences has at most SLOTS fresh traces in use at once (memory stays bounded).

A short request (expected to take at most SHORT_S: a SmolLM2 sentence of a dozen words, any MiniLM sentence;
a trace of a few MB) need not wait for a long one to finish: beside the SLOTS there is one short lane, which
the first short request in the order takes when every slot is busy. So a student's own 8-word sentence starts
at once beside a classmate's 64-token run instead of waiting up to a second behind it, and the memory stays
bounded (one short trace more).

Every script run also takes a turn of RUNS (`script_run`, around the frame): at most run_turns() runs
compute at once (one by default), the visitor who kept them busy least lately first (as in the pool), and
heavy work steps out of its turn while it waits and computes. Python runs one thread at a time, so a class's
thirty runs at once each took thirty times as long and all finished late; in turns the first finish at once,
and the event loop that sends every session's messages competes with one thread instead of thirty. A run
that holds its turn past HOLD_S (waiting on a model's load, building an export) stops counting, so no run
holds the others up for long.

Pure threading, no Streamlit: the page says who is asking and how to show a wait (`for_visitor`;
explorer.ui.model_ui).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass

SLOTS_ENV = "ATTENTION_EXPLORER_HEAVY_SLOTS"
POLL_S = 0.5  # seconds between two updates of a waiting page
HALF_LIFE_S = 60.0  # a visitor's use of the pool counts half as much this many seconds later
SHORT_S = 0.25  # a request expected to take at most this (seconds) may run in the short lane


def slots() -> int:
    """How many heavy jobs may run at once: $ATTENTION_EXPLORER_HEAVY_SLOTS, default 1 (a Python process
    uses about one core for them; one more would only slow both down and double the memory)."""
    raw = os.environ.get(SLOTS_ENV, "1")
    return max(1, min(16, int(raw))) if raw.isdigit() else 1


@dataclass(eq=False)
class _Ticket:
    who: Hashable
    seq: int
    cost: float  # seconds this request is expected to take
    short_lane: bool = False  # running in the short lane, not in one of the slots

    @property
    def short(self) -> bool:
        """Expected to be short (a request of unknown cost, 0, is not)."""
        return 0.0 < self.cost <= SHORT_S


class UseLedger:
    """Each visitor's seconds of use, every second counting half as much HALF_LIFE_S after it was counted: who
    used a shared resource most lately, with old use fading. Not locked: its owner (Pool, Gate) reads and adds
    under its own lock. A visitor whose use has faded below a millisecond is dropped, so the table stays small."""

    def __init__(self, clock: Callable[[], float], half_life: float = HALF_LIFE_S) -> None:
        self._clock = clock
        self._half_life = half_life
        self._seconds: dict[Hashable, tuple[float, float]] = {}  # who -> (seconds of use, when counted)

    def __call__(self, who: Hashable) -> float:
        """`who`'s seconds of use, each halved every half-life since it was counted."""
        seconds, at = self._seconds.get(who, (0.0, 0.0))
        return seconds * math.exp2(-(self._clock() - at) / self._half_life) if seconds else 0.0

    def add(self, who: Hashable, seconds: float) -> None:
        """Count `seconds` more of `who`'s use, now; forget the visitors long gone."""
        self._seconds[who] = (self(who) + seconds, self._clock())
        for gone in [w for w in self._seconds if self(w) < 1e-3]:
            del self._seconds[gone]

    def visitors(self) -> set[Hashable]:
        """The visitors whose use still counts."""
        return set(self._seconds)


class Pool:
    """At most `slots` holders at once; of the waiting, the visitor with the least recent use goes first."""

    def __init__(self, slots: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.slots = slots
        self._clock = clock
        self._cond = threading.Condition()
        self._running = 0
        self._short_running = 0  # 0 or 1: the short lane in use
        self._waiting: list[_Ticket] = []
        self.use = UseLedger(clock)  # seconds of heavy work
        self._seq = itertools.count()

    def used(self, who: Hashable) -> float:
        """`who`'s seconds of heavy work, each halved every HALF_LIFE_S since it was done."""
        with self._cond:
            return self.use(who)

    def _order(self) -> list[_Ticket]:
        """The waiting in the order they go: least use lately plus the cost of the request first (a short
        sentence of a quiet student before a long one of a busy classmate), then the first comer."""
        return sorted(self._waiting, key=lambda t: (self.use(t.who) + t.cost, t.seq))

    def ahead(self, ticket: _Ticket) -> int:
        """Requests before `ticket`: the waiting that go first, and the running when every slot is taken (for a
        short request, the fewer of that and the same count in the short lane)."""
        with self._cond:
            order = self._order()
            waiting = order.index(ticket) if ticket in order else 0
            ahead = waiting + (self._running if self._running >= self.slots else 0)
            if ticket.short:
                shorts = [t for t in order if t.short]
                in_lane = shorts.index(ticket) if ticket in shorts else 0
                ahead = min(ahead, in_lane + self._short_running)
            return ahead

    def info(self) -> dict[str, int]:
        with self._cond:
            running = self._running + self._short_running
            return {"slots": self.slots, "running": running, "waiting": len(self._waiting)}

    def _take(self, ticket: _Ticket) -> bool:
        """Under the lock: start `ticket` in a slot if one is free and it goes first, or, a short request,
        in the short lane if every slot is busy, the lane is free and no short request goes before it."""
        order = self._order()
        if self._running < self.slots:
            if order[0] is not ticket:
                return False
            self._running += 1
        elif ticket.short and not self._short_running and next(t for t in order if t.short) is ticket:
            self._short_running += 1
            ticket.short_lane = True
        else:
            return False
        self._waiting.remove(ticket)
        return True

    @contextlib.contextmanager
    def slot(
        self, who: Hashable = None, waiting: Callable[[int], None] | None = None, cost: float = 0.0
    ) -> Iterator[None]:
        """Hold a slot for the `with` block, for visitor `who`, a request expected to take `cost` seconds;
        meanwhile `waiting(requests ahead)` is called every POLL_S s. A block left while still waiting (the
        visitor moved on: Streamlit stops the run) gives its place up; the time a block held the slot counts
        as `who`'s use."""
        with self._cond:
            ticket = _Ticket(who, next(self._seq), max(0.0, float(cost)))
            self._waiting.append(ticket)
        started = None
        try:
            while True:
                with self._cond:
                    took = self._take(ticket)
                    if not took:
                        self._cond.wait(POLL_S)
                        took = self._take(ticket)
                    if took:
                        started = self._clock()
                        break
                if waiting is not None:
                    waiting(self.ahead(ticket))  # outside the lock: it draws on the page
            yield
        finally:
            with self._cond:
                if started is not None:
                    if ticket.short_lane:
                        self._short_running -= 1
                    else:
                        self._running -= 1
                    self.use.add(who, self._clock() - started)
                elif ticket in self._waiting:
                    self._waiting.remove(ticket)
                self._cond.notify_all()


POOL = Pool(slots())
_local = threading.local()


@contextlib.contextmanager
def for_visitor(who: Hashable, show: Callable[[int], None] | None = None) -> Iterator[None]:
    """Within the block, heavy work of this thread counts as `who`'s, and when it has to wait calls
    `show(requests ahead)` (the page's message) every POLL_S seconds."""
    before = getattr(_local, "visitor", None)
    _local.visitor = (who, show)
    try:
        yield
    finally:
        _local.visitor = before


@contextlib.contextmanager
def slot(cost: float = 0.0) -> Iterator[None]:
    """A turn in the process's pool for a request of about `cost` seconds, for the visitor of `for_visitor`;
    inside a turn this thread already holds, the block just runs (a ranking's own runs do not queue behind
    it). Inside `page_run`, the turn is kept until the page's run ends."""
    if getattr(_local, "holding", False):
        yield
        return
    keep = getattr(_local, "page", None)
    if keep is not None:  # the page's run keeps the turn: its trace is in use until the run ends
        who, show = getattr(_local, "visitor", None) or (None, None)
        with _stepped_out():
            keep.enter_context(POOL.slot(who, show, cost))
            _local.holding = True
            yield
        return
    who, show = getattr(_local, "visitor", None) or (None, None)
    with _stepped_out(), POOL.slot(who, show, cost):
        _local.holding = True
        try:
            yield
        finally:
            _local.holding = False


class Gate:
    """At most `turns` script runs compute at once; of the waiting, the visitor who kept the turns busy least
    lately goes first (seconds with a run waiting or holding a turn, halved every HALF_LIFE_S), then among
    equals a run coming back from heavy work, then the first comer. So a student who reads between clicks
    goes before classmates who send rerun after rerun, however many they send, and whether or not their runs
    come back from the workers (twenty visitors' runs coming back from their jobs one after the other went
    before the student's, when coming back came first). A run that has held its turn
    longer than HOLD_S (waiting on a model's load, building an export) stops counting, so it never holds the
    others up for long. Python runs one thread at a time (the GIL): thirty runs at once each take thirty
    times as long and all finish late, while in turns the first finish at once; and the server's event loop,
    which sends every session's messages, competes with `turns` threads instead of thirty."""

    def __init__(self, turns: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.turns = turns
        self._clock = clock
        self._cond = threading.Lock()
        # (not first, seq, who, its turn's event, asked at) of each waiting run
        self._queue: list[tuple[bool, int, Hashable, threading.Event, float]] = []
        self._held: dict[object, tuple[float, Hashable, float]] = {}  # token -> (since, who, asked at)
        self.use = UseLedger(clock)  # seconds with a run waiting or holding a turn
        self._seq = itertools.count()

    def _busy(self) -> int:
        now = self._clock()
        return sum(1 for since, _, _ in self._held.values() if now - since < HOLD_S)

    def used(self, who: Hashable) -> float:
        """`who`'s seconds with a run waiting or holding a turn, each halved every HALF_LIFE_S since."""
        with self._cond:
            return self.use(who)

    def _hand_over(self) -> None:
        """Under the lock: each free turn to the waiting run that goes next (class doc), woken alone. Sixty
        students' pages waiting as the teacher moves: waking them all at each turn's end, each to find it was
        not theirs, cost the page that was next the interpreter's lock sixty times over."""
        while self._queue and self._busy() < self.turns:
            entry = min(self._queue, key=lambda t: (self.use(t[2]), t[0], t[1]))
            self._queue.remove(entry)
            self._held[entry[3]] = (self._clock(), entry[2], entry[4])
            entry[3].set()

    def take(self, first: bool = False, who: Hashable = None) -> object:
        """Wait for a turn for visitor `who` (`first`: a run coming back to it, before its equals);
        returns its token."""
        me = threading.Event()
        with self._cond:
            entry = (not first, next(self._seq), who, me, self._clock())
            self._queue.append(entry)
            self._hand_over()
        try:
            while not me.wait(HOLD_S / 4):  # a holder past HOLD_S stops counting: looked at again meanwhile
                with self._cond:
                    self._hand_over()
        except BaseException:
            with self._cond:
                if entry in self._queue:
                    self._queue.remove(entry)
                else:
                    self._held.pop(me, None)
                    self._hand_over()
            raise
        return me

    def give(self, token: object) -> None:
        """End the turn of `token`: the seconds since its run asked for it count as its visitor's use."""
        with self._cond:
            _, who, asked = self._held.pop(token, (0.0, None, self._clock()))
            if who is not None:
                self.use.add(who, max(0.0, self._clock() - asked))
            self._hand_over()

    def info(self) -> dict[str, int]:
        with self._cond:
            return {
                "turns": self.turns,
                "busy": self._busy(),
                "held": len(self._held),
                "waiting": len(self._queue),
            }


HOLD_S = 0.4  # seconds after which a turn's holder no longer keeps another run waiting
RUN_TURNS_ENV = "ATTENTION_EXPLORER_RUN_TURNS"


def run_turns() -> int:
    """How many script runs compute at once: $ATTENTION_EXPLORER_RUN_TURNS, default 1. Python runs one thread
    at a time, so a second turn only runs a second page beside the first, each slower: the run that the fair
    order put first (a quiet student's, beside visitors who flood the server) then waits on both. A run
    waiting on a worker's job steps out of its turn (`stepped_out`), so one turn still lets a class's jobs
    run side by side."""
    raw = os.environ.get(RUN_TURNS_ENV, "1")
    return max(1, min(64, int(raw))) if raw.isdigit() else 1


RUNS = Gate(run_turns())


def stepped_out() -> contextlib.AbstractContextManager[None]:
    """This thread's turn of RUNS given up for the block (a page waiting for a job at the workers), then taken
    again, first in the queue: a class waiting for its jobs holds no turn from the pages that draw."""
    return _stepped_out()


@contextlib.contextmanager
def script_run(who: Hashable = None) -> Iterator[None]:
    """The frame's whole run takes a turn of RUNS for visitor `who`; heavy work inside it (`slot`) steps out
    meanwhile."""
    _local.run_who = who
    _local.run_turn = RUNS.take(who=who)
    try:
        yield
    finally:
        token, _local.run_turn = _local.run_turn, None
        if token is not None:
            RUNS.give(token)


@contextlib.contextmanager
def _stepped_out() -> Iterator[None]:
    """Give this thread's turn of RUNS up for the block (heavy work has its pool; a job waits for a worker),
    then take it again, first in the queue."""
    token = getattr(_local, "run_turn", None)
    if token is None:
        yield
        return
    RUNS.give(token)
    _local.run_turn = None
    try:
        yield
    finally:
        _local.run_turn = RUNS.take(first=True, who=getattr(_local, "run_who", None))


@contextlib.contextmanager
def page_run() -> Iterator[None]:
    """The frame's run of a page: a turn taken inside it (a real model's new sentence) is kept until the
    run ends, so that at most `slots` pages at once hold a new trace of their own (130 MB at 64 tokens for
    SmolLM2) while they draw it: the pool bounds the memory of a flood, not only its CPU."""
    with contextlib.ExitStack() as stack:
        _local.page = stack
        try:
            yield
        finally:
            _local.page = None
            _local.holding = False
