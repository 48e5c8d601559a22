"""The only package that touches st.session_state (keys.py declares every key; core.py reads and conforms;
actions.py changes; models.py holds the real-model pages' choices; patching.py /patching's; pairs.py those
of the experiments with two sentences; mirrored.py the pages' own pickers of a shared choice;
lessons.py the lesson step arrived at and the answers revealed; language.py the language on screen; learning.py /learn's training run). Only public
names are re-exported here: a private key or helper stays in the module that declares it.

Layout of the session state:
- widget keys (`K_*`, keys.py): the scalar settings, owned by their widgets; widgets are created without a
  default (`value=`), so the value set here by `init()` is the one they show.
- MATRICES: the canonical matrices (numpy arrays) of the current Example, edited only through
  `set_matrix` / `apply_edits`; their editors are keyed by a version that changes whenever a matrix changes
  from outside its editor (reset, re-randomize, preset, import), so that no stale edit is replayed.
- messages: notes for the person (kept edits, rejected cells, cut sentences), shown once by the frame.

Every read and write of st.session_state is a point where Streamlit stops a run that a newer request of the
same visitor replaced (SafeSessionState's yield check), and a stopped write is not made. So a step done once
(the URL read, ?join= read, a lesson step arrived at, a view applied) marks itself done after its last
write, never before: a run stopped half-way leaves it to the next run, whole. A new example (a link, a
preset, a trained layer opened or closed) is recorded in one write before it is applied (core.apply_whole):
a run stopped half-way through leaves it to the next run's init, so one example's settings never meet
another's matrices or tokens (tests/app/ui/test_stopped_runs.py stops each flow at each of its writes).
"""

from explorer.model.example import Example  # noqa: F401  (state.Example: what current() returns)
from explorer.ui.state import classroom  # noqa: F401  (state.classroom: a class's side of the session)
from explorer.ui.state.actions import (  # noqa: F401
    apply_example,
    apply_picks,
    ask,
    can_undo,
    close_layer,
    editable,
    editor_state,
    hide_answer,
    model_questions,
    model_revealed,
    open_layer,
    open_qr,
    remember_for_undo,
    rerandomize,
    reset_matrix,
    reveal,
    reveal_every_question,
    reveal_model,
    revealed,
    revealed_by_lesson,
    set_ask,
    set_matrix,
    set_model_questions,
    set_present,
    set_preset,
    set_setting,
    take_qr,
    toy_example,
    undo,
)
from explorer.ui.state.core import (  # noqa: F401
    RESEEDED,
    clamp_ui,
    colors,
    current,
    description,
    draws,
    editor_key,
    fit_weights,
    head,
    init,
    made,
    matrix,
    page,
    picks,
    present,
    preset,
    preset_loaded,
    query,
    release_upload,
    say,
    sentence,
    set_page,
    set_url_read,
    tables,
    take_messages,
    take_picked_head,
    tokens,
    uploaded,
    url_read,
)
from explorer.ui.state.keys import (  # noqa: F401
    K_ASK,
    K_ASK_HEADS,
    K_ASK_INDUCTION,
    K_ASK_LENS,
    K_ASK_NEXT,
    K_ASK_PREV,
    K_COLORS,
    K_FFN_EDITORS,
    K_FIT,
    K_FOLLOW,
    K_FOLLOW_AT,
    K_HEAD,
    K_IND_LEN,
    K_IND_SEED,
    K_KEY,
    K_LANG,
    K_LAYER,
    K_MODEL,
    K_MODEL_HEAD,
    K_OFF,
    K_OTHER,
    K_PAIR_OTHER,
    K_PATCH_CORRUPT,
    K_PRESENT,
    K_PRESET,
    K_QUERY,
    K_SENTENCE,
    K_SHARE_OPEN,
    K_TABLES,
    K_TEMPERATURE,
    K_TERMS,
    K_UPLOAD,
    K_VIEWS,
    MODEL_DEFAULTS,
    MODEL_QUESTIONS,
    SETTING_KEYS,
    UI_DEFAULTS,
)
from explorer.ui.state.language import language, set_language  # noqa: F401
from explorer.ui.state.learning import (  # noqa: F401
    drop_live_run,
    end_live_run,
    init_live_settings,
    keep_live_partial,
    learn_step,
    live_run,
    set_learn_step,
    set_live_run,
)
from explorer.ui.state.lessons import arrive, lesson_at, lesson_revealed, reveal_lesson  # noqa: F401
from explorer.ui.state.mirrored import keep_within, pick_back, set_pending, show, take_pending, value  # noqa: F401
from explorer.ui.state.models import (  # noqa: F401
    append_to_sentence,
    apply_model_link,
    induction_run,
    layer_head,
    lens_follow,
    model_key,
    off_heads,
    picked_head,
    ranking,
    real_model_link,
    set_model,
    set_off_heads,
    set_picked,
    set_ranking,
    switch_heads_off,
)
from explorer.ui.state.pairs import (  # noqa: F401
    apply_pair_link,
    pair_link_state,
    pair_word,
    set_pair,
    set_pair_word,
)
from explorer.ui.state.patching import (  # noqa: F401
    apply_patch_link,
    patch_id,
    patch_link_state,
    set_patch_id,
    set_patch_pair,
    set_sweeps_asked,
    sweep_lock,
    sweeps_asked,
)
from explorer.ui.state.views import apply_view_link, keep_among, view_values  # noqa: F401
