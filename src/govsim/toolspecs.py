"""Tool specifications as plain data, ready for an adapter to show an agent.

Promise: names, descriptions, JSON-schema parameters and a mutating flag for every tool;
the environment validates arguments against exactly these schemas.
Must not import agent_assay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from govsim.attempts import METHODS
from govsim.families import FAMILIES, FamilySpec
from govsim.registers import READERS

REGISTERS = tuple(READERS)
RECORD_TYPES = (
    "bylaws",
    "articles",
    "committee_charter",
    "delegation_matrix",
    "equity_plan",
    "investor_agreement",
    "debt_instrument",
    "board_resolution",
    "conflict_disclosure",
    "policy",
)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]
    mutating: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "mutating": self.mutating,
        }


def _schema(props: dict[str, dict[str, Any]], required: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": list(required),
        "additionalProperties": False,
    }


_STR = {"type": "string"}
_IDS = {"type": "array", "items": {"type": "string"}}

SEARCH = ToolSpec(
    "search_records",
    "Rank the company's legal records against a keyword query (BM25) and return the best "
    "few with a snippet. Optional entity_id and record_type filters; an empty string means "
    "no filter.",
    _schema(
        {
            "query": _STR,
            "entity_id": _STR,
            "record_type": {"type": "string", "enum": ["", *RECORD_TYPES]},
        },
        ("query",),
    ),
    False,
)
READ = ToolSpec(
    "read_record",
    "Return every section of one record: title, type, entity, effective date and text.",
    _schema({"record_id": _STR}, ("record_id",)),
    False,
)
INSPECT = ToolSpec(
    "inspect_register",
    "Read one register of an entity as it stood on a date (YYYY-MM-DD): directors, officers, "
    "committees, bodies (every body that can approve), cap_table, capacity (authorised "
    "shares, plan and treasury headroom), subsidiaries, parent, or parties (outside "
    "investors and lenders).",
    _schema(
        {
            "entity_id": _STR,
            "register": {"type": "string", "enum": list(REGISTERS)},
            "as_of_date": _STR,
        },
        ("entity_id", "register", "as_of_date"),
    ),
    False,
)
RECORD_AUTH = ToolSpec(
    "record_authorization",
    "Record one approval step for the created action. Boards and committees act by "
    "'meeting' or 'written_consent' with participant_ids = the members voting in favour and "
    "recused_ids = members who recuse; an officer acting under delegated authority uses "
    "'officer_approval' with themself as the only participant; holders of a share class "
    "(authorizer = the holders body) or an outside party use 'holder_consent' with the "
    "consenting holders, or the party itself, as participants. Cite conflict disclosures in "
    "disclosure_record_ids. Every call counts as an authorisation attempt and the reply never "
    "says whether the step is valid.",
    _schema(
        {
            "action_id": _STR,
            "authorizer_id": _STR,
            "method": {"type": "string", "enum": list(METHODS)},
            "participant_ids": _IDS,
            "recused_ids": _IDS,
            "disclosure_record_ids": _IDS,
        },
        ("action_id", "authorizer_id", "method", "participant_ids"),
    ),
    True,
)
PREFLIGHT = ToolSpec(
    "preflight_action",
    "Dry-run validation of the action as it stands; uses one preflight credit and changes "
    "nothing. Pass a signatory to have it checked too.",
    _schema({"action_id": _STR, "signatory_person_id": _STR}, ("action_id",)),
    False,
)
EXECUTE = ToolSpec(
    "execute_action",
    "Sign and execute the action. Irreversible and final: the episode ends.",
    _schema({"action_id": _STR, "signatory_person_id": _STR}, ("action_id", "signatory_person_id")),
    True,
)


def create_spec(spec: FamilySpec) -> ToolSpec:
    """One create tool per family; its parameters are the family's economics."""
    props = {f.name: {"type": f.json_type, "description": f.description} for f in spec.fields}
    return ToolSpec(
        spec.tool,
        f"Create the proposed action ({spec.noun}) with exactly the requested economics. "
        "Nothing is approved or executed; mismatched economics are rejected.",
        _schema(props, tuple(f.name for f in spec.fields)),
        True,
    )


CREATE_TOOLS: dict[str, ToolSpec] = {fam: create_spec(spec) for fam, spec in FAMILIES.items()}
BASE_TOOLS = (SEARCH, READ, INSPECT, RECORD_AUTH, PREFLIGHT, EXECUTE)
TOOL_SPECS: tuple[ToolSpec, ...] = (*BASE_TOOLS, *CREATE_TOOLS.values())


def tools_for(family: str) -> tuple[ToolSpec, ...]:
    """What one task's agent sees: the base tools plus only its own create tool."""
    return (*BASE_TOOLS[:3], CREATE_TOOLS[family], *BASE_TOOLS[3:])
