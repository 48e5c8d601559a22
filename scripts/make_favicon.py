"""Draws explorer/assets/favicon.png, the page icon (an eye, the app's primary colour), served by the app
itself: a `:material/...` page icon makes every visitor's browser fetch it from fonts.gstatic.com.

Run: .venv/bin/python scripts/make_favicon.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

SIZE, SCALE = 64, 4  # drawn 4x larger, then downsampled: smooth edges
BLUE = (52, 81, 178, 255)  # #3451b2, the theme's primary colour


def draw() -> Image.Image:
    n = SIZE * SCALE
    img = Image.new("RGBA", (n, n), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    w = 5 * SCALE  # the outline's width
    d.ellipse((2 * SCALE, 14 * SCALE, n - 2 * SCALE, n - 14 * SCALE), outline=BLUE, width=w)
    r = 12 * SCALE  # the iris
    d.ellipse((n // 2 - r, n // 2 - r, n // 2 + r, n // 2 + r), fill=BLUE)
    return img.resize((SIZE, SIZE), Image.Resampling.LANCZOS)


if __name__ == "__main__":
    draw().save(Path(__file__).resolve().parents[1] / "explorer" / "assets" / "favicon.png", optimize=True)
