"""How long the slow steps take on this server, measured as they run, so a page says truthfully what a wait
costs before it starts. Pure: no Streamlit.

Each finished step records its seconds per unit of work (a patched run of the model; a run of one token with
heads switched off); a wait is then said from the recent ones, scaled to the work asked. Before this server
has run one, a prior measured on the development machine (2 cores shared by several processes: a patching
of both sweeps on a 10-token pair, 570 patched runs, took 23 to 52 s; a ranking of SmolLM2's heads on a
10-word sentence, 57 runs of 12 tokens, 22 s) is said, as such. Process-wide, bounded, thread-safe.
"""

from __future__ import annotations

import statistics
import threading
from collections import deque

from explorer.i18n import _

RECENT = 8  # the measurements kept per kind: the wait said follows the server's load of late
# Seconds per unit before any measurement here: (fastest, slowest) seen on the development machine.
PRIORS: dict[str, tuple[float, float]] = {
    "patching": (0.04, 0.09),  # a patched run of SmolLM2 from the patched layer on
    "ranking": (0.02, 0.05),  # one token of a run with heads switched off
    # one token of /induction's random tokens run twice and scored (SmolLM2: 100 tokens took 30 s on the
    # development machine loaded by eight processes; about 8 s when it was quiet)
    "induction": (0.08, 0.3),
}

_LOCK = threading.Lock()
_RECENT: dict[str, deque[float]] = {kind: deque(maxlen=RECENT) for kind in PRIORS}


def record(kind: str, seconds: float, units: float) -> None:
    """A finished step of `kind` took `seconds` for `units` of work (ignored when either is not positive)."""
    if kind not in PRIORS:
        raise ValueError(f"unknown kind of wait: {kind!r} (one of {', '.join(PRIORS)})")
    if seconds > 0 and units > 0:
        with _LOCK:
            _RECENT[kind].append(seconds / units)


def estimate(kind: str, units: float) -> tuple[float, float, bool]:
    """(fewest, most) seconds `units` of `kind` take, and whether that was measured on this server (else the
    prior): the range of the recent measurements, or the prior's."""
    with _LOCK:
        recent = list(_RECENT[kind])
    if recent:
        lo, hi = min(recent), max(recent)
        if len(recent) >= 4:  # one slow outlier (a class starting at once) does not set the whole range
            lo, hi = statistics.quantiles(recent, n=4)[0], max(statistics.median(recent), recent[-1])
        return lo * units, hi * units, True
    lo, hi = PRIORS[kind]
    return lo * units, hi * units, False


def duration(seconds: float) -> str:
    """A duration as said to a person: "8 s", "40 s", "2 min 10 s" (rounded to 5 s past 20 s)."""
    s = max(1, round(seconds)) if seconds < 20 else 5 * round(seconds / 5)
    if s < 60:
        return f"{s} s"
    m, rest = divmod(int(s), 60)
    return f"{m} min" + (f" {rest} s" if rest else "")


def words(kind: str, units: float) -> str:
    """What a wait of `units` of `kind` costs, in words: "about 40 s here" or "20 s to 45 s here", said as
    measured on this server or on the development machine."""
    lo, hi, measured = estimate(kind, units)
    if duration(lo) == duration(hi):
        if measured:
            return _("about {time} (as measured on this server lately)", time=duration(hi))
        return _("about {time} (on a busy 2-core machine; less on a fast one)", time=duration(hi))
    if measured:
        return _("{low} to {high} (as measured on this server lately)", low=duration(lo), high=duration(hi))
    return _(
        "{low} to {high} (on a busy 2-core machine; less on a fast one)", low=duration(lo), high=duration(hi)
    )
