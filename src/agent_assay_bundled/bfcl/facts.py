"""The facts this adapter learns from the benchmark once a suite is loaded.

Mutating tools: the methods whose call changed an instance's public state when the ground
truth of the suite's entries was replayed (`gold.replay_gold`). Which tools write is the
environment classes' business, so it is learned from them rather than declared: a
category whose gold never calls a writing method declares none, and a release that adds
one is learned without a change here.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from agent_assay.adapters.system import Facts
from agent_assay_bundled.bfcl.entries import entries, ground_truth
from agent_assay_bundled.bfcl.gold import replay_gold


@cache
def changing_methods(category: str, ids: tuple[str, ...]) -> tuple[str, ...]:
    found: set[str] = set()
    truth, loaded = ground_truth(category), entries(category)
    for entry_id in ids:
        found |= replay_gold(loaded[entry_id], truth[entry_id]).changing_methods
    return tuple(sorted(found))


def learned(declared: Facts, category: str, ids: tuple[str, ...]) -> Facts:
    return replace(declared, mutating_tools=changing_methods(category, ids))
