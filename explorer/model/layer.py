"""One typed layer: what every layer the explorer shows answers, and which one an Example holds.

The toy (explorer.model.toy), a real model's layer (explorer.model.bridge) and the model trained in the
engine (explorer.model.tiny) each implement `Layer`; the rest of the app asks the example's layer (`of(ex)`) or its description
(`describe(ex)`) and never which kind it is. Every layer runs through one engine function,
attention_core.transformer_layer. An example holds its layer's identity in `real` (a key of the models
table, explorer.model.models) and `real_layer`; the table's row gives the kind, and `KINDS` the module that
implements it, imported when an example first needs it (a codec reading a toy link imports no model's code).
Pure: no Streamlit.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from numpy.typing import NDArray

from explorer.model import models
from explorer.model.arrays import F64
from explorer.model.description import Description

# A layer kind -> the module that implements it (models.ModelChoice.kind names one for every model).
KINDS: dict[str, str] = {
    "toy": "explorer.model.toy",
    "pretrained": "explorer.model.bridge",
    "tiny": "explorer.model.tiny",
}
_HANDED: dict[str, Layer] = {}  # kinds handed in by `use` (a test's own layers)


class Layer(Protocol):
    """What every layer the explorer shows answers, each about an Example `ex` that holds it.

    DRAWN: its weights are seeded draws (re-randomize draws again; links and files carry each matrix's
    draw and may list every value); otherwise they are the layer's own, and links carry the edits only.
    """

    DRAWN: bool

    def describe(self, ex: Any) -> Description:
        """The architecture, sizes, tokenizer and origin (explorer.model.description)."""
        ...

    def tokens(self, ex: Any) -> tuple[list[str], bool]:
        """The example's tokens as the layer's model cuts them, and whether anything was cut."""
        ...

    def run_first(self, ex: Any) -> tuple[str, str] | None:
        """(model key, text) of the model run the example's tokens and X read, when that run may take long
        (a real model's run of a new sentence): a page has it run in a worker first
        (explorer.compute.model_compute.prepare), so the web process only reads it. None: nothing to run."""
        ...

    def token_ids(self, ex: Any) -> list[int] | None:
        """Each token's id in the layer's vocabulary, where the explorer shows them (None: not shown)."""
        ...

    def defaults(self, ex: Any, tokens: list[str], draws: dict[str, int] | None = None) -> dict[str, NDArray]:
        """Every matrix's default at the example's shapes (what Reset returns to)."""
        ...

    def reference(
        self, ex: Any, tokens: list[str], draws: dict[str, int] | None = None
    ) -> dict[str, NDArray]:
        """What links and files are written against: the seeded draws, or the layer's own weights and X."""
        ...

    def layer_only_shapes(self, ex: Any) -> dict[str, tuple[int, ...]]:
        """The shapes of the matrices not every layer has (biases, SwiGLU's W_up): (0, ...) where absent."""
        ...

    def model_input(self, ex: Any, sentence: str) -> F64 | None:
        """X as the layer's model computes it for a sentence, or None (X = E + P, made from the settings)."""
        ...

    def run_block(
        self, ex: Any, x: F64, mask: NDArray | None, scale: float, bias: F64 | None
    ) -> tuple[Any, Any, str | None, str]:
        """(the layer's trace or None, its attention trace, the block's error or None, what attention reads):
        attention_core.transformer_layer on X with the example's (maybe edited) weights."""
        ...

    def fixed(self, ex: Any) -> tuple[Any, Any]:
        """(LayerWeights holding what the explorer does not edit, i.e. the norms' gains; the ModelConfig the
        layer runs with): for the exports that write the layer out."""
        ...

    def settings_of(self, key: str, layer: int) -> dict[str, object]:
        """The Example settings that open layer `layer` of model `key` (its sizes, and what it fixes)."""
        ...


def kind(key: str) -> str:
    """The kind of layer model `key` has (models table): a key of KINDS."""
    return models.choice(str(key)).kind


def of_kind(name: str) -> Layer:
    """The implementation of layer kind `name`, imported on first use."""
    if name in _HANDED:
        return _HANDED[name]
    return importlib.import_module(KINDS[name])  # type: ignore[return-value]


def of(ex: Any) -> Layer:
    """The layer an Example holds (its `real` names the model; the toy by default)."""
    return of_kind(kind(ex.real))


def of_key(key: str) -> Layer:
    """The layer implementation of model `key` (before an Example holds it: opening a layer, reading a link)."""
    return of_kind(kind(key))


def describe(ex: Any) -> Description:
    """What is on screen, described once: the example's layer's description."""
    return of(ex).describe(ex)


def use(name: str, implementation: Layer | None) -> None:
    """Hand in the implementation of kind `name` (a test's own layers, loading nothing), or None to go back
    to KINDS's module."""
    if implementation is None:
        _HANDED.pop(name, None)
    else:
        _HANDED[name] = implementation
