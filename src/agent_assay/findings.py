"""A finding: one thing in the store that does not match its own evidence.

Checks never raise on what they find; they describe it, one line each, naming
the row, block, table or trigger, so a reader can go straight to it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    where: str
    problem: str

    def line(self) -> str:
        return f"{self.where}: {self.problem}"


def summarise_findings(findings: list[Finding] | tuple[Finding, ...], limit: int) -> list[str]:
    """At most `limit` finding lines, then how many more there are."""
    lines = [f.line() for f in findings[:limit]]
    if len(findings) > limit:
        lines.append(f"... and {len(findings) - limit} more finding(s)")
    return lines
