"""attention_core is numpy + the standard library only."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import attention_core

PACKAGE = Path(attention_core.__file__).parent
ROOT = PACKAGE.parent


def test_import_loads_no_app_libraries() -> None:
    code = (
        "import sys, attention_core\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'streamlit', 'plotly', 'pandas', 'scipy', 'torch'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_sources_import_only_numpy_and_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"numpy", "__future__"}
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


def test_public_functions_document_their_arguments_and_traces_their_fields() -> None:
    for name in attention_core.__all__:
        obj = getattr(attention_core, name)
        doc = getattr(obj, "__doc__", None) or ""
        if isinstance(obj, type):
            assert "Fields:" in doc, name
        elif callable(obj):
            assert "Args:" in doc, name


def test_every_module_uses_postponed_annotations() -> None:
    for path in PACKAGE.glob("*.py"):
        assert "from __future__ import annotations" in path.read_text(encoding="utf-8"), path.name
