"""What one more element on a page costs each Enter: the same three charts (the app's chart element) with 0
and with --extra unchanging sidebar elements, presses taken in turn (benchmarks/element_cost_app.py).

    OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks element_cost --presses 9 --extra 60

Prints, per page, the median ms from the Enter to every chart updated and to the first chart draw, and the
difference per extra element. Results: benchmarks/out/element_cost.md.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from urllib.parse import urlencode

from _common import browser_options, machine, save
from browser import CHROMIUM_ARGS, Tab, sentences, start_server


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presses", type=int, default=9)
    ap.add_argument("--extra", type=int, default=60)
    browser_options(ap, 8673)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    server = start_server(args.port, str(Path("benchmarks") / "element_cost_app.py"))
    steps = sentences("default", args.presses + 1)
    counts = (0, args.extra)
    got: dict[int, dict[str, list[float]]] = {n: {"charts": [], "start": []} for n in counts}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            tabs = {}
            for n in counts:
                query = urlencode({"sentence": steps[0][0], "charts": 3, "extra": n})
                tabs[n] = Tab(browser, f"http://localhost:{args.port}/?{query}")
                tabs[n].press(steps[0], steps[1])  # warm-up
            for i in range(1, args.presses + 1):
                for n in counts:  # in turn: the machine's load falls on both alike
                    r = tabs[n].press(steps[i], steps[i + 1])
                    got[n]["charts"].append(r["charts"])
                    if r["phases"]:
                        got[n]["start"].append(r["phases"]["start"])
            browser.close()
    finally:
        server.terminate()
    med = {n: {k: statistics.median(v) for k, v in got[n].items()} for n in counts}
    per = {k: (med[args.extra][k] - med[0][k]) / max(args.extra, 1) for k in ("charts", "start")}
    lines = [
        f"# One more element: Enter to every chart updated, 3 charts, 0 against {args.extra} other elements "
        f"(median of {args.presses} presses each, in turn)",
        "",
        machine(),
        "",
        "| other elements | every chart updated (ms) | first chart draw began (ms) |",
        "|---:|---:|---:|",
        *(f"| {n} | {med[n]['charts']:.0f} | {med[n]['start']:.0f} |" for n in counts),
        "",
        f"Per element: {per['charts']:.2f} ms to every chart updated, {per['start']:.2f} ms to the first draw.",
    ]
    text = "\n".join(lines) + "\n"
    save("element_cost.md", text, {"median": med, "per_element": per, "raw": got})


if __name__ == "__main__":
    main()
