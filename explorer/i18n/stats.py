"""How much of each catalog is translated, against the strings the code marks (locale/messages.pot):
`python -m explorer.i18n.stats` (scripts/i18n.sh stats extracts first). Pure."""

from __future__ import annotations

from dataclasses import dataclass

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


if __name__ == "__main__":
    for c in counts():
        print(f"{c.code}: {c.translated} of {c.marked} strings translated ({c.fuzzy} fuzzy)")
