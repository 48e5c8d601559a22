"""An Example as the query parameters of a link, and back: the settings as plain parameters (their rows in
the settings table name them), the matrices in `s=` (explorer.sharing.state_blob). Pure: no Streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from explorer.compute import model_compute
from explorer.i18n import _
from explorer.model import layer as layers
from explorer.model import settings_table as table
from explorer.model.example import Example
from explorer.sharing.state_blob import decode_state, encode_state
from explorer.sharing.values import (
    LABELS,
    MAX_BODY_BYTES,
    MAX_FILE_BODY_BYTES,
    PARAM_OF,
    STATE_PARAM,
    ShareError,
    check_setting,
    cut_sentence,
    layer_settings,
    number_text,
    seeded,
    shown,
    with_matrices,
)


def to_params(ex: Example, draws: Mapping[str, int] | None = None) -> dict[str, str]:
    """Every setting as a query parameter, plus `s` when some matrix differs from its seeded default."""
    out = settings_params(ex)
    blob = encode_state(ex, draws)
    if blob:
        out[STATE_PARAM] = blob
    return out


def settings_params(ex: Example) -> dict[str, str]:
    """Every setting as a query parameter (to_params without the edited matrices)."""
    out: dict[str, str] = {}
    for row in table.SETTINGS:
        v = getattr(ex, row.name)
        if row.name in ("real", "real_layer") and layers.of(ex).DRAWN:
            continue  # a drawn example's links name no layer (they stay as they were before layers)
        if row.kind == "bool":
            out[row.param] = row.words[1] if v else row.words[0]
        elif row.kind == "float":
            out[row.param] = number_text(v)
        else:
            out[row.param] = str(v)
    return out


def settings_from_params(params: Mapping[str, str], base: Example) -> tuple[Example, list[str]]:
    """`base` with every setting the parameters give; a bad one keeps base's value and gives a message."""
    changes: dict[str, Any] = {}
    messages: list[str] = []
    fixed: dict[str, Any] = {}  # what a real model's layer named by the link fixes (its sizes and more)
    real = params.get(PARAM_OF["real"])
    skip = {"real_layer"}  # a layer is read with its model, once: one message for a model and its layer
    if real is not None:
        try:
            # what the model's layers fix (nothing for the toy's one layer); then the link's layer of them
            if layer_settings(real, "0"):
                fixed = layer_settings(real, params.get(PARAM_OF["real_layer"]) or "0")
        except ShareError as e:
            messages.append(_("{problem} Opened the toy model instead.", problem=e))
            changes.update(real=table.row("real").default, real_layer=0)
        if fixed or "real" in changes:
            skip.add("real")  # read above (a model whose layer fixes nothing is read as any setting)
    layer_named = str(params.get(PARAM_OF["real_layer"]) or "0").strip() not in ("0", "")
    if layer_named and not fixed and "real" not in changes:  # the toy model has no layers to name
        r, layer, label = PARAM_OF["real"], PARAM_OF["real_layer"], LABELS["real_layer"]
        messages.append(
            _(
                "The link's {setting} ({param}={value}) needs a real model beside it ({real}=minilm or "
                "{real}=smollm2); kept the toy model.",
                setting=_(label),
                param=layer,
                value=shown(params[layer]),
                real=r,
            )
        )
    for name, param in PARAM_OF.items():
        if (
            param not in params
            or name in skip
            or (fixed and name in (*table.FIXED_BY_LAYER, "real", "real_layer"))
        ):
            continue
        raw = params[param]
        raw = "" if raw is None else str(raw)
        if name == "sentence":
            changes[name] = cut_sentence(raw, messages)
            continue
        if len(raw) > 40:
            messages.append(
                _(
                    "The link's {setting} ({param}=) is too long to be a value; kept the default.",
                    setting=_(LABELS[name]),
                    param=param,
                )
            )
            continue
        try:
            changes[name] = check_setting(name, raw, from_text=True)
        except ShareError as e:
            kept = shown(getattr(base, name))
            messages.append(
                _("{problem} Kept {setting} = {value}.", problem=e, setting=_(LABELS[name]), value=kept)
            )
    return replace(base, **{**fixed, **changes}), messages  # the link's mask and window over the layer's


def from_params(params: Mapping[str, str], base: Example) -> tuple[Example, list[str]]:
    """The Example a link describes: settings over `base`, then the matrices (seeded + the `s` edits).

    Matrices of `base` are dropped when the link sets anything (the link describes a whole example).
    """
    ex, messages = settings_from_params(params, base)
    model_compute.prepare(ex)  # a class opening one link joins one run of its sentence, in a worker
    try:
        return _with_link_matrices(ex, params, messages)
    except ShareError as e:  # a real layer whose model failed to load just now (the toy's never does)
        named = (PARAM_OF["real"], PARAM_OF["real_layer"], STATE_PARAM)
        ex, messages = settings_from_params({k: v for k, v in params.items() if k not in named}, base)
        return with_matrices(ex, seeded(ex)), [
            *messages,
            _("{problem} Opened the toy model instead.", problem=e),
        ]


def _with_link_matrices(
    ex: Example, params: Mapping[str, str], messages: list[str]
) -> tuple[Example, list[str]]:
    blob = params.get(STATE_PARAM)
    if blob is None:
        return with_matrices(ex, seeded(ex)), messages
    # A real layer's link may expand as far as its largest state (a whole matrix set to 0 is a short link)
    body_limit = MAX_BODY_BYTES if layers.of(ex).DRAWN else MAX_FILE_BODY_BYTES
    ex, more = decode_state(str(blob), ex, body_limit=body_limit)
    return ex, messages + more
