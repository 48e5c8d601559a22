"""Presets: each seed notebook (and examples of our own) as an Example, one click or one URL away.

`PRESETS` maps the fixed preset names (used in links: ?preset=<name>) to Preset objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from explorer.example import Example


@dataclass(frozen=True)
class Preset:
    name: str  # the URL name, e.g. "three-inputs"
    title: str  # shown in the picker
    note: str  # markdown: what the notebook does, what to look at
    build: Callable[[], Example]  # the Example, matrices included


PRESETS: dict[str, Preset] = {}
