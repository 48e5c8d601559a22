"""Cached compute of /logit-lens and /induction (and the induction label on /model): the logit lens of a
sentence, a token followed through the layers, the repeated random tokens' run.

Each is a pure function of plain values (model key, text, token id, seed, length) in a cache shared by every
session and bounded in bytes (explorer.cache.shared). The model comes from explorer.model.models, its run on
the sentence from explorer.compute.model_compute (the engine caches the run). Nothing here draws.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from attention_core import analysis
from explorer import cache
from explorer.compute import jobs, model_compute, timing
from explorer.model import models

LENS_K = 5  # top tokens kept per cell: the cell shows the first, its hover all five
# A lens at 64 tokens holds 4.6 MB (the normed residual stream, what a followed token is read from), at 12
# tokens 0.9 MB; an induction run of 2 x 50 tokens 11 MB (every head's weights, float32): five of them, the
# standard run and the seeds a class tries, within the process's one total (explorer.cache.TOTAL_BYTES).
LENS_BYTES = 32 * cache.MB
INDUCTION_BYTES = 56 * cache.MB


@dataclass(frozen=True)
class Lens:
    """The logit lens of one sentence (analysis.LensReading) and the display strings of its tokens."""

    reading: analysis.LensReading  # ids, probs (L + 1, n, k); normed (L + 1, n, d); log_norm (L + 1, n)
    words: dict[int, str]  # token id -> display string, for every id in reading.ids


@cache.shared(max_bytes=LENS_BYTES)
def lens(key: str, text: str) -> Lens:
    """The top LENS_K next tokens after every layer at every position of ``text`` (a decoder's key): a job
    (explorer.compute.jobs) of about two runs' cost (the run, then every layer read through the vocabulary)."""
    return jobs.call(jobs.spec(lens_job, key, text, cost=2 * model_compute.run_cost(key, text)))


def lens_job(key: str, text: str) -> Lens:
    """The job of ``lens``."""
    m = models.model(key)
    reading = analysis.read_lens(m, model_compute.run(key, text), LENS_K)
    ids = np.unique(reading.ids).tolist()
    return Lens(reading, dict(zip(ids, m.token_strings(ids), strict=True)))


@cache.shared(max_bytes=model_compute.SMALL_BYTES)
def follow(key: str, text: str, token: int) -> NDArray[np.float64]:
    """(L + 1, n) the probability of ``token`` after every layer at every position."""
    return analysis.lens_token_probs(models.model(key), lens(key, text).reading, [token])[0]


def candidates(reading: analysis.LensReading, at: int) -> list[int]:
    """The tokens worth following at position ``at``: the model's own top LENS_K there, then every other
    token some layer puts first, in the order the layers first do."""
    own = reading.ids[-1, at].tolist()
    firsts = [int(t) for t in reading.ids[:, at, 0]]
    return own + [t for i, t in enumerate(firsts) if t not in own and t not in firsts[:i]]


def wins_from(top: NDArray[np.int64], token: int) -> int | None:
    """The first row from which ``token`` is the top token in every row after it: top (L + 1,) the top token
    of each row; None when it is not the last row's."""
    lost = np.flatnonzero(np.asarray(top) != token)
    if lost.size and lost[-1] == len(top) - 1:
        return None
    return int(lost[-1] + 1) if lost.size else 0


def token_string(key: str, token: int) -> str:
    """The display string of a token id."""
    return str(models.model(key).token_strings([int(token)])[0])


@dataclass(frozen=True)
class Induction:
    """The repeated random tokens' run (analysis.InductionRun) and the display strings of its n tokens."""

    run: analysis.InductionRun  # token_ids (2n,), attentions (L, H, 2n, 2n), induction, previous, losses
    tokens: tuple[str, ...]  # the n random tokens as shown


MEASURED_S = 0.25  # a wait this long or longer was a run (a finished job's result comes back at once)


@cache.shared(max_bytes=INDUCTION_BYTES)
def induction(key: str, seed: int, length: int, off: model_compute.Off = ()) -> Induction:
    """``length`` distinct random tokens (seeded, past the model's special tokens), repeated twice, run with
    the heads ``off`` switched off (0-based (layer, head), sorted): a job (explorer.compute.jobs), so a class
    opening the same seed costs one run."""
    cost = model_compute.run_cost(key, " ".join(["w"] * (2 * int(length))))
    job = jobs.spec(induction_job, key, int(seed), int(length), tuple(off), cost=cost)
    began = time.monotonic()
    got = jobs.call(job)
    took = time.monotonic() - began
    if took >= MEASURED_S:  # a run, not a result someone's run left: what the next wait is said from
        timing.record("induction", took, 2 * int(length))
    return got


def induction_job(key: str, seed: int, length: int, off: model_compute.Off) -> Induction:
    """The job of ``induction``."""
    m, row = models.model(key), models.choice(key)
    ids = analysis.random_tokens(seed, length, row.ordinary_from, int(m.config.vocab_size))
    mask = models.head_mask(models.shape(key), off)
    return Induction(analysis.run_induction(m, ids, mask), tuple(m.token_strings(ids.tolist())))


def uniform_score(n: int) -> float:
    """The induction score of a head spreading its weight evenly over the keys it may see, on n tokens
    repeated: (1/n) sum_{i=n}^{2n-1} 1 / (i + 1)."""
    return float(np.mean(1.0 / (np.arange(n, 2 * n) + 1.0)))


@cache.shared(max_bytes=model_compute.SMALL_BYTES)
def standard_induction(key: str) -> NDArray[np.float64]:
    """(L, H) every head's induction score on the standard run (models.INDUCTION_SEED, INDUCTION_LENGTH):
    kept apart from ``induction``, so /model's labels do not wait for a run other seeds pushed out."""
    return np.array(induction(key, models.INDUCTION_SEED, models.INDUCTION_LENGTH).run.induction)


def tied(key: str) -> bool:
    """The model reads its output with its input embedding table (logits = h E^T): read before any layer, a
    token's top next token is then mostly the token itself (the logit lens's first row)."""
    return bool(models.model(key).config.tied_embeddings)
