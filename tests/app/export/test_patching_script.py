"""/patching's take-home script runs on its own: in a Python that cannot import this repository (isolated mode,
run from an empty folder) it loads SmolLM2 from the package's file and gives the engine's numbers. One layer
of each sweep is run (the script's LAYERS), enough to compare every kind of cell; a few seconds, most of them
reading the model file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from numpy.testing import assert_allclose

from attention_core import analysis
from explorer.export import experiments, patching_script
from tests.core.models import need

CLEAN, CORRUPT = "The capital of France is", "The capital of Italy is"
LAYER = 23  # the layer whose row holds the answer's move (a head restoring most of it): its cells differ most


def isolated(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """This venv's Python in isolated mode (-I: no current folder or PYTHON* variables on its path)."""
    env = {"OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-I", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip


def test_the_script_needs_nothing_of_this_repository_and_gives_the_engines_numbers(tmp_path: Path) -> None:
    smol = need("SmolLM2-135M")
    pair = analysis.patch_pair(smol, CLEAN, CORRUPT, " Paris", " Rome")
    code = experiments.patching(pair, None, None).code
    assert code == patching_script.script(CLEAN, CORRUPT, pair.answer, pair.wrong, " Paris", " Rome")
    assert "attention_core" not in code and "explorer" not in code
    assert (
        isolated(["-c", "import attention_core"], tmp_path).returncode != 0
    )  # the repository is out of reach
    script = code.replace("LAYERS = None", f"LAYERS = [{LAYER}]")
    script += '\nnp.save("resid.npy", resid)\nnp.save("heads.npy", heads)\n'
    (tmp_path / "patching.py").write_text(script, encoding="utf-8")
    ran = isolated(["patching.py"], tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert f"LD clean {pair.ld_clean:.4f}, corrupt {pair.ld_corrupt:.4f}" in ran.stdout
    resid, heads = np.load(tmp_path / "resid.npy"), np.load(tmp_path / "heads.npy")
    assert np.isnan(np.delete(resid, LAYER, axis=0)).all()  # only the layers asked for
    assert_allclose(resid[LAYER], analysis.patch_layer(smol, pair, LAYER, "resid"), atol=2e-3)
    assert_allclose(heads[LAYER], analysis.patch_layer(smol, pair, LAYER, "head"), atol=2e-3)
