"""Evidence bundles: one run and everything its verdict rests on in one file, written and
read (`file`), and proven on a machine that never saw the store (`proof`)."""

from agent_assay.store.bundle.file import export_bundle, load_bundle, read_bundle
from agent_assay.store.bundle.proof import ProvenBundle, open_bundle

__all__ = ["ProvenBundle", "export_bundle", "load_bundle", "open_bundle", "read_bundle"]
