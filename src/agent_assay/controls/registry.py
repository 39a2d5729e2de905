"""Every control kind, in the order `controls run` executes and prints them.

The kinds are named here, with where each control's class lives, so that reading which
controls a verdict needs (`report`, `compare`) never imports the controls themselves
(the mutation detectors pull in SciPy's statistics, which reading never uses).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_assay.controls.base import Control

_WHERE: dict[str, tuple[str, str]] = {
    "scorer_selftest": ("scorer_selftest", "ScorerSelfTest"),
    "shuffled_gold": ("shuffled_gold", "ShuffledGold"),
    "state_check_bites": ("state_check_bites", "StateCheckBites"),
    "null_agent": ("null_agent", "NullAgentControl"),
    "random_agent": ("random_agent", "RandomAgentControl"),
    "identical_config": ("identical_config", "IdenticalConfig"),
    "positive_control": ("positive_control", "PositiveControl"),
    "mutation": ("mutation_control", "MutationControl"),
    "headline_agreement": ("headline_agreement", "HeadlineAgreement"),
    "judge_calibration": ("judge_calibration", "JudgeCalibration"),
}


NO_JUDGE = "no judge in this scorer set"
NO_QUESTION = "the system declares no judged question on these items"
NO_SYSTEM_HEADLINE = "no headline metric is a system scorer that passes or fails"
NOT_APPLICABLE: Mapping[str, frozenset[str]] = {
    "judge_calibration": frozenset({NO_JUDGE, NO_QUESTION}),
    "headline_agreement": frozenset({NO_SYSTEM_HEADLINE}),
}
"""The NOT_RUN reasons that mean a control has nothing to judge on this system (no judge
to calibrate, or a judged system's judge asked nothing on these items; no system scorer in
the headline): allowed without anyone's say-so, and no
waiver. Named here so reading a verdict imports no control."""


def control_kinds() -> tuple[str, ...]:
    return tuple(_WHERE)


def all_controls() -> tuple[Control, ...]:
    """One instance of each control; a class whose `kind` is not the one it is listed
    under is a programming error, refused here rather than stored under the wrong name."""
    made = []
    for kind, (module, name) in _WHERE.items():
        control: Control = getattr(importlib.import_module(f"agent_assay.controls.{module}"),
                                   name)()
        if control.kind != kind:
            raise RuntimeError(f"controls.{module}.{name} declares kind {control.kind!r}, "
                               f"listed as {kind!r}")
        made.append(control)
    return tuple(made)
