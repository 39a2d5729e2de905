"""Cheats a dishonest or careless adapter author could write: none may end ADMISSIBLE."""

from __future__ import annotations

import pytest

from agent_assay.adapters.loaded import load_system
from agent_assay.errors import AssayError
from agent_assay.store import Store
from tests.support.certify import certify
from tests.support.cheats import (
    BroadNondeterminism,
    CachedNoise,
    GoldPeek,
    HashSeeded,
    NoisyUnlessWatched,
)


def test_nothing_the_run_side_is_handed_carries_gold(store: Store) -> None:
    GoldPeek.found.clear()
    got = certify(store, GoldPeek(), "good")
    assert GoldPeek.found == []  # prepare, run_item, the twins' workers: no gold anywhere
    assert got["admissible"], got["reasons"]


@pytest.mark.parametrize("cheat", [CachedNoise, NoisyUnlessWatched, HashSeeded])
def test_nondeterminism_hidden_from_one_process_fails_identical_config(
    store: Store, cheat: type
) -> None:
    got = certify(store, cheat(), "cheat")
    twin = got["by_kind"]["identical_config"]
    assert twin.status == "FAILED", twin.summary
    assert not got["admissible"]
    by_pair = twin.measured["differing_by_comparison"]
    assert sum(by_pair.values()) == twin.measured["differing_paths"] > 0
    if cheat is not HashSeeded:  # these repeat themselves within a process
        assert by_pair["twin 1 vs certified"] > 0 or by_pair["twin 2 vs certified"] > 0


def test_the_same_cheats_pass_when_honest(store: Store) -> None:
    """The twins' fresh processes do not break an honest deterministic config."""
    got = certify(store, HashSeeded(), "good")
    twin = got["by_kind"]["identical_config"]
    assert twin.status == "PASSED", twin.summary
    assert twin.measured["differing_paths"] == 0
    assert len(set(twin.measured["hash_seeds"])) == 2
    assert "not compared: latency.total_ms, latency_ms" in twin.summary


def test_nondeterministic_fields_cannot_cover_a_headline() -> None:
    with pytest.raises(AssayError) as refused:
        load_system(BroadNondeterminism())
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(
        "adapter broadnondeterminism: nondeterministic_fields names 'steps', which is "
        "neither latency_ms, cost, meta nor a measure scorer")
    assert "(and 3 more" in message
