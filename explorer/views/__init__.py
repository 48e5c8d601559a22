"""Pure builders of what a page draws: Plotly figures in, nothing read from state, nothing sent.

figures.py   the one namespace pages and exports use; the builders live in style.py (sizes, palettes,
             titles, layouts), heatmap.py, grid.py (every head at once), curves.py, bars.py
model_figures.py   the real-model pages' figures; formulas.py  each page's LaTeX, from the description
text.py      user text made literal for Markdown
"""
