"""The fictional bank's state: customers, accounts, cards, transactions and case records.

Promise: `build_world(seed)` is a pure function of the seed (it only draws from
`random.Random(seed)`), so two builds with one seed give equal snapshots, and every
identifier is an obviously fictional `SYN-...` id. `World.snapshot()` is JSON-safe and is
the only view other code should compare. This module must not import agent_assay.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field, fields, replace
from typing import Any

from synthbank.vocab import (
    CHECKING_NICKNAMES,
    CITIES,
    EMPLOYER,
    FIRST_NAMES,
    INTEREST_PAYER,
    MERCHANTS,
    SAVINGS_NICKNAMES,
    STREETS,
    SURNAMES,
)

DEFAULT_SEED = 20260902
TODAY = "2026-09-02"
"""The bank's fixed 'today': records created by tools carry this date so replays are stable."""

N_CUSTOMERS = 30
N_SAVERS = 15
N_REPLACED_CARDS = 6
N_BLOCKED_CARDS = 5
N_SECOND_CARDS = 4
N_DUPLICATE_CHARGES = 4
PENDING_FROM_DAY = 29
"""Card payments on or after this August day are still pending, so they cannot be disputed."""

ID_FORMATS: dict[str, str] = {
    "customers": "SYN-CUST-{:04d}",
    "accounts": "SYN-ACCT-{:04d}",
    "cards": "SYN-CARD-{:04d}",
    "transactions": "SYN-TXN-{:05d}",
    "disputes": "SYN-DISP-{:04d}",
    "escalations": "SYN-ESC-{:04d}",
    "refusals": "SYN-REF-{:04d}",
}


@dataclass
class Address:
    street: str
    city: str
    postcode: str


@dataclass
class Customer:
    customer_id: str
    name: str
    email: str
    phone: str
    address: Address


@dataclass
class Account:
    account_id: str
    customer_id: str
    type: str
    nickname: str
    balance_cents: int
    currency: str = "EUR"


@dataclass
class Card:
    card_id: str
    customer_id: str
    account_id: str
    last_four: str
    status: str
    block_reason: str | None = None
    replaced_by: str | None = None
    delivery: str | None = None


@dataclass
class Transaction:
    transaction_id: str
    account_id: str
    card_id: str | None
    kind: str
    counterparty: str
    amount_cents: int
    direction: str
    date: str
    status: str


@dataclass
class Dispute:
    dispute_id: str
    transaction_id: str
    customer_id: str
    reason: str
    status: str = "open"


@dataclass
class Escalation:
    escalation_id: str
    customer_id: str
    reason: str


@dataclass
class Refusal:
    refusal_id: str
    customer_id: str
    reason: str


@dataclass
class World:
    """Mutable bank state; tools change it, snapshots freeze it into plain data."""

    customers: dict[str, Customer] = field(default_factory=dict)
    accounts: dict[str, Account] = field(default_factory=dict)
    cards: dict[str, Card] = field(default_factory=dict)
    transactions: dict[str, Transaction] = field(default_factory=dict)
    disputes: dict[str, Dispute] = field(default_factory=dict)
    escalations: dict[str, Escalation] = field(default_factory=dict)
    refusals: dict[str, Refusal] = field(default_factory=dict)

    def tables(self) -> dict[str, dict[str, Any]]:
        """Every table by kind, in snapshot order; records are never deleted."""
        return {
            "customers": self.customers,
            "accounts": self.accounts,
            "cards": self.cards,
            "transactions": self.transactions,
            "disputes": self.disputes,
            "escalations": self.escalations,
            "refusals": self.refusals,
        }

    def next_id(self, kind: str) -> str:
        """The id the next record of `kind` gets: sequential, so replays allocate equal ids."""
        return ID_FORMATS[kind].format(len(self.tables()[kind]) + 1)

    def snapshot(self) -> dict[str, Any]:
        """A deep, JSON-safe copy keyed by entity kind then id (what `dataclasses.asdict`
        gives, written out: every episode ends with one, and asdict's generic walk was most
        of an episode's cost)."""
        return {
            kind: {key: _plain(record) for key, record in sorted(table.items())}
            for kind, table in self.tables().items()
        }

    def clone(self) -> World:
        """An independent copy: every record copied, none shared."""
        return World(**{kind: {key: _copied(record) for key, record in table.items()}
                        for kind, table in self.tables().items()})

    def identifiers(self) -> dict[str, list[str]]:
        """Sorted ids per kind, so callers can pick 'another valid entity of the same kind'."""
        return {
            "customer_id": sorted(self.customers),
            "account_id": sorted(self.accounts),
            "card_id": sorted(self.cards),
            "transaction_id": sorted(self.transactions),
        }

    def accounts_of(self, customer_id: str) -> list[Account]:
        return [a for _, a in sorted(self.accounts.items()) if a.customer_id == customer_id]

    def cards_of(self, customer_id: str) -> list[Card]:
        return [c for _, c in sorted(self.cards.items()) if c.customer_id == customer_id]


def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind))


_FIELDS: dict[type, tuple[str, ...]] = {}


def _plain(record: Any) -> dict[str, Any]:
    """`asdict(record)` for this module's records (an Address is the one nested one). Every
    field is a str, int or None but a customer's address, so copying the instance dict is
    a deep copy; it is taken only when that dict holds exactly the fields, in their order."""
    kind = type(record)
    names = _FIELDS.get(kind) or _FIELDS.setdefault(kind, _field_names(kind))
    raw = record.__dict__
    data = dict(raw) if tuple(raw) == names else {name: getattr(record, name) for name in names}
    if kind is Customer:
        data["address"] = _plain(record.address)
    return data


