"""The models a visitor can pick, as data, and the pure glue between the real-model pages and the engine.

One row per model (``MODELS``): the key carried in links (``model=minilm``), the engine's name, what the
sidebar says about it, how its tokens make words (for the head labels), and whether it predicts a next
token. No Streamlit here: the cached wrappers are in explorer.compute.model_compute, the pages only draw.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from attention_core import analysis, pretrained
from explorer import i18n
from explorer.i18n import N_


@dataclass(frozen=True)
class ModelChoice:
    key: str  # the link's model= value
    engine: str | None  # attention_core.pretrained name; None for the toy explorer
    title_text: str  # the picker's label (English: `title` is it in the language on screen)
    about_text: str  # one line under the picker (static Markdown, ours), in words a student of 18 reads
    precise_text: str = ""  # the same in the precise terms, one click away (the line's help)
    scheme: str = "wordpiece"  # how tokens make words (attention_core.analysis.word_ids)
    decoder: bool = False  # predicts the next token (causal mask)
    shape: tuple[int, int] = (1, 1)  # (layers, heads): bounds a link's layer=, head=, off= without loading
    vocab: int = 0  # vocabulary size (a decoder's): bounds a link's follow= without loading
    ordinary_from: int = (
        0  # the first token id that is not a special token (<|endoftext|>, <|im_start|>, ...)
    )
    # (d_model, d_k, d_ff, feed-forward matrices): the size of one layer opened in the explorer, known without
    # loading (the caps of the files that hold one: explorer.sharing.values); 3 matrices for SwiGLU (W_up)
    layer: tuple[int, int, int, int] = (0, 0, 0, 0)
    norm_first: bool = False  # pre-norm (Llama) rather than post-norm (BERT): a layer's fixed norm order
    kind: str = "pretrained"  # the kind of its layers: which implementation runs them (explorer.model.layer)
    picked: bool = True  # the real-model pages' model= may name it (the toy: none picked); False: its layers
    # open in the explorer only (real=, real_layer=)

    @property
    def title(self) -> str:
        return i18n._(self.title_text)

    @property
    def about(self) -> str:
        return i18n._(self.about_text)

    @property
    def precise(self) -> str:
        return i18n._(self.precise_text) if self.precise_text else ""


MODELS: dict[str, ModelChoice] = {
    m.key: m
    for m in (
        ModelChoice(
            "toy",
            None,
            N_("Toy model (the explorer)"),
            N_(
                "Random weights you can edit: the arithmetic of attention, not meaning (Model, in the sidebar, "
                "offers trained ones)."
            ),
            kind="toy",
        ),
        ModelChoice(
            "tiny",
            None,
            N_("Tiny trained model"),
            N_(
                "A two-layer attention-only transformer trained here (page Watch a transformer learn) on repeated "
                "sequences of 32 abstract tokens: its heads learned to look at the token before and at what came "
                "after an earlier copy."
            ),
            precise_text=N_(
                "2 layers × 4 causal heads, d_model 64, no norm, no feed-forward; the final float16 "
                "checkpoint of the shipped run, run in float64."
            ),
            decoder=True,
            shape=(2, 4),
            vocab=32,
            layer=(64, 16, 0, 0),
            kind="tiny",
            picked=False,
        ),
        ModelChoice(
            "minilm",
            "all-MiniLM-L6-v2",
            N_("MiniLM (encoder)"),
            N_(
                "all-MiniLM-L6-v2: a BERT encoder, 6 layers × 12 heads, d_model 384, its weights exactly as "
                "published."
            ),
            precise_text=N_("float32 weights as shipped (model/model.safetensors), run in float32."),
            shape=(6, 12),
            layer=(384, 32, 1536, 2),
        ),
        ModelChoice(
            "smollm2",
            "SmolLM2-135M",
            N_("SmolLM2-135M (decoder)"),
            N_(
                "SmolLM2-135M-Instruct: a Llama decoder, 30 layers × 9 heads sharing 3 key/value heads, "
                "d_model 576. Its weights are stored squeezed to 4 bits a number (8 for the word vectors) and "
                "unpacked to ordinary decimals to run: its numbers are those of the squeezed weights."
            ),
            precise_text=N_(
                "4-bit Q4_1 weights with an 8-bit (Q8_0) embedding (GGUF), dequantized to float32 at load."
            ),
            scheme="bytelevel",
            decoder=True,
            shape=(30, 9),
            vocab=49152,
            ordinary_from=17,
            layer=(576, 64, 1536, 3),
            norm_first=True,
        ),
    )
}
DEFAULT_REAL = "minilm"  # what the real-model pages show while the toy model is picked
DEFAULT_DECODER = "smollm2"  # what the next-word pages show while an encoder (or the toy) is picked

# Induction heads (/induction, and their label on /model): random tokens repeated twice. The standard run is
# the page's default, seed 0 and 50 tokens; a head scoring at least INDUCTION_THRESHOLD on it is labelled
# "induction" (SmolLM2: 8 heads, the next scores 0.26; a head spreading its weight evenly scores 0.014).
INDUCTION_SEED = 0
INDUCTION_LENGTH = 50
INDUCTION_THRESHOLD = 0.3
INDUCTION_LENGTHS = (5, 50)  # the page's length control: 2 x 50 tokens run in about a second
INDUCTION_SEEDS = (0, 9999)
LENS_POSITIONS = 64  # the engine's token limit (attention_core.pretrained.MAX_TOKENS): bounds follow_at=


def picked_keys() -> tuple[str, ...]:
    """The models the real-model pages' link (model=) may name."""
    return tuple(k for k, m in MODELS.items() if m.picked)


