"""Heavy real-model work takes turns: a bounded pool per process, first come first served.

A real model's run of a sentence it has not run yet (a 64-token SmolLM2 trace is 130 MB and most of a second
of CPU) and a ranking of heads go through `slot()`: at most SLOTS of them run at once in the process, the
others wait in the order they came and are told how many requests are ahead of them. A session's own runs
come one after the other (Streamlit runs a session's script in one thread), so a visitor who floods the
server holds one place in the queue at a time. The toy pages never come here: their reruns never wait
behind a model, and a flood of new sentences builds at most SLOTS traces at once (memory stays bounded).

Pure threading, no Streamlit: the page says where a run stands through the callback it gives for its
script thread (`showing`; explorer.ui.model_ui).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator

SLOTS_ENV = "ATTENTION_EXPLORER_HEAVY_SLOTS"
POLL_S = 0.5  # seconds between two updates of a waiting page


def slots() -> int:
    """How many heavy jobs may run at once: $ATTENTION_EXPLORER_HEAVY_SLOTS, default 1 (a Python process
    uses about one core for them; one more would only slow both down and double the memory)."""
    raw = os.environ.get(SLOTS_ENV, "1")
    return max(1, min(16, int(raw))) if raw.isdigit() else 1


class Pool:
    """At most `slots` holders at once; the others wait in the order they came (a ticket each)."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._cond = threading.Condition()
        self._running = 0
        self._queue: list[object] = []  # waiting tickets, oldest first

    def ahead(self, ticket: object) -> int:
        """Requests before `ticket`: those waiting in front of it, and those running when every slot is taken."""
        with self._cond:
            waiting = self._queue.index(ticket) if ticket in self._queue else 0
            return waiting + (self._running if self._running >= self.slots else 0)

    def info(self) -> dict[str, int]:
        with self._cond:
            return {"slots": self.slots, "running": self._running, "waiting": len(self._queue)}

    @contextlib.contextmanager
    def slot(self, waiting: Callable[[int], None] | None = None) -> Iterator[None]:
        """Hold a slot for the `with` block; meanwhile `waiting(requests ahead)` is called every POLL_S s.
        A block left while still waiting (the visitor moved on: Streamlit stops the run) gives its place up."""
        ticket = object()
        with self._cond:
            self._queue.append(ticket)
        running = False
        try:
            while True:
                with self._cond:
                    if self._queue[0] is ticket and self._running < self.slots:
                        self._queue.pop(0)
                        self._running += 1
                        running = True
                        break
                    self._cond.wait(POLL_S)
                    if self._queue[0] is ticket and self._running < self.slots:
                        continue
                if waiting is not None:
                    waiting(self.ahead(ticket))  # outside the lock: it draws on the page
            yield
        finally:
            with self._cond:
                if running:
                    self._running -= 1
                elif ticket in self._queue:
                    self._queue.remove(ticket)
                self._cond.notify_all()


POOL = Pool(slots())
_local = threading.local()


@contextlib.contextmanager
def showing(show: Callable[[int], None]) -> Iterator[None]:
    """Within the block, heavy work of this thread that has to wait calls `show(requests ahead)` (the
    page's message) every POLL_S seconds."""
    before = getattr(_local, "show", None)
    _local.show = show
    try:
        yield
    finally:
        _local.show = before


@contextlib.contextmanager
def slot() -> Iterator[None]:
    """A turn in the process's pool (waiting as `showing` asked); inside a turn this thread already holds,
    the block just runs (a ranking's own runs do not queue behind it)."""
    if getattr(_local, "holding", 0):
        yield
        return
    with POOL.slot(getattr(_local, "show", None)):
        _local.holding = 1
        try:
            yield
        finally:
            _local.holding = 0
