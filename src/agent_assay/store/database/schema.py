"""Table definitions, by schema era. Every table is append-only: status changes are new rows.

`define(metadata, era)` declares the tables as they stood after migration
`era`. The module-level tables are the current era's and are what queries
use; migrations build older eras' shapes from the same function, so a fresh
store and an upgraded one go through exactly the same steps and end with the
same schema.

Era 3 chains every run-scoped row (see `chain`): each carries the ledger
block it arrived in and the digest of its content, and score rows carry the
scoring generation they belong to. Era 6 numbers the attempts at a slot: a crashed
slot run again (`run --resume --retry`) keeps its earlier attempts beside the new one.
"""

from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import ColumnElement
from sqlalchemy.types import TypeEngine

LATEST_ERA = 6


def Name(length: int) -> TypeEngine[str]:
    """A bounded name on SQLite (which never enforces the bound), unbounded TEXT on
    PostgreSQL (which would): both backends must accept exactly the same rows."""
    return String(length).with_variant(Text(), "postgresql")


SEED = Integer().with_variant(BigInteger(), "postgresql")
"""Seeds go up to 2**63 - 1, which SQLite's INTEGER holds and PostgreSQL's does not."""


class SealedRowKey(ColumnElement[int]):
    """The last key of the score-slot index: a row's own id when it was sealed at migration
    (block NULL), else 0. Written as SQLite has always stored it, so the SQL of existing
    stores stays byte-identical; PostgreSQL, which cannot multiply a boolean, gets a CASE."""

    inherit_cache = True

    def __init__(self, block: ColumnElement[Any], row_id: ColumnElement[Any]) -> None:
        self.block, self.row_id = block, row_id
        self.type = Integer()


@compiles(SealedRowKey)
def _sealed_row_key_sqlite(element: SealedRowKey, compiler: Any, **kw: Any) -> str:
    return "(block IS NULL) * id"


@compiles(SealedRowKey, "postgresql")
def _sealed_row_key_postgresql(element: SealedRowKey, compiler: Any, **kw: Any) -> str:
    return "(CASE WHEN block IS NULL THEN id ELSE 0 END)"


def chain_columns() -> list[Column[object]]:
    """The columns era 3 adds to every run-scoped table (NULL on rows sealed at migration)."""
    return [Column("block", Integer, nullable=True), Column("digest", Name(64), nullable=True)]


def score_slot_columns() -> list[Column[object]]:
    """The columns that tie scores (a row per score, or a set) to their trajectory's slot."""
    return [
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("trajectory_id", Integer, ForeignKey("trajectories.id"), nullable=False),
        Column("run_id", Name(32), nullable=False),
        Column("item_id", Name(300), nullable=False),
        Column("repetition", Integer, nullable=False),
    ]


def attempt_columns(era: int) -> list[Column[object]]:
    """The column era 6 adds to trajectories and score sets: which attempt at its slot a
    row is (1 for every row written before, and for every slot never run again). It is
    outside the row's digest, so rows written before keep theirs; the chain binds it
    instead (`chain_check`: a trajectory's block records its attempt, a score set's
    attempt is its trajectory's)."""
    if era < 6:
        return []
    return [Column("attempt", Integer, nullable=False, server_default="1")]


