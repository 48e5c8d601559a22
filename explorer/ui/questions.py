"""Predict, then reveal: a page's question in place of its answer, the Reveal button, and the answer said.

The clicker's next key presses Reveal (explorer.ui.clicker); in a class the question is the class's
(explorer.ui.class_ui); a lesson's bar says its own answer above the page (explorer.ui.lesson_ui).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from attention_core import analysis
from explorer.compute.pipeline import ROLES, Result, rule_key
from explorer.i18n import N_, _
from explorer.ui import class_ui, lesson_ui, state
from explorer.views.text import literal


def model_question_hides(
    word: str, what: str, question: str, answer: str, choices: tuple[str, Sequence[str], int] | None = None
) -> bool:
    """Predict, then reveal on a real-model page: while question `word` ("next", "heads") is on and its answer
    not yet revealed for `what` (the model and sentence), show the question and a Reveal button (the clicker's
    next key presses it) and return True: the page then draws no answer. Once revealed, say `answer` (our
    own Markdown, with any model token already made literal) and return False.

    choices: (the question as plain text, the answers to choose from, the index of the right one): in a class
    the question is the class's (each student answers in their class bar; the teacher's Reveal reveals it to
    everyone)."""
    if word not in state.model_questions():
        return False
    in_class = class_ui.role() if choices is not None else None
    qid = None
    if in_class == "teacher":
        qid = class_ui.ask(f"{word}|{what}", *choices)  # type: ignore[misc]
        hidden = not (state.model_revealed(word, what) and class_ui.revealed(qid))
    elif in_class == "student":
        qid = class_ui.question_id(state.page() or "", f"{word}|{what}", state.current().digest())
        hidden = not class_ui.revealed(qid)  # the teacher's Reveal (the class bar marks it)
    else:
        hidden = not state.model_revealed(word, what)
    if hidden:
        with st.container(key="ask-box", border=True):
            st.subheader(question, anchor=False)
            if in_class == "student":
                st.caption(_("Answer in the class box above; the teacher reveals the answer."))
                return True
            think, own_button = _think(in_class)
            st.caption(think)
            if own_button:
                st.button(
                    _("Reveal"), key="reveal", on_click=_reveal_model, args=(word, what, qid, choices),
                    icon=":material/visibility:", type="primary",
                )  # fmt: skip
        return True
    if not state.revealed_by_lesson(word):  # a lesson's bar says its own answer above the page
        st.success(answer, icon=":material/lightbulb:")
    return False


def _reveal_model(
    word: str, what: str, qid: str | None, choices: tuple[str, Sequence[str], int] | None
) -> None:
    """Reveal (a callback): the page's answer, and in a class the truth to every student."""
    state.reveal_model(word, what)
    if qid is not None and choices is not None:
        class_ui.reveal(qid, choices[2])


CLASS_CHOICES = 5  # a real-model question's choices in a class: the page's top few, in a fixed order


def next_choices(tokens: Sequence[str], after: str) -> tuple[str, list[str], int]:
    """/next-token's question for a class: the model's top tokens (`tokens`, most likely first, as shown) in
    alphabetical order, so their order does not give the answer away; the right one is the first."""
    top = list(dict.fromkeys(tokens[:CLASS_CHOICES]))
    options = sorted(top, key=str.casefold)
    return _("Which word comes next after “{after}”?", after=after), options, options.index(top[0])


def head_choices(effects: object, prompt: str | None = None) -> tuple[str, list[str], int] | None:
    """A question about heads for a class: the heads of the largest `effects` ((L, H), NaN: not measured;
    /ablation's effect of removing each, /induction's induction scores), ordered by layer and head; the
    right one has the largest. None before any head is measured."""
    top = analysis.ranked(effects)[:CLASS_CHOICES]
    if not top:
        return None
    cells = sorted((layer, head) for layer, head, _e in top)
    options = [_("layer {layer}, head {head}", layer=layer + 1, head=head + 1) for layer, head in cells]
    prompt = prompt or _("Which head, switched off alone, changes the output most?")
    return prompt, options, cells.index(top[0][:2])


def lens_choices(wins: int, layers: int, after: str, answer: str) -> tuple[str, list[str], int]:
    """/logit-lens's question for a class: from which layer on the model's answer is every layer's top
    token (`wins`: 0 = from the embeddings, the engine's interp.wins_from), among the model's `layers` cut
    into CLASS_CHOICES spans; the right one holds `wins`."""
    spans = [s for s in np.array_split(np.arange(layers + 1), CLASS_CHOICES) if s.size]
    options = [
        _("layers {first} to {last}", first=int(s[0]), last=int(s[-1]))
        if s[0]
        else _("the embeddings to layer {last}", last=int(s[-1]))
        for s in spans
    ]
    truth = next(i for i, s in enumerate(spans) if s[0] <= wins <= s[-1])
    asked = _("After “{after}”, from which layer on is “{answer}” the top token?", after=after, answer=answer)
    return asked, options, truth


