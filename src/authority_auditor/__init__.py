"""A public-only authority auditor for SynthWorld's Asteria Agentic v1 fixture.

Promise: given only the public snapshot and ordered public events, it replays the
stream with the fixture's v1 semantics and returns one ObservedActionTrace per
public action event as a synthworld `AgenticTraceSubmission`. Agreement with
synthworld's evaluator is meant to be an independent result, so no module in this
package imports agent_assay, nor synthworld's replay, relationship-derivation,
projection, baseline or evaluator helpers; synthworld supplies data models and
the public-tree loader only.
"""

from pathlib import Path

from synthworld.agentic.models import AgenticPublicBundle, AgenticTraceSubmission

from authority_auditor.auditor import audit_bundle
from authority_auditor.errors import AuditRejected
from authority_auditor.loader import load_public_tree
from authority_auditor.trace import submission_jsonl

__version__ = "1.0.0"


def audit_public_bundle(public: AgenticPublicBundle) -> AgenticTraceSubmission:
    """Audit an in-memory public bundle."""

    return audit_bundle(public)


def audit_directory(public_dir: Path) -> AgenticTraceSubmission:
    """Audit the `public/` tree written by `synthworld generate-agentic --output DIR`."""

    return audit_bundle(load_public_tree(public_dir))


def trace_jsonl(submission: AgenticTraceSubmission) -> str:
    """Serialise a submission as observed-action JSONL."""

    return submission_jsonl(submission)


__all__ = [
    "AuditRejected",
    "__version__",
    "audit_directory",
    "audit_public_bundle",
    "trace_jsonl",
]
