"""What is on screen, described once. Pure: no Streamlit.

layer.py        Layer: what every layer answers (tokens, defaults, description, reference, run); of(ex), describe(ex)
description.py  Description: the architecture, sizes, tokenizer and origin of a layer, as data
toy.py, bridge.py   two implementations of Layer: the toy, a real model's layer
example.py      Example: the whole state of one example (a field per setting, the matrices)
settings_table.py   the settings, one row each; models.py  the real models a visitor can pick
seeding.py, defaults.py, arrays.py   the seeded matrices, shape changes that keep edits, array types
"""
