"""How a score value becomes a number, and a scorer its kind and version: Inspect's own
value_to_float for the letters, nothing invented for any other shape."""

from __future__ import annotations

import math

import pytest

from agent_assay_bundled.inspect_log.rules import kind_of, mapped_value, scorer_version


@pytest.mark.parametrize(("value", "number"), [
    ("C", 1.0), ("I", 0.0), ("P", 0.5), ("N", 0.0), (True, 1.0), (False, 0.0),
    (3, 3.0), (0.25, 0.25), (-2.5, -2.5),
])
def test_the_values_inspect_agrees_on(value: object, number: float) -> None:
    assert mapped_value(value) == number


@pytest.mark.parametrize("value", ["Q", "correct", "", {"a": 1}, [1], None, math.nan,
                                   math.inf])
def test_every_other_shape_has_no_number(value: object) -> None:
    assert mapped_value(value) is None


def test_the_kind_is_read_from_the_values() -> None:
    assert kind_of([1.0, 0.0, 1.0]) == "binary"
    assert kind_of([1.0, 0.5, 0.0]) == "fraction"
    assert kind_of([3.0, 0.0]) == "measure"


def test_options_and_scale_are_part_of_a_scorer_s_identity() -> None:
    base = {"key": "match", "scorer": "match", "options": {}, "kind": "binary"}
    assert scorer_version(base) == scorer_version(dict(base))
    assert scorer_version(base) != scorer_version({**base, "options": {"numeric": True}})
    assert scorer_version(base) != scorer_version({**base, "kind": "fraction"})
    assert scorer_version(base).startswith("1:binary:")
