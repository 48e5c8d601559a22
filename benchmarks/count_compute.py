"""How often one rerun does each piece of work, page by page.

Counts, while AppTest runs app.py on each page (a rerun after a new sentence is typed, then a rerun with
nothing changed): attention_core.tokenize, the uncached pipeline run, Example constructions, state.init
calls and share-link encodings (encode_state). Works on this layout and on the one before explorer was
grouped into sub-packages, so `--root` can point at an older checkout. Run from the repository root:

  .venv/bin/python -m benchmarks count_compute [--root /path/to/other/checkout]
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_parser = argparse.ArgumentParser(description=__doc__)
_parser.add_argument(
    "--root", type=Path, default=HERE.parent, help="the checkout to count (default: this one)"
)
ROOT = _parser.parse_args().root.resolve()
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from _common import save  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import attention_core as ac  # noqa: E402


def _module(*names: str):  # noqa: ANN202 - the first of these modules that exists in the checkout
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImportError(names)


pipeline = _module("explorer.compute.pipeline", "explorer.pipeline")
example = _module("explorer.model.example", "explorer.example")
state = _module("explorer.ui.state", "explorer.state")
state_blob = _module("explorer.sharing.state_blob")
PAGE_DIR = "app_pages" if (ROOT / "app_pages").is_dir() else "pages"

try:  # the explorer's steps, from the checkout's page table
    _table = importlib.import_module("explorer.ui.page_table")
    PAGES = [p.url_path or "sentence" for p in _table.listed() if not getattr(p, "real_model", False)]
except ImportError:  # a checkout from before the page table
    PAGES = [
        "sentence",
        "positional-encoding",
        "projections",
        "scores",
        "heads",
        "token",
        "encoder",
        "why-scale",
    ]
COUNTS = {"tokenize": 0, "pipeline.run": 0, "Example": 0, "state.init": 0, "link encodings": 0}


def _counting(name: str, fn):  # noqa: ANN001, ANN202
    def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        COUNTS[name] += 1
        return fn(*args, **kwargs)

    wrapper.__wrapped__ = fn
    return wrapper


ac.tokenize = _counting("tokenize", ac.tokenize)
pipeline.run = _counting("pipeline.run", pipeline.run)
state.init = _counting("state.init", state.init)
state_blob.encode_state = _counting("link encodings", state_blob.encode_state)
_example_init = example.Example.__init__


def _counted_init(self, *args, **kwargs) -> None:  # noqa: ANN001, ANN002, ANN003
    COUNTS["Example"] += 1
    _example_init(self, *args, **kwargs)


example.Example.__init__ = _counted_init
for mod in list(sys.modules.values()):  # modules that imported encode_state by name
    if getattr(mod, "encode_state", None) is state_blob.encode_state.__wrapped__:
        mod.encode_state = state_blob.encode_state


def counted(at: AppTest) -> tuple[int, ...]:
    for k in COUNTS:
        COUNTS[k] = 0
    at.run()
    assert not at.exception, at.exception
    return tuple(COUNTS.values())


def main() -> None:
    """Per page: a rerun after a new sentence is typed (nothing cached), then a rerun with nothing changed."""
    names = list(COUNTS)
    head = (
        " | ".join(f"new sentence: {n}" for n in names) + " | " + " | ".join(f"unchanged: {n}" for n in names)
    )
    lines = [
        f"Work done in one rerun of app.py (AppTest), checkout {ROOT}",
        "",
        f"| page | {head} |",
        "|---|" + "---:|" * (2 * len(names)),
    ]
    data = {}
    for i, name in enumerate(PAGES):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
        if name != "sentence":
            at.switch_page(f"{PAGE_DIR}/{name}.py").run()
        at.text_input(key="sentence").set_value(f"A new sentence number {i} for the count")
        typed, again = counted(at), counted(at)
        data[name] = {
            "new_sentence": dict(zip(names, typed, strict=True)),
            "unchanged": dict(zip(names, again, strict=True)),
        }
        lines.append(f"| {name} | " + " | ".join(map(str, typed + again)) + " |")
    # A preset whose panel compares the example with its other mask (a lesson): opened by its link.
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["preset"] = "causal-vs-bidirectional"
    first, again = counted(at), counted(at)
    data["preset causal-vs-bidirectional"] = {
        "first_open": dict(zip(names, first, strict=True)),
        "unchanged": dict(zip(names, again, strict=True)),
    }
    lines.append(
        "| ?preset=causal-vs-bidirectional (first open) | " + " | ".join(map(str, first + again)) + " |"
    )
    save("count_compute.md", "\n".join(lines), data)


if __name__ == "__main__":
    main()
