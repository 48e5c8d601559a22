"""explorer.cache.ArrayDigests: a read-only array is hashed once while it lives; anything that could change in
place is hashed every time. With a real layer open, a rerun hashes none of the layer's matrices again."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from explorer import cache
from explorer.ui import state
from tests.app import fixtures


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes (bytes) of the arrays explorer.cache hashes from now on."""
    sizes: list[int] = []
    real = cache.hash_bytes

    def counted(v: np.ndarray) -> bytes:
        sizes.append(v.nbytes)
        return real(v)

    monkeypatch.setattr(cache, "hash_bytes", counted)
    return sizes


def test_a_read_only_array_is_hashed_once_and_forgotten_when_it_dies(hashed: list[int]) -> None:
    digests = cache.ArrayDigests()
    a = np.arange(12.0).reshape(3, 4).copy()  # (a reshape alone is a view of a writable array)
    a.flags.writeable = False
    first = digests.of(a)
    assert digests.of(a) == first and hashed == [a.nbytes]  # the second ask is remembered
    assert first == cache.hash_bytes(np.arange(12.0).reshape(3, 4))  # the same bytes, the same digest
    assert len(digests) == 1
    del a
    gc.collect()
    assert len(digests) == 0


def test_an_array_that_can_change_in_place_is_hashed_every_time(hashed: list[int]) -> None:
    digests = cache.ArrayDigests()
    a = np.zeros((2, 3))
    before = digests.of(a)
    a[0, 0] = 1.0
    assert digests.of(a) != before and len(hashed) == 2 and len(digests) == 0
    view = a[:, :2]  # read-only itself, but its base is not: still hashed every time
    view.flags.writeable = False
    before = digests.of(view)
    a[1, 1] = 5.0
    assert digests.of(view) != before and len(digests) == 0


def test_equal_bytes_of_other_shapes_differ_in_an_examples_digest() -> None:
    flat, square = np.zeros((1, 4)), np.zeros((2, 2))
    ex = state.Example()
    assert ex.with_(w_o=flat).digest() != ex.with_(w_o=square).digest()


def test_a_rerun_with_a_real_layer_open_hashes_none_of_its_matrices_again(hashed: list[int]) -> None:
    from tests.app.fixtures import CAT, need, opened_in_explorer

    need("minilm")
    at = opened_in_explorer("minilm", CAT, 2, 5)
    assert all(
        not m.flags.writeable for m in at.session_state["m.matrices"].values()
    )  # never changed in place
    for page in ("app_pages/scores.py", "app_pages/heads.py", "app_pages/encoder.py"):
        fixtures.go(at, page)
        hashed.clear()
        at.run()
        assert not at.exception, at.exception
        assert sum(hashed) == 0, f"{page}: {sum(hashed):,} bytes hashed again"


def test_equal_read_only_arrays_are_held_once_while_one_lives() -> None:
    shared = cache.SharedArrays(min_bytes=1024)
    a = np.arange(256.0).reshape(16, 16).copy()  # (a reshape alone is a view of a writable array)
    b = a.copy()
    for m in (a, b):
        m.flags.writeable = False
    assert shared(a) is a and shared(b) is a  # b's equal values: a, held once
    c = (a + 1.0).copy()
    c.flags.writeable = False
    assert shared(c) is c  # other values: its own
    small = np.zeros(4)
    small.flags.writeable = False
    assert shared(small) is small and len(shared) == 2  # too small to be worth it: never held
    writable = a.copy()
    view = writable[:, :]  # read-only itself, its base not: could change under a session, never shared
    view.flags.writeable = False
    assert shared(view) is view
    del a
    gc.collect()
    assert shared(b) is b  # the first is gone: the next equal one is shared now


def test_two_sessions_with_the_same_real_layer_open_hold_its_matrices_once() -> None:
    from tests.app.fixtures import CAT, need, opened_in_explorer

    need("minilm")
    one, two = (opened_in_explorer("minilm", CAT, 2, 5) for _ in range(2))
    mine, theirs = (at.session_state["m.matrices"] for at in (one, two))
    assert mine.keys() == theirs.keys()
    large = [k for k, m in mine.items() if m.nbytes >= cache.SHARED_ARRAYS.min_bytes]
    assert {"w_q", "w1", "w2"} <= set(large)
    assert all(mine[k] is theirs[k] for k in large)


def test_an_array_on_a_read_only_memory_map_counts_as_read_only(tmp_path) -> None:
    # A real model's weights are views of a read-only map of their file: their digests are kept like those of
    # frozen arrays; a map opened for writing is not read-only.
    path = tmp_path / "w.f32"
    np.arange(16, dtype=np.float32).tofile(path)
    ro = np.memmap(path, dtype=np.float32, mode="r").view(np.ndarray)[4:8]
    assert cache._read_only(ro)
    rw = np.memmap(path, dtype=np.float32, mode="r+").view(np.ndarray)[4:8]
    rw.flags.writeable = False
    assert not cache._read_only(rw)
