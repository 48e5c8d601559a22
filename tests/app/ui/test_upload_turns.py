"""Uploaded files are received in turns, in memory (explorer/ui/upload_turns.py): at most AT_ONCE PUTs to the
upload endpoint run at once, in the order they came, and nothing else waits for them."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

from explorer.ui import upload_turns

ROOT = Path(__file__).resolve().parents[3]


def test_uploads_take_turns_and_other_requests_pass_at_once() -> None:
    """Six uploads held in the app until the test lets them go: AT_ONCE are let in, the others wait, and a
    health check passes meanwhile (it is answered while every upload is still held)."""
    running, most, order = [0], [0], []
    release = None

    async def app(scope, receive, send) -> None:  # noqa: ANN001 - the app behind the middleware
        running[0] += 1
        most[0] = max(most[0], running[0])
        order.append(scope["path"])
        if scope["method"] == "PUT":
            await release.wait()  # an upload being received, until the test lets it finish
        running[0] -= 1

    async def main() -> bool:
        nonlocal release
        release = asyncio.Event()
        turns = upload_turns.UploadTurns(app)
        puts = [
            asyncio.create_task(
                turns({"type": "http", "method": "PUT", "path": f"/_stcore/upload_file/s/{i}"}, None, None)
            )
            for i in range(6)
        ]
        for _ in range(1000):  # the tasks run until they wait: AT_ONCE in the app, the others for a turn
            if running[0] == upload_turns.AT_ONCE:
                break
            await asyncio.sleep(0)
        health = turns({"type": "http", "method": "GET", "path": "/_stcore/health"}, None, None)
        await asyncio.wait_for(health, 10)  # waiting for an upload's turn, it would wait for ever: fails here
        held = not release.is_set() and not any(p.done() for p in puts)
        release.set()
        await asyncio.gather(*puts)
        return held

    held = asyncio.run(main())
    assert most[0] == upload_turns.AT_ONCE + 1  # the uploads' turns, and the health check beside them
    assert held  # the health check was answered while every upload was held: it waited for no turn
    uploads = [p for p in order if "upload_file" in p]
    assert uploads == [f"/_stcore/upload_file/s/{i}" for i in range(6)]  # first come, first received


def test_a_file_up_to_the_upload_limit_is_kept_in_memory() -> None:
    from starlette.formparsers import MultiPartParser

    upload_turns.in_memory()
    limit_mb = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    assert MultiPartParser.spool_max_size >= limit_mb * 2**20
