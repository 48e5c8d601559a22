"""After class: the class's answers at the end of the lesson's notebook (pure).

A teacher who downloads the notebook while their class runs gets, after the example's own cells, one section
with every question asked, in the order asked: the question, each choice with how many chose it and which
one is right (once revealed), as a Markdown table, and one code cell holding the same counts as Python data
to plot or compare. No names: the store keeps none with an answer, and only the counts reach the file.

A question and its choices are text the page made from a sentence someone typed: they reach the Markdown
escaped (notebook.md) and the code only as Python string literals (repr).
"""

from __future__ import annotations

from collections.abc import Sequence

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from explorer.classroom.store import Question
from explorer.export.notebook import md

Asked = Sequence[tuple[Question, tuple[int, ...]]]
TITLE = "## The class's answers"


def cells(asked: Asked) -> list[object]:
    """The section: a heading, one Markdown table a question, and the counts as data."""
    if not asked:
        return [
            new_markdown_cell(f"{TITLE}\n\nThe class answered no question before this notebook was made.")
        ]
    out = [new_markdown_cell(f"{TITLE}\n\n{len(asked)} question{'s' if len(asked) != 1 else ''}, in the order "
                             "asked; how many students chose each answer (no names are kept).")]  # fmt: skip
    for n, (q, counts) in enumerate(asked, start=1):
        total = sum(counts)
        lines = [
            f"**Question {n}.** {md(q.prompt)}",
            "",
            "| answer | students | share | right |",
            "|---|--:|--:|:-:|",
        ]
        for i, (choice, count) in enumerate(zip(q.options, counts, strict=True)):
            share = f"{100 * count / total:.0f}%" if total else "–"
            right = "" if q.truth is None else ("✓" if i == q.truth else "")
            lines.append(f"| {md(choice)} | {count} | {share} | {right} |")
        said = "not revealed" if q.truth is None else f"the answer is {md(q.options[q.truth])}"
        lines += ["", f"{total} answer{'s' if total != 1 else ''}; {said}."]
        out.append(new_markdown_cell("\n".join(lines)))
    data = [
        {"question": q.prompt, "choices": list(q.options), "answers": list(counts), "right": q.truth}
        for q, counts in asked
    ]
    out.append(new_code_cell("# The class's answers as data: each question's choices, how many chose each, and "
                             "the index of the right one (None: not revealed)\nclass_answers = " + repr(data)))  # fmt: skip
    return out


def appended(notebook: bytes, asked: Asked) -> bytes:
    """The notebook file `notebook` with the class's answers after its own cells, validated."""
    nb = nbformat.reads(notebook.decode("utf-8"), as_version=4)
    nb.cells.extend(cells(asked))
    nbformat.validate(nb)
    return nbformat.writes(nb).encode("utf-8")
