"""After class: the class's answers at the end of the lesson's notebook (pure).

A teacher who downloads the notebook while their class runs gets, after the example's own cells, one section
with every question asked, in the order asked: the question, each choice with how many chose it and which
one is right (once revealed), as a Markdown table, and one code cell holding the same counts as Python data
to plot or compare. No names: the store keeps none with an answer, and only the counts reach the file.

A question and its choices are text the page made from a sentence someone typed: they reach the Markdown
escaped (markdown.md) and the code only as Python string literals (repr).
"""

from __future__ import annotations

from collections.abc import Sequence

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from explorer.classroom.store import Question
from explorer.export.markdown import md
from explorer.i18n import N_, _, ngettext

Asked = Sequence[tuple[Question, tuple[int, ...]]]
TITLE = N_("The class's answers")  # the section's heading (translated where written)


def cells(asked: Asked) -> list[object]:
    """The section, in the language the notebook is written in: a heading, one Markdown table a question,
    and the counts as data."""
    title = f"## {_(TITLE)}"
    if not asked:
        none = _("The class answered no question before this notebook was made.")  # outside the f-string:
        return [new_markdown_cell(f"{title}\n\n{none}")]  # extracted
    said = ngettext(
        "{n} question, in the order asked; how many students chose each answer (no names are kept).",
        "{n} questions, in the order asked; how many students chose each answer (no names are kept).",
        len(asked),
    )
    out = [new_markdown_cell(f"{title}\n\n{said}")]
    for n, (q, counts) in enumerate(asked, start=1):
        total = sum(counts)
        lines = [
            _("**Question {n}.** {question}", n=str(n), question=md(q.prompt)),
            "",
            "| " + " | ".join((_("answer"), _("students"), _("share"), _("right"))) + " |",
            "|---|--:|--:|:-:|",
        ]
        for i, (choice, count) in enumerate(zip(q.options, counts, strict=True)):
            share = f"{100 * count / total:.0f}%" if total else "–"
            right = "" if q.truth is None else ("✓" if i == q.truth else "")
            lines.append(f"| {md(choice)} | {count} | {share} | {right} |")
        lines.append("")
        if q.truth is None:
            lines.append(ngettext("{n} answer; not revealed.", "{n} answers; not revealed.", total))
        else:
            right = md(q.options[q.truth])
            lines.append(
                ngettext(
                    "{n} answer; the answer is {right}.",
                    "{n} answers; the answer is {right}.",
                    total,
                    right=right,
                )
            )
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
