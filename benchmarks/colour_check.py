"""The app's colours under simulated colour-vision deficiencies, and their contrast against both themes.

    .venv/bin/python -m benchmarks colour_check             # the palettes as they are
    .venv/bin/python -m benchmarks colour_check --derive    # also: derive the line colours afresh

For every colour scale of every palette (explorer.views.style.PALETTES), sampled at 11 evenly spaced points
and seen with normal vision and with protanopia, deuteranopia and tritanopia (Machado et al. 2009, severity
1.0: explorer.views.colour), the CIEDE2000 difference between the scale's two ends, the smallest between two
neighbouring tenths, and for a diverging scale the smallest between a colour and its mirror across 0 (the
two signs at the same size, 0.2 or more from the middle). For the line colours (KEY_COLOURS), their WCAG
contrast against each theme's background (.streamlit/config.toml) and the smallest CIEDE2000 between two
of the first 8, and of all, under any of the four visions. tests/app/views/test_colour.py asserts the limits.
Results: benchmarks/out/colour_check.md.

--derive picks the line colours: from a grid of sRGB colours (18 levels a channel) with a luminance that
gives 3:1 against both backgrounds and a chroma above 30 (no greys: grey is the "other keys" bar), the pair
farthest apart under the worst of the four visions, then each next colour the farthest from those picked.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tomllib

import numpy as np
from _common import ROOT, save

sys.path.insert(0, str(ROOT))

from explorer.views import colour as cv  # noqa: E402 - after the path above
from explorer.views.bars import KEY_COLOURS  # noqa: E402
from explorer.views.style import PALETTES  # noqa: E402

SAMPLES = 11


def backgrounds() -> dict[str, str]:
    theme = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["theme"]
    return {name: theme[name]["backgroundColor"] for name in ("light", "dark")}


def scale_figures(scale: str, diverging: bool) -> dict[str, dict[str, float]]:
    """Per vision: ends, smallest step and (diverging) smallest difference between the two signs."""
    out = {}
    c = cv.scale_colours(scale, SAMPLES)
    for vision in cv.VISIONS:
        lab = cv.lab(cv.simulate(c, vision))
        row = {
            "ends": float(cv.ciede2000(lab[0], lab[-1])),
            "step": float(cv.ciede2000(lab[:-1], lab[1:]).min()),
        }
        if diverging:
            far = SAMPLES // 2 - 1  # samples 0 .. far - 1 are 0.2 or more from the middle
            row["signs"] = float(cv.ciede2000(lab[:far], lab[::-1][:far]).min())
        out[vision] = row
    return out


def pairwise(colours: list[str]) -> float:
    """The smallest CIEDE2000 between two of `colours`, under the worst of the four visions."""
    srgb = np.array([cv.rgb(c) for c in colours])
    worst = np.inf
    for vision in cv.VISIONS:
        lab = cv.lab(cv.simulate(srgb, vision))
        d = cv.ciede2000(lab[:, None, :], lab[None, :, :])
        worst = min(worst, float(d[np.triu_indices(len(colours), 1)].min()))
    return worst


def derive(n: int, bgs: dict[str, str]) -> list[str]:
    levels = np.linspace(0.0, 1.0, 18)
    pool = np.array(list(itertools.product(levels, levels, levels)))
    lum = cv.luminance(pool)
    lo = 3.0 * (float(cv.luminance(cv.rgb(bgs["dark"]))) + 0.05) - 0.05  # 3:1 on the dark background
    hi = (float(cv.luminance(cv.rgb(bgs["light"]))) + 0.05) / 3.0 - 0.05  # 3:1 on the light one
    pool = pool[(lum >= lo + 0.005) & (lum <= hi - 0.005)]
    lab = cv.lab(pool)
    pool = pool[np.hypot(lab[:, 1], lab[:, 2]) > 30]
    dist = np.full((len(pool), len(pool)), np.inf)
    for vision in cv.VISIONS:
        lab = cv.lab(cv.simulate(pool, vision))
        dist = np.minimum(dist, cv.ciede2000(lab[:, None, :], lab[None, :, :]))
    picked = [int(i) for i in np.unravel_index(np.argmax(dist), dist.shape)]
    while len(picked) < n:
        nearest = dist[:, picked].min(axis=1)
        nearest[picked] = -1.0
        picked.append(int(np.argmax(nearest)))
    return ["#" + "".join(f"{round(v * 255):02X}" for v in pool[k]) for k in picked]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--derive", action="store_true", help="derive the line colours afresh")
    args = ap.parse_args()
    bgs = backgrounds()
    lines = ["# Colour scales under simulated colour-vision deficiencies (CIEDE2000)", ""]
    lines += [
        "| palette | scale | vision | ends | smallest step | smallest between the signs |",
        "|---|---|---|---|---|---|",
    ]
    data: dict[str, object] = {"scales": {}}
    for name, (seq, div, _) in PALETTES.items():
        for scale, diverging in ((seq, False), (div, True)):
            got = scale_figures(scale, diverging)
            data["scales"][f"{name}/{scale}"] = got  # type: ignore[index]
            for vision, row in got.items():
                signs = f"{row['signs']:.1f}" if "signs" in row else ""
                lines.append(
                    f"| {name} | {scale} | {vision} | {row['ends']:.1f} | {row['step']:.1f} | {signs} |"
                )
    lines += [
        "",
        "# Line colours (KEY_COLOURS)",
        "",
        "| colour | " + " | ".join(f"{k} {v}" for k, v in bgs.items()) + " |",
    ]
    lines.append("|---|" + "---|" * len(bgs))
    for c in KEY_COLOURS:
        lines.append(f"| {c} | " + " | ".join(f"{cv.contrast(c, bg):.2f}" for bg in bgs.values()) + " |")
    first = pairwise(list(KEY_COLOURS[:8]))
    every = pairwise(list(KEY_COLOURS))
    lines += [
        "",
        f"Smallest CIEDE2000 between two of the first 8, any vision: {first:.1f}; of all {len(KEY_COLOURS)}: {every:.1f}",
    ]
    data["lines"] = {"first8": first, "all": every}
    if args.derive:
        derived = derive(len(KEY_COLOURS), bgs)
        lines += ["", "Derived line colours: " + ", ".join(derived)]
        data["derived"] = derived
    save("colour_check.md", "\n".join(lines), data)


if __name__ == "__main__":
    main()
