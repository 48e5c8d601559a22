"""The real-model pages' part of a link: model=, layer=, head=, off= (layer and head 1-based), the logit
lens's follow= (a token id) and follow_at= (1-based), the induction run's ind_seed= and ind_len=. Pure.

Each part is read on its own, by the readers every link uses (explorer.sharing.values: ASCII digits only,
bounds checked), against the model the real-model pages show (MiniLM: 6 layers x 12 heads; SmolLM2: 30 x
9, from explorer.model.models, without loading either). A part that cannot be read gives one message naming
it and what is used instead, and is left out; reading never raises.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from explorer import i18n
from explorer.i18n import _
from explorer.model import models
from explorer.sharing.values import ShareError, refused, shown, whole_number

PARAMS = ("model", "layer", "head", "off", "follow", "follow_at", "ind_seed", "ind_len")  # beside sentence=
MAX_OFF_CHARS = 2000  # the longest off= read: every head of SmolLM2 ("30.9," x 270) is about 1,400


@dataclass
class LinkRead:
    """What a link asked of the real-model pages (None: not in the link), and messages for the person."""

    model: str | None = None
    layer: int | None = None
    head: int | None = None
    off: tuple[tuple[int, int], ...] | None = None
    follow: int | None = None  # a token id
    follow_at: int | None = None  # 0-based position
    ind_seed: int | None = None
    ind_len: int | None = None
    messages: list[str] = field(default_factory=list)


def format_heads(off: Iterable[tuple[int, int]]) -> str:
    """Switched-off heads for a link, 1-based: "3.6,5.1" (layer 3 head 6, layer 5 head 1)."""
    return ",".join(f"{l + 1}.{h + 1}" for l, h in sorted(set(off)))


def _pair(part: str, shape: tuple[int, int]) -> tuple[int, int] | None:
    layer, _dot, head = part.partition(".")
    try:
        lv = whole_number("layer", layer, 1, shape[0], signed=False)
        return lv - 1, whole_number("head", head, 1, shape[1], signed=False) - 1
    except ShareError:
        return None


def parse_heads(text: str, shape: tuple[int, int]) -> tuple[tuple[tuple[int, int], ...], list[str]]:
    """The heads of a link's "3.6,5.1" (1-based) as 0-based pairs, and what could not be read (left out).

    At most L * H parts are read: a link cannot make this loop long.
    """
    pairs: set[tuple[int, int]] = set()
    bad: list[str] = []
    for part in text.split(",")[: shape[0] * shape[1]]:
        if not part.strip():
            continue
        pair = _pair(part, shape)
        if pair is None:
            bad.append(part.strip()[:20])
        else:
            pairs.add(pair)
    return tuple(sorted(pairs)), bad


def read(
    params: Mapping[str, str | None], current: str = "toy", picked: tuple[int, int] = (0, 0)
) -> LinkRead:
    """model=toy|minilm|smollm2, layer=3, head=6, off=3.6,5.1 (1-based), follow=7042 (a token id),
    follow_at=5 (1-based), ind_seed=0, ind_len=50: each part on its own.

    current: the model picked before the link (what a bad model= keeps); picked: the layer and head shown
    before it (0-based: what a bad layer= or head= keeps). Bounds are those of the model the real-model
    pages show: the link's model, else the one picked (MiniLM while the toy model is picked).
    """
    out = LinkRead()
    _read_model(params, current, out)
    row = models.choice(models.real_key(out.model or current))
    decoder = models.choice(models.DEFAULT_DECODER)  # the next-word pages show it whatever is picked
    lens = models.LENS_POSITIONS
    seeds, lengths = models.INDUCTION_SEEDS, models.INDUCTION_LENGTHS
    own = _("Kept the page's own choice.")
    numbers = (  # name, what it is, bounds (as the link writes it), why (a sentence), what is kept, 1-based
        ("layer", _("layer"), (1, row.shape[0]), _("{model} has layers 1 to {n}.", model=row.engine, n=str(row.shape[0])),
         _("Kept layer {kept}.", kept=str(min(picked[0], row.shape[0] - 1) + 1)), 1),
        ("head", _("head"), (1, row.shape[1]), _("{model} has heads 1 to {n} in each layer.", model=row.engine, n=str(row.shape[1])),
         _("Kept head {kept}.", kept=str(min(picked[1], row.shape[1] - 1) + 1)), 1),
        ("follow", _("followed token"), (0, decoder.vocab - 1), _("It is a token id of {model}.", model=decoder.engine), own, 0),
        ("follow_at", _("position"), (1, lens), _("A model reads at most {n} tokens here.", n=str(lens)), own, 1),
        ("ind_seed", _("induction seed"), seeds, "", _("Kept seed {kept}.", kept=str(models.INDUCTION_SEED)), 0),
        ("ind_len", _("induction length"), lengths, _("The length is counted in tokens."),
         _("Kept {n} tokens.", n=str(models.INDUCTION_LENGTH)), 0),
    )  # fmt: skip
    for name, what, (lo, hi), why, kept, base in numbers:
        raw = str(params.get(name) or "")[:40]
        if not raw.strip():
            continue
        try:
            value = whole_number(f"{what} ({name}=)", raw, lo, hi, why, signed=False)
        except ShareError as e:
            out.messages.append(f"{e} {kept}")  # whole sentences
        else:
            setattr(out, name, value - base)
    _read_off(params, row.shape, row.engine, out)
    return out


def _read_model(params: Mapping[str, str | None], current: str, out: LinkRead) -> None:
    """model=: one of the models a visitor can pick, else a message and `current` kept."""
    raw = str(params.get("model") or "").strip()
    if not raw:
        return
    if raw.lower() in models.picked_keys():
        out.model = raw.lower()
        return
    was = models.choice(current if current in models.picked_keys() else "toy").title
    said = refused(
        "one_of",
        False,
        setting=_("model (model=)"),
        choices=", ".join(models.picked_keys()),
        value=shown(raw),
    )
    out.messages.append(
        f"{said} " + _("Kept {value}.", value=_(was))
    )  # two sentences (marked outside the f-string)


def _read_off(params: Mapping[str, str | None], shape: tuple[int, int], engine: str, out: LinkRead) -> None:
    """off=3.6,5.1: the heads switched off (1-based layer.head) that `shape` has; the others left out, said."""
    raw = str(params.get("off") or "")
    if not raw.strip():
        return
    off, bad = parse_heads(raw[:MAX_OFF_CHARS], shape)
    out.off = off
    if bad or len(raw) > MAX_OFF_CHARS:
        rule = _(
            "The link's switched-off heads (off=) are written layer.head, e.g. 3.6, with layers 1 to "
            "{layers} and heads 1 to {heads} for {model}.",
            layers=str(shape[0]),
            heads=str(shape[1]),
            model=engine,
        )
        left = ", ".join(shown(b) for b in bad[:5])
        what = (
            _("Left out {items} and more, which stay on.", items=left)
            if len(bad) > 5
            else _("Left out {items}, which stay on.", items=left)
            if bad
            else _("Read its first {n} characters only.", n=i18n.integer(MAX_OFF_CHARS))
        )
        out.messages.append(f"{rule} {what}")  # two sentences


def params(
    model: str,
    layer: int,
    head: int,
    off: Iterable[tuple[int, int]],
    *,
    follow: int | None = None,
    follow_at: int | None = None,
    ind_seed: int = models.INDUCTION_SEED,
    ind_len: int = models.INDUCTION_LENGTH,
) -> dict[str, str]:
    """The link parameters of the real-model state (defaults left out; model and off only for a real model).
    The layer and head are written while the toy is picked too: /minimal-pairs runs MiniLM whatever is picked,
    on the layer shown. follow_at is 0-based here, 1-based in the link."""
    out: dict[str, str] = {}
    if layer or head:
        out.update(layer=str(layer + 1), head=str(head + 1))
    if model in models.MODELS and models.MODELS[model].engine:
        out["model"] = model
        heads = format_heads(off)
        if heads:
            out["off"] = heads
    if follow is not None:
        out["follow"] = str(follow)
    if follow_at is not None:
        out["follow_at"] = str(follow_at + 1)
    if ind_seed != models.INDUCTION_SEED:
        out["ind_seed"] = str(ind_seed)
    if ind_len != models.INDUCTION_LENGTH:
        out["ind_len"] = str(ind_len)
    return out
