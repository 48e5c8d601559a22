"""What is on screen, described once. Pure: no Streamlit.

description.py  Description: the architecture, sizes, tokenizer and origin of the toy or a real layer;
                describe(ex), implementation(ex) (the one place that tells them apart)
toy.py, bridge.py   its two implementations (tokens, defaults, reference, run_block, ...)
example.py      Example: the whole state of one example (a field per setting, the matrices)
settings_table.py   the settings, one row each; models.py  the real models a visitor can pick
seeding.py, defaults.py, arrays.py   the seeded matrices, shape changes that keep edits, array types
"""
