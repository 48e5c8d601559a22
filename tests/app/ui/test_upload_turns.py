"""Uploaded files are received in turns, in memory (explorer/ui/upload_turns.py): at most AT_ONCE PUTs to the
upload endpoint run at once, in the order they came, and nothing else waits for them."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

from explorer.ui import upload_turns

ROOT = Path(__file__).resolve().parents[3]


def test_uploads_take_turns_and_other_requests_pass_at_once() -> None:
    running, most, order = [0], [0], []

    async def app(scope, receive, send) -> None:  # noqa: ANN001 - the app behind the middleware
        running[0] += 1
        most[0] = max(most[0], running[0])
        order.append(scope["path"])
        await asyncio.sleep(0.05 if scope["method"] == "PUT" else 0)
        running[0] -= 1

    async def main() -> float:
        turns = upload_turns.UploadTurns(app)
        puts = [
            asyncio.create_task(
                turns({"type": "http", "method": "PUT", "path": f"/_stcore/upload_file/s/{i}"}, None, None)
            )
            for i in range(6)
        ]
        await asyncio.sleep(0.01)  # the first AT_ONCE run, the others wait
        t0 = asyncio.get_running_loop().time()
        await turns({"type": "http", "method": "GET", "path": "/_stcore/health"}, None, None)
        waited = asyncio.get_running_loop().time() - t0
        await asyncio.gather(*puts)
        return waited

    waited = asyncio.run(main())
    assert most[0] == upload_turns.AT_ONCE + 1  # the uploads' turns, and the health check beside them
    assert waited < 0.04  # it did not wait for an upload's turn
    uploads = [p for p in order if "upload_file" in p]
    assert uploads == [f"/_stcore/upload_file/s/{i}" for i in range(6)]  # first come, first received


def test_a_file_up_to_the_upload_limit_is_kept_in_memory() -> None:
    from starlette.formparsers import MultiPartParser

    upload_turns.in_memory()
    limit_mb = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    assert MultiPartParser.spool_max_size >= limit_mb * 2**20
