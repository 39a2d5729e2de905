"""BFCL multi-turn reproduced to the digit: our `bfcl.valid` on gold's replay against
BFCL's own verdict on the same answers.

For every entry of each category: gold's path is replayed through the `bfcl` system's
episodes (the harness's replay path) and scored by `bfcl.valid`; separately, the ground
truth is handed to `multi_turn_checker` as the model's result, the way BFCL's pipeline
hands a model's decoded calls (one step per turn holding the turn's calls, an empty turn
as no step). Each entry's verdicts (valid, error type) are compared with `==`; a category
is "reproduced to the digit" only when every entry matches.

Usage: python -m tools.cases.reproduce_bfcl [CATEGORY ...] [--detail FILE]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
           "multi_turn_long_context")


@dataclass(frozen=True)
class Row:
    entry_id: str
    ours: tuple[bool, str | None]
    theirs: tuple[bool, str | None]

    @property
    def match(self) -> bool:
        return self.ours == self.theirs


def bfcl_verdict(entry: Any, truth: Sequence[Sequence[str]]) -> tuple[bool, str | None]:
    """`multi_turn_checker` on the ground truth as a model's decoded result."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    from agent_assay_bundled.bfcl.execution import fresh_name, release

    decoded = [[list(turn)] if turn else [] for turn in truth]
    name = fresh_name("reproduce")
    try:
        done = multi_turn_checker(decoded, [list(t) for t in truth], dict(entry),
                                  entry["id"].rsplit("_", 1)[0], name)
    finally:
        release(name)
    return bool(done["valid"]), done.get("error_type")


def rows_for(category: str) -> list[Row]:
    from agent_assay.adapters.loaded import run_calls
    from agent_assay_bundled.bfcl.scoring import BfclValid
    from agent_assay_bundled.bfcl.source import parse
    from agent_assay_bundled.bfcl.system import BfclSystem

    system = BfclSystem()
    suite = system.build_suite_for(parse(category))
    scorer, rows = BfclValid(), []
    for item in suite.items:
        replayed = run_calls(system, item.public(), None, item.gold.path, seed=0, repetition=1)
        ours = scorer.verdict(item.gold, replayed) or {"valid": False,
                                                       "error_type": "no ground truth"}
        entry = system.entry(item.item_id)
        rows.append(Row(item.item_id, (bool(ours["valid"]), ours.get("error_type")),
                        bfcl_verdict(entry, item.gold.truth["ground_truth"])))
    return rows


def verdict_text(verdict: tuple[bool, str | None]) -> str:
    return "valid" if verdict[0] else f"invalid ({verdict[1]})"


def report(category: str, rows: Iterable[Row]) -> tuple[list[str], bool]:
    """The comparison's lines and whether every entry matched."""
    rows = list(rows)
    lines = [f"{r.entry_id}\tours: {verdict_text(r.ours)}\tbfcl: {verdict_text(r.theirs)}"
             f"\t{'match' if r.match else 'MISMATCH'}" for r in rows]
    ours = sum(r.ours[0] for r in rows)
    theirs = sum(r.theirs[0] for r in rows)
    mismatched = [r.entry_id for r in rows if not r.match]
    n = len(rows)
    if not mismatched:
        lines.append(f"{category}: reproduced to the digit: bfcl.valid {ours}/{n} "
                     f"({ours / n:.4f}) == BFCL's checker {theirs}/{n} ({theirs / n:.4f})")
    else:
        lines.append(f"{category}: NOT reproduced: {len(mismatched)} of {n} entries differ "
                     f"(first: {mismatched[0]}); bfcl.valid {ours}/{n}, BFCL's checker "
                     f"{theirs}/{n}")
    return lines, not mismatched


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("categories", nargs="*", default=list(DEFAULT))
    parser.add_argument("--detail", type=Path, default=None,
                        help="Write the per-entry comparison here; print only each "
                             "category's verdict and the entries that differ.")
    args = parser.parse_args(argv)
    every, detail = True, []
    for category in args.categories:
        lines, matched = report(category, rows_for(category))
        detail += lines
        shown = lines if args.detail is None else [
            line for line in lines if "MISMATCH" in line or not line.startswith(category + "_")]
        print("\n".join(shown))
        every &= matched
    if args.detail is not None:
        args.detail.parent.mkdir(parents=True, exist_ok=True)
        args.detail.write_text("\n".join(detail) + "\n")
    return 0 if every else 1


if __name__ == "__main__":
    sys.exit(main())
