"""The tool implementations, one method per tool, acting on one episode's state.

Promise: handlers read only the task's world and request, mutate only ``EpisodeState``,
and signal every agent mistake with ``ToolError``; no output depends on record prose
except search and read, which return it. Must not import agent_assay.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from govsim.attempts import Attempt
from govsim.errors import ToolError
from govsim.families import FAMILIES
from govsim.registers import read_register
from govsim.search import Bm25Index, tokenize
from govsim.state import CreatedAction, EpisodeState, Execution, receipt
from govsim.task import Task
from govsim.validator import judge
from govsim.world import Record

Result = dict[str, Any]
SNIPPET_CHARS = 200


def record_text(record: Record) -> str:
    """The searchable prose of a record: title, headings and clause text only."""
    parts = [record.title, *(f"{s.heading}. {s.text}" for s in record.sections)]
    return "\n".join(parts)


class Toolbox:
    """One episode's tools; a fresh Toolbox per Environment so no state leaks between runs."""

    def __init__(
        self, task: Task, state: EpisodeState, preflight_budget: int, max_results: int
    ) -> None:
        self.task = task
        self.world = task.world
        self.state = state
        self.preflight_budget = preflight_budget
        self.max_results = max_results
        self.index = Bm25Index([(r.record_id, record_text(r)) for r in task.world.records])
        self.handlers: dict[str, Callable[[dict[str, Any]], Result]] = {
            "search_records": self.search_records,
            "read_record": self.read_record,
            "inspect_register": self.inspect_register,
            "record_authorization": self.record_authorization,
            "preflight_action": self.preflight_action,
            "execute_action": self.execute_action,
            FAMILIES[task.family].tool: self.create_action,
        }

    # -- reading ---------------------------------------------------------------------------
    def search_records(self, args: dict[str, Any]) -> Result:
        entity = args.get("entity_id") or None
        kind = args.get("record_type") or None
        if entity is not None and entity not in self.world.entity_by_id:
            raise ToolError(f"unknown entity_id {entity!r}")
        records = self.world.record_by_id

        def keep(record_id: str) -> bool:
            r = records[record_id]
            return (entity is None or r.entity_id == entity) and (
                kind is None or r.record_type == kind
            )

        hits = self.index.search(args["query"], keep, self.max_results)
        return {
            "results": [
                {
                    **self._summary(records[h.doc_id]),
                    "score": h.score,
                    "snippet": _snippet(records[h.doc_id], args["query"]),
                }
                for h in hits
            ]
        }

    def read_record(self, args: dict[str, Any]) -> Result:
        record = self.world.record_by_id.get(args["record_id"])
        if record is None:
            raise ToolError(f"unknown record_id {args['record_id']!r}")
        sections = [{"heading": s.heading, "text": s.text} for s in record.sections]
        return {**self._summary(record), "sections": sections}

    def inspect_register(self, args: dict[str, Any]) -> Result:
        day = _parse_date(args["as_of_date"])
        rows = read_register(self.world, args["entity_id"], args["register"], day)
        return {
            "entity_id": args["entity_id"],
            "register": args["register"],
            "as_of_date": day.isoformat(),
            "rows": rows,
        }

    # -- acting ----------------------------------------------------------------------------
    def create_action(self, args: dict[str, Any]) -> Result:
        if self.state.action is not None:
            raise ToolError(f"action {self.state.action.action_id} already exists")
        wanted = self.task.request.payload
        wrong = sorted(k for k in wanted if args.get(k) != wanted[k])
        if wrong:
            raise ToolError(
                f"economics differ from the request: {', '.join(wrong)}; nothing was created"
            )
        payload = {k: args[k] for k in wanted}
        self.state.action = CreatedAction(self.task.action_id, self.task.family, payload)
        return {"action_id": self.task.action_id, "status": "created"}

    def record_authorization(self, args: dict[str, Any]) -> Result:
        self._require_action(args["action_id"])
        attempt = Attempt(
            args["authorizer_id"],
            args["method"],
            tuple(args["participant_ids"]),
            tuple(args.get("recused_ids", [])),
            tuple(args.get("disclosure_record_ids", [])),
        )
        self.state.attempts.append(attempt)
        return {"recorded": True, "attempt_number": len(self.state.attempts)}

    def preflight_action(self, args: dict[str, Any]) -> Result:
        if self.state.preflight_used >= self.preflight_budget:
            raise ToolError("no preflight credits left")
        self._require_action(args["action_id"])
        self.state.preflight_used += 1
        signatory = args.get("signatory_person_id") or None
        ok, defects = judge(self.task, self.state, signatory)
        return {
            "would_be_valid": ok,
            "signatory_checked": signatory is not None,
            "defects": [d.as_dict() for d in defects],
        }

    def execute_action(self, args: dict[str, Any]) -> Result:
        action = self._require_action(args["action_id"])
        signatory = args["signatory_person_id"]
        stamp = receipt(self.task.secret, action, self.state.attempts, signatory)
        self.state.execution = Execution(action.action_id, signatory, stamp)
        return {"status": "executed", "receipt": stamp}

    # -- helpers ---------------------------------------------------------------------------
    def _require_action(self, action_id: str) -> CreatedAction:
        action = self.state.action
        if action is None:
            raise ToolError("no action has been created yet")
        if action_id != action.action_id:
            raise ToolError(f"unknown action_id {action_id!r}")
        if self.state.execution is not None:
            raise ToolError("the action has already been executed")
        return action

    def _summary(self, record: Record) -> Result:
        return {
            "record_id": record.record_id,
            "title": record.title,
            "record_type": record.record_type,
            "entity_id": record.entity_id,
            "effective_date": record.effective.isoformat(),
        }


def _parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise ToolError(f"as_of_date must be YYYY-MM-DD, not {text!r}") from exc


def _snippet(record: Record, query: str) -> str:
    """The section sharing most query terms, trimmed; ties go to the earliest section."""
    terms = set(tokenize(query))
    best = max(record.sections, key=lambda s: len(terms & set(tokenize(s.text))), default=None)
    return "" if best is None else best.text[:SNIPPET_CHARS]
