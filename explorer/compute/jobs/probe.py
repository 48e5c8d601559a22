"""Jobs that check the pool itself (tests/core/test_jobs.py, benchmarks/flood.py): they compute nothing of the
explorer's, they wait, report progress, say where they ran and fail on purpose."""

from __future__ import annotations

import os
import time

import numpy as np

from explorer.compute.jobs import Progress


def where(token: str) -> tuple[int, int, str]:
    """(the worker's process id, its niceness, token)."""
    return os.getpid(), os.nice(0), token


def steps(n: int, seconds: float, token: str, progress: Progress) -> str:
    """n steps of `seconds` each, reporting after each; returns token."""
    for i in range(n):
        time.sleep(seconds)
        progress((i + 1) / n, f"step {i + 1} of {n}")
    return token


def refuse(message: str) -> None:
    """A job whose input is bad: the page says `message`."""
    raise ValueError(message)


def count_runs(path: str, token: str) -> int:
    """Appends a line to `path` for every run and returns how many runs there were (a joined job runs once)."""
    with open(path, "a") as f:
        f.write(token + "\n")
    time.sleep(0.3)
    with open(path) as f:
        return len(f.read().splitlines())


def steps_from(path: str, n: int, seconds: float, token: str, progress: Progress) -> str:
    """Writes its process id to `path` (a test kills it), then `steps`."""
    with open(path, "w") as f:
        f.write(str(os.getpid()))
    return steps(n, seconds, token, progress)


def growing(n: int, seconds: float, token: str, progress: Progress) -> list[int]:
    """n steps of `seconds` each, reporting after each the steps done so far as its partial result; returns them."""
    done: list[int] = []
    for i in range(n):
        time.sleep(seconds)
        done.append(i + 1)
        progress((i + 1) / n, f"{token}: step {i + 1} of {n}", partial=list(done))
    return done


def refuse_in_words(model: str, n: int, layer: int) -> None:
    """A job whose input is bad, refused in the catalog's words (jobs.Refusal): the page says it in its own
    language, whatever the worker's."""
    from explorer.compute.jobs import Refusal

    raise Refusal("{model} has layers 1 to {n}; there is no layer {layer}", model=model, n=n, layer=layer)


def steps_in_words(n: int, seconds: float, progress: Progress) -> int:
    """n steps of `seconds` each, each reported in the catalog's words (jobs.said); returns n."""
    from explorer.compute.jobs import said
    from explorer.compute.learn_live import STEP

    for i in range(n):
        time.sleep(seconds)
        progress((i + 1) / n, said(STEP, step=i + 1, total=n))
    return n


def echo(data: bytes, seconds: float) -> bytes:
    """Its bytes back, reversed, after `seconds` (a job of large arguments and as large a result, as reading
    an uploaded file is)."""
    time.sleep(seconds)
    return data[::-1]


def as_array(data: bytes, seconds: float) -> tuple[np.ndarray, list[str]]:
    """Its bytes back as an array, reversed, and a note, after `seconds` (as reading an uploaded file gives an
    example's matrices and notes)."""
    time.sleep(seconds)
    return np.frombuffer(data, np.uint8)[::-1].copy(), ["read"]


def hold(seconds: int, token: str) -> str:
    """Holds its process's interpreter for `seconds` (a C call that keeps the GIL, as json.loads of a large
    file does), then returns token: no other thread of the process runs meanwhile."""
    import ctypes

    ctypes.PyDLL(None).sleep(int(seconds))  # libc's sleep, called without letting go of the GIL
    return token


def large(n: int, token: str) -> tuple[np.ndarray, str]:
    """n bytes of a pattern seeded by n, and token: an outcome as large as an induction run's (10.8 MB) from
    small arguments."""
    return np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8), token
