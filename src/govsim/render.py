"""Render clauses to prose from structured facts, with several wording variants each.

Promise: every placeholder must be filled from the facts passed in; a missing fact raises
``RenderError`` instead of printing a default, so no number is ever fabricated.
Must not import agent_assay.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from functools import cache
from importlib import resources

import yaml

from govsim.quantities import Ratio
from govsim.world import FactValue, Quantity

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
RATIO_WORDS = {
    (1, 3): "one third",
    (1, 2): "one half",
    (2, 3): "two thirds",
    (3, 4): "three quarters",
}


class RenderError(ValueError):
    """A clause could not be rendered from the facts given."""


@dataclass(frozen=True)
class Clause:
    key: str
    heading: str
    variants: tuple[str, ...]


@cache
def clauses() -> dict[str, Clause]:
    """The wording catalogue shipped as package data."""
    raw = yaml.safe_load(resources.files("govsim").joinpath("clauses.yaml").read_text("utf-8"))
    return {
        key: Clause(key, str(entry["heading"]), tuple(str(v) for v in entry["variants"]))
        for key, entry in raw.items()
    }


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def format_fact(value: FactValue) -> str:
    """Units, dates and ratios are spelt the way a lawyer would write them."""
    if isinstance(value, Quantity):
        return f"{value.value:,} {value.unit}"
    if isinstance(value, Ratio):
        words = RATIO_WORDS.get((value.num, value.den))
        if words is None:
            raise RenderError(f"no words for ratio {value}")
        return words
    if isinstance(value, date):
        return f"{value.day} {MONTHS[value.month - 1]} {value.year}"
    if isinstance(value, tuple):
        if not value:
            raise RenderError("empty list fact")
        return value[0] if len(value) == 1 else f"{', '.join(value[:-1])} and {value[-1]}"
    if isinstance(value, int):
        return f"{value:,}"
    return value


def render(key: str, facts: Mapping[str, FactValue], variant: int) -> str:
    """Fill one wording variant; every placeholder must resolve to a non-empty fact."""
    clause = clauses().get(key)
    if clause is None:
        raise RenderError(f"unknown clause {key!r}")
    text = clause.variants[variant % len(clause.variants)]
    missing = placeholders(text) - set(facts)
    if missing:
        raise RenderError(f"{key}: unresolved {sorted(missing)}")
    filled = {name: format_fact(facts[name]) for name in placeholders(text)}
    if any(not v for v in filled.values()):
        raise RenderError(f"{key}: empty fact")
    return text.format_map(filled)
