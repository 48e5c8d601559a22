"""Take the lesson home: the example on screen as a Jupyter notebook, as one offline HTML page, and its link
as a QR code. Pure (no Streamlit): each builder takes a `Walkthrough` (walkthrough.py) and returns text.

    walkthrough.py  what every export shows: the sentence, the matrices, the settings, each step's text and
                    formula, the app's numbers; `from_example` makes one from an Example and its Result
    notebook.py     Walkthrough -> nbformat NotebookNode (plain numpy that recomputes every number)
    markdown.py     text placed in a notebook's Markdown literally (escaped, or fenced as code)
    html.py         Walkthrough -> one self-contained HTML page (plotly.js inline, MathML formulas)
    qr.py           a link -> a QR code (PNG / SVG / module matrix), sized for the back of a room
"""
