"""The hand-authored template catalogue, one entry per scenario.

Promise: a fixed, ordered tuple covering all six action families; generation indexes into
it deterministically. Must not import agent_assay.
"""

from govsim.templates import contracts, equity, financing, issuance, related, treasury
from govsim.templates.common import Template

TEMPLATES: tuple[Template, ...] = (
    *contracts.TEMPLATES,
    *equity.TEMPLATES,
    *issuance.TEMPLATES,
    *related.TEMPLATES,
    *treasury.TEMPLATES,
    *financing.TEMPLATES,
)

__all__ = ["TEMPLATES", "Template"]
