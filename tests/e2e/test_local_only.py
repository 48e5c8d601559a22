"""Everything the page loads comes from the app itself: no font server, no CDN.

A visitor's browser (or a classroom offline) must not reach a third party: a `:material/...:` page icon, for
one, is fetched by Streamlit's frontend from fonts.gstatic.com, so the page icon is the app's own file.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import TIMEOUT

pytestmark = pytest.mark.e2e


def test_every_request_stays_on_the_app_and_the_icon_is_its_own(app) -> None:  # noqa: ANN001
    seen: list[str] = []
    app.listen("request", lambda r: seen.append(r.url))
    app.open("scores", min_charts=3)
    app.go("heads", min_charts=1)  # a second page: its icons and charts too
    app.poll(
        "() => [...document.querySelectorAll('link[rel~=\"icon\"]')].some(l => l.href.includes('/media/'))",
        what="the page icon to be the app's own file",
    )
    icon = app.page.evaluate(
        "() => [...document.querySelectorAll('link[rel~=\"icon\"]')].map(l => l.href).find(h => h.includes('/media/'))"
    )
    # The last request a page change makes is the browser's fetch of its icon: once it is seen, every
    # request of both pages has been recorded.
    if icon not in seen:
        app.page.wait_for_event("request", lambda r: r.url == icon, timeout=TIMEOUT * 1000)
    own = urlsplit(app.server.url).netloc
    outside = [
        u for u in seen if urlsplit(u).scheme in ("http", "https", "ws", "wss") and urlsplit(u).netloc != own
    ]
    assert outside == [], f"requests that left the app: {outside[:5]}"
    reply = app.page.request.get(icon)
    assert reply.status == 200 and reply.headers["content-type"] == "image/png"
    assert reply.body()[:8] == b"\x89PNG\r\n\x1a\n"
