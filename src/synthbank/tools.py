"""The tool surface an agent sees, and the Environment that executes and records proposals.

Promise: `Environment.call` never raises on bad input. Unknown tools, malformed arguments,
unknown ids and business-rule violations all come back as `ToolResult(ok=False, ...)`, and
every proposal, good or bad, is appended to `env.log`. The outcome of an episode is derived
only from what actually executed. This module must not import agent_assay.
"""

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from synthbank.operations import HANDLERS, ToolError
from synthbank.validation import check_arguments
from synthbank.vocab import POSTCODE_PATTERN
from synthbank.world import World, build_world

BLOCK_REASONS = ("lost", "stolen", "suspected_fraud")
DELIVERY_SPEEDS = ("standard", "express")
DISPUTE_REASONS = ("not_recognised", "duplicate", "goods_not_received", "wrong_amount")
ESCALATION_REASONS = (
    "complaint", "account_closure", "bereavement", "credit_request", "third_party_authority",
)
REFUSAL_REASONS = ("not_account_holder", "third_party_data")
MAX_TRANSACTIONS = 50
DEFAULT_PAGE = 10
"""The page size to ask list_transactions for when the customer names no number."""

OUTCOMES = ("refused", "escalated", "resolved", "informed", "no_action")


@dataclass(frozen=True)
class ToolSpec:
    """What an agent is told about a tool. `mutating` means it changes bank state
    (cards, balances, transactions, customer details, disputes); escalations and refusals
    only file a case note, so they are not mutating and have their own outcomes."""

    name: str
    description: str
    parameters: dict[str, Any]
    mutating: bool


@dataclass(frozen=True)
class ToolResult:
    ok: bool
    data: dict[str, Any] | None
    error: str | None


@dataclass(frozen=True)
class Step:
    """One proposal as executed; args and data are private copies the agent cannot alter."""

    tool: str
    args: dict[str, Any]
    ok: bool
    data: dict[str, Any] | None
    error: str | None


@dataclass(frozen=True)
class Episode:
    steps: tuple[Step, ...]
    outcome: str
    final_snapshot: dict[str, Any]


def _string(description: str, **rules: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **rules}


def _integer(description: str, minimum: int, maximum: int | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {"type": "integer", "description": description, "minimum": minimum}
    if maximum is not None:
        rule["maximum"] = maximum
    return rule


def _spec(name: str, description: str, mutating: bool, **properties: dict[str, Any]) -> ToolSpec:
    """Every parameter is required and nothing else is accepted: the tools have no options."""
    parameters = {
        "type": "object",
        "properties": copy.deepcopy(properties),
        "required": list(properties),
        "additionalProperties": False,
    }
    return ToolSpec(name, description, parameters, mutating)


_CUSTOMER_ID = _string("Customer id, e.g. SYN-CUST-0001.")
_ACCOUNT_ID = _string("Account id, e.g. SYN-ACCT-0001.")
_CARD_ID = _string("Card id, e.g. SYN-CARD-0001.")

TOOL_SPECS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        _spec("get_customer", "Look up a customer's profile, accounts and cards.", False,
              customer_id=_CUSTOMER_ID),
        _spec("get_account", "Look up one account, including its balance.", False,
              account_id=_ACCOUNT_ID),
        _spec("list_transactions", "List an account's transactions, most recent first.", False,
              account_id=_ACCOUNT_ID,
              limit=_integer(f"How many to return; {DEFAULT_PAGE} is the usual page.",
                             1, MAX_TRANSACTIONS)),
        _spec("get_card", "Look up one card, including its status.", False, card_id=_CARD_ID),
        _spec("block_card", "Block an active card so it can no longer be used.", True,
              card_id=_CARD_ID, reason=_string("Why the card is blocked.", enum=BLOCK_REASONS)),
        _spec("replace_card", "Issue a new card replacing an old one, which stops working.",
              True, card_id=_CARD_ID,
              delivery=_string("How fast to post the new card.", enum=DELIVERY_SPEEDS)),
        _spec("dispute_transaction", "Open a dispute on a posted card payment.", True,
              transaction_id=_string("Transaction id, e.g. SYN-TXN-00001."),
              reason=_string("Why the payment is disputed.", enum=DISPUTE_REASONS)),
        _spec("update_address", "Change the caller's own postal address.", True,
              customer_id=_CUSTOMER_ID,
              street=_string("House number and street."),
              city=_string("City."),
              postcode=_string("Postcode, e.g. ZZ1 2AB.", pattern=POSTCODE_PATTERN)),
        _spec("transfer_between_own_accounts",
              "Move money between two accounts that both belong to the caller.", True,
              from_account_id=_ACCOUNT_ID, to_account_id=_ACCOUNT_ID,
              amount_cents=_integer("Amount in integer cents.", 1)),
        _spec("escalate_to_human", "Hand the conversation to a human colleague.", False,
              reason=_string("Why a human is needed.", enum=ESCALATION_REASONS)),
        _spec("refuse_request", "Decline the request and record why.", False,
              reason=_string("Why the request is declined.", enum=REFUSAL_REASONS)),
    )
}

if TOOL_SPECS.keys() != HANDLERS.keys():
    raise RuntimeError("tool specs and handlers disagree")


class Environment:
    """Executes an agent's tool proposals for one authenticated caller against one World."""

    def __init__(self, world: World, caller: str) -> None:
        self.world = world
        self.caller = caller
        self.log: list[Step] = []

    def call(self, tool: str, args: Mapping[str, Any]) -> ToolResult:
        result = self._execute(tool, args)
        self.log.append(Step(
            tool=str(tool),
            args=copy.deepcopy(dict(args)) if isinstance(args, Mapping) else {},
            ok=result.ok,
            data=copy.deepcopy(result.data),
            error=result.error,
        ))
        return result

    def _execute(self, tool: object, args: object) -> ToolResult:
        if not isinstance(tool, str) or tool not in TOOL_SPECS:
            return ToolResult(False, None, f"unknown tool: {tool}")
        problem = check_arguments(TOOL_SPECS[tool].parameters, args)
        if problem is not None:
            return ToolResult(False, None, problem)
        assert isinstance(args, Mapping)  # check_arguments guarantees it
        try:
            data = HANDLERS[tool](self.world, self.caller, args)
        except ToolError as exc:
            return ToolResult(False, None, str(exc))
        return ToolResult(True, data, None)

    def outcome(self) -> str:
        return outcome_of(self.log)

    def snapshot(self) -> dict[str, Any]:
        return self.world.snapshot()

    def episode(self) -> Episode:
        return Episode(tuple(self.log), self.outcome(), self.snapshot())


def outcome_of(steps: Sequence[Step]) -> str:
    """Precedence, first match wins: a successful refuse_request -> "refused"; a successful
    escalate_to_human -> "escalated"; any successful mutating call -> "resolved"; any
    successful call -> "informed"; otherwise "no_action". Refusal outranks escalation
    because a refusal is the stronger commitment; failed calls never count."""
    done = [step.tool for step in steps if step.ok]
    if "refuse_request" in done:
        return "refused"
    if "escalate_to_human" in done:
        return "escalated"
    if any(TOOL_SPECS[tool].mutating for tool in done):
        return "resolved"
    return "informed" if done else "no_action"


def replay(
    world_seed: int, caller: str, proposals: Sequence[tuple[str, Mapping[str, Any]]]
) -> Episode:
    """Execute every proposal, in order, on a fresh world; failures do not stop the replay."""
    env = Environment(build_world(world_seed), caller)
    for tool, args in proposals:
        env.call(tool, args)
    return env.episode()
