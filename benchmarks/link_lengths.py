"""How long the Share link is, and how large its QR code, for a sentence opened from a `?sentence=` address
and for the same sentence typed in the box; and what the head and cell picked on /scores add.

Each link is the one "Share and export" shows, read under AppTest through app.py (relative: the page's own
address goes in front of it in a browser, 22 characters for http://localhost:8501/). `--app` runs another
checkout's app.py (its `explorer` imported from there), to compare before and after a change.

Usage: .venv/bin/python -m benchmarks link_lengths [--app /path/to/checkout]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

SENTENCES = (
    "I like green tea very much",
    "The animal didn't cross the street because it was too tired.",
    "The Eiffel Tower is in the city of",
)
BASE = "http://localhost:8501/"  # the address a link is written after, counted in its length


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    root = args.app.resolve()
    sys.path.insert(0, str(root))
    from streamlit.testing.v1 import AppTest

    from explorer.export import qr

    def session(params: dict[str, str]) -> AppTest:
        at = AppTest.from_file(str(root / "app.py"), default_timeout=120)
        for k, v in params.items():
            at.query_params[k] = v
        return at.run()

    def link(at: AppTest) -> str:
        at.session_state["share.panel"] = True
        at.run()
        (found,) = [c.value for c in at.sidebar.code if "sentence=" in c.value]
        return BASE + found.lstrip("?")

    def row(what: str, url: str) -> None:
        print(f"| {what} | {len(url):,} | {qr.modules(url)} x {qr.modules(url)} |")

    print(f"App: {root}\n\n| link | characters | QR code (modules) |\n|---|---:|---:|")
    for text in SENTENCES:
        row(f"`?sentence={text[:24]}…`, then Share", link(session({"sentence": text})))
        typed = session({})
        typed.text_input(key="sentence").set_value(text).run()
        row(f"typed: {text[:24]}…", link(typed))
    at = session({})
    at.switch_page("app_pages/scores.py").run()
    row("/scores, default picks", link(at))
    at.session_state["ui.head"], at.session_state["ui.query"], at.session_state["ui.key"] = 1, 3, 1
    at.run()
    row("/scores, head 2, cell (3, 1)", link(at))


if __name__ == "__main__":
    main()
