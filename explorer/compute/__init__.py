"""One traced run per rerun, and what is derived from it. Pure: no Streamlit.

pipeline.py       an Example through the engine: Result, every intermediate
cached.py         the pipeline and the pages' derived values behind byte-bounded caches (explorer.cache)
model_compute.py  the real-model pages' measures (labels, rollout, comparisons, rankings), cached
interp.py         the logit lens, a token followed through the layers, the induction run, cached
"""
