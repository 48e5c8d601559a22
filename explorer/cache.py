"""Caches shared by every session, bounded in bytes and keyed by a digest of their arguments.

Why not `st.cache_data(max_entries=...)`: it bounds the number of entries, not their size, and an entry of
an entry of the largest example is megabytes, so 256 entries can hold gigabytes; it also keys on the
arguments themselves (a long sentence makes a key as long) and unpickles a fresh copy on every hit.

`shared(max_bytes=...)` memoizes a pure function in one `ByteCache`: least recently used entries are dropped
as soon as the entries together hold more than `max_bytes` (measured by `nbytes`), a value larger than a
quarter of the budget is returned but not kept, and the key is a fixed-size digest of the arguments whose
parameter name does not start with "_" (as in st.cache_data: `_ex` rides along, `digest` is the key). Every
session receives the SAME object, so the numpy arrays in a cached value are made read-only: a page that
tried to change a shared result in place would fail loudly instead of changing another visitor's page.

Every cache of the process together, the explorer's and the engine's, is bounded by TOTAL_BYTES: `budgets()`
lists each one's bound (tests/app/compute/test_layer_memory.py adds them up). What fills them in a class:
compute.cached (a real layer's traced run at 10 tokens about 1 MB, the toy's a few KB), the engine's runs of
the real models (a SmolLM2 sentence of 10 tokens 1.1 MB, of 64 tokens 9.6 MB: attention_core.pretrained),
the layers' inputs, links, labels and the logit lens, the charts a class's students draw alike (12 MB); the
layers of a real model (model.bridge) count the model's own arrays they point at, so their bound is larger
than the memory they take.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import mmap
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

MB = 1 << 20
T = TypeVar("T")


def nbytes(obj: object, _seen: set[int] | None = None) -> int:
    """The bytes `obj` holds: numpy buffers, strings and the containers and dataclasses around them.

    Each object is counted once (shared arrays are not counted twice); a view counts its own bytes.
    """
    seen = set() if _seen is None else _seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return sys.getsizeof(obj) + (0 if obj.flags.owndata else obj.nbytes)  # owndata: getsizeof has it
    size = sys.getsizeof(obj)
    if isinstance(obj, str | bytes | int | float | bool | complex | type(None)):
        return size
    if isinstance(obj, dict):
        return size + sum(nbytes(k, seen) + nbytes(v, seen) for k, v in obj.items())
    if isinstance(obj, list | tuple | set | frozenset):
        return size + sum(nbytes(v, seen) for v in obj)
    if dataclasses.is_dataclass(obj):
        return size + sum(nbytes(getattr(obj, f.name), seen) for f in dataclasses.fields(obj))
    return size + sum(nbytes(v, seen) for v in getattr(obj, "__dict__", {}).values())


def freeze(obj: object, _seen: set[int] | None = None) -> None:
    """Make every numpy array inside `obj` read-only (the value is about to be shared by every session)."""
    seen = set() if _seen is None else _seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        obj.flags.writeable = False
    elif isinstance(obj, dict):
        for v in obj.values():
            freeze(v, seen)
    elif isinstance(obj, list | tuple | set | frozenset):
        for v in obj:
            freeze(v, seen)
    elif dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            freeze(getattr(obj, f.name), seen)


class ByteCache:
    """A thread-safe least-recently-used map of digest -> value, holding at most `max_bytes` bytes."""

    def __init__(self, name: str, max_bytes: int) -> None:
        self.name, self.max_bytes = name, int(max_bytes)
        self.max_item_bytes = self.max_bytes // 4  # a bigger value is computed but not kept
        self._items: OrderedDict[str, tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str) -> tuple[bool, object]:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                self.misses += 1
                return False, None
            self._items.move_to_end(key)
            self.hits += 1
            return True, item[0]

    def put(self, key: str, value: object) -> None:
        size = nbytes(value) + sys.getsizeof(key)
        if size > self.max_item_bytes:
            return
        freeze(value)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self._items[key] = (value, size)
            self.bytes += size
            while self.bytes > self.max_bytes and self._items:
                _, (_, dropped) = self._items.popitem(last=False)
                self.bytes -= dropped

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.bytes = 0


class ArrayDigests:
    """Digests of arrays' bytes, each remembered while its array lives if nothing can change the array in
    place (it and every array it views are read-only). A real layer's matrices (about 25 MB for SmolLM2) are
    then hashed once, not each time an Example's digest is asked for (several times a rerun)."""

    def __init__(self) -> None:
        self._items: dict[int, tuple[weakref.ref, bytes]] = {}  # id(array) -> (the array, its digest)
        self._lock = threading.RLock()  # (a weakref callback may run inside `of`, on the same thread)

    def __len__(self) -> int:
        return len(self._items)

    def of(self, v: np.ndarray) -> bytes:
        frozen, key = _read_only(v), id(v)
        with self._lock:
            hit = self._items.get(key) if frozen else None
        if hit is not None and hit[0]() is v:
            return hit[1]
        d = hash_bytes(v)  # (looked up as a module global, so a test can count the hashing)
        if frozen:
            with self._lock:
                self._items[key] = (weakref.ref(v, functools.partial(self._drop, key)), d)
        return d

    def _drop(self, key: int, ref: weakref.ref) -> None:
        with self._lock:
            if (item := self._items.get(key)) is not None and item[0] is ref:
                del self._items[key]


def hash_bytes(v: np.ndarray) -> bytes:
    """A 16-byte digest of an array's bytes (C order)."""
    return hashlib.blake2b(np.ascontiguousarray(v).reshape(-1).view(np.uint8), digest_size=16).digest()