def question_hides(res: Result, head: int, labels: list[str]) -> bool:
    """Predict, then reveal: while a question is asked (state.ask) and not yet answered,
    show it and a Reveal button in place of the weights, and return True (the page then draws no weights).
    Once revealed, say the answer above the weights and return False. The clicker's "next" key reveals too.
    """
    q = state.ask()
    if q is None or q >= res.n or res.attention is None:
        return False
    who = literal(labels[q])
    k = res.strongest_key(head, q)
    roles = state.description().roles
    role = roles[head] if head < len(roles) else ""
    in_class = class_ui.role()  # in a class: the question is the class's (explorer.ui.class_ui)
    if in_class == "teacher":
        asked = _("Which word will “{who}” attend to most (head {n})?", who=labels[q], n=head + 1)
        qid = class_ui.ask(f"ask={q}|head={head}", asked, labels, k)
        reveal, args = class_ui.reveal, (qid, k)
        shown = state.revealed() and class_ui.revealed(qid)  # a new question (another head) asks again
    else:
        reveal, args, shown = state.reveal, (), state.revealed()
    if not shown:
        with st.container(key="ask-box", border=True):
            st.subheader(_("Predict: which word will “{who}” attend to most?", who=who), anchor=False)
            if in_class == "student":
                st.caption(
                    _("Head {n}. Answer in the class box above; the teacher reveals the answer.", n=head + 1)
                )
                return True
            think, own_button = _think(in_class)
            # the head's rule as a hint, but not in a lesson: there the rule is what the step's answer says
            hint = _rule_hint(role, head, literal(res.tokens[q])) if own_button else ""
            st.caption(f"{hint} {think}".strip())  # two sentences
            if own_button:
                st.button(
                    _("Reveal"),
                    key="reveal",
                    on_click=reveal,
                    args=args,
                    icon=":material/visibility:",
                    type="primary",
                )
        return True
    if state.revealed_by_lesson():  # a lesson's bar says its own answer above the page
        return False
    w = float(res.attention.weights[head, q, k])
    answer = _(
        "Answer: “{who}” attends most to “{key}” (weight {w:.2f} in head {n}): its row below.",
        who=who,
        key=literal(labels[k]),
        w=w,
        n=head + 1,
    )
    st.success(answer + _rule_said(role, res, head, q, labels), icon=":material/visibility:")  # two sentences
    return False


THINK = N_("Think, vote, then reveal (the button, or → on the keyboard or clicker).")  # presenting
THINK_ALONE = N_("Think first, then press Reveal.")  # a student at a laptop
# A lesson step's bar holds the one Reveal while its answer is hidden (it reveals the page's answer too)
THINK_BAR = N_("Think first, then press Reveal in the lesson's bar above.")
THINK_BAR_PRESENTING = N_(
    "Think, vote, then reveal (the lesson's Reveal above, or → on the keyboard or clicker)."
)


def _think(in_class: str | None) -> tuple[str, bool]:
    """What the question's card says under it and whether it draws a Reveal button of its own: not while a
    lesson step's bar shows its Reveal (two buttons for one answer), unless in a class (the class's question
    is the teacher's to reveal); the arrow keys are the projector's."""
    presenting = state.present()
    if in_class is None and lesson_ui.reveal_in_bar():
        return _(THINK_BAR_PRESENTING if presenting else THINK_BAR), False
    return _(THINK if presenting else THINK_ALONE), True


def _rule_hint(role: str, head: int, who: str) -> str:
    """The head, and the rule it learned as the question's hint (a random head has none), as one sentence."""
    n = head + 1
    if role == ROLES[0]:
        return _("Head {n} is a previous-token head: it learned to look at the word just before.", n=n)
    if role == ROLES[1]:
        return _(
            "Head {n} is an induction head: it learned to find an earlier copy of “{who}” and look at the word "
            "that came after that copy.",
            n=n,
            who=who,
        )
    if state.description().drawn:
        return _("Head {n} (random weights: no rule to learn).", n=n)
    return _("Head {n}.", n=n)


def _rule_said(role: str, res: Result, head: int, query: int, labels: list[str]) -> str:
    """After the answer: the word the head's rule names, and whether the head followed it ("" without a rule)."""
    want = rule_key(role, res, query)
    if want is None:
        return (
            " " + _("This word has no earlier copy, so the induction rule names no word here.")
            if role
            else ""
        )
    assert res.attention is not None
    if want == res.strongest_key(head, query):
        return " " + _("The rule names “{word}”: the head followed it.", word=literal(labels[want]))
    weight = float(res.attention.weights[head, query, want])
    return " " + _(
        "The rule names “{word}”, which this head gives {w:.2f}.", word=literal(labels[want]), w=weight
    )
