"""Where the browser's main thread spends an Enter, in Chromium's CPU profiler: time per script and the
functions that take the most, for a page of the app and for the floor (benchmarks/floor_app.py, as many
heatmaps with st.plotly_chart).

    .venv/bin/python -m benchmarks main_thread --pages scores,heads --presses 5

Starts the app on --port and the floor on the next port, opens each page at the default example (1920x1080),
and profiles --presses Enter presses that swap one word (CDP Profiler, 200 us sampling), from the keydown to
every chart updated and the run finished (browser.py's clock). "(program)" is the browser's own work
(style, layout, paint) that no script is charged with; "(idle)" is waiting (for the server, for a frame).
Results: benchmarks/out/main_thread.md.
"""

from __future__ import annotations

import argparse
import collections
import statistics
from pathlib import Path
from urllib.parse import urlencode

from _common import browser_options, machine, save
from browser import CHARTS, CHROMIUM_ARGS, Tab, sentences, start_server

SCRIPTS = {  # a script's file name (Streamlit's bundles carry a hash) -> what it is
    "plotly.min.js": "Plotly",
    "chart.js": "explorer chart.js",
    "react-dom": "React",
    "emotion": "styles (emotion)",
    "styled-components": "styles (emotion)",
    "protobuf": "messages (protobuf)",
    "katex": "formulas (KaTeX)",
    "StreamlitMarkdown": "Markdown",
}


def script_of(url: str) -> str:
    name = url.rsplit("/", 1)[-1]
    if not name:
        return "(browser)"
    for part, what in SCRIPTS.items():
        if part in name:
            return what
    if "plotly" in name.lower():  # st.plotly_chart's own bundle (the floor)
        return "Plotly"
    return "Streamlit's other scripts"


def profile_presses(tab: Tab, steps: list[tuple[str, str]], presses: int) -> dict:
    cdp = tab.context.new_cdp_session(tab.page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    by_script: collections.Counter[str] = collections.Counter()
    by_function: collections.Counter[tuple[str, str]] = collections.Counter()
    charts = []
    for i in range(1, presses + 1):
        result = tab.press(steps[i], steps[i + 1], before_enter=lambda: cdp.send("Profiler.start"))
        profile = cdp.send("Profiler.stop")["profile"]
        charts.append(result["charts"])
        nodes = {n["id"]: n for n in profile["nodes"]}
        # The profile starts just before the Enter (its first sample; the profile's own start time lies well
        # before it) and runs on while browser.py lets the page settle: keep the samples up to the run
        # finished.
        elapsed, limit = 0.0, result["done"] * 1000
        for k, (sample, delta) in enumerate(zip(profile["samples"], profile["timeDeltas"], strict=True)):
            delta = delta if k else 0.0
            elapsed += delta
            if elapsed > limit:
                break
            frame = nodes[sample]["callFrame"]
            name = frame["functionName"]
            if name in ("(idle)", "(program)", "(garbage collector)"):
                by_script[name] += delta / 1000
                continue
            by_script[script_of(frame["url"])] += delta / 1000
            by_function[(name or "(anonymous)", script_of(frame["url"]))] += delta / 1000
    cdp.detach()
    return {
        "charts": statistics.median(charts),
        "scripts": {k: v / presses for k, v in by_script.most_common()},
        "functions": [(f"{n} [{s}]", v / presses) for (n, s), v in by_function.most_common(8)],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", default="scores,heads")
    ap.add_argument("--presses", type=int, default=5)
    browser_options(ap, 8665)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    base, floor = f"http://localhost:{args.port}", f"http://localhost:{args.port + 1}"
    servers = [start_server(args.port), start_server(args.port + 1, str(Path("benchmarks") / "floor_app.py"))]
    out: dict[str, dict] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            for path in [p for p in args.pages.split(",") if p]:
                steps = sentences("default", args.presses + 1)
                tab = Tab(browser, f"{base}/{path}?{urlencode({'sentence': steps[0][0]})}")
                charts = tab.page.evaluate(f"() => document.querySelectorAll('{CHARTS}').length")
                tab.press(steps[0], steps[1])  # warm-up
                out[f"/{path}"] = profile_presses(tab, steps, args.presses)
                tab.close()
                query = urlencode({"sentence": steps[0][0], "charts": charts})
                tab = Tab(browser, f"{floor}/?{query}")
                tab.press(steps[0], steps[1])
                out[f"floor for /{path} ({charts} charts)"] = profile_presses(tab, steps, args.presses)
                tab.close()
            browser.close()
    finally:
        for s in servers:
            s.terminate()
    names = sorted(
        {k for r in out.values() for k in r["scripts"]},
        key=lambda k: -max(r["scripts"].get(k, 0) for r in out.values()),
    )
    lines = [
        "# The browser's main thread per Enter (Chromium's CPU profiler, ms per press, mean of "
        f"{args.presses} presses, from the keydown to the run finished)",
        "",
        machine(),
        "",
        "| | " + " | ".join(out) + " |",
        "|---|" + "---:|" * len(out),
        "| every chart updated (median) | " + " | ".join(f"{r['charts']:.0f}" for r in out.values()) + " |",
    ]
    lines += [
        "| " + n + " | " + " | ".join(f"{r['scripts'].get(n, 0):.1f}" for r in out.values()) + " |"
        for n in names
    ]
    for what, r in out.items():
        lines += [
            "",
            f"{what}, the functions that take the most: "
            + "; ".join(f"{n} {v:.1f}" for n, v in r["functions"]),
        ]
    text = "\n".join(lines) + "\n"
    print(text)
    save("main_thread", text, out)


if __name__ == "__main__":
    main()
