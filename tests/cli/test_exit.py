"""How the console script ends: with `run_cli`'s exit code, the objects still alive frozen
out of the collector's shutdown passes (`cli.main`)."""

from __future__ import annotations

import gc
import signal

import pytest

from agent_assay import cli


def test_main_exits_with_the_commands_code_and_freezes_what_is_alive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli, "run_cli", lambda: 3)
    monkeypatch.setattr(signal, "signal", lambda *_: None)  # leave pytest's handlers be
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    try:
        with pytest.raises(SystemExit) as exited:
            cli.main()
        assert exited.value.code == 3
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
