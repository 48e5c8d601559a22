"""The share panel's file uploader (explorer.ui.share_panel): an opened file leaves Streamlit's upload store."""

from __future__ import annotations

import pytest
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

from explorer import sharing
from explorer.model.example import Example, conform
from explorer.ui import state
from tests.app.fixtures import messages_text, open_app, open_share

OPENED = "Opened the example from the file"


def test_an_opened_file_leaves_the_upload_store(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store keeps a session's files until the session ends: a class's largest files (43 MB each) would
    stay in the web process once opened. Read and checked, the file is let go of in the same run, from the
    store the script reads its files from (here AppTest's, on a server the server's)."""
    stores: list[MemoryUploadedFileManager] = []
    made = MemoryUploadedFileManager.__init__

    def kept(self: MemoryUploadedFileManager, *args: object, **kwargs: object) -> None:
        made(self, *args, **kwargs)
        stores.append(self)

    monkeypatch.setattr(MemoryUploadedFileManager, "__init__", kept)
    at = open_share(open_app())
    data = sharing.to_json(conform(Example(sentence="a file from the share panel"))).encode()
    at.file_uploader(key=state.K_UPLOAD).upload("example.json", data, "application/json").run()
    assert not at.exception, at.exception
    assert OPENED in " ".join(s.value for s in at.success), messages_text(at)
    assert stores, "AppTest reads the uploaded files from a MemoryUploadedFileManager"
    held = [rec.name for store in stores for files in store.file_storage.values() for rec in files.values()]
    assert held == []
    assert at.session_state[state.K_UPLOAD].getvalue() == b""  # nor does the uploader's value hold its bytes


def test_a_file_the_session_still_holds_opens_again_without_a_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A class opening the teacher's file: while a session holds the example's matrices, the same file opens
    again from them (explorer.sharing.upload.OPENED), here in the same session, as in a classmate's."""
    from explorer.compute import jobs
    from explorer.sharing import upload

    reads: list[str] = []
    execute = jobs.execute
    monkeypatch.setattr(upload, "INLINE_BYTES", 0)  # as a real layer's file: through the jobs
    monkeypatch.setattr(jobs, "execute", lambda fn, *a, **k: reads.append(fn) or execute(fn, *a, **k))
    at = open_share(open_app())
    data = sharing.to_json(conform(Example(sentence="the teachers file for the class"))).encode()
    for _ in range(2):
        at.file_uploader(key=state.K_UPLOAD).upload("example.json", data, "application/json").run()
        assert not at.exception, at.exception
        assert OPENED in " ".join(s.value for s in at.success), messages_text(at)
    assert reads == ["explorer.sharing.upload:read_job"]


def test_a_file_let_go_of_that_comes_back_as_deleted_opens_nothing_and_breaks_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once read, a file leaves the upload store; when the uploader is drawn anew (presenting hides the
    sidebar), the browser sends its id again and its callback reads a DeletedFile: no file, no error."""
    from streamlit.runtime.uploaded_file_manager import DeletedFile

    from explorer.ui import share_panel
    from explorer.ui.state import core

    opened: list[bytes] = []
    monkeypatch.setattr(core.st, "session_state", {state.K_UPLOAD: DeletedFile("gone")})
    monkeypatch.setattr(share_panel, "import_json", opened.append)
    assert state.uploaded() is None
    share_panel._on_upload()
    assert opened == []
