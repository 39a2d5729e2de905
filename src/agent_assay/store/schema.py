"""Table definitions. Every table is append-only: status changes are new rows.

The tables are grouped by the migration that introduced them, so an older
database can be upgraded by creating only what it lacks.
"""

from sqlalchemy import (
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

metadata = MetaData()

schema_migrations = Table(
    "schema_migrations",
    metadata,
    Column("version", Integer, primary_key=True),
    Column("description", Text, nullable=False),
    Column("applied_at", String(40), nullable=False),
)

suites = Table(
    "suites",
    metadata,
    Column("suite_hash", String(64), primary_key=True),
    Column("adapter", String(200), nullable=False),
    Column("source", Text, nullable=False),
    Column("n_items", Integer, nullable=False),
    Column("created_at", String(40), nullable=False),
)

items = Table(
    "items",
    metadata,
    Column("suite_hash", String(64), ForeignKey("suites.suite_hash"), primary_key=True),
    Column("item_id", String(300), primary_key=True),
    Column("position", Integer, nullable=False),
    Column("item_hash", String(64), nullable=False),
    Column("payload", Text, nullable=False),
)

configs = Table(
    "configs",
    metadata,
    Column("config_hash", String(64), primary_key=True),
    Column("adapter", String(200), nullable=False),
    Column("name", String(200), nullable=False),
    Column("payload", Text, nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("run_id", String(32), primary_key=True),
    Column("adapter", String(200), nullable=False),
    Column("suite_hash", String(64), ForeignKey("suites.suite_hash"), nullable=False),
    Column("config_hash", String(64), ForeignKey("configs.config_hash"), nullable=False),
    Column("config_name", String(200), nullable=False),
    Column("repeats", Integer, nullable=False),
    Column("seed", Integer, nullable=False),
    Column("item_ids", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
)

run_env = Table(
    "run_env",
    metadata,
    Column("run_id", String(32), ForeignKey("runs.run_id"), primary_key=True),
    Column("key", String(200), primary_key=True),
    Column("value", Text, nullable=False),
    Column("affects_results", Boolean, nullable=False),
)

run_events = Table(
    "run_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(32), ForeignKey("runs.run_id"), nullable=False),
    Column("event", String(40), nullable=False),
    Column("detail", Text, nullable=False),
    Column("at", String(40), nullable=False),
)

trajectories = Table(
    "trajectories",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(32), ForeignKey("runs.run_id"), nullable=False),
    Column("item_id", String(300), nullable=False),
    Column("repetition", Integer, nullable=False),
    Column("crashed", Boolean, nullable=False),
    Column("payload", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
    UniqueConstraint("run_id", "item_id", "repetition", name="uq_trajectory_slot"),
)

scores = Table(
    "scores",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("trajectory_id", Integer, ForeignKey("trajectories.id"), nullable=False),
    Column("run_id", String(32), nullable=False),
    Column("item_id", String(300), nullable=False),
    Column("repetition", Integer, nullable=False),
    Column("scorer", String(200), nullable=False),
    Column("scorer_version", String(40), nullable=False),
    Column("value", Float, nullable=True),
    Column("detail", Text, nullable=True),
    Column("imported", Boolean, nullable=False, default=False),
)

Index("ix_scores_run", scores.c.run_id, scores.c.scorer)

# Introduced by migration 2.
control_outcomes = Table(
    "control_outcomes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(32), ForeignKey("runs.run_id"), nullable=False),
    Column("kind", String(100), nullable=False),
    Column("version", String(40), nullable=False),
    Column("status", String(20), nullable=False),
    Column("suite_hash", String(64), nullable=False),
    Column("config_hash", String(64), nullable=False),
    Column("payload", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
)

mutation_results = Table(
    "mutation_results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(32), ForeignKey("runs.run_id"), nullable=False),
    Column("operator", String(100), nullable=False),
    Column("payload", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
)

Index("ix_control_outcomes_run", control_outcomes.c.run_id, control_outcomes.c.kind)
