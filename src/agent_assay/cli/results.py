"""Text and JSON for the commands that have no view module of their own: `suite build`,
`score`, `import` and `check-adapter`. Both forms of one command are built here from the
same result, side by side, so they say the same thing.

Only type names are imported at module level: the command imports this module when it
runs, and `agent-assay --help` loads nothing heavy.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_assay.api import AdapterCheck, ImportReport, LoadedSystem, RescoreResult, Suite


def _tags(suite: Suite) -> list[str]:
    return sorted({t for item in suite.items for t in item.tags})


def suite_text(suite: Suite, system: LoadedSystem) -> str:
    tags = _tags(suite)
    return (
        f"suite {suite.suite_hash}\n"
        f"adapter {system.name} {system.version}: {len(suite.items)} items, "
        f"{len(tags)} tags ({', '.join(tags)})\n"
    )


def suite_json(suite: Suite, system: LoadedSystem) -> dict[str, Any]:
    return {
        "schema": "agent-assay/suite-build/1",
        "suite_hash": suite.suite_hash,
        "adapter": system.name,
        "adapter_version": system.version,
        "source": suite.source,
        "n_items": len(suite.items),
        "item_ids": sorted(item.item_id for item in suite.items),
        "tags": _tags(suite),
    }


def rescore_text(run_id: str, result: RescoreResult) -> str:
    if result.written:
        return (
            f"re-scored run {run_id}: {result.changed} row(s) changed, {result.unchanged} "
            f"unchanged; generation {result.generation} written ({result.written} rows)\n"
        )
    return (
        f"re-scored run {run_id}: all {result.unchanged} rows unchanged; "
        f"no new generation (current: {result.generation})\n"
    )


def rescore_json(run_id: str, result: RescoreResult) -> dict[str, Any]:
    return {
        "schema": "agent-assay/score/1",
        "run_id": run_id,
        "new_generation": bool(result.written),
        "generation": result.generation,
        "written": result.written,
        "changed": result.changed,
        "unchanged": result.unchanged,
    }


def import_json(importer: str, file: Path, report: ImportReport) -> dict[str, Any]:
    return {
        "schema": "agent-assay/import/1",
        "importer": importer,
        "file": str(file),
        "run_id": report.run_id,
        "lines": list(report.lines),
    }


def check_adapter_text(checked: AdapterCheck) -> str:
    lines = [line.line() for line in checked.lines]
    lines.append(f"check-adapter {checked.name}: " + ("ready" if checked.ok else "not ready"))
    return "\n".join(lines) + "\n"


def check_adapter_json(checked: AdapterCheck) -> dict[str, Any]:
    return {
        "schema": "agent-assay/check-adapter/1",
        "adapter": checked.name,
        "ready": checked.ok,
        "checks": [
            {"level": line.level, "what": line.what, "detail": line.detail}
            for line in checked.lines
        ],
    }
