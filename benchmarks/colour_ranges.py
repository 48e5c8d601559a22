"""The colour ranges of the explorer's heatmaps on real numbers and on the toy's (explorer.views.colour_range).

For every layer of both models opened in the explorer on one sentence, every chart of the explorer's pages
(as the HTML export draws them, with the pages' builders): how many heatmaps, how many take a range narrower
than their largest |value| (a few outliers would wash them out), the most cells beyond a range in one chart,
the largest value named, and how many charts call it a massive activation. Then the toy: over a grid of
settings (3 sentences x d_model 8/16/64 x post/pre-norm x 3 kinds of positions), how many of its signed
matrices would get a narrower range than their largest |value|. Run from the repository root:

  .venv/bin/python -m benchmarks colour_ranges
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import OUT  # noqa: E402
from explorer.compute import pipeline  # noqa: E402
from explorer.export import html_charts, walkthrough  # noqa: E402
from explorer.model import bridge  # noqa: E402
from explorer.model.example import Example, conform  # noqa: E402
from explorer.views import colour_range, describe  # noqa: E402

SENTENCE = "The cat sat on the mat because it was warm."
TOY_SENTENCES = (
    SENTENCE,
    "I like tea",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z and more words here",
)


def real(key: str, n_layers: int) -> dict[str, object]:
    heatmaps = narrowed = massive = 0
    most, largest = 0, (0.0, "")
    for layer in range(n_layers):
        ex = conform(Example(sentence=SENTENCE).with_(**bridge.settings_of(key, layer)))
        w = walkthrough.from_example(ex, pipeline.run(ex))
        for charts in html_charts.charts_of(w).values():
            for chart in charts:
                for _, drawn in chart.variants:
                    fig = html_charts.figure_of(drawn)
                    for trace in fig.data:
                        if trace.type == "heatmap" and getattr(trace, "zmin", None) is not None:
                            heatmaps += 1
                    rings = [t for t in fig.data if (t.meta or {}).get("beyond")] if fig.data else []
                    if rings:
                        narrowed += 1
                        most = max(most, int(rings[0].meta["beyond"]))
                        note = describe.beyond_of(drawn)  # the whole note (the chart shows one line)
                        massive += int("massive activation" in note)
                        over = fig.data[list(fig.data).index(rings[0]) + 1]  # the narrow ring, its values
                        value = float(over.customdata[0].replace(",", ""))
                        if abs(value) > abs(largest[0]):
                            largest = (value, f"layer {layer + 1}, {chart.key}")
    return {"model": key, "layers": n_layers, "heatmaps": heatmaps, "narrowed": narrowed,
            "most beyond in one chart": most, "largest value": largest[0], "where": largest[1],
            "massive notes": massive}  # fmt: skip


def toy() -> dict[str, int]:
    checked = changed = 0
    for s, d, pre, pe in itertools.product(
        TOY_SENTENCES, (8, 16, 64), (False, True), ("sinusoidal", "none", "learned")
    ):
        res = pipeline.run(conform(Example(sentence=s, d_model=d, norm_first=pre, pe_kind=pe)))
        a, e = res.attention, res.encoder
        mats = [
            res.emb,
            res.pe,
            res.pe_gram,
            res.x,
            a.concat,
            a.output,
            *a.q,
            *a.k,
            *a.v,
            *a.scores,
            *a.masked,
        ]
        mats += [
            getattr(e, n) for n in ("attn_input", "sum1", "norm1", "ffn_hidden", "ffn_out", "sum2", "output")
        ]
        for z in mats:
            f = np.abs(z[np.isfinite(z)])
            if f.size and f.any():
                checked += 1
                changed += int(colour_range.bulk_bound(f) < f.max())
    return {"toy matrices": checked, "narrowed": changed}


def main() -> None:
    rows = [real("minilm", 6), real("smollm2", 30)]
    for r in rows:
        print(
            f"{r['model']:8} {r['layers']:2} layers: {r['heatmaps']:5} heatmaps, {r['narrowed']:4} on a range from "
            f"the bulk (at most {r['most beyond in one chart']} cells beyond it in one chart), largest named "
            f"{r['largest value']:,.1f} ({r['where']}), {r['massive notes']} notes of a massive activation"
        )
    t = toy()
    print(
        f"toy: {t['narrowed']} of {t['toy matrices']} signed matrices over the settings grid get a narrower range"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "colour_ranges.json").write_text(json.dumps({"real": rows, "toy": t}, indent=1))


if __name__ == "__main__":
    main()
