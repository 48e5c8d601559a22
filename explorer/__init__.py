"""The Attention Explorer's app, in floors (each imports only from the floors below it; benchmarks/
module_graph.py checks): cache.py (byte-bounded caches shared by every session), model/ (what is on
screen, described once), compute/ (the traced run), lessons/, sharing/ (links and files), views/ (figures
and formulas), export/ (take-home files), ui/ (Streamlit). The pages are in app_pages/; docs/ARCHITECTURE.md
draws the house."""
