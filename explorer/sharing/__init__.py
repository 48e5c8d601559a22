"""An Example as a link or a JSON file, and back; one matrix as CSV.

Both formats are versioned and exact (every matrix comes back bit for bit), and both list only what differs
from the seeded matrices of scheme 1 (explorer.model.seeding), which is frozen: a link or file saved today opens
the same example after any later change of the app's defaults (tests/app/sharing/test_saved_links.py).

Modules: `values` (limits, the link's vocabulary from the settings table, the value checks, the one reader
of whole numbers), `params` (the settings as query parameters), `state_blob` (the edited matrices in one `s=`
parameter; `blob_text` its version, base64 and zlib), `model_link` (the real-model pages' model=, layer=, head=, off=), `picks` (the explorer pages' head
and tokens picked: h=, q=, k=), `url` (reading the whole
address: ?preset=, ?present=, ?ask=, a shared link, ?sentence=; writing a link), `json_file` and
`csv_file`. All are pure: no Streamlit, no pickle, no eval, and no model loaded (a real layer's settings come
from the models table, its weights from the example's layer, explorer.model.layer, imported when asked; the "Share
and export" panel is explorer.ui.share_panel). Reading never raises on bad input: it returns what it could read and readable
messages. A link falls back to the current value for each part it could not read; a JSON file is refused as
a whole.
"""

from __future__ import annotations

from explorer.sharing.blob_text import LINK_VERSION
from explorer.sharing.csv_file import to_csv
from explorer.sharing.json_file import FORMAT, JSON_VERSION, from_json, refusal, to_json
from explorer.sharing.params import from_params, settings_from_params, to_params
from explorer.sharing.state_blob import decode_state, encode_state
from explorer.sharing.values import (
    LABELS,
    LINK_LIMIT,
    MAX_BODY_BYTES,
    MAX_CELLS,
    MAX_FILE_BODY_BYTES,
    MAX_JSON_BYTES,
    MAX_LIST_JSON_BYTES,
    MAX_SENTENCE_CHARS,
    MAX_STATE_CHARS,
    PARAM_OF,
    SHARE_PARAMS,
    STATE_PARAM,
    UPLOAD_MB,
    VALUE_LIMIT,
    ShareError,
    check_setting,
    cut_sentence,
    plain_settings,
    same,
    seeded,
    shown,
    tokens,
)

__all__ = [
    "FORMAT",
    "JSON_VERSION",
    "LABELS",
    "LINK_LIMIT",
    "LINK_VERSION",
    "MAX_BODY_BYTES",
    "MAX_CELLS",
    "MAX_FILE_BODY_BYTES",
    "MAX_JSON_BYTES",
    "MAX_LIST_JSON_BYTES",
    "MAX_SENTENCE_CHARS",
    "MAX_STATE_CHARS",
    "PARAM_OF",
    "SHARE_PARAMS",
    "STATE_PARAM",
    "UPLOAD_MB",
    "VALUE_LIMIT",
    "ShareError",
    "check_setting",
    "cut_sentence",
    "decode_state",
    "encode_state",
    "from_json",
    "from_params",
    "plain_settings",
    "refusal",
    "same",
    "seeded",
    "settings_from_params",
    "shown",
    "to_csv",
    "to_json",
    "to_params",
    "tokens",
]
