"""The QR code of the share link: decoded back by an independent reader (zxing-cpp), it is
the link, character for character; too long a link gets a message, not a broken code."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import zxingcpp
from streamlit.testing.v1 import AppTest

from explorer.export import qr
from explorer.lessons import PRESETS
from explorer.sharing import url as links
from tests.app.fixtures import open_share, shown_svg, svg_modules

ROOT = Path(__file__).resolve().parents[3]
BASE = "http://192.168.1.20:8501/scores"


def decoded(link: str) -> str:
    """Read the code as a camera would: the modules drawn 4 px each, black on white, by zxing-cpp."""
    m = qr.matrix(link)
    assert m is not None
    assert m.shape[0] == m.shape[1] == qr.modules(link) + 2 * qr.QUIET
    image = np.kron((1 - m) * 255, np.ones((4, 4))).astype(np.uint8)
    # Only QR codes: in a version 40 symbol a reader of every format also "finds" a stray EAN-13.
    found = {b.text for b in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)}
    assert len(found) == 1, found
    return found.pop()


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_each_presets_link_decodes_to_itself(name: str) -> None:
    link = links.make_url(BASE, PRESETS[name].build())
    assert decoded(link) == link


def test_the_longest_link_a_code_holds_decodes_and_one_more_byte_gets_none() -> None:
    head = BASE + "?sentence="
    longest = head + "a%20" * ((qr.MAX_LINK_BYTES - len(head)) // 4)
    longest += "b" * (qr.MAX_LINK_BYTES - len(longest))
    assert len(longest) == qr.MAX_LINK_BYTES
    assert qr.modules(longest) == 177  # version 40
    assert decoded(longest) == longest
    assert qr.code(longest + "c") is None and qr.svg(longest + "c") is None and qr.modules("") == 0


def test_the_svg_scales_and_draws_the_same_modules() -> None:
    link = links.make_url(BASE, PRESETS["pronoun"].build())
    image, n = qr.svg(link), qr.modules(link) + 2 * qr.QUIET
    assert image is not None and image.startswith(f'<svg viewBox="0 0 {n} {n}"')
    assert "width=" not in image.split(">", 1)[0]  # no fixed size: it fills the width it is given
    assert qr.modules(link) <= 73  # version 14 or less for a preset: large modules on a projector


def _app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["preset"] = "pronoun"
    return at.run()


def test_show_qr_code_opens_the_code_of_the_share_link() -> None:
    at = _app()
    assert not at.exception, at.exception
    assert not at.get("image")
    open_share(at).button(key="share.qr").click().run()
    assert not at.exception, at.exception
    link = next(c.value for c in at.code if "sentence=" in c.value)
    assert "present=1" not in link and "it" in link
    svg = shown_svg(at)
    np.testing.assert_array_equal(svg_modules(svg), qr.matrix(link))  # what is drawn is the link's code
    caption = next(c.value for c in at.caption if c.value.startswith("Scan with a phone camera"))
    assert f"({len(link):,} characters, a {qr.modules(link)} x {qr.modules(link)} code)" in caption
    at.run()  # the next run (any click): the dialog is not opened again
    assert not at.get("image")


def test_presenting_has_a_qr_button_on_the_step_bar_with_the_link_of_the_example() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["preset"] = "pronoun"
    at.query_params["present"] = "1"
    at.run()
    assert not at.exception, at.exception
    assert at.button(key="present.qr").label == "QR"
    at.button(key="present.qr").click().run()
    assert not at.exception, at.exception
    drawn = svg_modules(shown_svg(at))  # the step bar's button works with Share and export closed
    link = next(c.value for c in open_share(at).code if "sentence=" in c.value)  # the sidebar's: present=1
    assert "present=1" in link
    student = link.replace("&present=1", "")  # the QR code's link opens the example without presenting
    assert decoded(student) == student
    np.testing.assert_array_equal(drawn, qr.matrix(student))


def test_whoever_cannot_scan_gets_the_address_to_type() -> None:
    """The site and page of the link, without its parameters (thousands of characters no one types)."""
    from explorer.ui import export_ui

    assert (
        export_ui._site("http://192.168.1.5:8501/scores?sentence=a&s=" + "x" * 2000)
        == "192.168.1.5:8501/scores"
    )
    assert export_ui._site("https://explorer.example.org/?sentence=a") == "explorer.example.org"
    assert export_ui._site("?sentence=a") == ""  # no site known (a bare run): nothing printed
