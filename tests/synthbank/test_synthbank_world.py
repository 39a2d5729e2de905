"""The seeded world: determinism, shape, and that every identifier is visibly fictional."""

import json
import re

from synthbank.vocab import FIRST_NAMES, POSTCODE_PATTERN, SURNAMES
from synthbank.world import DEFAULT_SEED, build_world

ID_PATTERNS = {
    "customers": r"SYN-CUST-\d{4}",
    "accounts": r"SYN-ACCT-\d{4}",
    "cards": r"SYN-CARD-\d{4}",
    "transactions": r"SYN-TXN-\d{5}",
}


def test_same_seed_same_snapshot() -> None:
    assert build_world().snapshot() == build_world(DEFAULT_SEED).snapshot()


def test_other_seed_other_world() -> None:
    assert build_world(1).snapshot() != build_world(2).snapshot()


def test_snapshot_is_json_safe_and_a_copy() -> None:
    world = build_world()
    snapshot = world.snapshot()
    assert json.loads(json.dumps(snapshot)) == snapshot
    snapshot["cards"]["SYN-CARD-0001"]["status"] = "tampered"
    assert world.cards["SYN-CARD-0001"].status != "tampered"


def test_sizes_and_empty_case_tables() -> None:
    snapshot = build_world().snapshot()
    assert len(snapshot["customers"]) == 30
    assert len(snapshot["accounts"]) == 45
    assert len(snapshot["cards"]) == 40
    assert 180 <= len(snapshot["transactions"]) <= 240
    assert snapshot["disputes"] == snapshot["escalations"] == snapshot["refusals"] == {}


def test_ids_are_fictional_and_keys_match_records() -> None:
    snapshot = build_world().snapshot()
    for kind, pattern in ID_PATTERNS.items():
        for key, record in snapshot[kind].items():
            assert re.fullmatch(pattern, key)
            assert key in record.values()


def test_people_and_places_are_fictional() -> None:
    for customer in build_world().snapshot()["customers"].values():
        first, last = customer["name"].split(" ")
        assert first in FIRST_NAMES and last in SURNAMES
        assert customer["email"].endswith("@example.invalid")
        assert re.fullmatch(POSTCODE_PATTERN, customer["address"]["postcode"])


def test_card_states_are_consistent() -> None:
    world = build_world()
    statuses = {card.status for card in world.cards.values()}
    assert statuses == {"active", "blocked", "replaced"}
    for card in world.cards.values():
        assert world.accounts[card.account_id].customer_id == card.customer_id
        if card.status == "replaced":
            assert card.replaced_by in world.cards
        if card.status == "blocked":
            assert card.block_reason in ("lost", "stolen")


def test_some_card_payments_are_disputable() -> None:
    payments = [t for t in build_world().transactions.values() if t.kind == "card_payment"]
    assert any(t.status == "posted" for t in payments)
    assert any(t.status == "pending" for t in payments)


def test_identifiers_sorted_per_kind() -> None:
    world = build_world()
    ids = world.identifiers()
    assert set(ids) == {"customer_id", "account_id", "card_id", "transaction_id"}
    assert ids["card_id"] == sorted(world.cards)
    assert ids["customer_id"][0] == "SYN-CUST-0001"


def test_next_id_is_sequential() -> None:
    world = build_world()
    assert world.next_id("cards") == "SYN-CARD-0041"
    assert world.next_id("disputes") == "SYN-DISP-0001"
