"""Pure builders of what a page draws: numbers in, a Drawn out (a Plotly figure with its words and tables),
nothing read from state, nothing sent.

figures.py   the one namespace pages and exports use; the builders live in style.py (sizes, palettes,
             titles, layouts), heatmap.py, axes.py (its labels fitted to the width), colour_range.py
             (a heatmap's range from the bulk of its values, outliers marked), cell_marks.py (what is drawn
             on and between the cells: values, lines, masked cells, row sums), grid.py (every head at
             once), curves.py, bars.py
chart_specs.py     each chart a page and the HTML export both draw: its key, title and axes, declared once
model_figures.py   the real-model pages' figures; formulas.py  each page's LaTeX, from the description
interp_figures.py  the logit lens grid, a followed token's line, the induction stripe and losses
line_view.py       attention as lines, queries left and keys right (/head, /model)
drawn.py     Drawn: a figure handed over with its title, outlier note, sentence and tables (made by its
             builder from the numbers it drew); describe.py  those words and tables, from the numbers
text.py      user text made literal for Markdown
"""
