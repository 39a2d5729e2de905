"""Exact ratios and payload bounds shared by the world and the rule graph.

Promise: pure value types with integer arithmetic only, so quorum, vote and limit checks
never depend on floating point. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Scalar = int | str
Op = Literal["<", "<=", ">", ">="]


@dataclass(frozen=True)
class Ratio:
    """A fraction such as one half; rules always require *more than* it."""

    num: int
    den: int

    def exceeded_by(self, part: int, whole: int) -> bool:
        """True when ``part`` is strictly more than this fraction of ``whole``."""
        return part * self.den > whole * self.num


@dataclass(frozen=True)
class Bound:
    """A comparison on one payload field; ISO dates compare as strings on purpose."""

    field: str
    op: Op
    value: Scalar

    def holds(self, payload: Mapping[str, Scalar]) -> bool:
        """Missing or differently typed fields never satisfy a bound (fail closed)."""
        actual = payload.get(self.field)
        if isinstance(actual, int) and isinstance(self.value, int):
            return _compare(actual, self.op, self.value)
        if isinstance(actual, str) and isinstance(self.value, str):
            return _compare(actual, self.op, self.value)
        return False


def _compare[T: (int, str)](left: T, op: Op, right: T) -> bool:
    if op == "<":
        return left < right
    if op == "<=":
        return left <= right
    if op == ">":
        return left > right
    return left >= right
