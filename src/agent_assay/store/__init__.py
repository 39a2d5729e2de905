"""The append-only store: schema, migrations, the writer and the readers.

`Store` is the only way the rest of the harness touches the database.
"""

from agent_assay.store.facade.store import Store, open_store

__all__ = ["Store", "open_store"]
