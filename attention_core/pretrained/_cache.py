"""A small thread-safe least-recently-used cache bounded by the bytes of what it holds."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

V = TypeVar("V")


class ByteLRU(Generic[V]):
    """key -> value, evicting the least recently used entries while the total size exceeds ``max_bytes``.

    Each value is stored with its size in bytes (given by the caller); a value larger than the whole bound is
    not stored. Every method holds one lock, so Streamlit's script threads can share the cache.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = int(max_bytes)
        self._items: OrderedDict[str, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> V | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return item[0]

    def __contains__(self, key: str) -> bool:
        """Whether `key` is held (not counted as a hit or a miss, and not made more recent)."""
        with self._lock:
            return key in self._items

    def put(self, key: str, value: V, nbytes: int) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            if nbytes > self.max_bytes:
                return
            self._items[key] = (value, nbytes)
            self._bytes += nbytes
            while self._bytes > self.max_bytes:
                _, (_, size) = self._items.popitem(last=False)
                self._bytes -= size

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    def info(self) -> dict[str, int]:
        """entries, bytes held, the bound, hits and misses."""
        with self._lock:
            return {
                "entries": len(self._items),
                "bytes": self._bytes,
                "max_bytes": self.max_bytes,
                "hits": self.hits,
                "misses": self.misses,
            }
