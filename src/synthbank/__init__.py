"""synthbank: a synthetic retail-banking support system, used as a system under test.

Promise: a seeded fictional bank (world), a tool-calling Environment with business rules,
golden scripts on disk, reference agents and the system's own scorer, all using only the
standard library and PyYAML. Every identifier is fictional (SYN-...). This package must not
import agent_assay: the harness wraps it from the outside.
"""

__version__ = "1.0.0"

from synthbank.agents import run_episode, run_mock, run_null, run_rules
from synthbank.scripts import (
    ExpectedCall,
    PublicRequest,
    Script,
    ScriptError,
    StateAssertion,
    default_scripts_dir,
    load_scripts,
)
from synthbank.selfscore import ScriptScore, aggregate_scores, lcs_ratio, score_script
from synthbank.tools import (
    OUTCOMES,
    TOOL_SPECS,
    Environment,
    Episode,
    Step,
    ToolResult,
    ToolSpec,
    outcome_of,
    replay,
)
from synthbank.world import DEFAULT_SEED, World, build_world

__all__ = [
    "DEFAULT_SEED",
    "OUTCOMES",
    "TOOL_SPECS",
    "Environment",
    "Episode",
    "ExpectedCall",
    "PublicRequest",
    "Script",
    "ScriptError",
    "ScriptScore",
    "StateAssertion",
    "Step",
    "ToolResult",
    "ToolSpec",
    "World",
    "__version__",
    "aggregate_scores",
    "build_world",
    "default_scripts_dir",
    "lcs_ratio",
    "load_scripts",
    "outcome_of",
    "replay",
    "run_episode",
    "run_mock",
    "run_null",
    "run_rules",
    "score_script",
]