def define(metadata: MetaData, era: int = LATEST_ERA) -> MetaData:
    """Declare every table of schema `era` on `metadata` and return it."""
    chained = chain_columns if era >= 3 else list
    Table(
        "schema_migrations",
        metadata,
        Column("version", Integer, primary_key=True),
        Column("description", Text, nullable=False),
        Column("applied_at", Name(40), nullable=False),
    )
    Table(
        "suites",
        metadata,
        Column("suite_hash", Name(64), primary_key=True),
        Column("adapter", Name(200), nullable=False),
        Column("source", Text, nullable=False),
        Column("n_items", Integer, nullable=False),
        Column("created_at", Name(40), nullable=False),
    )
    Table(
        "items",
        metadata,
        Column("suite_hash", Name(64), ForeignKey("suites.suite_hash"), primary_key=True),
        Column("item_id", Name(300), primary_key=True),
        Column("position", Integer, nullable=False),
        Column("item_hash", Name(64), nullable=False),
        Column("payload", Text, nullable=False),
    )
    Table(
        "configs",
        metadata,
        Column("config_hash", Name(64), primary_key=True),
        Column("adapter", Name(200), nullable=False),
        Column("name", Name(200), nullable=False),
        Column("payload", Text, nullable=False),
    )
    Table(
        "runs",
        metadata,
        Column("run_id", Name(32), primary_key=True),
        Column("adapter", Name(200), nullable=False),
        Column("suite_hash", Name(64), ForeignKey("suites.suite_hash"), nullable=False),
        Column("config_hash", Name(64), ForeignKey("configs.config_hash"), nullable=False),
        Column("config_name", Name(200), nullable=False),
        Column("repeats", Integer, nullable=False),
        Column("seed", SEED, nullable=False),
        Column("item_ids", Text, nullable=False),
        Column("created_at", Name(40), nullable=False),
        *chained(),
    )
    Table(
        "run_env",
        metadata,
        Column("run_id", Name(32), ForeignKey("runs.run_id"), primary_key=True),
        Column("key", Name(200), primary_key=True),
        Column("value", Text, nullable=False),
        Column("affects_results", Boolean, nullable=False),
        *chained(),
    )
    Table(
        "run_events",
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("run_id", Name(32), ForeignKey("runs.run_id"), nullable=False),
        Column("event", Name(40), nullable=False),
        Column("detail", Text, nullable=False),
        Column("at", Name(40), nullable=False),
        *chained(),
    )
    Table(
        "trajectories",
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("run_id", Name(32), ForeignKey("runs.run_id"), nullable=False),
        Column("item_id", Name(300), nullable=False),
        Column("repetition", Integer, nullable=False),
        Column("crashed", Boolean, nullable=False),
        Column("payload", Text, nullable=False),
        Column("created_at", Name(40), nullable=False),
        *chained(),
        *attempt_columns(era),
        UniqueConstraint("run_id", "item_id", "repetition",
                         *(("attempt",) if era >= 6 else ()), name="uq_trajectory_slot"),
    )
    scores = Table(
        "scores",
        metadata,
        *score_slot_columns(),
        Column("scorer", Name(200), nullable=False),
        Column("scorer_version", Name(40), nullable=False),
        Column("value", Float, nullable=True),
        Column("detail", Text, nullable=True),
        Column("imported", Boolean, nullable=False, default=False),
        *chained(),
        *([Column("generation", Integer, nullable=False, server_default="0")] if era >= 3 else []),
    )
    if era < 3:
        Index("ix_scores_run", scores.c.run_id, scores.c.scorer)
    else:
        # One row per (trajectory slot, scorer) in each scoring generation. Rows sealed at
        # migration (block NULL) are exempt, since older stores kept re-scored rows side by
        # side: for them the last key is their own id, for chained rows it is 0. Ordered as
        # rows are written and read (run, item, repetition), it also serves every reader.
        Index(
            "ux_scores_slot",
            scores.c.run_id,
            scores.c.item_id,
            scores.c.repetition,
            scores.c.scorer,
            scores.c.generation,
            SealedRowKey(scores.c.block, scores.c.id),
            unique=True,
        )
    if era < 2:
        return metadata
    outcomes = Table(
        "control_outcomes",
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("run_id", Name(32), ForeignKey("runs.run_id"), nullable=False),
        Column("kind", Name(100), nullable=False),
        Column("version", Name(40), nullable=False),
        Column("status", Name(20), nullable=False),
        Column("suite_hash", Name(64), nullable=False),
        Column("config_hash", Name(64), nullable=False),
        Column("payload", Text, nullable=False),
        Column("created_at", Name(40), nullable=False),
        *chained(),
    )
    Index("ix_control_outcomes_run", outcomes.c.run_id, outcomes.c.kind)
    Table(
        "mutation_results",
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("run_id", Name(32), ForeignKey("runs.run_id"), nullable=False),
        Column("operator", Name(100), nullable=False),
        Column("payload", Text, nullable=False),
        Column("created_at", Name(40), nullable=False),
        *chained(),
    )
    if era < 3:
        return metadata
    Table(
        "ledger",
        metadata,
        Column("run_id", Name(32), primary_key=True),
        Column("seq", Integer, primary_key=True, autoincrement=False),
        Column("kind", Name(40), nullable=False),
        Column("detail", Text, nullable=False),
        Column("prev_digest", Name(64), nullable=False),
        Column("digest", Name(64), nullable=False),
        Column("at", Name(40), nullable=False),
    )
    Table(
        "score_generations",
        metadata,
        Column("run_id", Name(32), ForeignKey("runs.run_id"), primary_key=True),
        Column("generation", Integer, primary_key=True, autoincrement=False),
        Column("reason", Text, nullable=False),
        Column("scorers", Text, nullable=False),
        Column("at", Name(40), nullable=False),
        *chained(),
    )
    if era >= 4:
        Table(
            "score_sets",
            metadata,
            *score_slot_columns(),
            Column("generation", Integer, nullable=False),
            Column("scorers", Text, nullable=False),
            Column("packed_values", Text, nullable=False),
            Column("details", Text, nullable=True),
            *chained(),
            *attempt_columns(era),
        )
        # one set per trajectory slot (and attempt at it) and scoring generation, in the
        # order sets are written and read (a named index, like the score rows', so the
        # schema check can name it)
        sets = metadata.tables["score_sets"]
        Index(
            "ux_score_sets_slot",
            sets.c.run_id,
            sets.c.item_id,
            sets.c.repetition,
            sets.c.generation,
            *((sets.c.attempt,) if era >= 6 else ()),
            unique=True,
        )
    if era >= 5:
        # content-addressed like items: the key is the digest of the content (see state_blobs)
        Table(
            "state_blobs",
            metadata,
            Column("digest", Name(64), primary_key=True),
            Column("payload", Text, nullable=False),
        )
    Table(
        "store_repairs",
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("restored", Text, nullable=False),
        Column("detail", Text, nullable=False),
        Column("at", Name(40), nullable=False),
    )
    return metadata


metadata = define(MetaData())

schema_migrations = metadata.tables["schema_migrations"]
suites = metadata.tables["suites"]
items = metadata.tables["items"]
configs = metadata.tables["configs"]
runs = metadata.tables["runs"]
run_env = metadata.tables["run_env"]
run_events = metadata.tables["run_events"]
trajectories = metadata.tables["trajectories"]
scores = metadata.tables["scores"]
score_sets = metadata.tables["score_sets"]
control_outcomes = metadata.tables["control_outcomes"]
mutation_results = metadata.tables["mutation_results"]
ledger = metadata.tables["ledger"]
score_generations = metadata.tables["score_generations"]
store_repairs = metadata.tables["store_repairs"]
state_blobs = metadata.tables["state_blobs"]
