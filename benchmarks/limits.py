"""The largest messages the app legitimately sends and receives, and the size of its cache entries.

What `.streamlit/config.toml`'s limits (server.maxMessageSize, server.maxWidgetStateSize) and the caches'
byte budgets (explorer.cache) are chosen from. Every page is run under AppTest at the LARGEST example the
app allows (64 tokens, d_model 64, 8 heads, d_k 64, d_ff 256, every expander open):

- "largest sent": the largest single ForwardMsg of the page's run (what server.maxMessageSize must pass);
- "largest received": the widget state of the largest legitimate browser message: every cell of the
  largest editor (W_O, 512 x 64, or W1/W2) edited at once (a paste of the whole matrix);
- "result entry": the bytes of one cached pipeline.Result (explorer.cache.nbytes), and the share link.

Usage: .venv/bin/python -m benchmarks limits [--out limits.md]
"""

from __future__ import annotations

import argparse
import json
import sys

from _common import PAGES, ROOT, machine, quiet, save, sentence_of

_CAPTURED: list = []

LARGEST = {
    "sentence": sentence_of(64),
    "cfg.d_model": 64,
    "cfg.n_heads": 8,
    "cfg.d_k": 64,
    "encoder.d_ff": 256,
    "ui.open.ffn_editors": True,
    "ui.open.terms": True,
}


def capture_messages() -> None:
    from streamlit.testing.v1 import local_script_runner as lsr

    original = lsr.parse_tree_from_messages

    def keep(messages):  # noqa: ANN001, ANN202
        _CAPTURED[:] = list(messages)
        return original(messages)

    lsr.parse_tree_from_messages = keep


def largest_sent(page_file: str) -> tuple[int, str]:
    """(bytes, element kind) of the largest ForwardMsg of one run of `page_file` at LARGEST."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    for key, value in LARGEST.items():
        at.session_state[key] = value
    at.run()
    if page_file != "app_pages/sentence.py":
        at.switch_page(page_file).run()
    if at.exception:
        raise RuntimeError(f"{page_file}: {at.exception[0].message}")
    best, kind = 0, ""
    for msg in _CAPTURED:
        size = len(msg.SerializeToString())
        if size > best:
            el = msg.delta.new_element if msg.WhichOneof("type") == "delta" else None
            best, kind = size, (el.WhichOneof("type") if el is not None else msg.WhichOneof("type"))
    return best, kind


def largest_received() -> dict[str, int]:
    """The widget-state bytes of a whole-matrix edit of each large editor (every cell a new 17-digit float)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetStates

    out = {}
    for name, (rows, cols) in {"w_o": (512, 64), "w1": (64, 256), "w2": (256, 64)}.items():
        edits = {str(i): {f"c{j}": -0.12345678901234567 for j in range(cols)} for i in range(rows)}
        ws = WidgetStates()
        w = ws.widgets.add()
        w.id = "$$ID-" + "0" * 32 + "-ed." + name + ".v1"
        w.string_value = json.dumps({"edited_rows": edits, "added_rows": [], "deleted_rows": []})
        out[name] = ws.ByteSize()
    return out


def entry_bytes() -> dict[str, int]:
    """Bytes held by one cached result and one share link of the largest example (all matrices edited)."""
    import numpy as np

    from explorer import cache
    from explorer.compute import pipeline
    from explorer.model.example import Example, conform
    from explorer.sharing import url as links

    ex = conform(Example(sentence=sentence_of(64), d_model=64, n_heads=8, d_k=64, d_ff=256))
    rng = np.random.default_rng(0)
    edited = {n: rng.standard_normal(getattr(ex, n).shape) for n in ("w_q", "w_k", "w_v", "w_o", "w1", "w2")}
    ex = ex.with_(**edited)
    return {
        "result": cache.nbytes(pipeline.run(ex)),
        "example": cache.nbytes(ex),
        "link": len(links.query(ex)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="limits.md", help="file name under benchmarks/out/")
    args = ap.parse_args()
    quiet()
    capture_messages()
    sent = {}
    for name, page_file, _ in PAGES:
        sent[name] = largest_sent(page_file)
        print(f"  {name:12s} {sent[name][0] / 1e6:.3f} MB ({sent[name][1]})", file=sys.stderr)
    received = largest_received()
    entries = entry_bytes()
    lines = [
        "# The largest legitimate messages and cache entries (MB = 10^6 bytes)\n",
        f"{machine()}.",
        "Example: 64 tokens, d_model 64, 8 heads, d_k 64, d_ff 256, every expander open.\n",
        "| page | largest message sent | element |",
        "|---|---:|---|",
        *(f"| {n} | {b / 1e6:.3f} | {k} |" for n, (b, k) in sent.items()),
        "",
        "| whole-matrix edit received | MB |",
        "|---|---:|",
        *(f"| {n} | {b / 1e6:.3f} |" for n, b in received.items()),
        "",
        f"One cached result: {entries['result'] / 1e6:.2f} MB; the example itself {entries['example'] / 1e6:.2f} MB; "
        f"its share link (every weight edited) {entries['link']:,} characters.",
    ]
    save(args.out, "\n".join(lines), {"sent": sent, "received": received, "entries": entries})


if __name__ == "__main__":
    main()
