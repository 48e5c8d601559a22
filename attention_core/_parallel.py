"""Row blocks for the element-wise steps of attention (scale, bias, mask, softmax).

numpy's matmul already runs on every core (BLAS), but its element-wise functions (``exp`` above all) run on
one. For a large (n_heads, n, n) score tensor the element-wise steps are therefore split into blocks of query
rows: each block is small enough to stay in the CPU cache while every step runs over it, and the blocks are
handed out one by one to the calling thread and a few pool threads (numpy releases the GIL inside its
loops), so on a busy machine a thread that starts late simply takes fewer blocks. This is the only loop of the hot path,
and it runs over blocks of rows, never over single tokens or heads; small inputs run as one block.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

# Element counts: below _PARALLEL_MIN the work runs in the calling thread; a block holds about _BLOCK entries
# of each (n_heads, rows, n_k) array (1 MiB of float64): small enough for the cache, large enough that the
# dozen numpy calls per block cost little (measured: blocks of 2^17 .. 2^20 entries run alike, 2^15 slower).
_PARALLEL_MIN = 1 << 17
_BLOCK = 1 << 17


def n_workers() -> int:
    """The number of CPUs this process may use (at most 8), or $OMP_NUM_THREADS when it says fewer: a process
    meant to use one core (a worker of a pool of one per core) keeps to one thread, as BLAS does."""
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        count = os.cpu_count() or 1
    told = os.environ.get("OMP_NUM_THREADS", "").strip()
    if told.isdigit() and int(told) > 0:
        count = min(count, int(told))
    return max(1, min(8, count))


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=n_workers(), thread_name_prefix="attention_core")


if hasattr(os, "register_at_fork"):  # a forked child has none of the parent's threads: start a new pool there
    os.register_at_fork(after_in_child=_pool.cache_clear)


def for_row_blocks(
    work: Callable[[slice], None], n_rows: int, row_size: int, block_rows: int | None = None
) -> None:
    """Call ``work(rows)`` for consecutive slices of 0 .. n_rows-1 that together cover every row once.

    ``row_size`` is the number of entries one row stands for (n_heads * n_k); it sets the block size, unless
    ``block_rows`` gives it (work that holds a matrix product per block wants larger blocks than the cache).
    Exceptions raised by ``work`` propagate to the caller.
    """
    block = max(1, block_rows or _BLOCK // max(1, row_size))
    blocks = [slice(start, min(start + block, n_rows)) for start in range(0, n_rows, block)]
    workers = n_workers()
    if n_rows * row_size < _PARALLEL_MIN or workers == 1 or len(blocks) == 1:
        for rows in blocks:
            work(rows)
        return

    pending = iter(blocks)  # shared: each thread takes the next block when it is free (next() holds the GIL)

    def run() -> None:
        for rows in pending:
            work(rows)

    futures = [_pool().submit(run) for _ in range(min(workers, len(blocks)) - 1)]
    try:
        run()  # the calling thread works too, so a late pool thread costs nothing
    finally:
        for future in futures:  # wait for every block before returning or raising
            future.exception()
    for future in futures:
        future.result()  # re-raises a worker's exception