def _copied(record: Any) -> Any:
    """`copy.copy(record)` (and of a customer's address), written out: these records are
    plain dataclasses, and copy's generic protocol was most of a clone's cost."""
    copied = object.__new__(type(record))
    copied.__dict__.update(record.__dict__)
    if type(record) is Customer:
        copied.address = _copied(record.address)
    return copied


def build_world(seed: int = DEFAULT_SEED) -> World:
    """Build the fictional bank; the only randomness is `random.Random(seed)`. A pure
    function of the seed, so each seed's world is drafted once and handed out as copies."""
    return _drafted(seed).clone()


@functools.lru_cache(maxsize=16)
def _drafted(seed: int) -> World:
    """The world of `seed`, never handed out itself (callers get clones)."""
    rng = random.Random(seed)
    world = World()
    _add_customers(world, rng)
    _add_accounts(world, rng)
    _add_cards(world, rng)
    _add_transactions(world, rng)
    return world


def _add_customers(world: World, rng: random.Random) -> None:
    pairs = [(first, last) for first in FIRST_NAMES for last in SURNAMES]
    for number, (first, last) in enumerate(rng.sample(pairs, N_CUSTOMERS), start=1):
        customer_id = ID_FORMATS["customers"].format(number)
        address = Address(
            street=f"{rng.randint(1, 199)} {rng.choice(STREETS)}",
            city=rng.choice(CITIES),
            postcode=random_postcode(rng),
        )
        world.customers[customer_id] = Customer(
            customer_id=customer_id,
            name=f"{first} {last}",
            email=f"{first.lower()}.{last.lower()}@example.invalid",
            phone=f"+000 555 {number:04d}",
            address=address,
        )


def random_postcode(rng: random.Random) -> str:
    """A postcode matching `vocab.POSTCODE_PATTERN`."""
    letters = "ABDEFGHJLNPQRSTUWXY"
    return f"ZZ{rng.randint(1, 99)} {rng.randint(0, 9)}{rng.choice(letters)}{rng.choice(letters)}"


def _add_accounts(world: World, rng: random.Random) -> None:
    customer_ids = list(world.customers)
    savers = set(rng.sample(customer_ids, N_SAVERS))
    for customer_id in customer_ids:
        _open_account(world, customer_id, "checking", rng.choice(CHECKING_NICKNAMES),
                      rng.randint(2_000, 400_000))
        if customer_id in savers:
            _open_account(world, customer_id, "savings", rng.choice(SAVINGS_NICKNAMES),
                          rng.randint(10_000, 2_500_000))


def _open_account(world: World, customer_id: str, kind: str, nickname: str, cents: int) -> None:
    account_id = world.next_id("accounts")
    world.accounts[account_id] = Account(account_id, customer_id, kind, nickname, cents)


def _add_cards(world: World, rng: random.Random) -> None:
    checking = [a for a in world.accounts.values() if a.type == "checking"]
    owners = [a.customer_id for a in checking]
    replaced = set(rng.sample(owners, N_REPLACED_CARDS))
    rest = [c for c in owners if c not in replaced]
    blocked = set(rng.sample(rest, N_BLOCKED_CARDS))
    seconds = set(rng.sample([c for c in rest if c not in blocked], N_SECOND_CARDS))
    digits = iter(rng.sample(range(1000, 10000), len(checking) * 2))
    for account in checking:
        owner = account.customer_id
        primary = _issue_card(world, account, str(next(digits)))
        if owner in replaced:
            successor = _issue_card(world, account, str(next(digits)))
            successor.delivery = "standard"
            primary.status, primary.replaced_by = "replaced", successor.card_id
        elif owner in blocked:
            primary.status, primary.block_reason = "blocked", rng.choice(("lost", "stolen"))
        if owner in seconds:
            _issue_card(world, account, str(next(digits)))


def _issue_card(world: World, account: Account, last_four: str) -> Card:
    card_id = world.next_id("cards")
    card = Card(card_id, account.customer_id, account.account_id, last_four, "active")
    world.cards[card_id] = card
    return card


def _add_transactions(world: World, rng: random.Random) -> None:
    """Draft a month of activity, then number it chronologically so ids sort by date."""
    drafts: list[Transaction] = []
    for account in world.accounts.values():
        if account.type == "savings":
            for _ in range(rng.randint(1, 2)):
                drafts.append(_credit(account, INTEREST_PAYER, rng))
            continue
        drafts.append(_credit(account, EMPLOYER, rng))
        usable = [c for c in world.cards_of(account.customer_id) if c.status != "replaced"]
        merchants = rng.sample(MERCHANTS, rng.randint(4, 7))
        for merchant in merchants:
            day = rng.randint(1, 31)
            drafts.append(Transaction(
                transaction_id="",
                account_id=account.account_id,
                card_id=rng.choice(usable).card_id,
                kind="card_payment",
                counterparty=merchant,
                amount_cents=rng.randint(150, 25_000),
                direction="debit",
                date=f"2026-08-{day:02d}",
                status="pending" if day >= PENDING_FROM_DAY else "posted",
            ))
    posted = [d for d in drafts if d.kind == "card_payment" and d.status == "posted"]
    for original in rng.sample(posted, N_DUPLICATE_CHARGES):
        drafts.append(replace(original))
    drafts.sort(key=lambda d: (d.date, d.account_id))
    for draft in drafts:
        draft.transaction_id = world.next_id("transactions")
        world.transactions[draft.transaction_id] = draft


def _credit(account: Account, payer: str, rng: random.Random) -> Transaction:
    day = rng.randint(1, 28)
    return Transaction(
        transaction_id="",
        account_id=account.account_id,
        card_id=None,
        kind="deposit",
        counterparty=payer,
        amount_cents=rng.randint(1_000, 300_000),
        direction="credit",
        date=f"2026-08-{day:02d}",
        status="posted",
    )
