"""Size and build time of the exports: the notebook (.ipynb) and the offline HTML page, per example size.

Sizes as in _common: "default" (the app's default example), n8 .. n64 (d_model 64, 8 heads, d_k 8, d_ff 256),
and "max" (64 tokens at every largest dimension: d_model 64, 8 heads, d_k 64, d_ff 256). Build time is the
median of a few runs of Example -> bytes (pipeline run included), what a press of the button costs the server.

Usage: .venv/bin/python -m benchmarks export [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import load, machine, save, sentence_of

from explorer.compute import pipeline
from explorer.export import html, notebook, walkthrough
from explorer.model.example import Example, conform

SIZES = {
    "default": {},
    "n8": {"sentence": sentence_of(8), "d_model": 64, "n_heads": 8, "d_k": 8, "d_ff": 256},
    "n16": {"sentence": sentence_of(16), "d_model": 64, "n_heads": 8, "d_k": 8, "d_ff": 256},
    "n32": {"sentence": sentence_of(32), "d_model": 64, "n_heads": 8, "d_k": 8, "d_ff": 256},
    "n64": {"sentence": sentence_of(64), "d_model": 64, "n_heads": 8, "d_k": 8, "d_ff": 256},
    "max": {"sentence": sentence_of(64), "d_model": 64, "n_heads": 8, "d_k": 64, "d_ff": 256},
}


def build(kind: str, ex: Example) -> bytes:
    w = walkthrough.from_example(ex, pipeline.run(ex), link="http://localhost:8501/?sentence=x")
    return notebook.to_bytes(w) if kind == "notebook" else html.to_bytes(w)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows, data = [], {}
    for size, settings in SIZES.items():
        ex = conform(Example(**settings))
        entry = {}
        for kind in ("notebook", "html"):
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                out = build(kind, ex)
                times.append((time.perf_counter() - t0) * 1000.0)
            entry[kind] = {"bytes": len(out), "ms": statistics.median(times)}
        data[size] = entry
        nb, page = entry["notebook"], entry["html"]
        rows.append(f"| {size} | {nb['bytes']:,} | {nb['ms']:.0f} | {page['bytes']:,} | {page['ms']:.0f} |")
    text = (
        f"# Exports: size and build time ({machine()}; {load()})\n\n"
        "| example | notebook bytes | notebook ms | HTML bytes | HTML ms |\n|---|---|---|---|---|\n"
        + "\n".join(rows)
        + f"\n\nThe HTML holds plotly.js {html.plotly_js_version()} ({len(html.get_plotlyjs()):,} bytes) in every file.\n"
    )
    save("export.md", text, data)


if __name__ == "__main__":
    main()
