"""The append-only store: the database, its row encodings, the evidence chain and its
checks, the `Store` facade and evidence bundles.

`Store` is the only way the rest of the harness reads or appends a run. Sub-packages by
job, each depending only on those listed before it:

- `records`: plain records (`ScoreRecord`, `Head`, `LedgerEntry`, ...), no dependency;
- `encoding`: pure row encodings (the chain's digests, score packs, state blobs);
- `database`: schema, engines, migrations, PostgreSQL, damage and schema checks;
- `facade`: `Store` and how it opens, appends and reads (private: use this package);
- `evidence`: the integrity checks (`evidence.check_evidence` is the entry point), the
  checkers' raw reads, checkpoints and the witness file;
- `bundle`: evidence bundles, written, read and proven.

What this package and the public sub-packages name in `__all__` is the store's surface
(a module named there is public as a whole); every other module is private to the store,
which `tests/store/test_store_boundary.py` holds.
"""

from agent_assay.store.facade.opening import open_existing_store, open_store
from agent_assay.store.facade.run_trajectories import RunTrajectories
from agent_assay.store.facade.shared_states import SharedStates
from agent_assay.store.facade.store import Store, close_pinned
from agent_assay.store.records import (
    OPENING_EVENTS,
    SESSION_EVENTS,
    TERMINAL_EVENTS,
    Attempt,
    Head,
    LedgerEntry,
    RetriedSlot,
    RunEvent,
    ScoreRecord,
    StoredOutcome,
    StoredRows,
)

__all__ = [
    "OPENING_EVENTS",
    "SESSION_EVENTS",
    "TERMINAL_EVENTS",
    "Attempt",
    "Head",
    "LedgerEntry",
    "RetriedSlot",
    "RunEvent",
    "RunTrajectories",
    "ScoreRecord",
    "SharedStates",
    "Store",
    "StoredOutcome",
    "StoredRows",
    "close_pinned",
    "open_existing_store",
    "open_store",
]
PUBLIC_PACKAGES = ("records", "encoding", "database", "evidence", "bundle")
"""The sub-packages (and module) whose `__all__` is part of the surface; `facade` is not."""
