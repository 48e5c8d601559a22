"""The take-home files of "Share and export" (a notebook, one offline HTML page, the example as JSON), made as
jobs.

A real layer's files take seconds of CPU to write (its every chart, its numbers written out): they are made in
a worker (explorer.compute.jobs), never in the web process, whose threads take turns with every visitor's
pages. `make(which, code, ex, ...)` is what the download button calls; the job (`made`) runs in the worker,
in the language `code` the page was drawn in. Its key is the example's digest and the other plain values, so
a class downloading the same example's file together makes it once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from attention_core import analysis
from explorer import i18n
from explorer.compute import cached as compute
from explorer.compute import jobs, model_compute, pairs, patching
from explorer.export import experiments as experiments_
from explorer.export import html, layer_notebook, notebook, walkthrough
from explorer.model import models
from explorer.model import pairs as pm
from explorer.model.example import Example
from explorer.model.layer import describe
from explorer.sharing.json_file import to_json

# What a real-model page's experiment was, in plain values (the download runs outside the script, without the
# session): ("patching", model, clean, corrupt, answer, wrong) or ("minimal-pairs", model, first, second, word,
# layer); answer, wrong, word None when not picked (the page's defaults).
Asked = tuple[Any, ...] | None

# Seconds of CPU a file takes to make, about (the pool's fair order): a toy example's (at most SMALL_CELLS in
# its largest matrix) and a real layer's (benchmarks/export.py).
SMALL_CELLS = 65_536
COST_S = {"notebook": (0.3, 2.0), "html": (0.8, 3.0)}


def experiments(what: Asked) -> tuple[experiments_.Experiment, ...]:
    """The experiment as the exports show it, from the caches the page filled (a sweep not run yet is left
    out); none when it cannot be made (a model not installed, a pair the page refused)."""
    if what is None or not what[2] or not what[3] or models.missing(what[1]):
        return ()
    name, key, first, second, a, b = what
    try:
        if name == "patching":
            pair = patching.pair(key, first, second, *patching.answers(key, first, second, a, b))
            sweeps = [
                patching.sweep(key, first, second, pair.answer, pair.wrong, s) for s in ("resid", "head")
            ]
            return (experiments_.patching(pair, *sweeps),)
        runs = model_compute.run(key, first), model_compute.run(key, second)
        differ = (
            analysis.differing(runs[0].tokens, runs[1].tokens) if runs[0].n_tokens == runs[1].n_tokens else ()
        )
        word = pm.pick_word(runs[0].tokens, differ, a)
        return (experiments_.minimal_pair(pairs.shift(key, first, second, word), int(b)),)
    except ValueError:  # the page says why; the export leaves it out
        return ()


def _walkthrough(
    ex: Example, query: int, head: int, link: str, what: Asked = None
) -> walkthrough.Walkthrough:
    w = walkthrough.from_example(ex, compute.run(ex), query=query, head=head, link=link)
    return replace(w, experiments=experiments(what))


def _walkthrough_notebook(ex: Example, query: int, head: int, link: str, what: Asked = None) -> bytes:
    return notebook.to_bytes(_walkthrough(ex, query, head, link, what))


def _layer_notebook(ex: Example, query: int, head: int, link: str, what: Asked = None) -> bytes:
    return layer_notebook.to_bytes(ex, compute.run(ex), head, link)  # the head on screen, its own numbers


# Description.notebook -> what writes the notebook
NOTEBOOKS: dict[str, Callable[..., bytes]] = {"walkthrough": _walkthrough_notebook, "layer": _layer_notebook}


def notebook_bytes(ex: Example, query: int, head: int, link: str, what: Asked = None) -> bytes:
    return NOTEBOOKS[describe(ex).notebook](ex, query, head, link, what)


def html_bytes(ex: Example, query: int, head: int, link: str, what: Asked = None) -> bytes:
    w = _walkthrough(ex, query, head, link, what)
    shown = describe(ex)
    if shown.banner:  # say where the numbers come from
        said = i18n._(
            "{source}: {banner} The formulas are this layer's; every chart shows this layer's own numbers.",
            source=shown.source,
            banner=shown.banner,
        )
        w = replace(w, notes=(said, *w.notes))
    return html.to_bytes(w)


MAKERS: dict[str, Callable[..., bytes]] = {"notebook": notebook_bytes, "html": html_bytes}


def made(which: str, code: str, ex: Example, query: int, head: int, link: str, what: Asked = None) -> bytes:
    """The job: the file `which` ("notebook", "html") of the example, in the language `code`."""
    with i18n.using(code):
        return MAKERS[which](ex, query, head, link, what)


def make(which: str, code: str, ex: Example, query: int, head: int, link: str, what: Asked = None) -> bytes:
    """The file `which` of the example in the language `code`, made in a worker (module doc). Its arguments'
    repr would cut the example's matrices short: its key holds their digest instead."""
    key = f"{which}:{code}:{ex.digest()}:{query}:{head}:{link}:{what!r}"
    cost = COST_S[which][ex.d_model * max(ex.d_ff, ex.d_model) > SMALL_CELLS]
    job = jobs.spec(made, which, code, ex, int(query), int(head), link, what, cost=cost, keep=False, key=key)
    return jobs.call(job)


def json_job(ex: Example, draws: dict[str, int]) -> str:
    """The job of ``json_text``."""
    return to_json(ex, draws)


def json_text(ex: Example, draws: dict[str, int]) -> str:
    """ "Download the example (JSON)": a toy example's text at once (a few ms), a real layer's in a worker (its
    every edited cell written out: up to 43 MB and 4 s of CPU for SmolLM2's)."""
    draws = {str(n): int(d) for n, d in draws.items()}
    if ex.d_model * max(ex.d_ff, ex.d_model) <= SMALL_CELLS:
        return to_json(ex, draws)
    key = f"json:{ex.digest()}:{sorted(draws.items())!r}"
    return jobs.call(jobs.spec(json_job, ex, draws, cost=COST_S["html"][1], keep=False, key=key))
