"""What every page needs for a keyboard or a screen reader beyond Streamlit's own markup: a small script
(a11y.js, beside this module) mounted once by the frame, with no visible content.

It draws a focus ring in the theme's primary colour, adds a skip link to the charts (the first stop of the Tab
key), marks the page menu (explorer.ui.frame.navigation) as a navigation landmark with its current page, and
lets the keyboard scroll a formula wider than its column, and says the page's language (<html lang>).
tests/e2e/test_accessibility.py checks them.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from explorer import i18n

NAME = "attention_explorer.a11y"
KEY = "frame.a11y"
JS = Path(__file__).with_name("a11y.js").read_text(encoding="utf-8")


def mount() -> None:
    """Install the script in the page (once per browser tab; a second mount follows the theme and the
    language on screen: <html lang>, the skip link's and the menu landmark's words)."""
    words = {"lang": i18n.current(), "skip": i18n._("Skip to the charts"), "nav": i18n._("Pages")}
    _component()(key=KEY, data=words, height=0)


@functools.cache
def _component() -> Any:
    import streamlit as st

    return st.components.v2.component(NAME, js=JS, isolate_styles=False)
