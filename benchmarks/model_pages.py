"""Server side: each real-model page's full rerun under AppTest, on both models, and the MiniLM ranking.

For every real-model page (/model, /head, /next-token, /ablation, /rollout, /logit-lens, /induction) and model
(MiniLM, SmolLM2; the next word, the logit lens and induction are SmolLM2's only), an AppTest of app.py is
opened on the page with the model picked and an 11-token sentence, warmed up (2 runs), then timed:
- "rerun": the script reruns with nothing changed (a click elsewhere: the engine's run, the labels, the
  rollout and the comparison all come from their caches);
- "changed": a new sentence of 11 words before each run (never seen before), so the engine runs the model
  again and every label, rollout and figure is new (what typing a sentence costs); on /induction, which
  does not read the sentence, a new seed (50 new random tokens, repeated, run).
Figures are medians over --runs runs in ms, the whole app.py frame included; "cpu" is the script thread's
CPU time (other processes on a busy machine inflate the wall time, not the CPU time).
"layer": the explorer's own pages (/projections, /scores, /heads, /token, /encoder) with a real layer open
(MiniLM layer 3, SmolLM2 layer 16, opened through a link's real= and real_layer=), rerun with nothing changed:
the layer's matrices (about 25 MB of float64 for SmolLM2) are not hashed again on each rerun.
"ranking" is the wall time of MiniLM's "which heads matter" ranking (72 runs, one head off each) on a new
sentence of 11 words, as the /ablation button runs it (and its process CPU time).

Targets: /model at 11 tokens updated after a sentence change in <= 1 s (server side here; the
browser's drawing is browser.py's); the MiniLM ranking in <= 10 s.

Usage: .venv/bin/python -m benchmarks model_pages [--runs 5] [--pages model,head] [--models minilm]
       [--no-layer]
"""

from __future__ import annotations

import argparse
import itertools
import time

from _common import ROOT, cache_scripts, load, machine, median_ms, quiet, save, track_script_cpu

PAGES = ["model", "head", "next-token", "ablation", "rollout", "logit-lens", "induction"]
DECODER_PAGES = ("next-token", "logit-lens", "induction")  # they show SmolLM2 whatever is picked
MODELS = ["minilm", "smollm2"]
WORDS = (
    "river", "stone", "lamp", "garden", "teacher", "window", "music", "bread", "winter", "paper", "horse",
    "cloud", "market", "letter", "forest", "table", "sugar", "bridge", "mirror", "candle", "island", "pocket",
)  # fmt: skip
_fresh = itertools.count()


def new_sentence(n: int = 11) -> str:
    """A sentence of n common words not run before in this process (each call shifts the words)."""
    i = next(_fresh)
    return " ".join(WORDS[(i * 7 + j * (i % 5 + 1)) % len(WORDS)] for j in range(n - 1)) + f" {i}"


def app_on(page: str, model: str, sentence: str):  # noqa: ANN201 - AppTest
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.session_state["rm.model"] = model
    at.session_state["sentence"] = sentence
    at.run()
    at.switch_page(f"app_pages/{page}.py").run()
    if at.exception:
        raise RuntimeError(f"/{page} on {model}: {at.exception[0].message}")
    return at


def measure(page: str, model: str, mode: str, runs: int) -> tuple[float, float]:
    at = app_on(page, model, new_sentence())

    seeds = itertools.count(1000)

    def step() -> None:
        if mode == "changed" and page == "induction":
            at.session_state["rm.ind_seed"] = next(seeds)
        elif mode == "changed":
            at.session_state["sentence"] = new_sentence()
        at.run()

    wall, cpu = median_ms(step, runs)
    if at.exception:
        raise RuntimeError(f"/{page} on {model}: {at.exception[0].message}")
    return wall, cpu


LAYER_PAGES = ["projections", "scores", "heads", "token", "encoder"]
LAYERS = {"minilm": 2, "smollm2": 15}  # 0-based: MiniLM layer 3, SmolLM2 layer 16


def layer_rerun(page: str, model: str, runs: int) -> tuple[float, float]:
    """/page with layer LAYERS[model] of the model open in the explorer: a rerun with nothing changed."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params.update({"real": model, "real_layer": str(LAYERS[model]), "sentence": new_sentence()})
    at.run()
    at.switch_page(f"app_pages/{page}.py").run()
    if at.exception or at.session_state["explorer.real"] != model:
        raise RuntimeError(f"/{page} with {model}'s layer: {at.exception or 'the layer did not open'}")
    return median_ms(at.run, runs)


def ranking_s() -> tuple[float, float]:
    from explorer.compute import model_compute

    text = new_sentence()
    model_compute.run("minilm", text)  # the untouched run, as /ablation has it before the button
    t0, c0 = time.perf_counter(), time.process_time()
    steps = list(model_compute.ranking("minilm", text))
    assert steps[-1].done == steps[-1].total
    return time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pages", default=",".join(PAGES))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument(
        "--no-layer", action="store_true", help="skip the explorer's pages with a real layer open"
    )
    args = ap.parse_args()
    quiet()
    cache_scripts()
    track_script_cpu()
    pages, models = [p for p in args.pages.split(",") if p], args.models.split(",")
    results: dict[str, dict[str, list[float]]] = {}
    rows = ["| page | model | rerun wall / cpu ms | changed wall / cpu ms |", "|---|---|---:|---:|"]
    for page in pages:
        for model in models:
            if page in DECODER_PAGES and model != "smollm2":
                continue
            r = measure(page, model, "rerun", args.runs)
            c = measure(page, model, "changed", args.runs)
            results[f"{page}/{model}"] = [*r, *c]
            rows.append(f"| /{page} | {model} | {r[0]:.0f} / {r[1]:.0f} | {c[0]:.0f} / {c[1]:.0f} |")
            print(rows[-1], flush=True)
    if not args.no_layer:
        rows += ["", "| explorer page, a real layer open | model | rerun wall / cpu ms |", "|---|---|---:|"]
        for page in LAYER_PAGES:
            for model in models:
                r = layer_rerun(page, model, args.runs)
                results[f"layer/{page}/{model}"] = list(r)
                rows.append(f"| /{page} | {model} layer {LAYERS[model] + 1} | {r[0]:.0f} / {r[1]:.0f} |")
                print(rows[-1], flush=True)
    rank = ranking_s() if "minilm" in models else (float("nan"),) * 2
    text = (
        f"# Real-model pages: server-side rerun (AppTest, median of {args.runs})\n\n{machine()}, {load()}\n\n"
        + "\n".join(rows)
        + f"\n\nMiniLM 'which heads matter' ranking (72 runs, 11 tokens): {rank[0]:.2f} s wall, "
        f"{rank[1]:.2f} s CPU (target <= 10 s)\n"
    )
    save("model_pages.md", text, {"pages": results, "ranking_s": rank})


if __name__ == "__main__":
    main()