def _read_only(v: object) -> bool:
    """Whether nothing can change v's bytes: read-only down to what holds them (its own memory, bytes, or a
    memory map of a file opened read-only: a real model's weights)."""
    while isinstance(v, np.ndarray):
        if v.flags.writeable:
            return False
        v = v.base
    if isinstance(v, mmap.mmap):
        return memoryview(v).readonly
    return v is None or isinstance(v, bytes)


ARRAY_DIGESTS = ArrayDigests()


class SharedArrays:
    """One array for the equal read-only arrays of many sessions: a class that opens the same layer file, or
    the same trained layer, holds its matrices once in the server's memory instead of once per student (the
    largest file's example is 32 MB). An array is shared while some session still holds it; only arrays that
    nothing can change in place (read-only, and every array they view) and of at least `min_bytes`."""

    def __init__(self, min_bytes: int = 1 << 16) -> None:
        self.min_bytes = min_bytes
        self._items: dict[tuple[str, tuple[int, ...], bytes], weakref.ref] = {}  # what it holds -> the array
        self._lock = threading.RLock()  # (a weakref callback may run inside `__call__`, on the same thread)

    def __len__(self) -> int:
        return len(self._items)

    def __call__(self, v: np.ndarray) -> np.ndarray:
        """The array equal to `v` that is already shared, else `v` (shared from now on)."""
        if v.nbytes < self.min_bytes or v.dtype.kind == "O" or not _read_only(v):
            return v
        key = (v.dtype.str, v.shape, ARRAY_DIGESTS.of(v))
        with self._lock:
            ref = self._items.get(key)
            held = None if ref is None else ref()
            if held is not None:
                return held
            self._items[key] = weakref.ref(v, functools.partial(self._drop, key))
        return v

    def _drop(self, key: tuple[str, tuple[int, ...], bytes], ref: weakref.ref) -> None:
        with self._lock:
            if self._items.get(key) is ref:
                del self._items[key]


SHARED_ARRAYS = SharedArrays()


def key_of(values: tuple[object, ...]) -> str:
    """A fixed-size digest of the key arguments (their repr: plain values, digests, small tuples)."""
    return hashlib.blake2b(repr(values).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def digest_of(value: object) -> str:
    """A fixed-size digest of plain values, numpy arrays (their type, shape and bytes: never their repr,
    which elides a large array's middle), and the lists, tuples, dicts and dataclasses around them.
    TypeError for anything else."""
    h = hashlib.blake2b(digest_size=16)
    _feed(h, value)
    return h.hexdigest()


def _feed(h: Any, value: object) -> None:
    if isinstance(value, np.ndarray):
        h.update(f"nd{value.dtype.str}{value.shape}".encode())
        # an array of objects holds pointers: its values' reprs instead (a pointer reused would match)
        h.update(value.tobytes() if value.dtype.kind != "O" else repr(value.tolist()).encode())
    elif value is None or isinstance(value, str | bytes | int | float | bool | complex | np.generic):
        h.update(f"{type(value).__name__}:{value!r};".encode("utf-8", "surrogatepass"))
    elif isinstance(value, list | tuple):
        h.update(f"{type(value).__name__}[{len(value)}".encode())
        for v in value:
            _feed(h, v)
    elif isinstance(value, dict):
        h.update(f"dict[{len(value)}".encode())
        for k, v in value.items():
            _feed(h, k)
            _feed(h, v)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        h.update(f"{type(value).__qualname__}(".encode())
        for f in dataclasses.fields(value):
            _feed(h, getattr(value, f.name))
    else:
        raise TypeError(f"no digest for {type(value).__name__}")


def shared(max_bytes: int) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Memoize a pure function in a ByteCache of `max_bytes` (see the module doc); `fn.cache` is the cache.

    Arguments whose parameter name starts with "_" are not part of the key: pass a digest of them instead.
    """

    def wrap(fn: Callable[..., T]) -> Callable[..., T]:
        sig = inspect.signature(fn)
        keyed = [p for p in sig.parameters if not p.startswith("_")]
        store = ByteCache(f"{fn.__module__}.{fn.__qualname__}", max_bytes)

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> T:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            key = key_of(tuple(bound.arguments[p] for p in keyed))
            found, value = store.get(key)
            if found:
                return value  # type: ignore[return-value]
            value = fn(*args, **kwargs)
            store.put(key, value)
            return value

        run.cache = store  # type: ignore[attr-defined]
        return run

    return wrap


def caches() -> list[ByteCache]:
    """Every cache made by `shared` in the explorer's modules imported so far (found, not registered)."""
    found = []
    for name, module in list(sys.modules.items()):
        if name.startswith("explorer.") and module is not None:
            for value in list(vars(module).values()):
                store = getattr(value, "cache", None)
                if isinstance(store, ByteCache) and store not in found:
                    found.append(store)
    return found


def held() -> int:
    """Bytes held by every shared cache together."""
    return sum(c.bytes for c in caches())


TOTAL_BYTES = 412 * MB


def budgets() -> dict[str, int]:
    """name -> bound in bytes of every cache of the process: the explorer's (every module imported) and the
    engine's (the real models' runs and the parts computed from them)."""
    import importlib
    import pkgutil

    import explorer
    from attention_core import pretrained

    for module in pkgutil.walk_packages(explorer.__path__, "explorer."):
        importlib.import_module(module.name)
    found = {c.name: c.max_bytes for c in caches()}
    return found | {"attention_core.pretrained runs": pretrained.CACHE_BYTES,
                    "attention_core.pretrained parts": pretrained.PARTS_BYTES}  # fmt: skip
