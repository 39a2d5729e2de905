"""Tool-level scorers: which calls were right, wrong, missing, repeated or out of order.

Calls are compared after the adapter's argument normalisers, so ``" SYN-1 "``
and ``"syn-1"`` can be declared equal for a tool whose ids are case-blind.
"""

from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import CallKey, ScoreKind, ScoreValue, ScoringContext


class ArgsMatch:
    name = "args.match"
    version = "1"
    definition = (
        "of gold calls the agent made with the same tool (aligned in order), "
        "the share made with the gold arguments; n/a when none aligned"
    )
    kind: ScoreKind = "fraction"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        proposed, expected = ctx.view(trajectory), ctx.view(gold)
        used = [False] * len(proposed.tools)
        aligned = matched = 0
        for at, tool in enumerate(expected.tools):
            for index, proposed_tool in enumerate(proposed.tools):
                if not used[index] and proposed_tool == tool:
                    used[index] = True
                    aligned += 1
                    matched += proposed.key(index) == expected.key(at)
                    break
        if aligned == 0:
            return ScoreValue(None, {"reason": "no proposed call aligned with a gold call"})
        return ScoreValue(matched / aligned)


class ToolRecall:
    name = "tools.recall"
    version = "1"
    definition = "share of gold calls (tool and normalised arguments) the agent proposed"
    kind: ScoreKind = "fraction"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        expected = ctx.view(gold)
        if not expected.calls:
            return ScoreValue(None, {"reason": "gold expects no calls"})
        proposed: dict[CallKey, int] = {}  # a multiset
        for key in ctx.view(trajectory).all_keys():
            proposed[key] = proposed.get(key, 0) + 1
        found = 0  # the size of the multisets' intersection
        for key in expected.all_keys():
            if proposed.get(key, 0) > 0:
                proposed[key] -= 1
                found += 1
        return ScoreValue(found / len(expected.calls))


class WrongTools:
    name = "tools.wrong"
    version = "1"
    definition = "number of proposed calls whose tool appears nowhere in the gold path"
    kind: ScoreKind = "count"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        allowed = set(ctx.view(gold).tools)
        return ScoreValue(float(sum(tool not in allowed for tool in ctx.view(trajectory).tools)))


class MissingTools:
    name = "tools.missing"
    version = "1"
    definition = "size of the multiset of gold tool names minus proposed tool names"
    kind: ScoreKind = "count"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        proposed: dict[str, int] = {}  # a multiset of tool names
        for tool in ctx.view(trajectory).tools:
            proposed[tool] = proposed.get(tool, 0) + 1
        missing = 0  # the size of the multiset difference gold minus proposed
        for tool in ctx.view(gold).tools:
            if proposed.get(tool, 0) > 0:
                proposed[tool] -= 1
            else:
                missing += 1
        return ScoreValue(float(missing))


class RedundantTools:
    name = "tools.redundant"
    version = "1"
    definition = "number of proposed calls identical (after normalising) to an earlier one"
    kind: ScoreKind = "count"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        keys = ctx.view(trajectory).all_keys()
        return ScoreValue(float(len(keys) - len(set(keys))))  # each repeat of an earlier one


class OrderViolations:
    name = "tools.order_violations"
    version = "1"
    definition = (
        "number of mutating calls proposed before their anchor call (declared per tool or "
        "for all) had succeeded"
    )
    kind: ScoreKind = "count"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if not ctx.order_anchors:
            return ScoreValue(None, {"reason": "the adapter declares no order anchor"})
        succeeded: set[str] = set()
        violations = 0
        for step in trajectory.steps:
            tool = step.call.tool
            anchor = ctx.anchor_of(tool)
            violations += tool in ctx.mutating_tools and anchor is not None and (
                anchor not in succeeded
            )
            if step.ok:
                succeeded.add(tool)
        return ScoreValue(float(violations))
