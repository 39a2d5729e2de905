"""Streamed reads straight from the driver's cursor, and the tolerant decoding a damaged
store needs: what the store's bulk readers and the checkers' raw reads share."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

STREAM_BATCH = 2000
"""Rows fetched at a time when a whole run is streamed (a server-side cursor on PostgreSQL)."""


def batches(conn: Connection, query: Any) -> Iterator[Sequence[tuple[Any, ...]]]:
    """The driver's own tuples in batches, read straight from its cursor: no row objects
    and no type processing (a boolean reads back as the 0 or 1 it is stored as, which the
    chain encodes alike). Driver errors are raised as SQLAlchemy's, as any other read's."""
    compiled = query.compile(dialect=conn.dialect)
    params = compiled.construct_params()
    args = tuple(params[name] for name in compiled.positiontup or ()) \
        if compiled.positional else params
    statement = str(compiled)
    cursor = conn.connection.cursor()
    try:
        cursor.execute(statement, args)
        while batch := cursor.fetchmany(STREAM_BATCH):
            yield batch
    except conn.dialect.loaded_dbapi.Error as exc:
        raise DBAPIError.instance(statement, args, exc,
                                  conn.dialect.loaded_dbapi.Error) from exc
    finally:
        cursor.close()


def tolerant_text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def undecodable(exc: DBAPIError) -> bool:
    """sqlite3's complaint about stored text that is not UTF-8."""
    return isinstance(exc.orig, sqlite3.OperationalError) and "decode" in str(exc.orig)
