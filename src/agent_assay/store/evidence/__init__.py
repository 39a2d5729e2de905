"""The evidence checks. `check_evidence` is the one entry point for "check this run's
evidence" (`require_intact` refuses on what it finds); `verify` lists the parts one by
one (the chain walk, checkpoints, content, relied-on runs). Checkers read raw rows
through a `RawReader`; checkpoints and the witness file are written here too."""

from agent_assay.store.evidence.chain_check import RETRY_EVENT, ChainCheck, check_run_chain
from agent_assay.store.evidence.checkpoint import (
    checkpoint_findings,
    claim_of,
    covered_stream,
    stream_selects,
    write_checkpoint,
)
from agent_assay.store.evidence.content_check import (
    config_findings,
    content_findings,
    marked_complete,
    slot_findings,
    suite_findings,
)
from agent_assay.store.evidence.raw import RawReader
from agent_assay.store.evidence.run_check import (
    CheckedEvidence,
    check_evidence,
    check_run,
    refusal,
    relied_on,
    relied_on_findings,
    require_intact,
)
from agent_assay.store.evidence.witness import (
    WitnessCheck,
    append_head,
    check_witness,
    writable_witness,
)

__all__ = [
    "RETRY_EVENT",
    "ChainCheck",
    "CheckedEvidence",
    "RawReader",
    "WitnessCheck",
    "append_head",
    "check_evidence",
    "check_run",
    "check_run_chain",
    "check_witness",
    "checkpoint_findings",
    "claim_of",
    "config_findings",
    "content_findings",
    "covered_stream",
    "marked_complete",
    "refusal",
    "relied_on",
    "relied_on_findings",
    "require_intact",
    "slot_findings",
    "stream_selects",
    "suite_findings",
    "writable_witness",
    "write_checkpoint",
]
