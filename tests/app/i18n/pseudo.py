"""What a page shows a person, read from an AppTest run, and what of it is left in English when the page
runs in the pseudo-language (explorer.i18n.catalog.pseudo: every marked string wrapped in ⟦…⟧).

`shown_texts` reads every text of the page's elements (Markdown, captions, alerts, titles, widget labels,
help, placeholders and options, expanders and tabs, buttons, progress texts) and of its charts (titles, axis
titles, annotations, legend names, hover templates); `unmarked_words` is what of a text is neither inside the
marks nor one of the things never translated: tokens (written in “…”), code (`…`), maths ($…$), model and
formula names, numbers and symbols.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from explorer.i18n import catalog
from explorer.ui import chart

# Fields of an element's proto that hold words a person reads (any other string is an id, a key, a value the
# person typed or data).
TEXT_FIELDS = frozenset(
    {"body", "label", "help", "placeholder", "text", "title", "options", "caption", "tab_labels", "content"}
)
# What is never translated: model names (the engine's own), formula and architecture names, units.
NEVER = re.compile(
    r"all-MiniLM-L6-v2|SmolLM2-135M(-Instruct)?|SmolLM2|MiniLM|BERT|Llama|GGUF|Q4_1|Q8_0|safetensors|numpy|"
    r"softmax|RMSNorm|MHA|ReLU|GELU|SwiGLU|RoPE|ALiBi|WordPiece|BPE|Adam|QR|CSV|JSON|HTML|"
    r"\bLN\b|\bFFN\b|\bQK\b|\bKᵀ|\bnats?\b|\bms\b|\bmin\b|\bCLS\b|\bSEP\b|\bPAD\b|\blog\b|\bcos\b|\bsin\b"
)
# Elements whose text is not words: code, formulas, the page's own CSS (st.html <style>)
SKIPPED = ("code", "latex", "html")
# Each language's own name and the word "Language" in English beside its translation, on the language picker:
# for someone who cannot read the page
PICKER = re.compile(r"^(English|Español|Pseudo \(xx\))$|· Language$")
_QUOTED = re.compile(
    r":\w+/\w+:|“[^”]*”|\b[A-Z0-9]{4}-[A-Z0-9]{4}\b|`[^`]*`|\$[^$]*\$|\[[A-Z]+\]|<[^<>]*>|%\{[^}]*\}|&\w+;|\b\w*_\w*\b"
)
_INNER = re.compile(f"{catalog.OPEN}[^{catalog.OPEN}{catalog.CLOSE}]*{catalog.CLOSE}")


def unmarked_words(text: str, tokens: frozenset[str] = frozenset()) -> str:
    """The words of `text` left in English: outside the pseudo-language's marks and not a token, code,
    maths, a name or a symbol ("" when none). tokens: the words of the sentences the models read (shown
    without quotes as a chart's or a picker's labels: never translated)."""
    text = PICKER.sub("", str(text).replace("\\", "").replace("\u2060", ""))
    while _INNER.search(text):  # marks inside marks: a translated title inside a translated line
        text = _INNER.sub(" ", text)
    text = NEVER.sub(" ", _QUOTED.sub(" ", text))
    return " ".join(w for w in re.findall(r"[A-Za-z]{2,}", text) if w.lower() not in tokens)


def words_of(*sentences: str) -> frozenset[str]:
    """The words of sentences a model reads, lower-cased (what `unmarked_words` leaves as tokens)."""
    return frozenset(w.lower() for s in sentences for w in re.findall(r"[A-Za-z]{2,}", s))


def _strings(message: Any, parent: str = "") -> Iterator[str]:
    """The strings of a proto message's text fields, at any depth."""
    for field, value in message.ListFields():
        name = field.name
        if field.type not in (field.TYPE_MESSAGE, field.TYPE_STRING):
            continue
        items = [value] if isinstance(value, str) or hasattr(value, "ListFields") else list(value)
        if field.type == field.TYPE_MESSAGE:
            for item in items:
                yield from _strings(item, name)
        elif field.type == field.TYPE_STRING and (name in TEXT_FIELDS or parent in TEXT_FIELDS):
            yield from items


def _chart_texts(spec: dict[str, Any]) -> Iterator[str]:
    layout = spec.get("layout", {})
    for key, value in layout.items():
        if key.startswith(("xaxis", "yaxis", "coloraxis")) and isinstance(value, dict):
            title = value.get("title")
            yield (title.get("text", "") if isinstance(title, dict) else str(title or ""))
            bar = value.get("colorbar", {}).get("title", {})
            yield bar.get("text", "") if isinstance(bar, dict) else ""
    title = layout.get("title")
    yield title.get("text", "") if isinstance(title, dict) else str(title or "")
    for note in layout.get("annotations", []):
        yield str(note.get("text", ""))
    for trace in spec.get("data", []):
        yield str(trace.get("name", "") or "")
        template = trace.get("hovertemplate")
        for t in template if isinstance(template, list) else [template]:
            yield str(t or "")
        bar = (trace.get("colorbar") or {}).get("title", {})
        yield bar.get("text", "") if isinstance(bar, dict) else ""


def shown_texts(at: Any) -> list[str]:
    """Every text the page shows (its elements' and its charts'), in page order, empty ones left out."""
    out: list[str] = []

    def walk(node: Any) -> None:
        proto = getattr(node, "proto", None)
        kind = getattr(node, "type", "")
        if proto is not None and not isinstance(proto, int) and kind not in SKIPPED:
            if kind == "bidi_component":
                spec = chart.spec_of(proto)
                if spec is not None:
                    out.extend(_chart_texts(spec))
            else:
                out.extend(_strings(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return [t for t in out if t and t.strip()]
