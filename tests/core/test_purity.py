"""attention_core is numpy + the standard library only, in every module of every sub-package (analysis/,
pretrained/ and any added later): only pretrained/, the one part that reads files, may import a file-format
library (safetensors, tokenizers, gguf), and only inside a function, when a model is loaded."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import attention_core

PACKAGE = Path(attention_core.__file__).parent
ROOT = PACKAGE.parent
MODULES = sorted(PACKAGE.rglob("*.py"))  # every module, sub-packages included
FILE_LIBRARIES = {"safetensors", "tokenizers", "gguf"}


def imports(tree: ast.AST, inner: bool = False) -> Iterator[tuple[str, bool]]:
    """(module imported, inside a function) for every absolute import in a module's tree."""
    for node in ast.iter_child_nodes(tree):
        in_function = inner or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        if isinstance(node, ast.Import):
            yield from ((alias.name, in_function) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module or "", in_function
        yield from imports(node, in_function)


def test_every_package_of_the_engine_is_read() -> None:
    packages = {p.parent for p in PACKAGE.rglob("__init__.py")}
    assert {PACKAGE, PACKAGE / "analysis", PACKAGE / "pretrained"} <= packages
    assert packages <= {p.parent for p in MODULES}


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
    allowed = set(sys.stdlib_module_names) | {"numpy", "__future__", "attention_core"}
    for path in MODULES:
        reads_files = PACKAGE / "pretrained" in path.parents
        for name, lazy in imports(ast.parse(path.read_text(encoding="utf-8"))):
            top = name.split(".")[0]
            rel = path.relative_to(ROOT)
            if reads_files and top in FILE_LIBRARIES:
                assert lazy, f"{rel} imports {name} at its top: import it where a model is loaded"
            else:
                assert top in allowed, f"{rel} imports {name}"


def test_the_check_finds_a_library_import() -> None:
    """The walk above sees an import inside a function, and one at the top."""
    tree = ast.parse("import numpy\ndef load():\n    import gguf\n")
    assert list(imports(tree)) == [("numpy", False), ("gguf", True)]


def test_public_functions_document_their_arguments_and_traces_their_fields() -> None:
    for name in attention_core.__all__:
        obj = getattr(attention_core, name)
        doc = getattr(obj, "__doc__", None) or ""
        if isinstance(obj, type):
            assert "Fields:" in doc, name
        elif callable(obj):
            assert "Args:" in doc, name


def test_every_module_uses_postponed_annotations() -> None:
    for path in MODULES:
        assert "from __future__ import annotations" in path.read_text(encoding="utf-8"), path.relative_to(
            ROOT
        )
