"""Where a real-model page makes its visitor wait, and what the page says meanwhile.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks waits [--tokens 11,64] [--models minilm,smollm2]

Each slow step of the real-model pages (explorer.compute), called as the page calls it on a sentence never
run before (so nothing comes from a cache), at about 11 and 64 tokens: wall and CPU seconds (CPU is the
figure to compare on a loaded machine), and the words the page shows while it runs (explorer.ui.waiting.working,
the ranking's progress bar). A step over about a second must say what it does; every step listed says it,
tests/app/ui/test_waiting_words.py checks that they do. Results: benchmarks/out/waits.md.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

from _common import save, sentence_of

from explorer.compute import interp, model_compute, pairs
from explorer.model import models

SAYS = {
    "run (a new sentence)": "Running <model> on your sentence… (every real-model page)",
    "heads switched off": "Running <model> with the heads switched off… (/ablation)",
    "rollout": "Following the attention through every layer… (/rollout)",
    "labels": "Measuring what each head does on your sentence… (/model, /head)",
    "logit lens": "Reading what each layer would predict, for every token… (/logit-lens)",
    "induction (new seed)": "Running <n> random tokens twice and scoring every head… (/induction)",
    "occlusion of the cosine": "Removing each token in turn and running the sentence again… (/ablation)",
    "pair shift": "Comparing the two sentences' attention, head by head… (/minimal-pairs)",
    "rank the heads": "a progress bar: Switching heads off one by one… then each step (/ablation)",
}


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def steps(key: str, n: int, tag: str) -> list[tuple[str, Callable[[], Any]]]:
    text = f"{sentence_of(n - 3)} {tag}"  # a sentence no cache holds (the tag is new each time)
    out: list[tuple[str, Callable[[], Any]]] = [
        ("run (a new sentence)", lambda: model_compute.run(key, text)),
        (
            "heads switched off",
            lambda: model_compute.compare(
                key, text, ((0, 0),), "" if models.choice(key).decoder else f"{text} too"
            ),
        ),  # fmt: skip
        ("rollout", lambda: model_compute.rollout(key, text)),
        ("labels", lambda: model_compute.labels(key, text)),
    ]
    if models.choice(key).decoder:
        seed = int(tag[-4:]) % 10_000
        out += [
            ("logit lens", lambda: interp.lens(key, text)),
            ("induction (new seed)", lambda: interp.induction(key, seed, models.INDUCTION_LENGTH)),
        ]
    else:
        other = "one " + text.split(" ", 1)[1]  # one word changed (both one token)
        if n <= 32:
            out.append(("occlusion of the cosine", lambda: pairs.occlusion_similarity(key, text, other)))
        out.append(("pair shift", lambda: pairs.shift(key, text, other, 1)))
    out.append(("rank the heads", lambda: [*model_compute.ranking(key, text)]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", default="11,64")
    ap.add_argument("--models", default="minilm,smollm2")
    args = ap.parse_args()
    rows = ["| model | tokens | step | wall s | CPU s | the page says |", "|---|---:|---|---:|---:|---|"]
    load, data = os.getloadavg()[0], []
    for key in args.models.split(","):
        models.model(key)  # loaded once, as server.py does before serving
        for n in (int(t) for t in args.tokens.split(",")):
            for name, fn in steps(key, n, f"q{time.time_ns() % 10**8}"):
                wall, cpu = timed(fn)
                says = (
                    SAYS[name]
                    .replace("<model>", models.choice(key).title)
                    .replace("<n>", str(models.INDUCTION_LENGTH))
                )
                rows.append(f"| {key} | {n} | {name} | {wall:.2f} | {cpu:.2f} | {says} |")
                data.append({"model": key, "tokens": n, "step": name, "wall_s": wall, "cpu_s": cpu})
                print(rows[-1], flush=True)
    rows.append(f"\nload average at the start: {load:.1f}, at the end: {os.getloadavg()[0]:.1f}")
    save("waits.md", "\n".join(rows), data)


if __name__ == "__main__":
    main()
