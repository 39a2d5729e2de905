"""Record prose is rendered only from world facts: no placeholders, no invented numbers."""

from __future__ import annotations

import re
from datetime import date

import pytest

from govsim.generator import generate_one
from govsim.graph import Authorization, Prohibition, Signatory, walk
from govsim.quantities import Bound, Ratio
from govsim.render import RenderError, clauses, format_fact, render
from govsim.task import Task
from govsim.templates import TEMPLATES
from govsim.world import Quantity

NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+|\d+")


def _dates(task: Task) -> list[date]:
    w = task.world
    days = [task.request.day]
    days += [a.start for a in w.appointments] + [a.end for a in w.appointments if a.end]
    days += [g.start for g in w.grants] + [g.end for g in w.grants if g.end]
    days += [r.effective for r in w.records]
    return days


def world_numbers(task: Task) -> set[int]:
    """Every number the structured world holds, gathered independently of the renderer."""
    w = task.world
    found: set[int] = {v for v in task.request.payload.values() if isinstance(v, int)}
    bounds: list[Bound] = [g.within for g in w.grants if g.within]
    for node in walk(task.graph):
        bounds += [b for b in (node.applies_if,) if b]
        if isinstance(node, Authorization | Signatory) and node.within:
            bounds.append(node.within)
        if isinstance(node, Prohibition):
            bounds.append(node.when)
    for bound in bounds:
        if isinstance(bound.value, int):
            found.add(bound.value)
        else:
            days = date.fromisoformat(bound.value)
            found |= {days.day, days.year}
    for target in [p.pool_id for p in w.pools] + [c.class_id for c in w.classes]:
        limit, used = w.capacity(target) or (0, 0)
        found |= {limit, used, limit - used}
    found |= {p.units for p in w.positions}
    for day in _dates(task):
        found |= {day.day, day.year}
    return found


def _worlds() -> list[Task]:
    return [
        generate_one(seed, "train", 0, "hard", template.template_id)
        for template in TEMPLATES
        for seed in range(3)
    ]


def test_every_variant_of_every_record_resolves_from_world_facts() -> None:
    used: set[str] = set()
    for task in _worlds():
        allowed = world_numbers(task)
        for record in task.world.records:
            for section in record.sections:
                used.add(section.clause)
                facts = dict(section.facts)
                variants = clauses()[section.clause].variants
                texts = [render(section.clause, facts, v) for v in range(len(variants))]
                assert section.text in texts
                for text in texts:
                    assert "{" not in text and "}" not in text, text
                    for raw in NUMBER.findall(text):
                        number = int(raw.replace(",", ""))
                        assert number != 0, f"fabricated zero in {text!r}"
                        assert number in allowed, f"{number} not a world fact: {text!r}"
    assert used == set(clauses()), f"clauses never used: {set(clauses()) - used}"


def test_catalogue_has_several_digit_free_variants_per_clause() -> None:
    for clause in clauses().values():
        assert len(clause.variants) >= 3, clause.key
        assert len(set(clause.variants)) == len(clause.variants)
        for text in (clause.heading, *clause.variants):
            assert not re.search(r"\d", text), f"literal number in {clause.key}"


def test_missing_fact_raises_instead_of_defaulting() -> None:
    with pytest.raises(RenderError):
        render("delegation", {"holder": "Chief Executive Officer", "noun": "contracts"}, 0)
    with pytest.raises(RenderError):
        render("no_such_clause", {}, 0)


def test_fact_formatting() -> None:
    assert format_fact(Quantity(1250000, "crowns")) == "1,250,000 crowns"
    assert format_fact(date(2031, 3, 5)) == "5 March 2031"
    assert format_fact(Ratio(2, 3)) == "two thirds"
    assert format_fact(("A", "B", "C")) == "A, B and C"
    with pytest.raises(RenderError):
        format_fact(Ratio(5, 7))


def test_sections_carry_the_rule_ids_they_render() -> None:
    task = generate_one(1, "train", 0, "easy", TEMPLATES[0].template_id)
    node_ids = {n.node_id for n in walk(task.graph)}
    tagged = {rid for r in task.world.records for s in r.sections for rid in s.rule_ids}
    assert tagged and tagged <= node_ids
