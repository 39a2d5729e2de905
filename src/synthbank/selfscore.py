"""The system's own scoring of an episode against a golden script.

Promise: scores depend only on tool names (in order) and the executed outcome, never on
arguments, so they are a deliberately simple, independent reference for the harness to
cross-check. LCS is implemented here from scratch on purpose. This module must not import
agent_assay.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from synthbank.scripts import Script
from synthbank.tools import Episode


@dataclass(frozen=True)
class ScriptScore:
    exact_match: bool
    lcs_ratio: float
    actual_outcome: str
    outcome_match: bool
    actual_path: list[str]
    wrong_tool_calls: int
    missing_tool_calls: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Longest common subsequence length, by the textbook dynamic programme."""
    previous = [0] * (len(b) + 1)
    for item in a:
        current = [0]
        for j, other in enumerate(b):
            current.append(previous[j] + 1 if item == other else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def lcs_ratio(a: Sequence[str], b: Sequence[str]) -> float:
    """2·LCS / (len(a) + len(b)); two empty paths agree perfectly."""
    if not a and not b:
        return 1.0
    return 2 * lcs_length(a, b) / (len(a) + len(b))


def score_script(script: Script, episode: Episode) -> ScriptScore:
    expected = script.expected_tools()
    actual = [step.tool for step in episode.steps]
    missing = Counter(expected) - Counter(actual)
    return ScriptScore(
        exact_match=actual == expected,
        lcs_ratio=lcs_ratio(actual, expected),
        actual_outcome=episode.outcome,
        outcome_match=episode.outcome == script.expected_outcome,
        actual_path=actual,
        wrong_tool_calls=sum(1 for tool in actual if tool not in expected),
        missing_tool_calls=sum(missing.values()),
    )


def aggregate_scores(scores: Sequence[ScriptScore]) -> dict[str, Any]:
    """Means and totals over scripts; refuses an empty set rather than inventing a number."""
    if not scores:
        raise ValueError("cannot aggregate zero script scores")
    n = len(scores)
    return {
        "n": n,
        "trajectory_accuracy": sum(s.exact_match for s in scores) / n,
        "mean_lcs_ratio": sum(s.lcs_ratio for s in scores) / n,
        "outcome_accuracy": sum(s.outcome_match for s in scores) / n,
        "wrong_tool_calls_total": sum(s.wrong_tool_calls for s in scores),
        "missing_tool_calls_total": sum(s.missing_tool_calls for s in scores),
    }
