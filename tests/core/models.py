"""The real models for the tests: loaded once; skipped where a model's package is not installed, except in
CI (CI set), where a missing model is a failure (scripts/test.sh installs requirements-models.txt)."""

from __future__ import annotations

import os

import pytest

from attention_core import pretrained


def need(name: str) -> pretrained.Model:
    """pretrained.load(name), or skip (locally) / fail (in CI) when it is not installed."""
    try:
        return pretrained.load(name)
    except pretrained.ModelNotInstalledError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have the real models installed: {exc}")
        pytest.skip(str(exc))
