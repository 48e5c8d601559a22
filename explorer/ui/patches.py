"""Every change the app makes inside Streamlit (and asyncio), in one place.

Each reaches a private name that a new version may rename or remove; tests/app/test_patches.py checks, for
each, that what it relies on is still there and behaves as assumed, and fails on another Streamlit version
than STREAMLIT_VERSION until someone has looked again (then the pin moves with requirements.txt).

send_writes_at_once     asyncio's per-connection hook: TCP_NODELAY on the sockets Streamlit accepts
guard_editor_messages   Streamlit's reader of data-editor messages: a crafted one becomes a refused edit
forget_closed_sessions  Streamlit's store of closed sessions: expired ones are let go
"""

from __future__ import annotations

import functools
import socket
from collections.abc import Callable
from typing import Any

STREAMLIT_VERSION = "1.67.0"  # what the patches below were read against (requirements.txt pins the same)


@functools.cache  # once per process
def send_writes_at_once() -> None:
    """Nagle's algorithm off (TCP_NODELAY) on every TCP connection the process's event loop opens or accepts.

    asyncio turns it off only on sockets that say they are TCP (`sock.proto == IPPROTO_TCP`); Streamlit binds
    its listening socket as `socket.socket(family)`, protocol 0, so the connections it accepts keep Nagle on,
    and on a kept-alive connection a response's second write (the body after the headers) waits for the
    browser's delayed acknowledgement of the first: 40 ms per request after a connection's first. A new tab
    fetches about 120 files over six connections; WebSocket messages wait the same way.
    """
    from asyncio import base_events  # the hook asyncio's socket transports call for each new connection

    def set_nodelay(sock: socket.socket) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    base_events._set_nodelay = set_nodelay  # noqa: SLF001 - see the docstring


def guard_editor_messages(read: Callable[[Any, Callable[[Any], Any]], Any]) -> None:
    """Put `read(ui_value, original)` in front of Streamlit's reader of data-editor messages (once per
    process): `original` is Streamlit's own reading, `read` gives what the widget's state becomes
    (explorer.ui.editors.read_message: an empty edit carrying the reason when a message is refused).

    Streamlit reads an editor's message before any of the app's code runs, and an exception there stays on
    the page until the next edit; there is no public hook for it.
    """
    from streamlit.elements.widgets import data_editor as de

    original = de.DataEditorSerde.deserialize
    if getattr(original, "explorer_guard", False):
        return

    def deserialize(self, ui_value):  # noqa: ANN001, ANN202 - Streamlit's signature
        return read(ui_value, lambda v: original(self, v))

    deserialize.explorer_guard = True  # type: ignore[attr-defined]
    de.DataEditorSerde.deserialize = deserialize


def forget_closed_sessions(manager: object | None = None) -> int:
    """Let go of the closed sessions whose time to reconnect (server.disconnectedSessionTTL) is over; returns
    how many there were.

    Streamlit keeps a closed session (its state: the example, the edited matrices) for a reconnect in a TTL
    cache that drops an expired entry only when another session is stored or the entries are counted: after
    the last visitor of a class leaves, nothing does either, and every session stays in memory (66 real-layer
    sessions: about 350 MB, benchmarks/layer_memory.py). Counting them drops them. `manager` is the
    runtime's session manager (for a test); nothing happens where the storage is not Streamlit's own.
    """
    if manager is None:
        from streamlit import runtime

        if not runtime.exists():
            return 0
        manager = getattr(runtime.get_instance(), "_session_mgr", None)
    stored = getattr(getattr(manager, "_session_storage", None), "_cache", None)
    expire = getattr(stored, "expire", None)
    return len(expire()) if callable(expire) else 0
