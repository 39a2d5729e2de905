"""Reads and appends. There is no update or delete method, and the triggers refuse them anyway.

A trajectory and its scores are written in one transaction, so a crash can
never leave a trajectory without its scores. Re-scoring appends new rows and
readers take the newest row per (trajectory, scorer).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, func, select
from sqlalchemy.exc import DatabaseError

from agent_assay.errors import AssayError
from agent_assay.hashing import canonical_json
from agent_assay.model import Config, Item, Run, Suite, Trajectory
from agent_assay.store import migrations, schema
from agent_assay.store.engine import make_engine


def now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    """One stored score: which trajectory slot, which scorer at which version, what value."""

    item_id: str
    repetition: int
    scorer: str
    scorer_version: str
    value: float | None
    detail: Mapping[str, Any] | None = None
    imported: bool = False

    def key(self) -> tuple[str, int, str, str]:
        return (self.item_id, self.repetition, self.scorer, self.scorer_version)

    def same_result(self, other: ScoreRecord) -> bool:
        return self.value == other.value and (self.detail or None) == (other.detail or None)


@dataclass(frozen=True, slots=True)
class StoredOutcome:
    """A control outcome as stored: which run, suite and config it speaks for."""

    run_id: str
    suite_hash: str
    config_hash: str
    payload: Mapping[str, Any]
    created_at: str

    @property
    def kind(self) -> str:
        return str(self.payload["kind"])

    @property
    def status(self) -> str:
        return str(self.payload["status"])


def _stored_outcome(row: Any) -> StoredOutcome:
    return StoredOutcome(
        run_id=row.run_id,
        suite_hash=row.suite_hash,
        config_hash=row.config_hash,
        payload=json.loads(row.payload),
        created_at=row.created_at,
    )


@dataclass(frozen=True, slots=True)
class RunEvent:
    event: str
    detail: Mapping[str, Any]
    at: str


class Store:
    """The only door to the database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._writer: Connection | None = None

    def _writer_connection(self) -> Connection:
        """One long-lived connection for the per-trajectory hot path (no pool round trip)."""
        if self._writer is None or self._writer.closed:
            self._writer = self.engine.connect()
        return self._writer

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self.engine.dispose()

    # ---- suites, configs -------------------------------------------------
    def put_suite(self, suite: Suite) -> str:
        """Store a suite and its items unless that hash is already stored; return the hash."""
        suite_hash = suite.suite_hash
        with self.engine.begin() as conn:
            exists = conn.execute(
                select(schema.suites.c.suite_hash).where(schema.suites.c.suite_hash == suite_hash)
            ).first()
            if exists:
                return suite_hash
            conn.execute(
                schema.suites.insert().values(
                    suite_hash=suite_hash,
                    adapter=suite.adapter,
                    source=suite.source,
                    n_items=len(suite.items),
                    created_at=now(),
                )
            )
            conn.execute(
                schema.items.insert(),
                [
                    {
                        "suite_hash": suite_hash,
                        "item_id": item.item_id,
                        "position": position,
                        "item_hash": item.content_hash,
                        "payload": canonical_json(item.to_json()),
                    }
                    for position, item in enumerate(suite.items)
                ],
            )
        return suite_hash

    def get_suite(self, suite_hash: str) -> Suite:
        with self.engine.connect() as conn:
            head = conn.execute(
                select(schema.suites).where(schema.suites.c.suite_hash == suite_hash)
            ).first()
            if head is None:
                raise AssayError(f"unknown suite hash: {suite_hash}")
            rows = conn.execute(
                select(schema.items.c.payload)
                .where(schema.items.c.suite_hash == suite_hash)
                .order_by(schema.items.c.position)
            ).scalars()
            items = tuple(Item.from_json(json.loads(p)) for p in rows)
        return Suite(adapter=head.adapter, items=items, source=head.source)

    def put_config(self, config: Config) -> str:
        config_hash = config.config_hash
        with self.engine.begin() as conn:
            exists = conn.execute(
                select(schema.configs.c.config_hash).where(
                    schema.configs.c.config_hash == config_hash
                )
            ).first()
            if not exists:
                conn.execute(
                    schema.configs.insert().values(
                        config_hash=config_hash,
                        adapter=config.adapter,
                        name=config.name,
                        payload=canonical_json(config.to_json()),
                    )
                )
        return config_hash

    def get_config(self, config_hash: str) -> Config:
        with self.engine.connect() as conn:
            payload = conn.execute(
                select(schema.configs.c.payload).where(schema.configs.c.config_hash == config_hash)
            ).scalar()
        if payload is None:
            raise AssayError(f"unknown config hash: {config_hash}")
        data = json.loads(payload)
        return Config(adapter=data["adapter"], name=data["name"], params=data["params"])

    # ---- runs ------------------------------------------------------------
    def create_run(
        self,
        *,
        adapter: str,
        suite_hash: str,
        config_hash: str,
        config_name: str,
        repeats: int,
        seed: int,
        item_ids: Sequence[str],
        env: Mapping[str, Any],
        affects_results: Iterable[str],
        started: Mapping[str, Any] | None = None,
        run_id: str | None = None,
    ) -> Run:
        run_id = run_id or uuid.uuid4().hex
        created = now()
        affects = frozenset(affects_results)
        with self.engine.begin() as conn:
            conn.execute(
                schema.runs.insert().values(
                    run_id=run_id,
                    adapter=adapter,
                    suite_hash=suite_hash,
                    config_hash=config_hash,
                    config_name=config_name,
                    repeats=repeats,
                    seed=seed,
                    item_ids=canonical_json(list(item_ids)),
                    created_at=created,
                )
            )
            if env:
                conn.execute(
                    schema.run_env.insert(),
                    [
                        {
                            "run_id": run_id,
                            "key": key,
                            "value": canonical_json(value),
                            "affects_results": key in affects,
                        }
                        for key, value in sorted(env.items())
                    ],
                )
        self.append_event(run_id, "started", started or {})
        return self.get_run(run_id)

    def get_run(self, run_id: str) -> Run:
        with self.engine.connect() as conn:
            row = conn.execute(select(schema.runs).where(schema.runs.c.run_id == run_id)).first()
            if row is None:
                raise AssayError(f"unknown run id: {run_id}")
            env_rows = conn.execute(
                select(schema.run_env).where(schema.run_env.c.run_id == run_id)
            ).all()
        return Run(
            run_id=row.run_id,
            adapter=row.adapter,
            suite_hash=row.suite_hash,
            config_hash=row.config_hash,
            config_name=row.config_name,
            repeats=row.repeats,
            seed=row.seed,
            item_ids=tuple(json.loads(row.item_ids)),
            created_at=row.created_at,
            env={r.key: json.loads(r.value) for r in env_rows},
            affects_results=frozenset(r.key for r in env_rows if r.affects_results),
        )

    def list_runs(self) -> list[Run]:
        with self.engine.connect() as conn:
            ids = (
                conn.execute(select(schema.runs.c.run_id).order_by(schema.runs.c.created_at))
                .scalars()
                .all()
            )
        return [self.get_run(run_id) for run_id in ids]

    def append_event(self, run_id: str, event: str, detail: Mapping[str, Any]) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                schema.run_events.insert().values(
                    run_id=run_id, event=event, detail=canonical_json(dict(detail)), at=now()
                )
            )

    def events(self, run_id: str) -> list[RunEvent]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(schema.run_events)
                .where(schema.run_events.c.run_id == run_id)
                .order_by(schema.run_events.c.id)
            ).all()
        return [RunEvent(r.event, json.loads(r.detail), r.at) for r in rows]

    # ---- trajectories and scores ------------------------------------------
    def write_trajectory(
        self, run_id: str, trajectory: Trajectory, scores: Sequence[ScoreRecord]
    ) -> int:
        """Append a trajectory and its scores atomically; return the trajectory row id.

        This is the hot path of every run, so it uses the driver's cursor inside the
        SQLAlchemy transaction: the statements are fixed, and skipping per-call
        statement compilation halves the harness's cost per trajectory.
        """
        conn = self._writer_connection()
        with conn.begin():
            cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            cursor.execute(
                _TRAJECTORY_INSERT,
                (
                    run_id,
                    trajectory.item_id,
                    trajectory.repetition,
                    trajectory.crashed,
                    canonical_json(trajectory.to_json()),
                    now(),
                ),
            )
            trajectory_id = int(cursor.lastrowid)
            cursor.executemany(
                _SCORE_INSERT, [_score_params(trajectory_id, run_id, r) for r in scores]
            )
            cursor.close()
        return trajectory_id

    def trajectories(self, run_id: str) -> list[Trajectory]:
        with self.engine.connect() as conn:
            payloads = conn.execute(
                select(schema.trajectories.c.payload)
                .where(schema.trajectories.c.run_id == run_id)
                .order_by(schema.trajectories.c.item_id, schema.trajectories.c.repetition)
            ).scalars()
            return [Trajectory.from_json(json.loads(p)) for p in payloads]

    def stored_slots(self, run_id: str) -> set[tuple[str, int]]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(schema.trajectories.c.item_id, schema.trajectories.c.repetition).where(
                    schema.trajectories.c.run_id == run_id
                )
            ).all()
        return {(r.item_id, r.repetition) for r in rows}

    def latest_scores(self, run_id: str) -> list[ScoreRecord]:
        """The newest row per (item, repetition, scorer), whatever its version."""
        newest = (
            select(func.max(schema.scores.c.id))
            .where(schema.scores.c.run_id == run_id)
            .group_by(schema.scores.c.item_id, schema.scores.c.repetition, schema.scores.c.scorer)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(schema.scores)
                .where(schema.scores.c.id.in_(newest))
                .order_by(
                    schema.scores.c.item_id, schema.scores.c.repetition, schema.scores.c.scorer
                )
            ).all()
        return [
            ScoreRecord(
                item_id=r.item_id,
                repetition=r.repetition,
                scorer=r.scorer,
                scorer_version=r.scorer_version,
                value=r.value,
                detail=json.loads(r.detail) if r.detail else None,
                imported=bool(r.imported),
            )
            for r in rows
        ]

    def append_scores(self, run_id: str, records: Sequence[ScoreRecord]) -> int:
        """Append re-scored rows for existing trajectories; return how many were written."""
        if not records:
            return 0
        with self.engine.begin() as conn:
            slots: dict[str, dict[int, int]] = {}
            for row in conn.execute(
                select(
                    schema.trajectories.c.id,
                    schema.trajectories.c.item_id,
                    schema.trajectories.c.repetition,
                ).where(schema.trajectories.c.run_id == run_id)
            ):
                slots.setdefault(row.item_id, {})[row.repetition] = row.id
            conn.exec_driver_sql(
                _SCORE_INSERT,
                [_score_params(slots[r.item_id][r.repetition], run_id, r) for r in records],
            )
        return len(records)

    # ---- control outcomes -------------------------------------------------
    def put_control_outcome(
        self, run_id: str, suite_hash: str, config_hash: str, payload: Mapping[str, Any]
    ) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                schema.control_outcomes.insert(),
                {
                    "run_id": run_id,
                    "kind": payload["kind"],
                    "version": payload["version"],
                    "status": payload["status"],
                    "suite_hash": suite_hash,
                    "config_hash": config_hash,
                    "payload": canonical_json(dict(payload)),
                    "created_at": now(),
                },
            )

    def control_outcomes(self, run_id: str) -> dict[str, StoredOutcome]:
        """The newest stored outcome per control kind for `run_id`."""
        return self._latest_outcomes(schema.control_outcomes.c.run_id == run_id)

    def control_outcomes_for_config(self, config_hash: str, kind: str) -> list[StoredOutcome]:
        """Every stored outcome of `kind` for any run of this config, oldest first."""
        table = schema.control_outcomes
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(table)
                .where(table.c.config_hash == config_hash, table.c.kind == kind)
                .order_by(table.c.id)
            ).all()
        return [_stored_outcome(r) for r in rows]

    def _latest_outcomes(self, condition: Any) -> dict[str, StoredOutcome]:
        table = schema.control_outcomes
        with self.engine.connect() as conn:
            rows = conn.execute(select(table).where(condition).order_by(table.c.id)).all()
        return {r.kind: _stored_outcome(r) for r in rows}

    # ---- mutation results -------------------------------------------------
    def put_mutation_rows(self, run_id: str, rows: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        """Append one mutation pass (its operator rows and summary) in one transaction."""
        with self.engine.begin() as conn:
            conn.execute(
                schema.mutation_results.insert(),
                [
                    {
                        "run_id": run_id,
                        "operator": operator,
                        "payload": canonical_json(dict(payload)),
                        "created_at": now(),
                    }
                    for operator, payload in rows
                ],
            )

    def latest_mutation_pass(self, run_id: str) -> list[dict[str, Any]]:
        """The rows of the newest mutation pass over `run_id`, summary last; [] if none."""
        table = schema.mutation_results
        with self.engine.connect() as conn:
            rows = (
                conn.execute(
                    select(table.c.payload).where(table.c.run_id == run_id).order_by(table.c.id)
                )
                .scalars()
                .all()
            )
        payloads = [json.loads(p) for p in rows]
        if not payloads:
            return []
        newest = payloads[-1]["pass_id"]
        return [p for p in payloads if p["pass_id"] == newest]

    def count_rows(self, table: str) -> int:
        with self.engine.connect() as conn:
            return int(
                conn.execute(
                    select(func.count()).select_from(schema.metadata.tables[table])
                ).scalar_one()
            )


def _insert_sql(table: str, columns: Sequence[str]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


_TRAJECTORY_INSERT = _insert_sql(
    "trajectories", ("run_id", "item_id", "repetition", "crashed", "payload", "created_at")
)
_SCORE_INSERT = _insert_sql(
    "scores",
    (
        "trajectory_id",
        "run_id",
        "item_id",
        "repetition",
        "scorer",
        "scorer_version",
        "value",
        "detail",
        "imported",
    ),
)


def _score_params(trajectory_id: int, run_id: str, r: ScoreRecord) -> tuple[Any, ...]:
    """One score row in _SCORE_INSERT's column order."""
    return (
        trajectory_id,
        run_id,
        r.item_id,
        r.repetition,
        r.scorer,
        r.scorer_version,
        r.value,
        canonical_json(dict(r.detail)) if r.detail else None,
        r.imported,
    )


def open_store(db: str, *, migrate: bool = False) -> Store:
    """Open (creating when empty) a store; refuse an older schema unless `migrate` is set."""
    engine = make_engine(db)
    try:
        with engine.connect() as conn:
            have = migrations.current_version(conn)
    except DatabaseError as exc:
        raise AssayError(f"--db {db} is not an agent-assay SQLite database: {exc.orig}") from exc
    if have > migrations.LATEST:
        raise AssayError(
            f"database {db} has schema version {have}, newer than this agent-assay "
            f"({migrations.LATEST}); upgrade agent-assay"
        )
    if have == 0 or migrate:
        migrations.apply(engine)
    elif have < migrations.LATEST:
        raise AssayError(
            f"database {db} has schema version {have}, this agent-assay needs "
            f"{migrations.LATEST}: run `agent-assay migrate --db {db}`"
        )
    return Store(engine)
