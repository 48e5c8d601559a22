"""What the heads of the real models do on a few sentences: how many heads get each label (the rules on
/model, attention_core.analysis.label_heads), the strongest head of each label, and a few striking weights.

    .venv/bin/python -m benchmarks head_labels            (prints Markdown; needs the two model packages)

Pure measurement of the engine's own numbers (no timing): the figures in the issue notes come from here.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.compute import model_compute  # noqa: E402
from explorer.model import models
from explorer.views.model_figures import show_token  # noqa: E402

SENTENCES = {
    "minilm": (
        "The cat sat on the mat because it was warm.",
        "The animal didn't cross the street because it was too tired.",
    ),
    "smollm2": ("The capital of France is", "The animal didn't cross the street because it was too tired."),
}


def report(key: str, text: str) -> str:
    trace = model_compute.run(key, text)
    lab = model_compute.labels(key, text)
    A = np.asarray(trace.attentions, dtype=np.float64)  # (L, H, n, n)
    L, H, n, _ = A.shape
    counts = Counter(lab.labels.ravel().tolist()).most_common()
    lines = [f"### {trace.model}: “{text}” ({n} tokens, {L} layers × {H} heads)", ""]
    lines.append(", ".join(f"{c} {name}" for name, c in counts))
    lines.append("")
    lines.append("| label | heads | strongest head | its score |")
    lines.append("|---|---:|---|---:|")
    for name, c in counts:
        where = np.argwhere(lab.labels == name)
        best = max(where, key=lambda lh: lab.scores[lh[0], lh[1]])
        lines.append(
            f"| {name} | {c} | layer {best[0] + 1}, head {best[1] + 1} | {lab.scores[best[0], best[1]]:.2f} |"
        )
    last = A[:, :, -1, :]  # (L, H, n): the last token's row
    l, h = np.unravel_index(np.argmax(last[:, :, 0]), (L, H))
    lines.append("")
    lines.append(
        f"Largest weight of the last token ({show_token(trace.tokens[-1])!r}) on the first token "
        f"({show_token(trace.tokens[0])!r}): {last[l, h, 0]:.2f} at layer {l + 1}, head {h + 1}."
    )
    if "it" in [t.strip().lower() for t in trace.tokens]:
        i = [t.strip().lower() for t in trace.tokens].index("it")
        row = A[:, :, i, :]
        l, h, j = np.unravel_index(np.argmax(np.where(np.arange(n) == i, 0, row)), row.shape)
        lines.append(
            f"“it” (token {i}) puts its largest weight on another token at layer {l + 1}, head {h + 1}: "
            f"{row[l, h, j]:.2f} on {show_token(trace.tokens[j])!r}."
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    for key, texts in SENTENCES.items():
        why = models.missing(key)
        if why:
            print(f"{key}: {why}")
            continue
        for text in texts:
            print(report(key, text))


if __name__ == "__main__":
    main()
