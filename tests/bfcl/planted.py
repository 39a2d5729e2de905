"""Copies of the bfcl system with a defect planted in the benchmark's check or its ground
truth, for the controls to name. Test-only: the installed package is never edited.

- `StateBlindBfcl`: on `BLIND_ENTRY`, BFCL's checker runs with its state comparison
  switched off (its `state_checker` answers valid), as a benchmark whose check forgot the
  world would.
- `WrongTruthBfcl`: `WRONG_ENTRY`'s ground truth lacks its last turn, as a possible
  answer file that lost a line would.

Both keep a few entries only (`KEPT`), so a controls run stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any
from unittest import mock

from agent_assay.adapters.system import Facts
from agent_assay.model import Gold, Suite, Trajectory
from agent_assay_bundled.bfcl.scoring import BfclValid
from agent_assay_bundled.bfcl.source import Benchmark
from agent_assay_bundled.bfcl.system import BfclSystem

KEPT = ("multi_turn_base_0", "multi_turn_base_4")
BLIND_ENTRY = "multi_turn_base_4"
WRONG_ENTRY = "multi_turn_base_0"
CHECKER = "bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker.state_checker"


@contextmanager
def state_blind() -> Iterator[None]:
    with mock.patch(CHECKER, lambda *args: {"valid": True}):
        yield


class BlindValid(BfclValid):
    def verdict(self, gold: Gold, trajectory: Trajectory) -> dict[str, Any] | None:
        if gold.truth.get("entry_id") != BLIND_ENTRY:
            return super().verdict(gold, trajectory)
        with state_blind():
            return super().verdict(gold, trajectory)


class Few(BfclSystem):
    def build_suite_for(self, benchmark: Benchmark) -> Suite:
        suite = super().build_suite_for(benchmark)
        return replace(suite, items=tuple(i for i in suite.items if i.item_id in KEPT))


class StateBlindBfcl(Few):
    facts = replace(BfclSystem.facts, scorers=(BlindValid(),))


class WrongTruthBfcl(Few):
    def truth(self) -> dict[str, list[list[str]]]:
        truth = dict(super().truth())
        truth[WRONG_ENTRY] = truth[WRONG_ENTRY][:-1]
        return truth


__all__ = ["Facts", "StateBlindBfcl", "WrongTruthBfcl"]
