"""The six action families: payload fields, create-tool names and plain-language nouns.

Promise: a single table that tool specs, the create handler, prose and baselines all read,
so a family's economics are defined exactly once. Must not import agent_assay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Unit = Literal["id", "text", "money", "shares", "tokens", "months", "bps", "date"]


@dataclass(frozen=True)
class FieldSpec:
    name: str
    unit: Unit
    description: str

    @property
    def json_type(self) -> str:
        return "string" if self.unit in ("id", "text", "date") else "integer"


@dataclass(frozen=True)
class FamilySpec:
    family: str
    tool: str
    noun: str
    fields: tuple[FieldSpec, ...]
    keywords: tuple[str, ...]

    def unit_of(self, field: str) -> Unit:
        for spec in self.fields:
            if spec.name == field:
                return spec.unit
        raise KeyError(field)


_ENTITY = FieldSpec("entity_id", "id", "Entity that takes the action.")
_DATE = FieldSpec("effective_date", "date", "Effective date, YYYY-MM-DD.")

FAMILIES: dict[str, FamilySpec] = {
    spec.family: spec
    for spec in (
        FamilySpec(
            "material_contract",
            "create_material_contract",
            "material contracts",
            (
                _ENTITY,
                FieldSpec("counterparty", "text", "Name of the other contracting party."),
                FieldSpec("amount", "money", "Total contract value in whole currency units."),
                FieldSpec("term_months", "months", "Contract term in months."),
                _DATE,
            ),
            ("contract", "agreement", "delegation", "approve"),
        ),
        FamilySpec(
            "equity_grant",
            "create_equity_grant",
            "equity awards",
            (
                _ENTITY,
                FieldSpec("recipient_person_id", "id", "Person who receives the award."),
                FieldSpec("award_type", "text", "Either 'rsu' or 'option'."),
                FieldSpec("units", "shares", "Number of shares under the award."),
                FieldSpec("vesting_months", "months", "Total vesting period in months."),
                FieldSpec("cliff_months", "months", "Cliff before first vesting, in months."),
                _DATE,
            ),
            ("award", "equity", "plan", "grant", "compensation"),
        ),
        FamilySpec(
            "security_issuance",
            "create_security_issuance",
            "issuances of shares",
            (
                _ENTITY,
                FieldSpec("security_class_id", "id", "Class of shares to issue."),
                FieldSpec("investor_id", "id", "Party or person who subscribes."),
                FieldSpec("units", "shares", "Number of shares to issue."),
                FieldSpec("price_per_unit", "money", "Issue price per share."),
                _DATE,
            ),
            ("issue", "shares", "consent", "investor", "authorized"),
        ),
        FamilySpec(
            "related_party_transaction",
            "create_related_party_transaction",
            "related-party transactions",
            (
                _ENTITY,
                FieldSpec("counterparty", "text", "Name of the related counterparty."),
                FieldSpec("related_person_id", "id", "Insider who has the interest."),
                FieldSpec("amount", "money", "Transaction value in whole currency units."),
                _DATE,
            ),
            ("related", "interest", "disclosure", "audit", "recuse"),
        ),
        FamilySpec(
            "token_treasury_sale",
            "create_token_treasury_sale",
            "sales of treasury tokens",
            (
                _ENTITY,
                FieldSpec("token_symbol", "text", "Ticker of the token sold."),
                FieldSpec("buyer", "text", "Name of the purchaser."),
                FieldSpec("token_amount", "tokens", "Number of tokens sold."),
                FieldSpec("price_per_token", "money", "Price per token in whole currency units."),
                _DATE,
            ),
            ("token", "treasury", "sale", "lock"),
        ),
        FamilySpec(
            "subsidiary_financing",
            "create_subsidiary_financing",
            "borrowings",
            (
                _ENTITY,
                FieldSpec("lender_id", "id", "Party that lends."),
                FieldSpec("principal", "money", "Principal amount in whole currency units."),
                FieldSpec("interest_rate_bps", "bps", "Annual interest in basis points."),
                FieldSpec("maturity_months", "months", "Months until maturity."),
                _DATE,
            ),
            ("borrowing", "subsidiary", "lender", "indebtedness", "facility"),
        ),
    )
}
