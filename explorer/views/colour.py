"""Colour maths the app's palettes are checked with (tests/app/views/test_colour.py, benchmarks/colour_check.py):
sRGB to CIELAB, the CIEDE2000 colour difference, WCAG contrast, and the simulation of colour-vision
deficiencies by Machado, Oliveira and Fernandes (2009). Pure numpy; the app itself does not call it."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from plotly.colors import sample_colorscale

# Machado, G. M., Oliveira, M. M., Fernandes, L. A. F. (2009). "A Physiologically-based Model for Simulation
# of Color Vision Deficiency". IEEE Transactions on Visualization and Computer Graphics 15(6), 1291-1298,
# doi:10.1109/TVCG.2009.113: the matrices for severity 1.0 (dichromacy), applied to linear RGB.
MACHADO_2009: dict[str, NDArray[np.float64]] = {
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "tritanopia": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]
    ),
}
VISIONS = ("normal", *MACHADO_2009)

# sRGB (D65) to CIE XYZ, IEC 61966-2-1; the D65 white point.
_SRGB_TO_XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
)
_WHITE = np.array([0.95047, 1.0, 1.08883])


def rgb(colour: str) -> NDArray[np.float64]:
    """A CSS colour ("#rrggbb", "rgb(r, g, b)", "rgba(...)") as sRGB in 0..1, shape (3,)."""
    c = colour.strip()
    if c.startswith("#"):
        return np.array([int(c[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.float64) / 255
    parts = c[c.index("(") + 1 : c.index(")")].split(",")[:3]
    return np.array([float(p) for p in parts], dtype=np.float64) / 255


def linear(srgb: NDArray[np.float64]) -> NDArray[np.float64]:
    """sRGB (..., 3) in 0..1 to linear light."""
    s = np.asarray(srgb, dtype=np.float64)
    return np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4)


def encoded(lin: NDArray[np.float64]) -> NDArray[np.float64]:
    """Linear light (..., 3) to sRGB in 0..1 (clipped to the gamut)."""
    v = np.clip(lin, 0.0, 1.0)
    return np.where(v <= 0.0031308, 12.92 * v, 1.055 * v ** (1 / 2.4) - 0.055)


def simulate(srgb: NDArray[np.float64], vision: str) -> NDArray[np.float64]:
    """How sRGB colours (..., 3) look with `vision` ("normal" or a key of MACHADO_2009), as sRGB."""
    if vision == "normal":
        return np.asarray(srgb, dtype=np.float64)
    return encoded(linear(srgb) @ MACHADO_2009[vision].T)


def lab(srgb: NDArray[np.float64]) -> NDArray[np.float64]:
    """sRGB (..., 3) in 0..1 to CIELAB (D65), (..., 3)."""
    t = linear(srgb) @ _SRGB_TO_XYZ.T / _WHITE
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def ciede2000(lab1: NDArray[np.float64], lab2: NDArray[np.float64]) -> NDArray[np.float64]:
    """The CIEDE2000 colour difference of CIELAB colours (..., 3) (Sharma, Wu and Dalal 2005; kL = kC = kH = 1)."""
    L1, a1, b1 = np.moveaxis(np.asarray(lab1, dtype=np.float64), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(lab2, dtype=np.float64), -1, 0)
    c_bar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_bar**7 / (c_bar**7 + 25.0**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, c2p - c1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(c1p * c2p == 0, 0.0, dh)
    dHp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    Lbp, Cbp = (L1 + L2) / 2, (c1p + c2p) / 2
    hsum = h1p + h2p
    hbp = np.where(
        c1p * c2p == 0,
        hsum,
        np.where(
            np.abs(h1p - h2p) <= 180, hsum / 2, np.where(hsum < 360, (hsum + 360) / 2, (hsum - 360) / 2)
        ),
    )
    t = (
        1
        - 0.17 * np.cos(np.radians(hbp - 30))
        + 0.24 * np.cos(np.radians(2 * hbp))
        + 0.32 * np.cos(np.radians(3 * hbp + 6))
        - 0.20 * np.cos(np.radians(4 * hbp - 63))
    )
    d_theta = 30 * np.exp(-(((hbp - 275) / 25) ** 2))
    rc = 2 * np.sqrt(Cbp**7 / (Cbp**7 + 25.0**7))
    sl = 1 + 0.015 * (Lbp - 50) ** 2 / np.sqrt(20 + (Lbp - 50) ** 2)
    sc, sh = 1 + 0.045 * Cbp, 1 + 0.015 * Cbp * t
    rt = -np.sin(np.radians(2 * d_theta)) * rc
    return np.sqrt((dLp / sl) ** 2 + (dCp / sc) ** 2 + (dHp / sh) ** 2 + rt * (dCp / sc) * (dHp / sh))


def luminance(srgb: NDArray[np.float64]) -> NDArray[np.float64]:
    """WCAG 2 relative luminance of sRGB colours (..., 3) in 0..1."""
    return linear(srgb) @ np.array([0.2126, 0.7152, 0.0722])


def contrast(c1: str, c2: str) -> float:
    """WCAG 2 contrast ratio of two CSS colours, 1 to 21."""
    hi, lo = sorted((float(luminance(rgb(c1))), float(luminance(rgb(c2)))), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def scale_colours(scale: str | list, n: int) -> NDArray[np.float64]:
    """n colours sampled evenly along a Plotly colour scale (a name or (position, colour) pairs), sRGB (n, 3)."""
    return np.array([rgb(c) for c in sample_colorscale(scale, np.linspace(0.0, 1.0, n).tolist())])
