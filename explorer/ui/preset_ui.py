"""The preset picker (sidebar) and the preset panel: its note, the notebook's printed numbers beside the app's.

Streamlit views over explorer.presets and explorer.lessons; the state goes through explorer.ui.state.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import cache, i18n, lessons
from explorer.compute import cached as compute
from explorer.lessons import PRESETS
from explorer.ui import state
from explorer.ui import widgets as ui
from explorer.views import figures as fg

_NONE = ""


def picker() -> None:
    """ "Load an example": a selectbox over the presets; choosing one loads it at once (undo restores)."""
    loaded = state.preset_loaded()
    if state.preset() != loaded:  # picked, but the run that was to load it stopped first: it was not loaded
        state.set_preset(loaded if loaded in PRESETS else _NONE)
    elif state.preset() not in PRESETS:
        state.set_preset(_NONE)
    st.selectbox(
        i18n._("Load an example"),
        [_NONE, *PRESETS],
        key=state.K_PRESET,
        # the titles in this run's language (format_func may be called outside the run)
        format_func={
            _NONE: i18n._("— your own sentence —"),
            **{n: i18n._(p.title) for n, p in PRESETS.items()},
        }.get,
        on_change=_picked,
        help=i18n._("Each example teaches one idea; where it comes from is in a detail below its note."),
    )


def _picked() -> None:
    name = state.preset()
    if name in PRESETS:
        load(name)


def load(name: str) -> None:
    """Make preset `name` the current example (the previous one can be restored with undo)."""
    preset = PRESETS[name]
    state.apply_example(preset.build(), preset=name)
    state.say(
        "success",
        i18n._("Loaded the example “{title}”. Its note is on the Sentence page.", title=i18n._(preset.title)),
    )


def _close() -> None:
    state.set_preset(_NONE)


@cache.shared(max_bytes=cache.MB)
def preset_digest(name: str) -> str:
    return PRESETS[name].build().digest()


def active() -> str:
    """The name of the preset last loaded, or ""."""
    name = state.preset()
    return name if name in PRESETS else _NONE


def panel() -> None:
    """The active preset's note, the notebook's printed numbers beside the app's, and what it could not show."""
    name = active()
    if not name:
        return
    preset = PRESETS[name]
    ex = state.current()
    res = compute.run(ex)
    with st.container(border=True):
        st.subheader(f":material/menu_book: {i18n._(preset.title)}", anchor=False)
        st.markdown(i18n._(preset.note))
        changed = ex.digest() != preset_digest(name)
        checks = lessons.checks(name, res)
        if changed:
            st.info(
                i18n._(
                    "You have changed the example since loading it: a ✗ under “Where this comes from” marks "
                    "a printed number that no longer comes out."
                )
                if checks
                else i18n._(
                    "You have changed the example since loading it; “Reload the example” brings it back."
                ),
                icon=":material/edit:",
            )
        tables = lessons.extras(name, ex, res, run=compute.run)
        lesson = [t for t in tables if not t.source]
        if lesson:
            st.markdown(i18n._("**What to look at**"))
            _tables(lesson, f"preset.{name}")
        # The notebook and its cell numbers are a detail: students do not have the notebooks.
        with st.expander(i18n._("Where this comes from"), icon=":material/history_edu:"):
            st.markdown(i18n._(preset.source))
            if checks:
                _comparison(checks)
            _tables([t for t in tables if t.source], f"preset.{name}.source")
        b1, b2, _rest = st.columns([2, 2, 3])
        b1.button(
            i18n._("Reload the example"),
            key="preset.reload",
            icon=":material/restart_alt:",
            on_click=load,
            args=(name,),
            disabled=not changed,
            width="stretch",
        )
        b2.button(i18n._("Hide this note"), key="preset.close", on_click=_close, width="stretch")


def _comparison(checks: list[lessons.Check]) -> None:
    rows = lessons.rows(checks)
    ok = sum(r.agrees for r in rows)
    if ok == len(rows):
        fewer = any(r.agree_to < r.decimals for r in rows)
        st.success(
            i18n.ngettext(
                "The printed line comes out in the app, to the printed digits.",
                "All {n} printed lines come out in the app, to the printed digits.",
                len(rows),
            )
            + (
                " "
                + i18n._(
                    "✓ (7 dp): the notebook's inputs reach us rounded to 8 decimals, so the 8th digit can move."
                )
                if fewer
                else ""
            ),
            icon=":material/check_circle:",
        )
    else:
        st.warning(
            i18n.ngettext(
                "{ok} of {n} printed line comes out in the app; ✗ marks the others.",
                "{ok} of {n} printed lines come out in the app; ✗ marks the others.",
                len(rows),
                ok=ok,
            ),
            icon=":material/warning:",
        )
    same = i18n._("same")
    st.dataframe(
        pd.DataFrame(
            {
                i18n._("printed"): [r.what for r in rows],
                i18n._("cell"): [r.cell for r in rows],
                same: [r.verdict for r in rows],
                i18n._("the notebook printed"): [r.notebook for r in rows],
                i18n._("the app computes"): [r.app for r in rows],
                i18n._("the app's number is"): [r.source for r in rows],
            }
        ),
        hide_index=True,
        width="stretch",
        column_config={same: st.column_config.TextColumn(width="small")},
    )


def _tables(tables: list[lessons.Table], key: str) -> None:
    """The tables in order; consecutive tables of one group side by side."""
    i = 0
    while i < len(tables):
        group = [tables[i]]
        while (
            tables[i].group
            and i + len(group) < len(tables)
            and tables[i + len(group)].group == tables[i].group
        ):
            group.append(tables[i + len(group)])
        if len(group) == 1:
            _table(group[0], f"{key}.{i}")
        else:
            for j, (t, col) in enumerate(zip(group, st.columns(len(group)), strict=True)):
                with col:
                    _table(t, f"{key}.{i + j}")
        i += len(group)


def _table(t: lessons.Table, key: str) -> None:
    st.markdown(f"**{t.title}**")
    if t.kind in ("weights", "signed") and t.values.size:
        fig = fg.drawn_heatmap(
            t.values,
            t.rows,
            t.cols,
            title="",
            style=ui.style(),
            cells=fg.Cells(weights=t.kind == "weights", digits=min(t.decimals, 3)),
        )
        ui.chart(fig, key)
    elif t.values.size:
        df = pd.DataFrame(t.values, index=t.rows, columns=t.cols)
        st.dataframe(
            df,
            width="stretch",
            column_config={c: st.column_config.NumberColumn(format=f"%.{t.decimals}f") for c in t.cols},
        )
    if t.caption:
        st.markdown(t.caption)
