"""A string marked inside an f-string's braces (f"{_('Kept')} ...") never reaches the catalogs: pybabel's
extraction reads no call inside an f-string, so it stays English in every language. Each one is in the
template (marked elsewhere too), or it is a string nobody translates."""

from __future__ import annotations

import ast
from pathlib import Path

from explorer.i18n.stats import MARKERS

ROOT = Path(__file__).resolve().parents[3]


def marked_in_fstrings(tree: ast.AST, known: frozenset[str] = frozenset()) -> list[int]:
    """The lines where a marker call with a literal string sits inside an f-string, its string not `known`."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr):
            continue
        for inner in ast.walk(node):
            func = getattr(inner, "func", None)
            name = getattr(func, "id", getattr(func, "attr", ""))
            literal = isinstance(inner, ast.Call) and any(
                isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value not in known
                for a in inner.args
            )
            if literal and name in MARKERS:
                lines.append(inner.lineno)
    return lines


def test_no_string_is_marked_inside_an_f_string() -> None:
    from babel.messages.pofile import read_po

    with (ROOT / "locale" / "messages.pot").open("rb") as f:
        known = frozenset(m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id)
    files = [ROOT / "app.py", *(ROOT / "app_pages").glob("*.py"), *(ROOT / "explorer").rglob("*.py")]
    found = {}
    for file in files:
        lines = marked_in_fstrings(ast.parse(file.read_text(encoding="utf-8")), known)
        if lines:
            found[file.relative_to(ROOT).as_posix()] = lines
    assert found == {}


def test_the_check_finds_one() -> None:
    assert marked_in_fstrings(ast.parse("x = f\"{_('Kept')} {n}\"\ny = _('fine') + f'{n}'")) == [1]
