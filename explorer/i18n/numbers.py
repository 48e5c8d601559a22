"""Numbers in prose, written as the language on screen writes them: "0.25" in English, "0,25" in Spanish.

Only prose goes through here (messages, captions, hover texts). What a person copies or types back keeps one
format in every language (docs/LANGUAGES.md): data editors, links, CSV and JSON files, the notebook's code
and anything parsed again write a decimal point and no digit groups. Pure.
"""

from __future__ import annotations

from functools import lru_cache

from explorer.i18n.languages import BY_CODE, SOURCE


@lru_cache(maxsize=32)
def _pattern(places: int, grouped: bool) -> str:
    return ("#,##0" if grouped else "0") + ("." + "0" * places if places > 0 else "")


def decimal(value: float, places: int, code: str) -> str:
    """`value` with `places` decimals in language `code` (-0 written as 0)."""
    from babel.numbers import format_decimal  # imported on first use

    row = BY_CODE.get(code) or BY_CODE[SOURCE]
    value = round(float(value), places) + 0.0  # -0.0 -> 0.0
    return format_decimal(value, _pattern(places, abs(value) >= row.group_from), locale=row.numbers)


@lru_cache(maxsize=8)
def _symbols(code: str) -> tuple[str, str]:
    """The decimal and group symbols of language `code`'s numbers ("." and "," in English)."""
    from babel.numbers import get_decimal_symbol, get_group_symbol

    row = BY_CODE.get(code) or BY_CODE[SOURCE]
    return get_decimal_symbol(row.numbers), get_group_symbol(row.numbers)


def formatted(value: float, spec: str, code: str) -> str:
    """`format(value, spec)` with language `code`'s decimal and group symbols: a {placeholder:.3f} of a
    translated sentence writes 0,250 in Spanish and exactly what Python writes in English."""
    text = format(value, spec)
    point, group = _symbols(code)
    if (point, group) == (".", ","):
        return text
    return text.translate({ord("."): "\0", ord(","): group}).replace("\0", point)


def integer(value: int, code: str) -> str:
    """A whole number in language `code`, digit groups from the language's threshold on (1,234 / 12.345)."""
    return decimal(int(value), 0, code)
