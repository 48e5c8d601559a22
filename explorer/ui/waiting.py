"""A page waiting for heavy work: a spinner that says what runs, its place in the workers' queue, its progress.

Heavy work runs in the server's worker processes (explorer.compute.jobs); a page waits for its job inside
``working``, which says how many requests are ahead and how far the job got, and reads a refusal or a
failure to the visitor in the page.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import streamlit as st

from explorer.compute import jobs
from explorer.i18n import _, ngettext
from explorer.model import models
from explorer.ui import patches


@contextlib.contextmanager
def working(what: str, key: str | None = None) -> Iterator[None]:
    """Around a page's slow work (a real model's run of a new sentence, the lens, a ranking): a spinner that
    says `what` is happening and counts the seconds, shown after half a second (a result from the cache shows
    nothing); and while the work waits for its turn at the server's workers (explorer.compute.jobs), how many
    requests are ahead of it, then how far it got. key: the real model the work runs."""
    title = models.choice(key).title if key else _("The server")
    box = st.empty()  # the turn's message, above the spinner
    try:
        with (
            jobs.for_visitor(visitor(), _shown(box, title)),
            st.spinner(what, show_time=True),
        ):
            yield
    except jobs.Busy as exc:
        st.warning(str(exc), icon=":material/hourglass_top:")
        st.stop()
    except jobs.Failed as exc:  # (its message in the session's language: jobs.Failed)
        st.error(str(exc), icon=":material/error:")
        st.stop()
    finally:
        box.empty()


def visitor() -> str | None:
    """This session's id: whose turn a heavy run takes in the pool."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    return None if ctx is None else ctx.session_id


def _shown(box: Any, title: str) -> Callable[[jobs.Status], None]:
    """What a waiting page calls with its job's status: the message drawn when it changed, or when the visitor
    moved on (Streamlit stops the run where it draws); a class of waiting visitors sends no repeats."""
    last: list[tuple[object, ...] | None] = [None]

    def show(now: jobs.Status) -> None:
        seen = (
            now.state,
            now.ahead,
            now.done,
            now.message,
            id(now.partial),
        )  # (partial: arrays, by identity)
        if seen != last[0] or patches.asked_to_move_on():
            last[0] = seen
            _queued(box, title, now)

    return show


def _queued(box: Any, title: str, now: jobs.Status) -> None:
    """The message of a job waiting for its turn at the server's workers, then its progress."""
    if now.state == "queued":
        box.info(
            ngettext(
                "{title} is busy with other visitors' work: {n} request ahead of you; yours runs after it.",
                "{title} is busy with other visitors' work: {n} requests ahead of you; yours runs after them.",
                now.ahead,
                title=title,
            ),
            icon=":material/hourglass_top:",
        )
    elif now.done > 0:
        box.progress(now.done, text=jobs.words(now.message) or None)
