"""One cell's numbers (/scores and /head): the products of the factors written, plus the rest written as one
number for a long vector, add up to the score written (a student who checks by hand gets the number on the
page), and a long sum wraps onto lines that fit the page instead of running off its right edge."""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np
import pytest

from explorer.compute import pipeline
from explorer.model.example import Example, conform
from explorer.views import formulas

NUMBER = r"(\{-\})?(\d+\.\d+)"


def _value(sign: str | None, digits: str) -> Decimal:
    return -Decimal(digits) if sign else Decimal(digits)


def written_sum(line: str) -> tuple[Decimal, Decimal, list[str]]:
    """(the sum of the products and the rest as written, the result as written, the lines drawn)."""
    pairs = re.findall(rf"\({NUMBER}\)\({NUMBER}\)", line)
    total = sum((_value(a, b) * _value(c, d) for a, b, c, d in pairs), Decimal(0))
    rest = re.search(rf"products: \}}{NUMBER}\)", line)
    if rest:
        total += _value(*rest.groups())
    result = re.findall(rf"= {NUMBER}", line)[-1]
    body = re.sub(r"\\(begin|end)\{aligned\}", "", line)
    return total, _value(*result), body.split(r"\\")


def shown(text: str) -> str:
    """The characters a line of LaTeX draws (no commands, braces, alignment marks)."""
    return re.sub(r"\\text\{|\\[a-z]+|[{}&]", "", text).strip()


@pytest.mark.parametrize(
    ("d_k", "scale", "seed"),
    [(2, 1.0, 0), (4, 1.0, 1), (4, 1.0, 2), (8, 1.0, 3), (32, 2.0, 4), (64, 4.0, 5), (64, 40.0, 6)],
)
def test_the_written_products_add_up_to_the_written_score(d_k: int, scale: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    q, k = rng.normal(scale=scale, size=d_k), rng.normal(scale=scale, size=d_k)
    raw = float(q @ k)
    line = formulas.score_cell(q, k, raw, d_k**-0.5, None, False, 0.5, np.zeros(2), 3, 7, d_k)[0]
    total, result, lines = written_sum(line)
    assert result == Decimal(f"{raw:.4f}")
    assert abs(total - result) <= Decimal("0.00005"), (total, result)  # adds up, to the digits shown
    assert ("the other" in line) == (d_k > formulas.MAX_TERMS)
    if d_k > formulas.MAX_TERMS:  # the rest is the other products' sum (to 4 decimals, give or take)
        others = float(q[formulas.MAX_TERMS :] @ k[formulas.MAX_TERMS :])
        rest = re.search(rf"products: \}}{NUMBER}\)", line)
        assert abs(float(_value(*rest.groups())) - others) <= 2e-4
    assert all(len(shown(part)) <= 72 for part in lines), lines  # each drawn line fits the page


def test_every_cell_of_the_toy_example_adds_up() -> None:
    """The toy's default example: the written factors of every cell give its written score (rounded factors
    alone can miss it in the second decimal)."""
    ex = conform(Example())
    res = pipeline.run(ex)
    n, heads = res.n, ex.n_heads
    for h in range(heads):
        for i in range(n):
            for j in range(n):
                total, result, _ = written_sum(formulas.cell_of(res, h, i, j)[0])
                assert abs(total - result) <= Decimal("0.00005"), (h, i, j, total, result)
