"""Evidence bundles: one run, its chain, its suite, config and certificates, in one file.

A bundle is what a paper or a README links to: `verify FILE` checks it on a
machine that never saw the original database, and `report FILE` renders it.
It is JSON lines: a header, one line per stored row (surrogate ids left out,
so rows load into any store; the base states its trajectories name come last),
and a last line holding the SHA-256 of every byte before it. Any change to any
byte therefore fails the file check before the rows are even read; the rows then
still have to pass their own chain.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, select, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool

from agent_assay.errors import AssayError, TamperedEvidence
from agent_assay.hashing import canonical_json
from agent_assay.infiles import DATA_LIMIT, read_input, unique_keys
from agent_assay.model import Run
from agent_assay.outfiles import whole_file
from agent_assay.store.database import migrations, schema
from agent_assay.store.encoding import chain
from agent_assay.store.encoding.state_blobs import base_digests
from agent_assay.store.encoding.text import now
from agent_assay.store.facade.store import Store
from agent_assay.version import harness_version

FORMAT = "agent-assay-bundle"
FORMAT_VERSION = 1

# Load order: what a row refers to comes first.
_RUN_TABLES = (
    "runs",
    "run_env",
    "ledger",
    "run_events",
    "trajectories",
    "score_generations",
    "scores",
    "score_sets",
    "control_outcomes",
    "mutation_results",
)
_SKIPPED_COLUMNS = {"id", "trajectory_id"}
_FIRST_ATTEMPT = ("attempt", 1)
"""A row's attempt is written only when it is not the first (`schema.attempt_columns`): a
run never retried exports exactly the lines it did before attempts were numbered."""
_LOAD_GUARDS = ("_chained", "ledger_links", "_generation_recorded")


def _columns(table: str) -> list[str]:
    return [c.name for c in schema.metadata.tables[table].columns if c.name not in _SKIPPED_COLUMNS]


def _rows(store: Store, table: str, condition: Any) -> list[dict[str, Any]]:
    t = schema.metadata.tables[table]
    order = [t.c.id] if "id" in t.c else list(t.primary_key.columns)
    with store.reading() as conn:
        rows = conn.execute(select(t).where(condition).order_by(*order)).mappings()
        return [{c: r[c] for c in _columns(table) if (c, r[c]) != _FIRST_ATTEMPT}
                for r in rows]


def bundled_runs(store: Store, run_id: str) -> list[str]:
    """The run and every run its current certificates relied on (identical_config's twins)."""
    found = [run_id]
    for outcome in store.control_outcomes(run_id).values():
        certificate = outcome.payload.get("certificate") or {}
        for aux in sorted(certificate.get("aux_runs", {})):
            if aux not in found:
                found.append(aux)
    return found


def _lines(store: Store, run_id: str) -> Iterator[dict[str, Any]]:
    runs = [store.get_run(r) for r in bundled_runs(store, run_id)]
    head = store.head(run_id)
    yield {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "run_id": run_id,
        "runs": [r.run_id for r in runs],
        "head": head.to_json() if head else None,
        "harness_version": harness_version(),
        "schema": migrations.LATEST,
        "exported_at": now(),
    }
    yield from row_lines(store, runs)


def row_lines(store: Store, runs: list[Run]) -> Iterator[dict[str, Any]]:
    """Every row line a bundle of `runs` holds, in load order (what `export` writes after
    the header, and what a loaded bundle must hold exactly)."""
    for suite_hash in dict.fromkeys(r.suite_hash for r in runs):
        for table in ("suites", "items"):
            t = schema.metadata.tables[table]
            for row in _rows(store, table, t.c.suite_hash == suite_hash):
                yield {"table": table, "row": row}
    for config_hash in dict.fromkeys(r.config_hash for r in runs):
        t = schema.configs
        for row in _rows(store, "configs", t.c.config_hash == config_hash):
            yield {"table": "configs", "row": row}
    for run in runs:
        for table in _RUN_TABLES:
            t = schema.metadata.tables[table]
            for row in _rows(store, table, t.c.run_id == run.run_id):
                yield {"table": table, "row": row}
    for row in _state_rows(store, [r.run_id for r in runs]):
        yield {"table": "state_blobs", "row": row}


def _state_rows(store: Store, run_ids: list[str]) -> Iterator[dict[str, Any]]:
    """The base states the runs' trajectories name, once each, in digest order."""
    t = schema.trajectories
    named: set[str] = set()
    with store.reading() as conn:
        for payload in conn.execute(select(t.c.payload).where(t.c.run_id.in_(run_ids))).scalars():
            try:
                named |= base_digests([json.loads(payload)])
            except ValueError:
                continue  # a payload that does not decode travels as it is; verify names it
    blobs = schema.state_blobs
    for start in range(0, len(ordered := sorted(named)), 500):
        with store.reading() as conn:
            rows = conn.execute(
                select(blobs).where(blobs.c.digest.in_(ordered[start:start + 500]))
                .order_by(blobs.c.digest)
            ).mappings()
            yield from ({c: r[c] for c in _columns("state_blobs")} for r in rows)


def export_bundle(store: Store, run_id: str, path: Path) -> int:
    """Write `run_id`'s bundle to `path`; return the number of row lines."""
    store.get_run(run_id)
    digest = hashlib.sha256()
    count = -1
    with whole_file(path, "bundle") as out:
        for line in _lines(store, run_id):
            data = (canonical_json(line) + "\n").encode("utf-8")
            digest.update(data)
            out.write(data)
            count += 1
        out.write((canonical_json({"sha256": digest.hexdigest()}) + "\n").encode("utf-8"))
    return count


def tampered(where: str, problem: str) -> AssayError:
    """A bundle whose bytes or rows are not what an export writes: one line, exit 2 (what
    `verify` and `report` exit with on evidence that does not match itself)."""
    return TamperedEvidence(f"bundle {where}: {problem} -- TAMPERED")


def read_bundle(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Check the file digest, then parse; every failure is one line naming the file and line
    (a key given twice in a line among them: export never writes one)."""
    data = read_input(path, "bundle", DATA_LIMIT)
    if f'"format":"{FORMAT}"'.encode() not in data[: data.find(b"\n")]:
        raise AssayError(
            f"{path} is not an agent-assay evidence bundle (to check a store: --db {path})"
        )
    body_end = data.rfind(b"\n", 0, len(data) - 1) + 1
    body, last = data[:body_end], data[body_end:]
    try:
        recorded = json.loads(last)["sha256"]
    except (ValueError, KeyError, TypeError) as exc:
        raise tampered(str(path), "its last line is not the file digest") from exc
    if not last.endswith(b"\n") or last != (canonical_json({"sha256": recorded}) + "\n").encode():
        raise tampered(str(path), "its last line is not the file digest")
    if hashlib.sha256(body).hexdigest() != recorded:
        raise tampered(str(path), "the file digest does not match its content (changed)")
    lines: list[dict[str, Any]] = []
    for number, raw in enumerate(body.splitlines(), start=1):
        try:
            lines.append(json.loads(raw, object_pairs_hook=unique_keys))
        except ValueError as exc:
            raise tampered(f"{path}:{number}", f"not JSON ({exc})") from exc
    header = lines[0] if lines else {}
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise tampered(f"{path}:1", "not an agent-assay bundle header")
    if header.get("format_version") != FORMAT_VERSION:
        raise AssayError(
            f"bundle {path}:1: format version {header.get('format_version')!r}, this agent-assay "
            f"reads {FORMAT_VERSION}"
        )
    return header, lines[1:]


def load_bundle(path: Path) -> tuple[Store, dict[str, Any]]:
    """An in-memory store holding exactly the bundle's rows, and the bundle's header (as
    written: `bundle_proof` says what the rows make of it)."""
    header, lines = read_bundle(path)
    return load_rows(path, lines), header


def load_rows(path: Path, lines: list[dict[str, Any]]) -> Store:
    """An in-memory store holding exactly `lines` (a bundle's row lines, from line 2 of
    `path`); a row the reference schema refuses is one line naming it.

    The insert guards are lifted while the rows go in (they were checked when the rows
    were first written, and rows sealed at a migration carry no block), then restored,
    so the loaded store has the reference schema and every check runs on it unchanged.
    """
    engine = create_engine("sqlite://", poolclass=StaticPool)
    migrations.apply(engine)
    guards = {
        name: sql
        for name, sql in migrations.expected_triggers().items()
        if name.endswith(_LOAD_GUARDS)
    }
    trajectory_ids: dict[tuple[str, str, int, int], int] = {}
    with engine.begin() as conn:
        for name in guards:
            conn.execute(text(f"DROP TRIGGER {name}"))
        for number, line in enumerate(lines, start=2):
            table, row = _bundle_row(path, number, line)
            try:
                if table in chain.SCORE_TABLES:
                    key = (row["run_id"], row["item_id"], row["repetition"],
                           row.get("attempt", 1))
                    if key not in trajectory_ids:
                        raise tampered(f"{path}:{number}", "a score for a trajectory it lacks")
                    row = {**row, "trajectory_id": trajectory_ids[key]}
                result = conn.execute(schema.metadata.tables[table].insert(), row)
            except (SQLAlchemyError, TypeError, ValueError, OverflowError) as exc:
                why = getattr(exc, "orig", None) or exc
                raise tampered(f"{path}:{number}", f"a {table} row the schema refuses ({why})") \
                    from exc
            if table == "trajectories":
                key = (row["run_id"], row["item_id"], row["repetition"], row.get("attempt", 1))
                inserted = result.inserted_primary_key
                trajectory_ids[key] = int(inserted[0]) if inserted else 0
        for sql in guards.values():
            conn.execute(text(sql))
    return Store(engine)


def _bundle_row(path: Path, number: int, line: Any) -> tuple[str, dict[str, Any]]:
    if not isinstance(line, dict) or set(line) != {"table", "row"}:
        raise tampered(f"{path}:{number}", "not a row line")
    table, row = line["table"], line["row"]
    allowed = set(_columns(table)) if table in schema.metadata.tables else None
    if allowed is None or table == "schema_migrations" or not isinstance(row, dict):
        raise tampered(f"{path}:{number}", f"unknown table {table!r}")
    if set(row) != allowed and set(row) != allowed - {_FIRST_ATTEMPT[0]}:
        raise tampered(f"{path}:{number}", f"{table} row with the wrong columns")
    return table, row

