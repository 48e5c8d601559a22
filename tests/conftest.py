"""Shared test set-up: the repository root on sys.path, so `attention_core`, `explorer` and the page
scripts import the same way under pytest, pytest-xdist workers and AppTest."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
