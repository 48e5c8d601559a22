"""How much of each catalog is translated, against the strings the code marks (locale/messages.pot), and
how many sentences in the code are not marked yet: `python -m explorer.i18n.stats` (scripts/i18n.sh stats
extracts first). Pure."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from explorer.i18n.catalog import LOCALE_DIR, path
from explorer.i18n.languages import LANGUAGES, PSEUDO, SOURCE


@dataclass(frozen=True)
class Count:
    code: str
    marked: int  # strings the code marks (the template's entries)
    translated: int  # of them, translated and not fuzzy in the catalog
    fuzzy: int  # of them, translated but marked fuzzy (shown in English until checked)

    @property
    def complete(self) -> bool:
        return self.translated == self.marked


def counts() -> list[Count]:
    """Each catalog's count against the template (languages without a file: none translated)."""
    from babel.messages.pofile import read_po

    with (LOCALE_DIR / "messages.pot").open("rb") as f:
        template = read_po(f)
    wanted = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in template if m.id}
    out = []
    for row in LANGUAGES:
        if row.code in (SOURCE, PSEUDO):
            continue
        done = fuzzy = 0
        if path(row.code).exists():
            with path(row.code).open("rb") as f:
                po = read_po(f, locale=row.code)
            for m in po:
                key = (m.context, m.id if isinstance(m.id, str) else m.id[0])
                if not m.id or key not in wanted:
                    continue
                full = all(m.string) if isinstance(m.string, tuple) else bool(m.string)
                done += full and not m.fuzzy
                fuzzy += full and m.fuzzy
        out.append(Count(row.code, len(wanted), done, fuzzy))
    return out


MARKERS = frozenset({"_", "N_", "ngettext", "pgettext", "gettext"})
SKIP = ("explorer/i18n",)  # the plumbing (the engine, attention_core, speaks to programmers: not read)
_WORDS = re.compile(r"[A-Za-z][a-z']+(?:\s+[A-Za-z][a-z']*){2,}")  # three words or more


def unmarked(root: Path = LOCALE_DIR.parent) -> dict[str, int]:
    """File -> how many string literals in it read like a sentence (three words or more) and are neither
    marked nor a docstring: a rough count of what is left to mark (some are never shown: a log line, a
    test's name, an error only a programmer sees)."""
    out: dict[str, int] = {}
    files = [root / "app.py", *(root / "app_pages").glob("*.py"), *(root / "explorer").rglob("*.py")]
    for file in files:
        rel = file.relative_to(root).as_posix()
        if rel.startswith(SKIP):
            continue
        n = _count(ast.parse(file.read_text(encoding="utf-8")))
        if n:
            out[rel] = n
    return out


def _count(tree: ast.AST) -> int:
    marked, docs = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in MARKERS:
            marked |= {id(a) for arg in node.args for a in ast.walk(arg)}
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            marked |= {id(v) for v in node.values}  # an f-string counts once, as a whole
            text = "".join(
                v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
            count += id(node) not in marked and bool(_WORDS.search(text))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            count += id(node) not in marked | docs and bool(_WORDS.search(node.value))
    return count


if __name__ == "__main__":
    for c in counts():
        print(f"{c.code}: {c.translated} of {c.marked} strings translated ({c.fuzzy} fuzzy)")
    left = unmarked()
    print(f"sentences not marked yet (rough): {sum(left.values())} in {len(left)} files; the most:")
    for rel, n in sorted(left.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {n:4d}  {rel}")
