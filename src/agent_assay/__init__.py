"""agent-assay: an evaluation-integrity harness for tool-calling agents.

What an adapter author and a script need is exported here: the plugin surface
(`System`, `Facts` and the capabilities), the vocabulary (`Item`, `Gold`,
`Trajectory`, ...), scorers, and the API (`evaluate`, `certify`, `report`,
`compare`, `verify`, `export`). Names are imported when first used, so importing
the package (and starting the command line) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    # the plugin surface
    "System": "agent_assay.adapters.system",
    "Facts": "agent_assay.adapters.system",
    "ModelPrompt": "agent_assay.adapters.system",
    "ToolSpec": "agent_assay.adapters.system",
    "ToolOutcome": "agent_assay.adapters.system",
    "Ending": "agent_assay.adapters.system",
    "Episode": "agent_assay.adapters.system",
    "Episodes": "agent_assay.adapters.system",
    "Replaying": "agent_assay.adapters.system",
    "Preparing": "agent_assay.adapters.system",
    "NullAgents": "agent_assay.adapters.system",
    "RecordsWithoutExecuting": "agent_assay.adapters.system",
    "DescribesEnvironment": "agent_assay.adapters.system",
    "ModelAgentFacts": "agent_assay.adapters.system",
    "LearnsFacts": "agent_assay.adapters.system",
    "LoadedSystem": "agent_assay.adapters.loaded",
    "load_system": "agent_assay.adapters.loaded",
    # the vocabulary
    "Config": "agent_assay.model",
    "Cost": "agent_assay.model",
    "Gold": "agent_assay.model",
    "Item": "agent_assay.model",
    "PublicItem": "agent_assay.model",
    "PublicSuite": "agent_assay.model",
    "Run": "agent_assay.model",
    "StateAssertion": "agent_assay.model",
    "Step": "agent_assay.model",
    "Suite": "agent_assay.model",
    "ToolCall": "agent_assay.model",
    "Trajectory": "agent_assay.model",
    "AssayError": "agent_assay.errors",
    "TamperedEvidence": "agent_assay.errors",
    "RunStopped": "agent_assay.errors",
    "RunInterrupted": "agent_assay.errors",
    "AgentUnreachable": "agent_assay.errors",
    "EnvironmentFailed": "agent_assay.errors",
    # scorers
    "Scorer": "agent_assay.scoring.base",
    "ScoreKind": "agent_assay.scoring.base",
    "ScoreValue": "agent_assay.scoring.base",
    "ScoringContext": "agent_assay.scoring.base",
    "PlantsDefects": "agent_assay.scoring.base",
    # the store
    "Store": "agent_assay.store",
    "open_store": "agent_assay.store",
    # the API
    "build_suite": "agent_assay.api",
    "start": "agent_assay.api",
    "evaluate": "agent_assay.api",
    # the API's options: where agents run, which items a run covers
    "ExecutorSpec": "agent_assay.executors.spec",
    "Selection": "agent_assay.selection",
    "resume": "agent_assay.api",
    "rescore": "agent_assay.api",
    "certify": "agent_assay.api",
    "report": "agent_assay.api",
    "compare": "agent_assay.api",
    "verify": "agent_assay.api",
    "export": "agent_assay.api",
    "plan": "agent_assay.api",
    "PlanResult": "agent_assay.api",
    "Evaluation": "agent_assay.api",
    "Certification": "agent_assay.api",
    "Report": "agent_assay.api",
    "ComparisonResult": "agent_assay.api",
}

__all__ = [
    "AgentUnreachable",
    "AssayError",
    "Certification",
    "ComparisonResult",
    "Config",
    "Cost",
    "DescribesEnvironment",
    "Ending",
    "EnvironmentFailed",
    "Episode",
    "Episodes",
    "Evaluation",
    "ExecutorSpec",
    "Facts",
    "Gold",
    "Item",
    "LearnsFacts",
    "LoadedSystem",
    "ModelAgentFacts",
    "ModelPrompt",
    "NullAgents",
    "PlanResult",
    "PlantsDefects",
    "Preparing",
    "PublicItem",
    "PublicSuite",
    "RecordsWithoutExecuting",
    "Replaying",
    "Report",
    "Run",
    "RunInterrupted",
    "RunStopped",
    "ScoreKind",
    "ScoreValue",
    "Scorer",
    "ScoringContext",
    "Selection",
    "StateAssertion",
    "Step",
    "Store",
    "Suite",
    "System",
    "TamperedEvidence",
    "ToolCall",
    "ToolOutcome",
    "ToolSpec",
    "Trajectory",
    "build_suite",
    "certify",
    "compare",
    "evaluate",
    "export",
    "load_system",
    "open_store",
    "plan",
    "report",
    "rescore",
    "resume",
    "start",
    "verify",
]
assert set(__all__) == set(_EXPORTS), "every export is listed once"


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'agent_assay' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


if TYPE_CHECKING:
    from agent_assay.adapters.loaded import LoadedSystem, load_system
    from agent_assay.adapters.system import (
        DescribesEnvironment,
        Ending,
        Episode,
        Episodes,
        Facts,
        LearnsFacts,
        ModelAgentFacts,
        ModelPrompt,
        NullAgents,
        Preparing,
        RecordsWithoutExecuting,
        Replaying,
        System,
        ToolOutcome,
        ToolSpec,
    )
    from agent_assay.api import (
        Certification,
        ComparisonResult,
        Evaluation,
        PlanResult,
        Report,
        build_suite,
        certify,
        compare,
        evaluate,
        export,
        plan,
        report,
        rescore,
        resume,
        start,
        verify,
    )
    from agent_assay.errors import (
        AgentUnreachable,
        AssayError,
        EnvironmentFailed,
        RunInterrupted,
        RunStopped,
        TamperedEvidence,
    )
    from agent_assay.executors.spec import ExecutorSpec
    from agent_assay.model import (
        Config,
        Cost,
        Gold,
        Item,
        PublicItem,
        PublicSuite,
        Run,
        StateAssertion,
        Step,
        Suite,
        ToolCall,
        Trajectory,
    )
    from agent_assay.scoring.base import (
        PlantsDefects,
        ScoreKind,
        Scorer,
        ScoreValue,
        ScoringContext,
    )
    from agent_assay.selection import Selection
    from agent_assay.store import Store, open_store
