"""Each defect code is produced by the mistake it names, and a clean path has none."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from govsim import Code, Environment, solve, validate
from govsim.agents.driver import Driver
from govsim.agents.guided import replay
from govsim.attempts import Attempt
from govsim.generator import generate_one
from govsim.oracle import Solution
from govsim.task import Task
from govsim.templates import TEMPLATES
from govsim.validator import Report


def find(template_id: str, accept: Callable[[Task, Solution], bool] = lambda t, s: True) -> Task:
    """The first generated instance of a template that has the wanted structure."""
    for seed in range(300):
        task = generate_one(seed, "eval", 0, "easy", template_id)
        if accept(task, solve(task)):
            return task
    raise LookupError(template_id)


def run(task: Task, steps: list[Attempt], signatory: str) -> Report:
    env = Environment(task)
    replay(Driver(env, task.public()), steps, signatory)
    return validate(task, env.snapshot())


def codes(report: Report) -> set[Code]:
    return {d.code for d in report.defects}


def _body(task: Task, kind: str) -> str:
    return next(
        b.body_id
        for b in task.world.bodies
        if b.kind == kind and b.entity_id == task.request.entity_id
    )


def _swap(steps: tuple[Attempt, ...], who: str, **changes: Any) -> list[Attempt]:
    return [replace(s, **changes) if s.authorizer_id == who else s for s in steps]


def _non_officer_director(task: Task) -> str:
    day = task.request.day
    board = _body(task, "board")
    return next(p for p in task.world.members(board, day) if not task.world.offices(p, day))


def test_oracle_path_has_no_defects() -> None:
    for template in TEMPLATES:
        task = find(template.template_id)
        s = solve(task)
        report = run(task, list(s.steps), s.signatory_id)
        assert report.valid and not report.defects and report.reward == 1.0


def test_quorum_votes_and_membership() -> None:
    task = find("issuance_advisor_common")
    s = solve(task)
    board = _body(task, "board")
    members = next(x for x in s.steps if x.authorizer_id == board).participant_ids
    thin = run(task, _swap(s.steps, board, participant_ids=members[:1]), s.signatory_id)
    assert {Code.NO_QUORUM, Code.INSUFFICIENT_VOTES} <= codes(thin)
    departed = next(
        a.person_id for a in task.world.appointments if a.body_id == board and a.end is not None
    )
    stale = run(task, _swap(s.steps, board, participant_ids=(*members, departed)), s.signatory_id)
    assert Code.INELIGIBLE_PARTICIPANT in codes(stale)


def test_conflict_codes() -> None:
    task = find("equity_insider_award")
    s = solve(task)
    board = _body(task, "board")
    ceo = task.request.payload["recipient_person_id"]
    step = next(x for x in s.steps if x.authorizer_id == board)
    counted = run(
        task,
        _swap(s.steps, board, participant_ids=(*step.participant_ids, ceo), recused_ids=()),
        s.signatory_id,
    )
    assert Code.CONFLICTED_VOTE_COUNTED in codes(counted)
    absent = run(task, _swap(s.steps, board, recused_ids=()), s.signatory_id)
    assert Code.MISSING_RECUSAL in codes(absent)
    uncited = run(task, _swap(s.steps, board, disclosure_record_ids=()), s.signatory_id)
    assert Code.MISSING_DISCLOSURE in codes(uncited)
    assert not validate(task, {}).valid


def test_special_approval_and_wrong_method() -> None:
    task = find("related_director_firm", lambda t, s: s.cost == 2)
    s = solve(task)
    audit = s.steps[0].authorizer_id
    skipped = run(task, [x for x in s.steps if x.authorizer_id != audit], s.signatory_id)
    assert {Code.MISSING_SPECIAL_APPROVAL, Code.SEQUENCE_VIOLATED} <= codes(skipped)
    board = _body(task, "board")
    wrong = run(task, _swap(s.steps, board, method="officer_approval"), s.signatory_id)
    assert Code.WRONG_METHOD in codes(wrong)


def test_consent_sequence_and_capacity() -> None:
    task = find("issuance_preferred_extension", lambda t, s: s.cost == 3)
    s = solve(task)
    consent, board, increase = s.steps
    assert Code.SEQUENCE_VIOLATED in codes(run(task, [board, consent, increase], s.signatory_id))
    assert Code.MISSING_CONSENT in codes(run(task, [board, increase], s.signatory_id))
    assert Code.CAPACITY_EXCEEDED in codes(run(task, [consent, board], s.signatory_id))


def test_prohibition_and_wrong_authorizer() -> None:
    task = find("issuance_advisor_common", lambda t, s: s.cost == 2)
    s = solve(task)
    board = _body(task, "board")
    no_waiver = run(task, [x for x in s.steps if x.authorizer_id == board], s.signatory_id)
    assert Code.PROHIBITED_ACTION in codes(no_waiver)
    common = next(
        b for b in task.world.bodies if b.class_id == task.request.payload["security_class_id"]
    )
    instead = Attempt(
        common.body_id, "holder_consent", tuple(task.world.holdings(common.class_id or ""))
    )
    swapped = [instead if x.authorizer_id == board else x for x in s.steps]
    report = run(task, swapped, s.signatory_id)
    assert {Code.MISSING_AUTHORIZATION, Code.WRONG_AUTHORIZER} <= codes(report)


def test_stale_authority_from_a_superseded_delegation() -> None:
    def stale_band(task: Task, s: Solution) -> bool:
        grants = task.world.grants
        old = next(g for g in grants if g.end is not None)
        return s.cost == 2 and old.within is not None and old.within.holds(task.request.payload)

    task = find("contract_delegation_ladder", stale_band)
    s = solve(task)
    ceo = next(g.holder_id for g in task.world.grants)
    report = run(task, [Attempt(ceo, "officer_approval", (ceo,))], s.signatory_id)
    assert Code.STALE_AUTHORITY in codes(report) and report.reward == 0.0


def test_signatory_codes() -> None:
    task = find("financing_subsidiary_loan")
    s = solve(task)
    parent = task.world.entity_by_id[task.request.entity_id].parent_id
    parent_ceo = next(
        p for p, r in task.world.officers(str(parent), task.request.day) if r == "ceo"
    )
    assert Code.WRONG_ENTITY_SIGNATORY in codes(run(task, list(s.steps), parent_ceo))
    outsider = _non_officer_director(task)
    assert Code.INVALID_SIGNATORY in codes(run(task, list(s.steps), outsider))


def test_terms_mismatch_and_missing_execution() -> None:
    task = find("contract_investor_threshold")
    s = solve(task)
    env = Environment(task)
    replay(Driver(env, task.public()), list(s.steps), s.signatory_id)
    snap = env.snapshot()
    snap["action"]["payload"]["amount"] = int(snap["action"]["payload"]["amount"]) - 1
    assert {Code.TERMS_MISMATCH, Code.EXECUTION_UNVERIFIED} <= codes(validate(task, snap))
    env = Environment(task)
    env.call(task.public().create_tool, dict(task.request.payload))
    report = validate(task, env.snapshot())
    assert Code.EXECUTION_MISSING in codes(report) and report.reward == 0.0


def test_redundant_attempts_lower_but_do_not_zero_the_reward() -> None:
    task = find("contract_delegation_ladder", lambda t, s: s.cost == 2)
    s = solve(task)
    report = run(task, [*s.steps, s.steps[-1]], s.signatory_id)
    assert report.valid and report.reward == 2 / 3
