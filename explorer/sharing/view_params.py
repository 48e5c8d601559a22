"""The pages' display controls in a link, declared once: each control that changes what a page shows without
being a setting of the example (explorer.model.settings_table) or a pick (picks, model_link, the pairs):
/head's heatmap or lines, its toy head beside it and its worked cell, the head drawn on /induction, the logit
lens's scale, /model's lines, /why-scale's sample sizes, /next-token's temperature, weights coloured over
their own range, /learn's training step and the settings of a visitor's own training run. Pure: no
Streamlit.

A row names the control's widget key, its link parameter, its default and the values it takes; the frame
writes every control that differs from its default (explorer.ui.share_panel.page_params) and reads a link's
once, at the start of a session (explorer.ui.frame.read_url). A row without values takes a position (a
token, a head), read as a whole number here and bounded by its page, where the options are known
(explorer.ui.widgets.linked_options). Reading never raises: a value that cannot be read gives one message
and keeps the default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from explorer.i18n import N_, _
from explorer.model import learning
from explorer.sharing.values import ShareError, refused, shown, whole_number

MAX_CHARS = 40  # the characters read of each parameter: every value is a word or a few digits
MAX_POSITION = 100_000  # a position read before its page bounds it (SmolLM2 has 270 heads, 64 tokens)
ON_OFF = (False, True)
TEMPERATURES = tuple(round(t / 10, 1) for t in range(1, 31))  # /next-token's slider: 0.1 to 3.0 by 0.1
# A line view's "Lines of": every token's, one query's (q3) or one key's (k3), up to 64 tokens; the page keeps
# one past its sentence's tokens out (explorer.ui.interp_ui.lines_chart: every token's then).
FOCUS = ("all", *(f"q{i}" for i in range(64)), *(f"k{j}" for j in range(64)))


@dataclass(frozen=True)
class View:
    """One display control: its widget key, its link parameter, what messages call it, its default, the values
    it takes (empty: a position, bounded by its page), and the page it is on (its url_path)."""

    key: str
    param: str
    label: str  # how messages name it, in English: marked, translated where said (_(view.label))
    default: Any
    values: tuple[Any, ...]
    page: str


VIEWS: tuple[View, ...] = (
    View("head.view", "view", N_("weights drawn as"), "heatmap", ("heatmap", "lines"), "head"),
    View("head.toy", "toy", N_("the toy model's head beside it"), False, ON_OFF, "head"),
    View("head.query", "cell_q", N_("query (row) of the cell"), 0, (), "head"),
    View("head.key", "cell_k", N_("key (column) of the cell"), 0, (), "head"),
    View("induction.head", "ind_head", N_("head drawn"), None, (), "induction"),
    View("head.lines.focus", "lines_of", N_("lines of"), "all", FOCUS, "head"),
    View("lens.log", "log", N_("logarithmic scale"), False, ON_OFF, "logit-lens"),
    View("model.lines", "lines", N_("the layer as lines"), False, ON_OFF, "model"),
    View("model.lines_view.focus", "layer_lines_of", N_("the layer's lines of"), "all", FOCUS, "model"),
    View("why.samples", "samples", N_("samples per d_k"), 2000, (500, 1000, 2000, 5000), "why-scale"),
    View("why.keys", "keys", N_("keys per softmax row"), 16, (4, 8, 16, 32, 64), "why-scale"),
    View("rm.temperature", "temp", N_("temperature"), 1.0, TEMPERATURES, "next-token"),
    View("learn.step", "learn_step", N_("training step"), None, (), "learn"),
    # "Train it yourself": the settings of a visitor's run (not its weights: the run is made again from them)
    View("learn.seed", "train_seed", N_("training seed"), 0, (), "learn"),
    View(
        "learn.lr", "train_lr", N_("learning rate"), learning.LIVE_DEFAULTS["lr"], learning.LIVE_LRS, "learn"
    ),
    View(
        "learn.heads",
        "train_heads",
        N_("heads per layer"),
        learning.LIVE_DEFAULTS["heads"],
        learning.LIVE_HEADS,
        "learn",
    ),  # fmt: skip
    View(
        "learn.steps",
        "train_steps",
        N_("training steps"),
        learning.LIVE_DEFAULTS["steps"],
        learning.LIVE_STEPS,
        "learn",
    ),  # fmt: skip
    View("ui.fit_weights", "fit", N_("weights' colours from min to max"), False, ON_OFF, ""),
)
BY_KEY = {v.key: v for v in VIEWS}
PARAMS = tuple(v.param for v in VIEWS)
assert len(set(PARAMS)) == len(PARAMS) and len(BY_KEY) == len(VIEWS)


def text_of(value: Any) -> str:
    """A value as the link writes it: on/off, a number without trailing zeros, a word."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@dataclass
class ViewsRead:
    """The controls a link set (widget key -> value) and messages for the person."""

    values: dict[str, Any] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)


def _one(view: View, raw: str) -> Any:
    text = raw[:MAX_CHARS].strip()
    if not view.values:
        return whole_number(f"{_(view.label)} ({view.param}=)", text, 0, MAX_POSITION, "", signed=False)
    for value in view.values:
        if text.lower() == text_of(value).lower():
            return value
    said = ", ".join(text_of(v) for v in view.values)
    raise refused(
        "one_of", False, setting=f"{_(view.label)} ({view.param}=)", choices=said, value=shown(text)
    )


def read(params: Mapping[str, str | None]) -> ViewsRead:
    """Each control's parameter on its own; one that cannot be read keeps its default, with a message."""
    out = ViewsRead()
    for view in VIEWS:
        raw = str(params.get(view.param) or "")
        if not raw.strip():
            continue
        try:
            out.values[view.key] = _one(view, raw)
        except ShareError as e:
            kept = (
                _("Kept the page's first.")
                if view.default is None
                else _("Kept {value}.", value=text_of(view.default))
            )
            out.messages.append(f"{e} {kept}")  # two sentences
    return out


def params(values: Mapping[str, Any]) -> dict[str, str]:
    """The controls (widget key -> value) as link parameters, each only when it differs from its default."""
    out: dict[str, str] = {}
    for view in VIEWS:
        value = values.get(view.key, view.default)
        if value is not None and value != view.default:
            out[view.param] = text_of(value)
    return out
