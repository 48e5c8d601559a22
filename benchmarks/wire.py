"""What crosses the wire: the bytes of one page's run, as Streamlit would send them to the browser.

Each page is run under AppTest at the default example and at 8 .. 64 tokens (d_model 64, 8 heads, d_k 8,
d_ff 256); the ForwardMsgs of its last run are serialized and summed: "total" is every message of the run,
"charts" the charts among them (explorer.ui.chart elements, or st.plotly_chart; their figure JSON dominates),
"tables" the data editors and dataframes (Arrow), "template" the bytes of the figures' layout.template JSON
(repeated in every chart by st.plotly_chart; explorer.ui.chart sends it once per browser tab).
"largest" is the largest single chart. This is what a first visit or a change of the example sends; on a
rerun where a large element did not change, Streamlit sends a reference to the browser's cached copy instead.

Usage: .venv/bin/python -m benchmarks wire [--pages heads,scores] [--sizes default,n64] [--out wire.md]
"""

from __future__ import annotations

import argparse
import json
import sys

from _common import PAGES, SIZES, app_on, machine, quiet, save

_CAPTURED: list = []


def capture_messages() -> None:
    """Keep the ForwardMsgs each AppTest run parses (the run's deltas, in order)."""
    from streamlit.testing.v1 import local_script_runner as lsr

    original = lsr.parse_tree_from_messages

    def keep(messages):  # noqa: ANN001, ANN202
        _CAPTURED[:] = list(messages)
        return original(messages)

    lsr.parse_tree_from_messages = keep


def sizes_of(messages: list) -> dict[str, float]:
    total = charts = tables = template = largest = n_charts = 0
    for msg in messages:
        size = msg.ByteSize()
        total += size
        if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
            continue
        el = msg.delta.new_element
        kind = el.WhichOneof("type")
        spec = None
        if kind == "bidi_component" and el.bidi_component.component_name == "attention_explorer.chart":
            spec = json.loads(el.bidi_component.bytes)[
                "f"
            ]  # explorer.ui.chart (its template goes once per tab)
        elif kind == "plotly_chart":
            spec = json.loads(el.plotly_chart.spec)
        if spec is not None:
            charts += size
            n_charts += 1
            largest = max(largest, size)
            template += len(json.dumps(spec.get("layout", {}).get("template", {}), separators=(",", ":")))
        elif kind in ("dataframe", "arrow_data_frame", "arrow_table", "table"):
            tables += size
    return {
        "total": total,
        "charts": charts,
        "n_charts": n_charts,
        "largest": largest,
        "template": template,
        "tables": tables,
    }


def kb(b: float) -> str:
    return f"{b / 1024:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", default=",".join(p[0] for p in PAGES))
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--out", default="wire.md", help="file name under benchmarks/out/")
    args = ap.parse_args()
    quiet()
    capture_messages()
    pages = [p for p in PAGES if p[0] in args.pages.split(",")]
    sizes = [s for s in SIZES if s in args.sizes.split(",")]
    results: dict = {}
    for name, page_file, _ in pages:
        for size in sizes:
            app_on(page_file, size)
            results.setdefault(name, {})[size] = sizes_of(_CAPTURED)
            r = results[name][size]
            print(f"  {name:12s} {size:8s} {kb(r['total']):>8s} KB", file=sys.stderr)
    lines = [
        "# Bytes of one page run (KB = 1024 bytes)\n",
        f"{machine()}.",
        "Sizes: default = the default example; nK = K tokens, d_model 64, 8 heads, d_k 8, d_ff 256.\n",
        "## Total KB per page (all messages of the run)\n",
        "| page | " + " | ".join(sizes) + " |",
        "|---|" + "---:|" * len(sizes),
    ]
    for name, _, _ in pages:
        lines.append(f"| {name} | " + " | ".join(kb(results[name][s]["total"]) for s in sizes) + " |")
    lines += [
        "\n## Breakdown: charts (count) / largest chart / layout.template in charts / tables, KB\n",
        "| page | " + " | ".join(sizes) + " |",
        "|---|" + "---|" * len(sizes),
    ]
    for name, _, _ in pages:
        cells = []
        for s in sizes:
            r = results[name][s]
            cells.append(
                f"{kb(r['charts'])} ({r['n_charts']}) / {kb(r['largest'])} / {kb(r['template'])} / {kb(r['tables'])}"
            )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    per_token = []
    for name, _, _ in pages:
        if "n32" in results[name] and "n64" in results[name]:
            slope = (results[name]["n64"]["total"] - results[name]["n32"]["total"]) / 32
            per_token.append(f"{name} {slope / 1024:.1f}")
    if per_token:
        lines.append("\nKB per extra token between 32 and 64 tokens: " + ", ".join(per_token))
    text = "\n".join(lines)
    save(args.out, text, results)


if __name__ == "__main__":
    main()
