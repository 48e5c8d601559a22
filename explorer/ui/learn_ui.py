"""/learn's "Train it yourself": the settings, Train and Stop, and the run drawn as it trains.

The run is a job (explorer.compute.learn_live) that takes its turn in the server's workers like every other
analysis; while it trains, a fragment looks at its place every POLL_S seconds and redraws the loss and the
heads' scores from what the job reported so far (jobs.Status.partial). The settings are display controls of
the link (explorer.sharing.view_params: train_seed=, train_lr=, train_heads=, train_steps=), so a shared link
makes the same run again; a run that finished on this server is shown at once from the jobs' results.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from explorer.compute import jobs
from explorer.compute import learn_live as ll
from explorer.compute import learning as lc
from explorer.i18n import _, ngettext, pgettext
from explorer.model import learning
from explorer.ui import clicker, state
from explorer.ui import widgets as ui
from explorer.ui.waiting import visitor
from explorer.views import learning as lv
from explorer.views.style import FULL_PX, Style

POLL_S = 0.5  # seconds between two looks at a run in training


def clicker_walk(stops: list[int]) -> None:
    """Presenting: Earlier and Later buttons over the checkpoint slider, each while the tour goes on that
    way; the clicker's keys press them (explorer.ui.clicker) before they move to another step."""
    at = state.learn_step(stops[0])
    back, ahead = lc.neighbour(stops, at, later=False), lc.neighbour(stops, at, later=True)
    left, right, _rest = st.columns([1, 1, 3])
    if back is not None:
        left.button(_("Step {step}", step=back), key=clicker.OWN_BACK, icon=":material/chevron_left:",
                    on_click=state.set_learn_step, args=(back,))  # fmt: skip
    if ahead is not None:
        right.button(_("Step {step}", step=ahead), key=clicker.OWN_NEXT, icon=":material/chevron_right:",
                     on_click=state.set_learn_step, args=(ahead,))  # fmt: skip


def settings() -> tuple[int, float, int, int]:
    """The four controls (seed, learning rate, heads per layer, steps), bounded, in one row."""
    state.init_live_settings()
    ui.keep_among("learn.seed", range(learning.LIVE_SEEDS), _("training seeds (0 to 99,999)"))
    seed_col, lr_col, heads_col, steps_col = st.columns(
        [1, 1.3, 1.4, 1.3]
    )  # the four heads on one line at 1280 px
    seed = seed_col.number_input(_("Seed"), 0, learning.LIVE_SEEDS - 1, step=1, key="learn.seed",
                                 help=_("Draws the first weights and every batch: the same seed, the same run."))  # fmt: skip
    lr = lr_col.select_slider(_("Learning rate"), learning.LIVE_LRS, key="learn.lr", format_func=lambda x: f"{x:g}",
                              help=_("Adam's step size: too small and the change comes late; too large and "
                                     "training can blow up."))  # fmt: skip
    heads = heads_col.radio(_("Heads per layer"), learning.LIVE_HEADS, key="learn.heads", horizontal=True,
                            help=_("With one head a layer, one head must do each job."))  # fmt: skip
    steps = steps_col.select_slider(_("Steps"), learning.LIVE_STEPS, key="learn.steps",
                                    help=_("About 20 ms each on one core of the server."))  # fmt: skip
    return int(seed), float(lr), int(heads), int(steps)


def train_yourself(sty: Style) -> None:
    """The section: controls, Train / Stop, and the run (training, finished, stopped, or from the cache)."""
    if not sty.present:
        st.subheader(_("Train it yourself"), anchor=False)
        st.markdown(
            _(
                "Pick a seed, a learning rate and the number of heads and press **Train**: the same model "
                "trains on the server, its loss and its heads drawn as it goes. Does the sudden fall come, and "
                "when?"
            )
        )
    job = ll.job(*settings())
    mine = state.live_run()
    running = mine is not None and mine.key == job.key and mine.outcome == ""
    go_col, stop_col, _rest = st.columns([1, 1, 4])
    # Callbacks: they act before this run draws anything, so both buttons are drawn as the run now stands.
    go_col.button(pgettext("verb", "Train"), key="learn.train", type="primary", icon=":material/play_arrow:", disabled=running,
                  on_click=_start, args=(job,))  # fmt: skip
    stop_col.button(
        pgettext("verb", "Stop"),
        key="learn.stop",
        icon=":material/stop:",
        disabled=not running,
        on_click=_stop,
    )
    if mine is not None and mine.key == job.key:
        if running:
            _watch(sty)
        else:
            _draw(mine.last, sty, mine.outcome)
        return
    found, value = jobs.RESULTS.get(job.key)
    if found:  # this server trained these settings lately (a shared link): shown at once
        _draw(value, sty, "done")
    else:
        st.caption(
            _("Press Train to watch this run; it takes its turn with the other analyses on the server.")
        )


