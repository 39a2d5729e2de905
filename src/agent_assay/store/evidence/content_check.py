"""What a run's chain cannot vouch for: that its rows are the run's, and that the rows it
names by hash still hash to those names.

The chain (`chain_check`, `run_check`) proves that no row changed, vanished or slipped in
after it was appended. It does not prove that what was appended belongs: anyone holding
the Store API can append, as a well-formed block, a trajectory for a slot the run never
had (a repetition past k, an item outside its list), and its scores count in every mean.
Nor does it reach the suite, its items (the gold) and the config: those rows are
content-addressed, outside every chain, so an edit to them leaves each chain intact.

These checks close both gaps. `verify` makes them beside its own; every command that
shows a number or builds on a run makes them through `run_check`, from these same
functions, so the two cannot disagree. They read little: the suite's items and the
config. The slots come from the chain check, which read every trajectory row's slot
columns already (the quick check from a checkpoint among the bytes it streams): no
trajectory is read again, and nothing a checkpoint merely claims is taken for them,
since whoever appends a run's first checkpoint writes what it claims.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select

from agent_assay.errors import AssayError
from agent_assay.findings import Finding
from agent_assay.model import Config, Item, Run, Suite
from agent_assay.store.database import schema
from agent_assay.store.encoding.text import decode_json
from agent_assay.store.evidence.chain_check import ChainCheck
from agent_assay.store.evidence.raw import RawReader
from agent_assay.store.facade.store import Store
from agent_assay.store.records import TERMINAL_EVENTS, RunEvent

Slot = tuple[Any, Any]
"""(item id, repetition) as stored: a damaged row's values may be of any type."""


def suite_findings(store: Store, run: Run) -> tuple[list[Finding], Suite | None]:
    """Every stored item of the run's suite re-hashes to its item hash, the items to the
    suite hash the run (and every certificate on it) binds, and the run names only items
    of it. Returns the findings and the suite as stored (None when it is not stored)."""
    found: list[Finding] = []
    with RawReader(store).tolerant_connection() as conn:
        head = conn.execute(
            select(schema.suites).where(schema.suites.c.suite_hash == run.suite_hash)
        ).first()
        rows = conn.execute(
            select(schema.items)
            .where(schema.items.c.suite_hash == run.suite_hash)
            .order_by(schema.items.c.position)
        ).all()
    if head is None:
        return [Finding(f"suite {run.suite_hash}", "is not in the store")], None
    items: list[Item] = []
    for row in rows:
        where = f"item {row.item_id!r} of suite {run.suite_hash[:12]}"
        try:
            item = Item.from_json(decode_json("items", row.item_id, row.payload))
        except (AssayError, KeyError, TypeError, ValueError, AttributeError) as exc:
            found.append(Finding(where, f"payload does not decode ({exc})"))
            continue
        if item.content_hash != row.item_hash or item.item_id != row.item_id:
            found.append(Finding(where, "payload does not match its item hash (gold or input "
                                        "changed)"))
        items.append(item)
    if len(rows) != head.n_items:
        found.append(Finding(f"suite {run.suite_hash}",
                             f"holds {len(rows)} items, recorded {head.n_items}"))
    suite = Suite(adapter=head.adapter, items=tuple(items), source=head.source)
    if suite.suite_hash != run.suite_hash:
        found.append(Finding(f"suite {run.suite_hash}",
                             "its items no longer hash to the suite hash"))
    missing = sorted(set(run.item_ids) - {i.item_id for i in items})
    if missing:
        found.append(Finding(f"run {run.run_id}", f"names {len(missing)} item(s) not in its "
                             f"suite: {', '.join(missing[:5])}"))
    return found, suite


def config_findings(store: Store, run: Run) -> list[Finding]:
    """The stored config re-hashes to the run's config hash and is the config the run names."""
    with RawReader(store).tolerant_connection() as conn:
        row = conn.execute(
            select(schema.configs).where(schema.configs.c.config_hash == run.config_hash)
        ).first()
    where = f"config {run.config_hash}"
    if row is None:
        return [Finding(where, "is not in the store (the run's config hash was relabelled?)")]
    try:
        data = decode_json("configs", run.config_hash, row.payload)
        config = Config(adapter=data["adapter"], name=data["name"], params=data["params"])
    except (AssayError, KeyError, TypeError) as exc:
        return [Finding(where, f"payload does not decode ({exc})")]
    found = []
    if config.config_hash != run.config_hash:
        found.append(Finding(where, "payload does not match its hash (the config was edited)"))
    if (config.adapter, config.name) != (run.adapter, run.config_name):
        found.append(Finding(where, f"is {config.adapter}/{config.name}, the run says "
                                    f"{run.adapter}/{run.config_name}"))
    return found


def slot_findings(run: Run, slots: Iterable[Slot], complete: bool) -> list[Finding]:
    """Every stored trajectory sits in one of the run's item x repetition slots, and a run
    marked `complete` fills them all; a run still being written may lack some. (A slot
    stored twice is the chain walk's finding: it counts every row.)"""
    items, k = frozenset(run.item_ids), run.repeats
    found: list[Finding] = []
    inside: set[Slot] = set()
    for slot in slots:
        item, repetition = slot
        if item in items and type(repetition) is int and 1 <= repetition <= k:
            inside.add(slot)
        else:
            found.append(Finding(f"trajectory {item}/{repetition}",
                                 f"is outside the run's {len(items)} items x k={k}"))
    missing = len(items) * k - len(inside)
    if complete and missing:
        found.append(Finding(f"run {run.run_id}",
                             f"is marked complete but {missing} slot(s) are missing"))
    return found


def marked_complete(events: Iterable[RunEvent]) -> bool:
    """Whether the run's last terminal event (of its `events`) says it completed."""
    terminal = [e.event for e in events if e.event in TERMINAL_EVENTS]
    return terminal[-1:] == ["complete"]


def content_findings(
    store: Store, run: Run, check: ChainCheck, events: Iterable[RunEvent]
) -> list[Finding]:
    """What the run's intact chain `check` does not cover: its suite and config still hash
    to the hashes it binds, and its trajectories are exactly its slots (all of them when
    its `events` mark it complete)."""
    found, _ = suite_findings(store, run)
    found += config_findings(store, run)
    found += slot_findings(run, check.slots, marked_complete(events))
    return found
