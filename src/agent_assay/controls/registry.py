"""Every control kind, in the order `controls run` executes and prints them."""

from __future__ import annotations

from agent_assay.controls.base import Control
from agent_assay.controls.identical_config import IdenticalConfig
from agent_assay.controls.judge_calibration import JudgeCalibration
from agent_assay.controls.mutation_control import MutationControl
from agent_assay.controls.null_agent import NullAgentControl
from agent_assay.controls.positive_control import PositiveControl
from agent_assay.controls.random_agent import RandomAgentControl
from agent_assay.controls.scorer_selftest import ScorerSelfTest
from agent_assay.controls.shuffled_gold import ShuffledGold
from agent_assay.controls.state_check_bites import StateCheckBites


def all_controls() -> tuple[Control, ...]:
    return (
        ScorerSelfTest(),
        ShuffledGold(),
        StateCheckBites(),
        NullAgentControl(),
        RandomAgentControl(),
        IdenticalConfig(),
        PositiveControl(),
        MutationControl(),
        JudgeCalibration(),
    )


def control_kinds() -> tuple[str, ...]:
    return tuple(c.kind for c in all_controls())
