"""The database: its schema (`schema`) and migrations (`migrations`), the engines for SQLite
and PostgreSQL, the schema version a store holds, provisioning a server, the check of the
schema's guards, base states read back, and what SQLite damage looks like."""

from agent_assay.store.database import migrations, schema
from agent_assay.store.database.base_states import BaseStates
from agent_assay.store.database.damage import damage_error, damage_report, disk_full, short
from agent_assay.store.database.engine import Access, database_url, make_engine, shown
from agent_assay.store.database.fresh import absent_store_file, discard_if_unused
from agent_assay.store.database.postgres_schema import guard_holder_notes
from agent_assay.store.database.provision import Provisioned, provision
from agent_assay.store.database.schema_check import reference_objects, repair, schema_findings
from agent_assay.store.database.version import stored_version

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