def _start(job: jobs.Spec) -> None:
    before = state.drop_live_run()
    if before is not None:
        before.handle.cancel()
    try:
        handle = jobs.submit(job, visitor())
    except jobs.Busy as exc:
        state.say("warning", str(exc))
        return
    state.set_live_run(job.key, handle)


def _stop() -> None:
    mine = state.live_run()
    if mine is not None:
        mine.handle.cancel()
        state.end_live_run("stopped")


@st.fragment(run_every=POLL_S)
def _watch(sty: Style) -> None:
    """The run in training: where it is in line, then its curves so far; once it ends, the page again."""
    mine = state.live_run()
    if mine is None or mine.outcome:
        return
    now = mine.handle.status()
    if now.partial is not None:
        state.keep_live_partial(now.partial)
    if now.state in ("done", "failed"):
        try:
            state.keep_live_partial(mine.handle.result())
            state.end_live_run("done")
        except (ValueError, jobs.Failed) as exc:
            state.end_live_run(jobs.FAILED if isinstance(exc, jobs.Failed) else str(exc))
        st.rerun(scope="app")
    if now.state == "queued":
        st.info(ngettext("The server is busy with other visitors' work: {n} request ahead of this run.",
                         "The server is busy with other visitors' work: {n} requests ahead of this run.",
                         now.ahead), icon=":material/hourglass_top:")  # fmt: skip
    else:
        st.progress(now.done, text=jobs.words(now.message) if now.message else _("Training: starting"))
    if mine.last is not None:
        _charts(mine.last, sty)


def _draw(run: ll.LiveRun | None, sty: Style, outcome: str) -> None:
    """A run that ended: finished, stopped (what it had), or failed (why)."""
    if outcome not in ("done", "stopped"):
        st.error(_(outcome) if outcome == jobs.FAILED else outcome, icon=":material/error:")
        return
    if run is None:
        return
    if outcome == "stopped" or not run.finished:
        st.caption(_("Stopped after {taken} of {steps} steps.", taken=run.taken, steps=run.steps))
    _charts(run, sty)


def _charts(run: ll.LiveRun, sty: Style) -> None:
    """The run's loss and its heads' scores so far, on axes as long as the whole run, and what they show."""
    formed = run.formed_at
    if formed is not None:
        ind = run.induction[-1, -1]
        st.success(
            _(
                "The phase change: a layer-2 head passed an induction score of {formed_at} at step {step}. "
                "Now: layer 2's best induction score {induction:.2f}, layer 1's best previous-token score "
                "{previous:.2f}, the copied tokens' loss {loss:.2f} nats.",
                formed_at=ll.FORMED,
                step=formed,
                induction=float(ind.max()),
                previous=float(run.previous[-1, 0].max()),
                loss=float(run.repeat_loss[-1]),
            ),  # fmt: skip
            icon=":material/bolt:",
        )
    elif run.finished:
        st.info(_("No induction head formed in {steps} steps: try more steps, or another learning rate or "
                  "seed.", steps=run.steps), icon=":material/hourglass_empty:")  # fmt: skip
    height = 400 if sty.present else None  # presenting: three in a row under the controls, within 1080 px
    smooth = lc.smooth(run.loss) if run.taken else np.zeros(0)
    width = ui.THIRD if sty.present else ui.HALF
    loss = lv.loss_curve(smooth, run.repeat_loss, style=sty, repeat_steps=run.measured, x_max=run.steps,
                         drop_step=formed, title=_("Loss (seed {seed}, rate {lr:g})", seed=run.seed, lr=run.lr),
                         width_px=width if sty.present else FULL_PX, height_px=height)  # fmt: skip
    prev = lv.score_curves(run.previous[:, 0], style=sty, steps=run.measured, x_max=run.steps, drop_step=formed,
                           title=_("Layer 1: previous-token"), y_title=_("previous-token score"),
                           width_px=width, height_px=height)  # fmt: skip
    ind = lv.score_curves(run.induction[:, -1], style=sty, steps=run.measured, x_max=run.steps, drop_step=formed,
                          title=_("Layer 2: induction"), y_title=_("induction score"), width_px=width,
                          height_px=height)  # fmt: skip
    if sty.present:
        ui.charts_in_row(
            [(loss, "learn.live.loss"), (prev, "learn.live.previous"), (ind, "learn.live.induction")]
        )
    else:
        ui.chart(loss, "learn.live.loss")
        ui.charts_in_row([(prev, "learn.live.previous"), (ind, "learn.live.induction")])
