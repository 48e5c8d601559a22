"""Example's written-out fields and the settings table stay in step: same names in the same order, the
table's type and default for each, then the matrices."""

from __future__ import annotations

import typing
from dataclasses import MISSING, fields

import numpy as np

from explorer.model import example
from explorer.model import settings_table as table
from explorer.model.example import MATRIX_NAMES, Example


def _hints() -> dict[str, object]:
    return typing.get_type_hints(Example, vars(example))


def test_settings_fields_are_the_table_rows_in_order():
    names = [f.name for f in fields(Example)]
    assert names[: len(table.SETTINGS)] == list(table.names())
    assert names[len(table.SETTINGS) :] == list(MATRIX_NAMES)


def test_each_setting_field_has_the_table_type_and_default():
    hints = _hints()
    by_name = {f.name: f for f in fields(Example)}
    for row in table.SETTINGS:
        assert hints[row.name] is row.pytype, row.name
        assert by_name[row.name].default == row.default, row.name
        assert type(by_name[row.name].default) is row.pytype, row.name


def test_matrix_fields_are_empty_arrays_of_their_kind():
    ex = Example()
    hints = _hints()
    for name in MATRIX_NAMES:
        f = next(f for f in fields(Example) if f.name == name)
        assert f.default is MISSING and f.default_factory is not MISSING, name
        value = getattr(ex, name)
        assert value.size == 0, name
        assert value.dtype == (np.bool_ if name == "custom_mask" else np.float64), name
        assert hints[name] == (example.Mask if name == "custom_mask" else example.F64), name


def test_a_new_example_is_the_table_defaults():
    assert Example().settings() == table.defaults()
    a, b = Example(), Example()
    assert a.w_q is not b.w_q  # each Example gets its own empty arrays
    assert a.digest() == b.digest()
    assert Example(sentence="other").digest() != a.digest()