def choice(key: str) -> ModelChoice:
    """The row of ``key``; ValueError naming the choices for anything else."""
    if key not in MODELS:
        raise ValueError(f"unknown model {key!r}: choose one of {', '.join(MODELS)}")
    return MODELS[key]


def layer_settings(key: str, layer: int) -> dict[str, object]:
    """The Example settings layer ``layer`` of model ``key`` fixes, from this table (nothing is loaded, so
    a link or a file naming a layer is read without its model): its sizes, X as the embeddings table, no
    added positions (RoPE, where the model has it, is applied by the layer itself), the paper's scale, the
    model's mask and norm order. tests/app/model/test_pure_codecs.py checks the table against the loaded models."""
    row = choice(key)
    d_model, d_k, d_ff, _ = row.layer
    return {
        "d_model": d_model,
        "n_heads": row.shape[1],
        "d_k": d_k,
        "d_ff": d_ff,
        "real": key,
        "real_layer": int(layer),
        "emb_source": "table",
        "pe_kind": "none",
        "pe_scale": False,
        "scale_mode": "sqrt",
        "alibi": False,
        "rope": False,
        "mask_kind": "causal" if row.decoder else "none",
        "norm_first": row.norm_first,
    }


def server_hint(key: str) -> str | None:
    """For whoever runs the server, not for visitors: the command that installs model ``key`` (and why
    --no-deps), or None when it is available."""
    name = choice(key).engine
    if name is None or pretrained.available(name):
        return None
    return i18n._("{how} The README says more (Real models).", how=pretrained.how_to_install(name))


def failure(key: str) -> str | None:
    """Why model ``key`` failed to download or load a moment ago, while it is not tried again yet (then again
    after pretrained.RETRY_S), else None."""
    name = choice(key).engine
    if name is None:
        return None
    failed = pretrained.load_state(name)
    if failed.retry_in() <= 0:
        return None
    return i18n._(
        "{why} It is tried again in {seconds} s (reload the page then).",
        why=failed.error,
        seconds=round(failed.retry_in()),
    )


def missing(key: str) -> str | None:
    """For a visitor, when model ``key`` cannot run on this server: what is unavailable and what they can
    still do (no command: that is server_hint's, folded away); None when it can run."""
    name = choice(key).engine
    if server_hint(key) is None:
        why = failure(key)
        return (
            None
            if why is None
            else i18n._("{why} The explorer's pages, with the toy model, work as usual.", why=why)
        )
    others = [m.title for m in MODELS.values() if m.engine not in (None, name) and not server_hint(m.key)]
    if others:
        return i18n._(
            "{model} is not available on this server, so this page cannot show it. The explorer's pages, with "
            "the toy model, work as usual, and so do the pages of {other} (pick it in the sidebar).",
            model=name, other=others[0],
        )  # fmt: skip
    return i18n._(
        "{model} is not available on this server, so this page cannot show it. The explorer's pages, with the "
        "toy model, work as usual.",
        model=name,
    )


def prepare(key: str) -> Any:
    """Start loading model ``key`` in the background unless it is loaded or loading; its LoadState."""
    return pretrained.load_in_background(choice(key).engine)


def load_state(key: str) -> Any:
    """Where loading model ``key`` stands (attention_core.pretrained.LoadState)."""
    return pretrained.load_state(choice(key).engine)


def installed(key: str) -> bool:
    """Whether model ``key``'s files are on this machine (loading takes seconds, no download first)."""
    return bool(pretrained.installed(choice(key).engine))


def model(key: str) -> Any:
    """The loaded model (loaded once per process by the engine, shared read-only)."""
    return pretrained.load(choice(key).engine)


def shape(key: str) -> tuple[int, int]:
    """(n_layers, n_heads) of model ``key``."""
    c = model(key).config
    return int(c.n_layers), int(c.n_heads)


def real_key(key: str) -> str:
    """The real model a real-model page shows: the picked one, or DEFAULT_REAL while the toy is picked."""
    return key if key in MODELS and MODELS[key].engine else DEFAULT_REAL


def head_mask(shape: tuple[int, int], off: Iterable[tuple[int, int]]) -> NDArray[np.float64] | None:
    """The engine's head_mask for the switched-off heads (0-based (layer, head) pairs), None when none is off
    (the untouched model, one cache entry)."""
    cells = [(int(l), int(h)) for l, h in off if 0 <= int(l) < shape[0] and 0 <= int(h) < shape[1]]
    if not cells:
        return None
    mask = np.ones(shape)
    for l, h in cells:
        mask[l, h] = 0.0
    return mask


def off_matrix(shape: tuple[int, int], off: Iterable[tuple[int, int]]) -> NDArray[np.bool_]:
    """(L, H) True where a head is switched off."""
    mask = head_mask(shape, off)
    return np.zeros(shape, dtype=bool) if mask is None else mask == 0.0


def off_pairs(matrix: NDArray[np.bool_]) -> tuple[tuple[int, int], ...]:
    """The switched-off heads of an (L, H) boolean matrix as sorted 0-based (layer, head) pairs."""
    return tuple((int(l), int(h)) for l, h in zip(*np.nonzero(matrix), strict=True))


def layer_off_pairs(
    shape: tuple[int, int], off: Iterable[tuple[int, int]], layer: int
) -> tuple[tuple[int, int], ...]:
    """The switched-off heads after switching off every head of ``layer`` too."""
    keep = analysis.layer_off(~off_matrix(shape, off), layer)
    return off_pairs(keep == 0.0)


def only_head_pairs(
    shape: tuple[int, int], off: Iterable[tuple[int, int]], layer: int, head: int
) -> tuple[tuple[int, int], ...]:
    """The switched-off heads after keeping only ``head`` in ``layer`` (other layers as they were)."""
    keep = analysis.only_head(~off_matrix(shape, off), layer, head)
    return off_pairs(keep == 0.0)
