"""The app for servers: `streamlit run server.py` serves app.py exactly as `streamlit run app.py` does, and
- sets how the process serves a class as the server starts (the collector, the GIL, memory:
  explorer/ui/boot.py) and starts loading the real models, before its first visitor (explorer/ui/warm.py);
- serves the charts' assets (plotly.js above all) compressed once and cacheable for good by the browser
  (explorer/ui/chart/serve.py);
- receives uploaded files in turns, in memory, so a class opening large files keeps its event loop free
  (explorer/ui/upload_turns.py).

scripts/serve.sh, the Dockerfile and deploy/ run this; `streamlit run app.py` stays the way to run the app
anywhere else (then ATTENTION_EXPLORER_WARM=1 makes the first of these at the first visit).
"""

from __future__ import annotations

import streamlit as st
from starlette.middleware import Middleware

from explorer.ui import patches, upload_turns, warm
from explorer.ui.chart.serve import CachedAssets
from explorer.ui.upload_turns import UploadTurns

patches.send_writes_at_once()  # before the first connection is accepted
patches.one_run_per_session()  # before the first rerun: a visitor's new rerun waits for their running one
patches.stopped_runs_delivered()  # before the first rerun: an ended run reaches the browser whole
upload_turns.in_memory()  # before the first upload
patches.uploads_not_copied()
app = st.App("app.py", lifespan=warm.lifespan, middleware=[Middleware(CachedAssets), Middleware(UploadTurns)])
