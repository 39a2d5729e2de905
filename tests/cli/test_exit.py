"""How the console script ends (`cli.main`): with `run_cli`'s exit code, the command's
garbage collected (its finalizers run: a store's engine left to the collector closes its
SQLite connections), and what is still alive frozen out of the shutdown's collections."""

from __future__ import annotations

import gc
import signal
import sqlite3
from pathlib import Path

import pytest

from agent_assay import cli


class _Cycle:
    """Garbage only the collector frees, holding an open SQLite connection."""

    def __init__(self, db: Path) -> None:
        self.me = self
        self.conn = sqlite3.connect(db)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("CREATE TABLE t (x)")
        self.conn.commit()


def test_main_finalizes_the_commands_garbage_then_freezes_what_is_alive(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    db = tmp_path / "left.db"

    def command() -> int:
        _Cycle(db)  # dropped in a cycle, its connection still open
        return 3

    monkeypatch.setattr(cli, "run_cli", command)
    monkeypatch.setattr(signal, "signal", lambda *_: None)  # leave pytest's handlers be
    gc.unfreeze()
    was = gc.isenabled()
    gc.disable()  # only main's collection may free the cycle
    try:
        with pytest.raises(SystemExit) as exited:
            cli.main()
        assert exited.value.code == 3
        assert gc.get_freeze_count() > 0
        # the last connection closed: SQLite folded its write-ahead log into the file
        assert not (tmp_path / "left.db-wal").exists()
    finally:
        gc.unfreeze()
        if was:
            gc.enable()
