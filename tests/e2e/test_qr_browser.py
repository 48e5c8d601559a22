"""The QR code as a phone sees it: the presenter's "QR" button opens it large; a screenshot
of the screen, read by zxing-cpp, is the link of the example, without presentation mode."""

from __future__ import annotations

import io

import numpy as np
import pytest
import zxingcpp
from PIL import Image

pytestmark = pytest.mark.e2e


def read_screen(page) -> list[str]:  # noqa: ANN001 - a Playwright Page
    shot = Image.open(io.BytesIO(page.screenshot())).convert("L")
    return [b.text for b in zxingcpp.read_barcodes(np.array(shot), formats=zxingcpp.BarcodeFormat.QRCode)]


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800)])
def test_the_qr_code_on_screen_reads_as_the_link_of_the_example(shared_app, size) -> None:  # noqa: ANN001
    app = shared_app  # both sizes in one session (App.visit)
    app.page.set_viewport_size({"width": size[0], "height": size[1]})
    app.visit("scores", 1, {"preset": "pronoun", "present": "1"})
    assert read_screen(app.page) == []
    app.page.locator(".st-key-present-qr button").first.click()
    image = app.page.locator("[role=dialog] img")
    image.wait_for()
    app.settle()
    box = image.bounding_box()
    assert box is not None and box["y"] + box["height"] <= size[1]  # the whole code in view
    assert box["width"] >= min(640, 0.6 * size[1])  # large: 9 px a module or more for a preset
    (text,) = read_screen(app.page)
    assert text.startswith(app.server.url + "/scores?") and "present=" not in text
    assert (
        "sentence=The%20animal%20didn%27t%20cross%20the%20street%20because%20it%20was%20too%20tired" in text
    )
    app.page.keyboard.press("Escape")
    image.wait_for(state="detached")
    assert read_screen(app.page) == [] and not app.exceptions()
