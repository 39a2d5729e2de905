"""What a bundle's own rows prove, whatever its header says.

The header is written by whoever wrote the file. Someone who edits a row and then
re-chains every row and block after it (the digest functions are public) has a bundle
whose chain verifies, and can leave the header claiming the head that was published.
So nothing in the header is taken on trust: the run's head is the last block its own
rows hold (the walk `verify` and `report` make says whether that chain is intact), the
runs it carries must be the ones the run's certificates rely on (their chains walked
too), and the rows must be among the rows `export` writes for that run from these rows:
none added (another run's, content no bundled run names, a duplicate).

What it cannot prove is that the derived head is the one that was published: a forger
who also rewrites the header's head has a bundle consistent with itself. Comparing the
head with a published one (the reader's, or a witness file: `witness`) is what catches
that.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_assay.findings import Finding
from agent_assay.hashing import canonical_json
from agent_assay.model import Run
from agent_assay.store.bundle.file import (
    bundled_runs,
    load_rows,
    read_bundle,
    row_lines,
    tampered,
)
from agent_assay.store.evidence.run_check import check_run
from agent_assay.store.facade.store import Store
from agent_assay.store.records import Head

HEADER = "bundle header"


@dataclass(frozen=True)
class ProvenBundle:
    """A loaded bundle: its store, its run, the head its rows end at, and every way the
    file disagrees with its own rows (each one makes the run TAMPERED)."""

    path: Path
    store: Store
    run: Run
    head: Head | None
    findings: tuple[Finding, ...]
    exported_by: str
    twins: tuple[str, ...] = ()
    """The other bundled runs the certificates rely on (identical_config's twins)."""

    def twin_findings(self) -> list[Finding]:
        """What the chain walk of each twin finds: `report` adds these (its own check walks
        the bundle's run only); `verify` walks them itself."""
        return [
            Finding(f"run {twin} (a run its certificates rely on)", finding.line())
            for twin in self.twins
            for finding in check_run(self.store, twin).findings
        ]

    def summary(self) -> str:
        head = f"{self.head.seq} {self.head.digest}" if self.head else "none"
        return (
            f"bundle of run {self.run.run_id} (exported by agent-assay {self.exported_by}); "
            f"chain head derived from its rows: {head}"
        )


def open_bundle(path: Path) -> ProvenBundle:
    """Load the bundle at `path` and check it against its own rows."""
    header, lines = read_bundle(path)
    store = load_rows(path, lines)
    run_id, held = header.get("run_id"), set(store.run_ids())
    if not isinstance(run_id, str) or run_id not in held:
        raise tampered(f"{path}:1", f"its header names run {run_id!r}, which its rows do not hold")
    head, runs = store.head(run_id), bundled_runs(store, run_id)
    found = _header_findings(header, head, runs)
    exported = row_lines(store, [store.get_run(r) for r in runs if r in held])
    found += _row_findings(path, lines, exported)
    return ProvenBundle(path, store, store.get_run(run_id), head, tuple(found),
                        str(header.get("harness_version")),
                        tuple(twin for twin in runs[1:] if twin in held))


def _header_findings(header: dict[str, Any], head: Head | None, runs: list[str]) -> list[Finding]:
    found = []
    derived = head.to_json() if head else None
    if header.get("head") != derived:
        claimed = header.get("head")
        said = (f"{claimed.get('seq')} {claimed.get('digest')}" if isinstance(claimed, dict)
                else repr(claimed))
        shown = f"{head.seq} {head.digest}" if head else "no block"
        found.append(Finding(HEADER, (
            f"claims chain head {said}, but the run's "
            f"rows end at {shown} (rows re-chained, dropped or added, or the header edited)")))
    if header.get("runs") != runs:
        found.append(Finding(HEADER, (
            f"lists runs {header.get('runs')}, but the run and the runs its certificates rely "
            f"on are {runs}")))
    return found


def _row_findings(
    path: Path, lines: list[dict[str, Any]], exported: Iterable[dict[str, Any]]
) -> list[Finding]:
    """One finding naming the lines `export` would not write from these rows (a value that
    does not read back as written counts too). A dropped row is the chain walk's to find
    (its block no longer matches), a dropped twin the certificates' and the header's, a
    dropped last block the head's."""
    expected = Counter(_digest(line) for line in exported)
    extra: list[int] = []
    for number, line in enumerate(lines, start=2):
        key = _digest(line)
        if expected[key] > 0:
            expected[key] -= 1
        else:
            extra.append(number)
    if not extra:
        return []
    shown = ", ".join(map(str, extra[:5])) + (" ..." if len(extra) > 5 else "")
    return [Finding(f"bundle {path}", (
        f"holds {len(extra)} row(s) an export of its run would not write (line(s) {shown}): "
        "another run's rows, content no bundled run names, or a duplicate"))]


def _digest(line: dict[str, Any]) -> bytes:
    """A row line by the digest of its canonical form (memory holds 32 bytes a row)."""
    return hashlib.sha256(canonical_json(line).encode("utf-8", "surrogatepass")).digest()
