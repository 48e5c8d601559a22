"""A lesson step on a laptop keeps its bar and the chart it talks about on one screen: a small script
(lesson_view.js, beside this module, no visible content) keeps the bar at the top while the page scrolls
under it (lesson_ui.STICKY_CSS) and, on arriving at a step, scrolls the page so the step's chart starts
right under the bar. Presenting, a step's part is the page (explorer.ui.widgets.shows): nothing to scroll."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from explorer.views import chart_specs as charts

NAME = "attention_explorer.lesson_view"
KEY = "lesson.view"
JS = Path(__file__).with_name("lesson_view.js").read_text(encoding="utf-8")

# The element a step's page part (page_table.Step.name) points at, as the keys of its containers, the first
# one on the page: its chart, else what stands in its place (a question hiding the weights, the Run button
# before a sweep). A step without a part points at the first chart under the bar.
PART_TARGETS: dict[str, tuple[str, ...]] = {
    "scores": (charts.RAW_SCORES.key,),
    "masking": (charts.SCALED_SCORES.key,),
    "softmax": (charts.WEIGHTS.key, "ask-box"),
    "induction": (charts.INDUCTION_PATTERN.key,),
    "induction-loss": ("induction.loss",),
    "logit-lens-follow": ("lens.follow",),
    "next-token": ("next.bars", "ask-box"),
    "next-token-mask": (charts.NEXT_MASK.key,),
    "next-token-needs": ("next.occlusion",),
    "patching": ("patching.resid", "patching.run"),
    "patching-heads": ("patching.head", "patching.run"),
}


def css_keys(part: str) -> list[str]:
    """The targets of `part` as their containers' class names end (st-key-<key>, dots as dashes)."""
    return [k.replace(".", "-") for k in PART_TARGETS.get(part, ())]


# A box that scrolls inside the page, as its key's class name ends: on arriving, it shows the row of this label
# (the step's layer: /ablation's switches open at the experiment's layer, not at layer 1).
INNER_BOXES = {"ablation": "ablation-switches"}


def mount(lesson: str, k: int, part: str, page: str = "", layer: str | None = None) -> None:
    """Scroll to step k's part once, on arriving there (a rerun on the same step leaves the page where the
    student put it); on `page` with a box of rows (INNER_BOXES), scroll the box to the row of `layer`
    (1-based, as a link writes it)."""
    inner = [INNER_BOXES[page], f"layer {int(layer)}"] if page in INNER_BOXES and layer else None
    _component()(key=KEY, height=0, data={"step": f"{lesson}:{k}", "keys": css_keys(part), "inner": inner})


@functools.cache
def _component() -> Any:
    import streamlit as st

    return st.components.v2.component(NAME, js=JS, isolate_styles=False)
