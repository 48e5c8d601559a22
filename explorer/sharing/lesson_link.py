"""A lesson's part of a link: lesson= (its name, explorer.lessons.routes) and step= (from 1). Pure.

Presenting a page of several parts, step= names the part (explorer.ui.present); beside lesson= it is the
lesson's step number. Reading never raises: a lesson that does not exist gives a message and no lesson; a
step past the lesson's end gives a message and its last step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from explorer.i18n import _, ngettext
from explorer.lessons import routes
from explorer.sharing.values import UINT_RE, ShareError, shown, whole_number

PARAMS = ("lesson", "step")
MAX_CHARS = 40  # a lesson's name or a step's number is a few characters


@dataclass
class LessonRead:
    """The lesson a link opens (None: none) at its step (from 1), and messages for the person."""

    name: str | None = None
    step: int = 1
    messages: list[str] = field(default_factory=list)


def read(params: Mapping[str, str | None]) -> LessonRead:
    """lesson=copy&step=3: the lesson and its step, each checked against the lesson table."""
    out = LessonRead()
    raw = str(params.get("lesson") or "")[:MAX_CHARS].strip()
    if not raw:
        return out
    route = routes.by_name(raw)
    if route is None:
        names = ", ".join(r.name for r in routes.ROUTES)
        out.messages.append(
            _("There is no lesson called {name}. The lessons are: {names}.", name=shown(raw), names=names)
        )
        return out
    out.name = route.name
    step = str(params.get("step") or "")[:MAX_CHARS].strip()
    if step:
        n = len(route.steps)
        try:
            why = ngettext("“{lesson}” has {n} step.", "“{lesson}” has {n} steps.", n, lesson=_(route.title))
            out.step = whole_number(_("lesson step") + " (step=)", step, 1, n, why, signed=False)
        except ShareError as e:
            out.step = n if UINT_RE.fullmatch(step) and int(step) > n else 1
            out.messages.append(
                f"{e} " + _("The lesson opens at step {k}.", k=str(out.step))
            )  # whole sentences
    return out


def params(name: str, step: int) -> dict[str, str]:
    """The link parameters of a lesson's step."""
    return {"lesson": name, "step": str(step)}
