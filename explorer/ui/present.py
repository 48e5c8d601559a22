"""Presentation mode and the step-through: pure helpers (no Streamlit, no state).

The step-through walks the pipeline like slides. A step is a page (its url_path) and, where one page holds
several steps (/scores: scores, masking, softmax), a `?step=` name; each step says what to look at. The
steps are declared with their pages, in explorer.ui.page_table.
"""

from __future__ import annotations

from explorer.i18n import _
from explorer.ui import page_table
from explorer.ui.page_table import Step

STEPS: tuple[Step, ...] = page_table.steps()  # the listed pages' steps, in the menu's order


def step_index(url_path: str, step_param: object = None) -> int | None:
    """The step shown on this page: the ?step= one if it belongs to the page, else the page's first step.

    None for a page that is not in the step-through.
    """
    for i, s in enumerate(STEPS):
        if s.name == step_param and s.url_path == url_path:
            return i
    for i, s in enumerate(STEPS):
        if s.url_path == url_path:
            return i
    return None


def neighbours(i: int) -> tuple[Step | None, Step | None]:
    """The previous and next step of step i (None at the ends)."""
    prev = STEPS[i - 1] if i > 0 else None
    nxt = STEPS[i + 1] if i + 1 < len(STEPS) else None
    return prev, nxt


def page_neighbours(i: int) -> tuple[Step | None, Step | None]:
    """The first step of the page before step i's page and of the page after it (None at the ends): off the
    projector a page shows all its parts at once, so its links lead to other pages, never to its own."""
    here = STEPS[i].url_path
    before = [s for s in STEPS[:i] if s.url_path != here]
    after = [s for s in STEPS[i:] if s.url_path != here]
    prev = next((s for s in STEPS if before and s.url_path == before[-1].url_path), None)
    return prev, (after[0] if after else None)


def query_of(step: Step) -> dict[str, str]:
    """The query parameters a link to this step carries (only pages with several steps need one)."""
    shared = sum(1 for s in STEPS if s.url_path == step.url_path) > 1
    return {"step": step.name} if shared else {}


def place(i: int) -> tuple[int, int, int, int]:
    """Where step i stands as the sidebar shows it: (page number, pages in the menu, part of its page, parts
    of its page), counted from 1. The menu lists pages, so a page of three steps (/scores) is one number."""
    step = STEPS[i]
    paths = list(dict.fromkeys(s.url_path for s in STEPS))  # the pages, in the menu's order
    own = [s for s in STEPS if s.url_path == step.url_path]
    return paths.index(step.url_path) + 1, len(paths), own.index(step) + 1, len(own)


def caption(i: int, *, with_part: bool = True) -> str:
    """The step-through's line under a page: "Step 4 of 8: Scores, mask, softmax (part 1 of 3: Scores)"
    (`with_part` False: the page's line alone, as the whole page shows it)."""
    page_no, pages, part, parts = place(i)
    page = page_table.by_path(STEPS[i].url_path)
    title = _(page.title if page is not None else STEPS[i].title)
    if parts > 1 and with_part:
        return _(
            "Step {page_no} of {pages}: {title} (part {part} of {parts}: {step})",
            page_no=page_no,
            pages=pages,
            title=title,
            part=part,
            parts=parts,
            step=_(STEPS[i].title),
        )
    return _("Step {page_no} of {pages}: {title}", page_no=page_no, pages=pages, title=title)


def sidebar_state(presenting: bool) -> str:
    """st.set_page_config(initial_sidebar_state=...): collapsed while presenting."""
    return "collapsed" if presenting else "auto"


# Static CSS for the projector (never any user text). Streamlit sizes its type in rem, so a larger root
# font enlarges text, widgets and spacing together; the main column gets the whole width.
BASE_FONT_PX = 22  # Streamlit's default is 16
# Tables and data editors draw their text on a canvas in px, not rem: they are zoomed as much as the text
# grows (Chromium maps clicks on a zoomed grid to the right cell). The sidebar, the teacher's and not the
# room's, is zoomed back to the laptop's size: its width is in px, and at the projector's size its buttons'
# labels ("Download as notebook (.ipynb)") wrapped to four lines.
ZOOM = BASE_FONT_PX / 16
CSS = f"""<style>
html {{ font-size: {BASE_FONT_PX}px; }}
[data-testid="stHeader"], [data-testid="stToolbar"] {{ height: 2.5rem !important; min-height: 0 !important; }}
[data-testid="stMainBlockContainer"] {{
  max-width: 100%; padding: 2.7rem 2.2rem 0 2.2rem;
}}
[data-testid="stMain"] [data-testid="stVerticalBlock"] {{ gap: 0.6rem; }}
input, textarea, [data-baseweb="select"] {{ font-size: 1.05rem !important; }}
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li {{
  font-size: 1.1rem; line-height: 1.45;
}}
h1 {{ font-size: 2.4rem !important; }}
h2, h3 {{ font-size: 1.7rem !important; }}
.katex {{ font-size: 1.45em !important; }}
[data-testid="stCaptionContainer"] {{ font-size: 0.95rem; }}
.st-key-step-top a, .st-key-step-top p {{ font-size: 1.2rem !important; line-height: 1.3; }}
.st-key-step-top .st-key-step-look p {{ font-size: 1.05rem !important; text-align: center; }}
.st-key-step-top [data-testid="stPageLink-NavLink"] {{ padding: 0.4rem 1rem; }}
.st-key-frame-clicker, .st-key-class-keep {{ display: none; }}
.st-key-step-top, .st-key-lesson-bar {{ position: relative; }}
.st-key-lesson-bar a p {{ font-size: 1.2rem !important; line-height: 1.3; }}
.st-key-lesson-bar [data-testid="stMarkdownContainer"] p {{ font-size: 0.95rem; line-height: 1.35; }}
.st-key-lesson-bar [data-testid="stMarkdownContainer"] {{ padding-right: 3.5rem; }}
.st-key-lesson-bar .st-key-lesson-where p {{ font-size: 1.1rem !important; text-align: center; }}
.st-key-lesson-bar button {{ min-height: 0; padding: 0.15rem 0.8rem; }}
.st-key-lesson-bar [data-testid="stVerticalBlock"] {{ gap: 0.3rem; }}
.st-key-lesson-bar [data-testid="stPageLink-NavLink"] {{ padding: 0.4rem 1rem; }}
.st-key-present-qr {{ position: absolute; right: 0; bottom: 0; width: auto !important; }}
.st-key-present-qr button {{ min-height: 0; padding: 0 0.4rem; line-height: 1.2; }}
.st-key-present-qr button p {{ font-size: 0.85rem; }}
.st-key-present-class {{ position: absolute; left: 0; bottom: 0; width: auto !important; }}
.st-key-present-class button {{ min-height: 0; padding: 0 0.4rem; line-height: 1.2; }}
.st-key-present-class button p {{ font-size: 0.85rem; }}
[data-testid="stElementContainer"]:has([data-testid="stDataFrame"]) {{
  zoom: {ZOOM}; width: calc(100% / {ZOOM}) !important;
}}
[data-testid="stSidebarContent"] {{ zoom: {1 / ZOOM:.4f}; }}
</style>"""
