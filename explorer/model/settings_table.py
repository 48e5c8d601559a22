"""The settings table: one row per scalar setting of an Example, read by everything that knows a setting.

`Example` (its fields and defaults), `state.init` (widget keys), the link's reader and writer (parameter,
kind, bounds), the link and JSON checks (kind, bounds, choices, how messages name it) and the page widgets
(`ui.setting`: label, help, bounds, choices and their titles) all read a row here. Adding a setting is one
row below, its typed field in `Example` (which reads its default here; tests/app/model/test_example_fields.py keeps
the two in step) and one `ui.setting(name)` call on the page that shows it. Pure: no Streamlit, no numpy.

The largest sizes and the value limit are here too: they are the bounds of the rows, and
`explorer.model.defaults` draws its shape-stable blocks at these sizes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from explorer.i18n import N_

MAX_D_MODEL = 64
MAX_HEADS = 8
MAX_D_K = 64
MAX_D_FF = 256
MAX_TOKENS = 64  # the sentence is cut here (and it bounds the sliding window)
MAX_SEED = 2**31 - 1
MAX_REAL_LAYERS = (
    30  # the deepest real model (SmolLM2-135M); each model's own count is checked where it is known
)
# The longest sentence kept (characters), wherever it comes from: the box (max_chars), a link, a file.
# Enough for MAX_TOKENS tokens of ordinary words (about 4 to 6 characters each); short enough that the
# address bar holding it (at most 12 characters per character, percent-encoded) stays under 8,000.
MAX_SENTENCE_CHARS = 500
VALUE_LIMIT = (
    1e6  # the largest |value| a matrix cell may hold (editors, links, files): larger overflow scores
)

DEFAULT_SENTENCE = "The cat sat on the mat because it was warm."

KINDS = ("text", "int", "float", "bool", "choice")
TEXT_VALUES = {"max_tokens": MAX_TOKENS}  # the placeholders of the rows' words, filled where they are shown


@dataclass(frozen=True, kw_only=True)
class Setting:
    """One scalar setting.

    name: the Example field; kind: one of KINDS; default: its value in a new Example;
    key: its widget key in st.session_state; param: its query parameter in a link;
    label: how messages name it ("the link's <label> must be ..."); widget: the label its widget shows;
    help: the widget's tooltip; bounds: (low, high) of an int or float; choices: the values of a choice;
    titles: how the widget shows each choice (or False/True of a bool drawn as a radio);
    words: how a link writes a bool (False, True), e.g. ("post", "pre"); step, fmt: number_input options.
    label, widget, help and titles are English, marked for the catalogs and translated where they are shown
    (explorer.i18n); a {placeholder} in them is one of TEXT_VALUES.
    """

    name: str
    kind: str
    default: object
    key: str
    param: str
    label: str
    widget: str = ""
    help: str = ""
    bounds: tuple[float, float] | None = None
    choices: tuple[str, ...] = ()
    titles: Mapping[object, str] = field(default_factory=dict)
    words: tuple[str, str] = ("0", "1")
    step: float | None = None
    fmt: str | None = None

    @property
    def pytype(self) -> type:
        return {"text": str, "int": int, "float": float, "bool": bool, "choice": str}[self.kind]


SETTINGS: tuple[Setting, ...] = (
    Setting(
        name="sentence",
        kind="text",
        default=DEFAULT_SENTENCE,
        key="sentence",
        param="sentence",
        label=N_("sentence"),
        widget=N_("Sentence"),
        help=N_("Words and punctuation become tokens (at most {max_tokens})."),
    ),
    Setting(
        name="d_model",
        kind="int",
        default=8,
        key="cfg.d_model",
        param="d_model",
        label=N_("d_model"),
        widget=N_("d_model"),
        help=N_("Width of every token vector (embedding, encoding, attention output)."),
        bounds=(1, MAX_D_MODEL),
    ),
    Setting(
        name="n_heads",
        kind="int",
        default=2,
        key="cfg.n_heads",
        param="heads",
        label=N_("heads"),
        widget=N_("heads"),
        help=N_("Number of attention heads, each with its own W_Q, W_K, W_V."),
        bounds=(1, MAX_HEADS),
    ),
    Setting(
        name="d_k",
        kind="int",
        default=4,
        key="cfg.d_k",
        param="d_k",
        label=N_("d_k"),
        widget=N_("d_k = d_v"),
        help=N_("Width of each head's queries, keys and values."),
        bounds=(1, MAX_D_K),
    ),
    Setting(
        name="seed",
        kind="int",
        default=0,
        key="cfg.seed",
        param="seed",
        label=N_("seed"),
        widget=N_("seed"),
        help=N_("Seed of the random embeddings and weights: same seed, same numbers."),
        bounds=(0, MAX_SEED),
    ),
    Setting(
        name="emb_source",
        kind="choice",
        default="random",
        key="sentence.emb_source",
        param="emb",
        label=N_("embeddings"),
        widget=N_("Embeddings"),
        help=N_(
            "Random: each word gets its own seeded vector, the same in every sentence. Table: edit them."
        ),
        choices=("random", "table"),
        titles={"random": N_("random per word (seeded)"), "table": N_("hand-edited table")},
    ),
    Setting(
        name="pe_kind",
        kind="choice",
        default="sinusoidal",
        key="pe.kind",
        param="pe",
        label=N_("positional encoding"),
        widget=N_("Kind"),
        choices=("sinusoidal", "sinusoidal_split", "learned", "none"),
        titles={
            "sinusoidal": N_("sinusoidal (interleaved, paper)"),
            "sinusoidal_split": N_("sinusoidal (sin half, cos half)"),
            "learned": N_("learned / hand-set table"),
            "none": N_("none"),
        },
    ),
    Setting(
        name="pe_base",
        kind="float",
        default=10000.0,
        key="pe.base",
        param="base",
        label=N_("encoding base"),
        widget=N_("base"),
        bounds=(1.0, 1e9),
        step=1000.0,
        fmt="%g",
    ),
    Setting(
        name="pe_scale",
        kind="bool",
        default=False,  # multiply embeddings by sqrt(d_model) before adding P (paper section 3.4)
        key="pe.scale",
        param="pe_scale",
        label=N_("embedding scale"),
        widget=N_("scale E by √d_model first"),
        help=N_("The paper (section 3.4) multiplies embeddings by sqrt(d_model) before adding P."),
    ),
    Setting(
        name="scale_mode",
        kind="choice",
        default="sqrt",
        key="scores.scale_mode",
        param="scale",
        label=N_("score scale"),
        widget=N_("Scale"),
        choices=("sqrt", "none", "custom"),
        titles={"sqrt": N_("1/√d_k (paper)"), "none": N_("none (×1)"), "custom": N_("custom")},
    ),
    Setting(
        name="scale_custom",
        kind="float",
        default=1.0,
        key="scores.scale_custom",
        param="scale_k",
        label=N_("custom scale factor"),
        widget=N_("custom scale factor"),
        bounds=(-1e3, 1e3),
        fmt="%g",
    ),
    Setting(
        name="alibi",
        kind="bool",
        default=False,
        key="scores.alibi",
        param="alibi",
        label=N_("ALiBi"),
        widget=N_("ALiBi bias"),
        help=N_("Press et al. 2022: -slope·|i-j|"),
    ),
    Setting(
        name="rope",
        kind="bool",
        default=False,
        key="scores.rope",
        param="rope",
        label=N_("RoPE"),
        widget=N_("RoPE"),
        help=N_("Rotary embedding of q and k (Su et al.)"),
    ),
    Setting(
        name="mask_kind",
        kind="choice",
        default="none",
        key="scores.mask_kind",
        param="mask",
        label=N_("mask"),
        widget=N_("Mask"),
        choices=("none", "causal", "window", "padding", "custom"),
        titles={
            "none": N_("none"),
            "causal": N_("causal"),
            "window": N_("sliding window"),
            "padding": N_("padding ([PAD])"),
            "custom": N_("custom"),
        },
    ),
    Setting(
        name="window",
        kind="int",
        default=3,
        key="scores.window",
        param="window",
        label=N_("window"),
        widget=N_("window w (query i sees keys i-w+1 .. i)"),
        bounds=(1, MAX_TOKENS),
    ),
    Setting(
        name="d_ff",
        kind="int",
        default=16,
        key="encoder.d_ff",
        param="d_ff",
        label=N_("d_ff"),
        widget=N_("d_ff (hidden width of the feed-forward)"),
        bounds=(1, MAX_D_FF),
    ),
    Setting(
        name="norm_first",
        kind="bool",
        default=False,
        key="encoder.norm_first",
        param="norm",
        label=N_("layer norm"),
        widget=N_("Layer norm"),
        titles={False: N_("post-norm: LN(x + MHA(x)) (paper)"), True: N_("pre-norm: x + MHA(LN(x))")},
        words=("post", "pre"),
    ),
    Setting(
        name="real",
        kind="choice",
        default="toy",  # a real model's layer opened in the explorer (explorer.model.bridge); "toy": the explorer's own
        key="explorer.real",
        param="real",
        label=N_("real model"),
        widget=N_("Layer from"),
        choices=("toy", "tiny", "minilm", "smollm2"),
        titles={
            "toy": N_("toy model"),
            "tiny": N_("tiny trained model"),
            "minilm": N_("all-MiniLM-L6-v2"),
            "smollm2": N_("SmolLM2-135M"),
        },  # fmt: skip
    ),
    Setting(
        name="real_layer",
        kind="int",
        default=0,  # 0-based, as every index in an Example; pages and links to people say layer + 1 where shown
        key="explorer.real_layer",
        param="real_layer",
        label=N_("real model's layer"),
        widget=N_("layer"),
        bounds=(0, MAX_REAL_LAYERS - 1),
    ),
)


# What a real model's layer opened in the explorer fixes (explorer.model.bridge.settings_of): its sizes, X as the
# embeddings table, positions (in X, or the model's RoPE), the paper's scale, the norm order. Their widgets
# are shown disabled while a layer is open; the mask, and the window, stay the student's to change.
FIXED_BY_LAYER = (
    "d_model", "n_heads", "d_k", "d_ff", "seed", "emb_source", "pe_kind", "pe_base", "pe_scale",
    "scale_mode", "scale_custom", "alibi", "rope", "norm_first",
)  # fmt: skip
SIZES = ("d_model", "n_heads", "d_k", "d_ff")


def names() -> tuple[str, ...]:
    """Every setting's name (its Example field), in the table's order."""
    return tuple(s.name for s in SETTINGS)


def row(name: str) -> Setting:
    """The row of setting `name` (KeyError names it when there is none)."""
    for s in SETTINGS:
        if s.name == name:
            return s
    raise KeyError(name)


def defaults() -> dict[str, object]:
    """Every setting's default value, by field name."""
    return {s.name: s.default for s in SETTINGS}
