"""A real-model page says what it is doing while it works: each slow step (a model's run of a new sentence,
the logit lens, the induction scores, the heads switched off, rollout, the second sentence of a pair) runs
inside a spinner that says so in words; and when the server's heavy work is busy with another visitor, the
page says how many requests are ahead (explorer.compute.heavy's queue).

Each page runs alone under AppTest (as tests/app/pages/test_model_pages.py does) on a sentence never run before, so
the step does its work; the spinner is recorded as the page opens it (a real one: it is drawn after half a
second), and the step's function records which spinners were open when it was called.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from explorer.compute import heavy, interp, model_compute, patching
from explorer.model import models
from explorer.ui import state, waiting
from tests.app.fixtures import need, page_alone

WAIT = 60.0  # seconds any step may take on a loaded machine


class Spinners:
    """Wraps st.spinner: the texts of the spinners open now, and of every one opened."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.open: list[str] = []
        self.seen: list[str] = []
        real = st.spinner

        @contextlib.contextmanager
        def spinner(text: str = "", **kwargs: Any) -> Iterator[None]:
            self.open.append(text)
            self.seen.append(text)
            try:
                with real(text, **kwargs):
                    yield
            finally:
                self.open.remove(text)

        monkeypatch.setattr(st, "spinner", spinner)


def fresh(words: str) -> str:
    return f"{words} {time.time_ns()}."  # never in any cache


# page, model, the module and function of its slow step, what the spinner says (besides nothing)
STEPS = [
    ("next-token", "smollm2", patching, "run_and_needs", "Running SmolLM2-135M (decoder) on your sentence"),
    ("model", "minilm", model_compute, "run", "Running MiniLM (encoder) on your sentence"),
    ("head", "smollm2", model_compute, "labels", "what each head does"),
    ("logit-lens", "smollm2", interp, "lens", "what each layer would predict"),
    ("induction", "smollm2", interp, "induction", "random tokens twice"),
    ("ablation", "minilm", model_compute, "compare", "with the heads switched off"),
    ("rollout", "minilm", model_compute, "rollout", "through every layer"),
]


@pytest.mark.parametrize(("page", "model", "module", "name", "words"), STEPS, ids=[s[0] for s in STEPS])
def test_a_slow_step_runs_inside_a_spinner_that_says_what_it_does(
    monkeypatch: pytest.MonkeyPatch, page: str, model: str, module: Any, name: str, words: str
) -> None:
    need(model)
    spinners = Spinners(monkeypatch)
    calls: list[list[str]] = []
    real = getattr(module, name)

    def step(*args: Any, **kwargs: Any) -> Any:
        calls.append(list(spinners.open))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, step)
    at = page_alone(f"app_pages/{page}.py")
    at.session_state[state.K_MODEL] = model
    at.session_state[state.K_SENTENCE] = fresh("The cat sat on the mat because it was warm")
    if page == "induction":
        low, high = models.INDUCTION_SEEDS
        at.session_state[state.K_IND_SEED] = low + time.time_ns() % (high - low)  # tokens never scored here
    at.run(timeout=WAIT)
    assert not at.exception, at.exception
    assert calls, f"{page} never called {name}"
    said = [text for open_ in calls for text in open_ if words in text]
    assert said, f"{page}: {name} ran inside the spinners {calls}, none saying “{words}”"
    assert not spinners.open


def test_a_page_waiting_for_its_turn_says_how_many_requests_are_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """/minimal-pairs runs its second sentence while other visitors' work holds the only slot and the short
    lane (a MiniLM sentence is short enough for it: explorer.compute.heavy.SHORT_S): the page says
    so (the signal that frees the other visitor's slot), then draws its result and the message goes."""
    need("minilm")
    monkeypatch.setattr(heavy, "POLL_S", 0.05)
    monkeypatch.setattr(heavy, "POOL", heavy.Pool(1))
    busy, release = threading.Event(), threading.Event()
    said: list[str] = []
    real_info = DeltaGenerator.info

    def info(self: DeltaGenerator, body: Any, *args: Any, **kwargs: Any) -> Any:
        said.append(str(body))
        if "ahead of you" in str(body):
            release.set()  # told: the other visitor's work may end
        return real_info(self, body, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "info", info)
    first = "The animal didn't cross the street because it was too tired."
    at = page_alone("app_pages/minimal-pairs.py")
    at.session_state[state.K_MODEL] = "minilm"
    at.session_state[state.K_SENTENCE] = first
    at.run(timeout=WAIT)  # the first sentence run (and cached) before the pool is busy
    assert not at.exception, at.exception

    def other_visitor(cost: float) -> None:
        with heavy.POOL.slot(f"another visitor {cost}", None, cost):
            busy.set()
            release.wait(WAIT)

    other = threading.Thread(target=other_visitor, args=(0.0,))
    other.start()
    assert busy.wait(WAIT)
    busy.clear()
    lane = threading.Thread(target=other_visitor, args=(heavy.SHORT_S,))  # the short lane busy too
    lane.start()
    assert busy.wait(WAIT)
    try:
        at.session_state[state.K_PAIR_OTHER] = fresh("The animal didn't cross the street because it was too")
        at.run(timeout=WAIT)
    finally:
        release.set()
        other.join(WAIT)
        lane.join(WAIT)
    assert not at.exception, at.exception
    title = models.choice("minilm").title
    assert f"{title} is busy with other visitors' work: 1 request ahead of you; yours runs after it." in said
    assert not [i.value for i in at.info if "ahead of you" in i.value]  # gone once the run has its turn


def test_a_waiting_page_draws_its_message_when_it_changes_not_at_every_look() -> None:
    """A class waiting at the workers sends no repeats: each look at an unchanged queue draws nothing."""
    from explorer.compute import jobs

    class Box:
        def __init__(self) -> None:
            self.drawn: list[str] = []

        def info(self, text: str, icon: str) -> None:
            self.drawn.append(text)

        def progress(self, share: float, text: str | None) -> None:
            self.drawn.append(f"{share:.2f} {text}")

    box = Box()
    show = waiting._shown(box, "SmolLM2")
    for now in (
        [jobs.Status("queued", 3)] * 5
        + [jobs.Status("queued", 2)] * 3
        + [jobs.Status("running", 0, 0.5, "layer 15")] * 2
    ):
        show(now)
    assert len(box.drawn) == 3
    assert "3 requests ahead" in box.drawn[0] and "2 requests ahead" in box.drawn[1]
    assert box.drawn[2] == "0.50 layer 15"
    show(jobs.Status("running", 0, 0.5, "layer 15", np.zeros(3)))  # a partial result (arrays) is news too
    assert len(box.drawn) == 4
