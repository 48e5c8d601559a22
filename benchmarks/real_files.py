"""The largest file the app writes, and how long it takes to save and to open: a real model's layer with
every cell of every matrix edited (at 64 tokens), the largest state a person can reach.

For each model (MiniLM, SmolLM2) and each kind of edit, the layer is opened as "Open layer L in the
explorer" opens it (explorer.model.bridge), its cells are set, then "Download the example (JSON)"
(explorer.sharing.to_json) and "Open an example (JSON)" (explorer.sharing.from_json) are timed. Edits:

- "every cell, float64": every cell a random float64 (no shorter exact encoding, nothing to compress);
- "every cell, 2 decimals": every cell a number with two decimals, as a person types them (float64 too);
- "100k cells of W1": 100,000 random cells of W1 (a pasted block);
- "nothing": the layer as the model has it.

The caps printed beside them are explorer.sharing.values' (derived from the largest layer) and
.streamlit/config.toml's server.maxUploadSize. Median of --runs runs after one warm-up.

Usage: .venv/bin/python -m benchmarks real_files [--runs 3] [--models minilm,smollm2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tomllib

import numpy as np
from _common import ROOT, machine, save, sentence_of


def opened(key: str, layer: int, sentence: str):  # noqa: ANN201
    """Layer `layer` of model `key` as the explorer's example on `sentence` (as the /head button opens it)."""
    from explorer.model import bridge
    from explorer.model import example as exm
    from explorer.model.example import Example

    ex = Example(sentence=sentence).with_(**bridge.settings_of(key, layer))
    return ex.with_(**exm.default_matrices(ex, exm.tokens_for(ex)[0]))


def edited(ex, how: str, rng: np.random.Generator):  # noqa: ANN001, ANN201
    from explorer.model.example import MATRIX_NAMES

    if how == "nothing":
        return ex
    if how == "100k cells of W1":
        w1 = np.array(ex.w1, order="C")  # (MiniLM keeps W1 transposed in memory: a flat view needs C order)
        cells = rng.choice(w1.size, 100_000, replace=False)
        w1.reshape(-1)[cells] = rng.normal(size=cells.size)
        return ex.with_(w1=w1)
    mats = {}
    for name in MATRIX_NAMES:
        m = getattr(ex, name)
        if m.dtype == bool:
            mats[name] = rng.random(m.shape) < 0.5
        elif how == "every cell, float64":
            mats[name] = rng.normal(size=m.shape)
        else:
            mats[name] = np.round(rng.normal(size=m.shape) * 10, 2)
    return ex.with_(**mats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--models", default="minilm,smollm2")
    args = parser.parse_args()

    from explorer.model import models
    from explorer.sharing import json_file, values

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    upload = config["server"]["maxUploadSize"]
    load = os.getloadavg()[0]
    lines = [
        f"# Real-layer files, {machine()}, load average {load:.1f}",
        "",
        f"caps: a file's state expands to at most {values.MAX_FILE_BODY_BYTES:,} bytes; a file is at most "
        f"{values.MAX_JSON_BYTES:,} bytes (MAX_JSON_BYTES); uploads at most {upload} MB "
        f"(server.maxUploadSize: {upload * 1_000_000:,} bytes as the browser's uploader counts them)",
        "",
        "| model | layer | edit | cells | file bytes | save s | open s | identical |",
        "|---|---:|---|---:|---:|---:|---:|---|",
    ]
    print("\n".join(lines), file=sys.stderr, flush=True)
    rows = []
    rng = np.random.default_rng(0)
    sentence = sentence_of(120)  # cut to 64 tokens by either model
    for key in args.models.split(","):
        layer = models.choice(key).shape[0] - 1
        base = opened(key, layer, sentence)
        for how in ("every cell, float64", "every cell, 2 decimals", "100k cells of W1", "nothing"):
            ex = edited(base, how, rng)
            json_file.to_json(ex)  # warm-up: the layer's base and input are cached by the app too
            saves, opens, text, back = [], [], "", None
            for _ in range(args.runs):
                t = time.perf_counter()
                text = json_file.to_json(ex)
                saves.append(time.perf_counter() - t)
                data = text.encode("utf-8")
                t = time.perf_counter()
                back = json_file.from_json(data)
                opens.append(time.perf_counter() - t)
            same = back is not None and all(
                np.array_equal(getattr(back, n), getattr(ex, n)) for n in values.MATRIX_NAMES
            )
            cells = sum(getattr(ex, n).size for n in values.MATRIX_NAMES)
            row = {
                "model": key,
                "layer": layer + 1,
                "edit": how,
                "cells": cells,
                "bytes": len(text.encode("utf-8")),
                "save_s": statistics.median(saves),
                "open_s": statistics.median(opens),
                "identical": same,
            }
            rows.append(row)
            line = (
                f"| {key} | {layer + 1} | {how} | {cells:,} | {row['bytes']:,} | {row['save_s']:.2f} | "
                f"{row['open_s']:.2f} | {'yes' if same else 'NO'} |"
            )
            lines.append(line)
            print(line, file=sys.stderr, flush=True)
    save("real_files.md", "\n".join(lines), rows)
    if not all(r["identical"] for r in rows):
        sys.exit("a file did not reopen to the identical example")


if __name__ == "__main__":
    main()
