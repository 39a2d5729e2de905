"""Mutation operators: each edits a list of proposed calls in one defect-shaped way.

Operators are generic over adapters. What is domain-specific comes from the
adapter's hooks through `OperatorContext`: which tools mutate the world, and
which values are valid identifiers of the same kind (argument pools), so a
corrupted identifier still names a real entity and the call still succeeds.
An operator returns the calls unchanged when it has nothing to act on; that
is how equivalence is detected.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_assay.model import ToolCall


@dataclass(frozen=True)
class OperatorContext:
    mutating_tools: frozenset[str]
    argument_pools: Mapping[str, Sequence[Any]]
    params: Mapping[str, Any] = field(default_factory=dict)


class Operator(Protocol):
    name: str
    accepts: tuple[str, ...]
    """The parameters a mutant set may give it (`required` ones among them)."""

    def mutate(
        self, calls: Sequence[ToolCall], rng: random.Random, ctx: OperatorContext
    ) -> list[ToolCall]: ...


TARGETS = ("mutating", "last")
"""`params.target`: the first state-changing call (else the last call), or the last call."""


def _target_index(calls: Sequence[ToolCall], ctx: OperatorContext) -> int | None:
    """The call an operator acts on: the first mutating call, else the last call."""
    if not calls:
        return None
    if ctx.params.get("target", "mutating") == "mutating":
        for index, call in enumerate(calls):
            if call.tool in ctx.mutating_tools:
                return index
    return len(calls) - 1


class DropToolCall:
    """Omit one proposal (the first state-changing one when there is one)."""

    name = "drop_tool_call"
    accepts: tuple[str, ...] = ("target",)

    def mutate(
        self, calls: Sequence[ToolCall], rng: random.Random, ctx: OperatorContext
    ) -> list[ToolCall]:
        index = _target_index(calls, ctx)
        return list(calls) if index is None else [*calls[:index], *calls[index + 1 :]]


class DuplicateCall:
    """Propose one call twice in a row."""

    name = "duplicate_call"
    accepts: tuple[str, ...] = ("target",)

    def mutate(
        self, calls: Sequence[ToolCall], rng: random.Random, ctx: OperatorContext
    ) -> list[ToolCall]:
        index = _target_index(calls, ctx)
        return list(calls) if index is None else [*calls[: index + 1], *calls[index:]]


class SwapCallOrder:
    """Swap the first adjacent pair of calls to different tools."""

    name = "swap_call_order"
    accepts: tuple[str, ...] = ()

    def mutate(
        self, calls: Sequence[ToolCall], rng: random.Random, ctx: OperatorContext
    ) -> list[ToolCall]:
        out = list(calls)
        for i in range(len(out) - 1):
            if out[i].tool != out[i + 1].tool:
                out[i], out[i + 1] = out[i + 1], out[i]
                break
        return out


DISTANCES = ("any", "adjacent")
"""`params.distance` of swap_any_pair: any two calls, or only neighbours."""


def swappable_pairs(calls: Sequence[ToolCall], distance: str = "any") -> list[tuple[int, int]]:
    """Every pair (i, j), i < j, whose swap changes the path: the two calls differ in tool or
    in arguments. Identical calls swapped leave the same path, an equivalent mutant, so they
    are never offered."""
    reach = 1 if distance == "adjacent" else len(calls)
    return [
        (i, j)
        for i in range(len(calls))
        for j in range(i + 1, min(i + reach + 1, len(calls)))
        if calls[i] != calls[j]
    ]


def transposition(before: Sequence[ToolCall], after: Sequence[ToolCall]) -> tuple[int, int] | None:
    """The two positions whose calls `after` swapped, when that is the only difference from
    `before`; None for any other edit. How a pass learns which order a mutant reversed,
    whichever operator made it."""
    moved = [i for i, (b, a) in enumerate(zip(before, after, strict=False)) if b != a]
    if len(before) != len(after) or len(moved) != 2:
        return None
    i, j = moved
    return (i, j) if before[i] == after[j] and before[j] == after[i] else None


class SwapAnyPair:
    """Swap one pair of differing calls, chosen by the pass's seeded rng among every pair
    (`distance: adjacent`: among neighbours only). Same-tool calls with different arguments
    count, so every order the path implies can be reversed, not only the first."""

    name = "swap_any_pair"
    accepts: tuple[str, ...] = ("distance",)

    def mutate(
        self, calls: Sequence[ToolCall], rng: random.Random, ctx: OperatorContext
    ) -> list[ToolCall]:
        out = list(calls)
        pairs = swappable_pairs(out, str(ctx.params.get("distance", "any")))
        if pairs:
            i, j = rng.choice(pairs)
            out[i], out[j] = out[j], out[i]
        return out


class CorruptArg:
    """Replace one identifier argument with another valid identifier of the same kind.

    The replacement is drawn from the adapter's pool for that argument name, so
    the call still succeeds against the environment: the defect is the wrong
    entity, not a malformed call. `params.args` restricts which arguments.
    """

    name = "corrupt_arg"
    accepts: tuple[str, ...] = ("args",)

    def mutate(
        self, calls: Sequence[ToolCall], rng: random.Random, ctx: OperatorContext
    ) -> list[ToolCall]:
        wanted = ctx.params.get("args")
        out = list(calls)
        for index, call in enumerate(out):
            for name in sorted(call.args):
                if wanted is not None and name not in wanted:
                    continue
                pool = [v for v in ctx.argument_pools.get(name, ()) if v != call.args[name]]
                if pool and isinstance(call.args[name], str):
                    out[index] = ToolCall(call.tool, {**call.args, name: rng.choice(pool)})
                    return out
        return out


class SkipState:
    """Marker operator: the state-changing calls are proposed but never applied.

    Its calls are unchanged; the engine replays only the non-mutating calls and
    records the mutating ones as proposed-but-not-applied steps.
    """

    name = "skip_state"
    accepts: tuple[str, ...] = ()

    def mutate(
        self, calls: Sequence[ToolCall], rng: random.Random, ctx: OperatorContext
    ) -> list[ToolCall]:
        return list(calls)

    @staticmethod
    def skipped(calls: Sequence[ToolCall], ctx: OperatorContext) -> list[bool]:
        return [call.tool in ctx.mutating_tools for call in calls]


def _first_with(calls: Sequence[ToolCall], arg: str) -> int | None:
    return next((i for i, c in enumerate(calls) if arg in c.args), None)


class SetArg:
    """Set one named argument to a fixed value (e.g. empty a list, null a field)."""

    name = "set_arg"
    required = ("arg", "value")
    accepts: tuple[str, ...] = required

    def mutate(
        self, calls: Sequence[ToolCall], rng: random.Random, ctx: OperatorContext
    ) -> list[ToolCall]:
        arg, value = ctx.params["arg"], ctx.params["value"]
        out = list(calls)
        index = _first_with(out, arg)
        if index is not None and out[index].args[arg] != value:
            out[index] = ToolCall(out[index].tool, {**out[index].args, arg: value})
        return out


class FlipArg:
    """Swap a two-valued argument for its other value (allow and deny, true and false)."""

    name = "flip_arg"
    required = ("arg", "values")
    accepts: tuple[str, ...] = required

    def mutate(
        self, calls: Sequence[ToolCall], rng: random.Random, ctx: OperatorContext
    ) -> list[ToolCall]:
        arg = ctx.params["arg"]
        first, second = ctx.params["values"]
        out = list(calls)
        index = _first_with(out, arg)
        if index is not None and out[index].args[arg] in (first, second):
            flipped = second if out[index].args[arg] == first else first
            out[index] = ToolCall(out[index].tool, {**out[index].args, arg: flipped})
        return out


class DropListElement:
    """Remove the first element of a list-valued argument (e.g. one evidence reference)."""

    name = "drop_list_element"
    required = ("arg",)
    accepts: tuple[str, ...] = required

    def mutate(
        self, calls: Sequence[ToolCall], rng: random.Random, ctx: OperatorContext
    ) -> list[ToolCall]:
        arg = ctx.params["arg"]
        out = list(calls)
        index = _first_with(out, arg)
        if index is not None and isinstance(out[index].args[arg], list) and out[index].args[arg]:
            out[index] = ToolCall(
                out[index].tool, {**out[index].args, arg: out[index].args[arg][1:]}
            )
        return out


CLASSIC: tuple[Operator, ...] = (
    DropToolCall(),
    CorruptArg(),
    SwapCallOrder(),
    SwapAnyPair(),
    DuplicateCall(),
    SkipState(),
)
"""The operators that need no parameters: the default mutant set."""

OPERATORS: Mapping[str, Operator] = {
    op.name: op for op in (*CLASSIC, SetArg(), FlipArg(), DropListElement())
}

REQUIRED_PARAMS: Mapping[str, tuple[str, ...]] = {
    name: tuple(getattr(op, "required", ())) for name, op in OPERATORS.items()
}
