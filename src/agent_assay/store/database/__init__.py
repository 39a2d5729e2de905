"""The database: its schema (`schema`) and migrations (`migrations`), the engines for SQLite
and PostgreSQL, the schema version a store holds, provisioning a server, the check of the
schema's guards, base states read back, and what SQLite damage looks like.

The names below are loaded on first use (PEP 562), so importing one submodule (`schema`,
say) does not import the others: on an SQLite store no PostgreSQL DDL, schema check or
SQLAlchemy PostgreSQL dialect is ever imported (`tests/store/test_read_path.py`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_assay.store.database import migrations, schema
    from agent_assay.store.database.base_states import BaseStates
    from agent_assay.store.database.damage import (
        damage_error,
        damage_report,
        disk_full,
        short,
    )
    from agent_assay.store.database.engine import Access, database_url, make_engine, shown
    from agent_assay.store.database.fresh import absent_store_file, discard_if_unused
    from agent_assay.store.database.postgres_schema import guard_holder_notes
    from agent_assay.store.database.provision import Provisioned, provision
    from agent_assay.store.database.schema_check import (
        reference_objects,
        repair,
        schema_findings,
    )
    from agent_assay.store.database.version import stored_version

_WHERE = {
    "Access": "engine",
    "BaseStates": "base_states",
    "Provisioned": "provision",
    "absent_store_file": "fresh",
    "damage_error": "damage",
    "damage_report": "damage",
    "database_url": "engine",
    "discard_if_unused": "fresh",
    "disk_full": "damage",
    "guard_holder_notes": "postgres_schema",
    "make_engine": "engine",
    "provision": "provision",
    "reference_objects": "schema_check",
    "repair": "schema_check",
    "schema_findings": "schema_check",
    "short": "damage",
    "shown": "engine",
    "stored_version": "version",
}
"""Each name this package offers and the submodule that defines it (`migrations` and
`schema` are submodules themselves)."""


def __getattr__(name: str) -> Any:
    if name in ("migrations", "schema"):
        return importlib.import_module(f"{__name__}.{name}")
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Access",
    "BaseStates",
    "Provisioned",
    "absent_store_file",
    "damage_error",
    "damage_report",
    "database_url",
    "discard_if_unused",
    "disk_full",
    "guard_holder_notes",
    "make_engine",
    "migrations",
    "provision",
    "reference_objects",
    "repair",
    "schema",
    "schema_findings",
    "short",
    "shown",
    "stored_version",
]
