"""Defects planted in the benchmark (test-only copies, the package untouched): the controls
go red and name the entry."""

from __future__ import annotations

from pathlib import Path

from tests.bfcl.planted import BLIND_ENTRY, WRONG_ENTRY
from tests.bfcl.support import need_bfcl
from tests.support.invoke import invoke

need_bfcl()


def controls(adapter: str, db: Path) -> str:
    done = invoke("controls", "run", "--adapter", adapter, "--config", "oracle",
                  "--random-seeds", "5", "--db", str(db))
    assert done.traceback is None, done.traceback
    assert done.code == 3, done.out + done.err  # inadmissible
    return " ".join(done.out.split())


def test_a_check_that_ignores_the_state_is_named(registered: Path, tmp_path: Path) -> None:
    table = controls("bfcl-blind", tmp_path / "blind.db")
    assert "headline_agreement FAILED" in table
    credited = table.split("passes what its reference rejects:")[1]
    assert BLIND_ENTRY in credited.split(";")[0]


def test_ground_truth_that_fails_its_own_check_is_named(registered: Path,
                                                        tmp_path: Path) -> None:
    table = controls("bfcl-wrong", tmp_path / "wrong.db")
    positive = table.split("positive_control")[1].split("mutation")[0]
    assert positive.lstrip().startswith("FAILED")
    assert f"first item below ceiling: item {WRONG_ENTRY}: bfcl.valid 0.0" in positive
    assert "multi_turn:force_terminated" in positive
