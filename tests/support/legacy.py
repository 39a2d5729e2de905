"""Build a store as an older agent-assay left it, to test that migrations keep every row.

The rows are real: a current store is filled through the normal API (runs,
controls), then each table's rows are copied, with only the columns that
existed at `version`, into a database migrated to `version` and no further.
Either store may be an SQLite file or a PostgreSQL database (given as its owner).
`score_rows_layout` makes the writer store scores as schema 3 did, a row per score,
so a copy to an older version holds every score it had.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import MetaData, func, select, text

from agent_assay.hashing import canonical_json
from agent_assay.model import Trajectory
from agent_assay.store import ScoreRecord, Store
from agent_assay.store.database import Access, make_engine, migrations, schema
from agent_assay.store.encoding import chain, now, score_value


def copy_as_version(current_db: str | Path, legacy_db: str | Path, version: int) -> None:
    """Copy `current_db`'s rows into a new store at schema `version` (its columns only)."""
    target = make_engine(str(legacy_db))
    migrations.apply(target, target=version)
    source = make_engine(str(current_db), Access.READ)
    era = schema.define(MetaData(), version)
    with source.connect() as src, target.begin() as dst:
        for table in era.sorted_tables:
            if table.name == "schema_migrations":
                continue
            current = schema.metadata.tables[table.name]
            query = select(*(current.c[column.name] for column in table.columns))
            rows = [dict(row) for row in src.execute(query).mappings()]
            if rows:
                dst.execute(table.insert(), rows)
            if dst.dialect.name == "postgresql" and "id" in table.c:
                # explicit ids do not advance a serial: the next append must not reuse one
                dst.execute(text(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                    f"COALESCE((SELECT MAX(id) FROM {table.name}), 0) + 1, false)"
                ))
    source.dispose()
    target.dispose()


def schema_version(db: str | Path) -> int:
    engine = make_engine(str(db), Access.READ)
    with engine.connect() as conn:
        version = conn.execute(select(func.max(schema.schema_migrations.c.version))).scalar()
    engine.dispose()
    return int(version or 0)


def _write_score_rows(
    self: Store, run_id: str, trajectory: Trajectory, scores: Sequence[ScoreRecord]
) -> int:
    """Store.write_trajectory as schema 3 had it: one chained row per score."""
    payload = canonical_json(trajectory.to_json())
    created = now()
    slot = (run_id, trajectory.item_id, trajectory.repetition)
    t_content = (*slot, bool(trajectory.crashed), payload, created)
    with self.engine.begin() as conn:
        head = conn.execute(
            select(schema.ledger.c.seq, schema.ledger.c.digest)
            .where(schema.ledger.c.run_id == run_id)
            .order_by(schema.ledger.c.seq.desc()).limit(1)
        ).first()
        seq, prev = (head.seq + 1, head.digest) if head else (1, chain.GENESIS)
        rows = [
            dict(zip(chain.CONTENT_COLUMNS["scores"], (
                *slot, r.scorer, r.scorer_version, score_value(r),
                canonical_json(dict(r.detail)) if r.detail else None, bool(r.imported), 0,
            ), strict=True))
            for r in scores
        ]
        digests = [chain.row_digest("trajectories", t_content)]
        digests += [chain.row_digest("scores", chain.content_of("scores", r)) for r in rows]
        counts = {"scores": len(rows), "trajectories": 1} if rows else {"trajectories": 1}
        detail = canonical_json({"rows": counts, "slot": list(slot[1:]),
                                 "steps": len(trajectory.steps)})
        conn.execute(schema.ledger.insert().values(
            run_id=run_id, seq=seq, kind="trajectory", detail=detail, prev_digest=prev,
            digest=chain.block_digest(run_id, seq, "trajectory", prev, detail, digests),
            at=created,
        ))
        inserted = conn.execute(schema.trajectories.insert().values(
            **dict(zip(chain.CONTENT_COLUMNS["trajectories"], t_content, strict=True)),
            block=seq, digest=digests[0],
        )).inserted_primary_key
        trajectory_id = int(inserted[0]) if inserted else 0
        for row, digest in zip(rows, digests[1:], strict=True):
            conn.execute(schema.scores.insert().values(
                **row, trajectory_id=trajectory_id, block=seq, digest=digest))
    return trajectory_id


def _write_each_as_score_rows(
    self: Store,
    run_id: str,
    scored: Sequence[tuple[Trajectory, Sequence[ScoreRecord]]],
    attempts: object = None,
) -> list[int]:
    """Store.write_trajectories as schema 3 had it: a transaction per trajectory (schema 3
    had one attempt per slot, so `attempts` is never given one)."""
    assert not attempts
    return [_write_score_rows(self, run_id, trajectory, scores) for trajectory, scores in scored]


@contextmanager
def score_rows_layout() -> Iterator[None]:
    """Inside, every store writes trajectories as schema 3 did (a row per score): how a run
    written by an older agent-assay looks, for tests of stores upgraded past schema 4."""
    original = Store.write_trajectory, Store.write_trajectories
    Store.write_trajectory = _write_score_rows  # type: ignore[method-assign]
    Store.write_trajectories = _write_each_as_score_rows  # type: ignore[method-assign]
    try:
        yield
    finally:
        Store.write_trajectory, Store.write_trajectories = original  # type: ignore[method-assign]
