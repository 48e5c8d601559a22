"""A row of the page table: a page and its steps, and the navigation sections. Pure: no Streamlit.

A page's steps are the slides of the step-through: one per page, or several where one page holds several
steps (/scores: scores, masking, softmax), each with a `?step=` name and one line of what to look at.
A row with listed=False stays out of the navigation, the step-through and the map: a half-built page
lands that way, unreachable. `section` groups pages in the navigation ("" = the first group, no header).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from explorer.i18n import N_

REAL_MODEL = N_("Real model")  # the navigation section of the pages that show a whole real model
LEARNING = N_("Training")  # the navigation section of the model trained in the engine


@dataclass(frozen=True)
class Step:
    name: str  # the ?step= value, unique
    title: str
    look: str  # one line for the room: what to look at (static Markdown, ours)
    url_path: str = ""  # the page's url_path ("" = the first page); set from the page's row
    # (setting, line): the line instead while the layer on screen fixes that setting (a trained layer brings
    # its own positions: no pattern of waves is added); () the same line for every layer
    look_if_fixed: tuple[str, str] | tuple[()] = ()


@dataclass(frozen=True)
class Page:
    script: str  # relative to the repository root (or absolute)
    url_path: str  # the page's address ("" = the default page)
    title: str  # the one title: menu, heading of the map, step links
    icon: str
    summary: str  # one line in the pipeline map
    steps: tuple[Step, ...]
    section: str = ""  # the navigation section ("": no header, first)
    listed: bool = True  # False: not in the navigation, the step-through or the map
    attention: bool = False  # it shows the attention trace: in pre-norm it says that attention reads LN(X)
    # A real-model page that shows one kind whichever model is picked: "decoder" (the next word) or "encoder"
    # (every token sees the whole sentence); "": the picked model. The frame says which model is on screen.
    needs: str = ""
    sentence: bool = True  # it reads the sentence (False: /induction's random tokens; no box above it)

    @property
    def real_model(self) -> bool:
        """It shows a whole real model (the sidebar describes that model, not the explorer's example)."""
        return self.section == REAL_MODEL


def page(
    script: str,
    url_path: str,
    title: str,
    icon: str,
    summary: str,
    steps: tuple[Step, ...],
    *,
    section: str = "",
    listed: bool = True,
    attention: bool = False,
    needs: str = "",
    sentence: bool = True,
) -> Page:
    """A row, its steps stamped with its url_path."""
    stamped = tuple(replace(s, url_path=url_path) for s in steps)
    return Page(script, url_path, title, icon, summary, stamped, section, listed, attention, needs, sentence)
