"""Load the public tree that `synthworld generate-agentic` writes.

Promise: reads only files below the given `public/` directory, verified against
that tree's own manifest, and never looks at a sibling `evaluator/` tree. Must not
import agent_assay, nor synthworld's replay, relationship-derivation or evaluator
helpers; synthworld is used here only to load and checksum the public bundle.
"""

from pathlib import Path

from synthworld.agentic.models import AgenticPublicBundle
from synthworld.agentic.serialization import load_public_agentic_bundle

from authority_auditor.errors import AuditRejected


def load_public_tree(public_dir: Path) -> AgenticPublicBundle:
    """Return the checksum-verified public bundle stored under `public_dir`."""

    if not (public_dir / "manifest.json").is_file():
        raise AuditRejected(f"{public_dir} is not a public tree: manifest.json is missing")
    return load_public_agentic_bundle(public_dir)
