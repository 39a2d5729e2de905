"""The chain's encoding and digests: typed, self-delimiting, order-free inside a block."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_assay.store.encoding import chain

scalars = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
)
rows = st.lists(scalars, min_size=1, max_size=9)


def test_a_value_keeps_its_type() -> None:
    digests = {chain.row_digest("t", (v,)) for v in ("1", 1, 1.0, None, "")}
    assert len(digests) == 5
    # a boolean column reads back as an integer through the driver: both digest alike
    assert chain.row_digest("t", (True,)) == chain.row_digest("t", (1,))


def test_strings_cannot_shift_into_their_neighbours() -> None:
    assert chain.row_digest("t", ("a\x1fs1:b", "c")) != chain.row_digest("t", ("a", "b", "c"))
    assert chain.row_digest("t", ("ab", "")) != chain.row_digest("t", ("a", "b"))


def test_the_table_is_part_of_the_digest() -> None:
    assert chain.row_digest("scores", ("x",)) != chain.row_digest("trajectories", ("x",))


@pytest.mark.parametrize("bad", [math.nan, math.inf, b"bytes", [1], {"a": 1}])
def test_values_no_writer_produces_are_refused(bad: object) -> None:
    with pytest.raises(chain.UnencodableValue):
        chain.row_digest("t", ("ok", bad))


@given(rows, rows)
def test_different_rows_digest_differently(a: list[object], b: list[object]) -> None:
    if chain.encode_row("t", a) != chain.encode_row("t", b):
        assert chain.row_digest("t", a) != chain.row_digest("t", b)


def test_a_block_digest_ignores_row_order_but_counts_rows() -> None:
    rows_ = [chain.row_digest("t", (i,)) for i in range(3)]
    base = chain.block_digest("run", 2, "trajectory", chain.GENESIS, "{}", rows_)
    assert chain.block_digest("run", 2, "trajectory", chain.GENESIS, "{}", rows_[::-1]) == base
    doubled = rows_ + rows_[:1]
    assert chain.block_digest("run", 2, "trajectory", chain.GENESIS, "{}", doubled) != base
    for changed in (("run2", 2, "trajectory", chain.GENESIS, "{}"),
                    ("run", 3, "trajectory", chain.GENESIS, "{}"),
                    ("run", 2, "event", chain.GENESIS, "{}"),
                    ("run", 2, "trajectory", "1" * 64, "{}"),
                    ("run", 2, "trajectory", chain.GENESIS, '{"a":1}')):
        assert chain.block_digest(*changed, rows_) != base


def test_is_digest() -> None:
    assert chain.is_digest("0" * 64)
    assert not chain.is_digest("0" * 63)
    assert not chain.is_digest("G" * 64)
    assert not chain.is_digest(None)
