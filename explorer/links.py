"""Reading an example from the URL (and, later, writing one). Pure functions of the query parameters."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from explorer.example import Example
from explorer.presets import PRESETS


@dataclass
class UrlRead:
    """What the URL asked for: an example to load (or None), display flags, and messages for the person."""

    example: Example | None = None
    preset: str = ""
    present: bool | None = None
    messages: list[tuple[str, str]] = field(default_factory=list)


def read(params: Mapping[str, str], current: Example) -> UrlRead:
    """Interpret ?preset=, ?sentence=, ?present= (unknown or bad values give a message, never an error)."""
    out = UrlRead()
    ex = current
    name = str(params.get("preset", "") or "")
    if name:
        if name in PRESETS:
            ex, out.preset = PRESETS[name].build(), name
        else:
            known = ", ".join(PRESETS) or "none yet"
            out.messages.append(("warning", f"There is no preset called {name!r}; the presets are: {known}."))
    if "sentence" in params:
        ex = ex.with_(sentence=str(params["sentence"]))
    present = str(params.get("present", "") or "").lower()
    if present:
        out.present = present in ("1", "true", "yes", "on")
    out.example = ex if ex is not current else None
    return out
