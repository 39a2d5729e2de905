"""An agent-assay run written as an Inspect log that Inspect's own reader opens, with the
verdict in its metadata; a TAMPERED run is refused, never written as if sound."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="inspect_ai is not installed")

from inspect_ai.log import read_eval_log

from agent_assay import api
from agent_assay.store import open_store
from tests.support.invoke import invoke
from tests.support.tamper import behind_triggers


@pytest.fixture
def imported(logs: dict[str, Path], tmp_path: Path) -> tuple[Path, str]:
    db = tmp_path / "assay.db"
    return db, api.read_import("inspect", logs["worse"]).store(str(db)).run_id


def test_an_exported_run_reads_back_with_its_verdict(imported: tuple[Path, str],
                                                      tmp_path: Path) -> None:
    db, run_id = imported
    out = tmp_path / "run.eval"
    done = invoke("export", run_id, "--format", "inspect", "--out", str(out), "--db", str(db))
    assert done.code == 0 and done.traceback is None, done.err
    assert "24 samples (inspect)" in done.out
    log = read_eval_log(str(out))
    said = (log.metadata or {})["agent_assay"]
    verdict = api.report(run_id, store=str(db)).verdict
    assert said["verdict"] == verdict.word == "INADMISSIBLE"
    assert said["reasons"] == list(verdict.reasons) and said["run_id"] == run_id
    assert log.eval.task_display_name == "balances [agent-assay: INADMISSIBLE]"
    assert "INADMISSIBLE" in (log.eval.tags or [])
    head = open_store(str(db)).head(run_id)
    assert head is not None and said["store_head"] == {"seq": head.seq, "digest": head.digest}
    assert log.samples is not None and len(log.samples) == 24
    assert {s.epoch for s in log.samples} == {1, 2}
    s0 = next(s for s in log.samples if s.id == "s0" and s.epoch == 1)
    assert s0.scores is not None and s0.scores["inspect.includes"].value == 0.0
    assert (s0.scores["inspect.includes"].metadata or {})["imported"] is True
    calls = [c.function for m in s0.messages if m.role == "assistant" for c in m.tool_calls or ()]
    assert calls == ["lookup"]
    assert log.results is not None
    mean = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert abs(mean["inspect.includes"] - 8 / 24) < 1e-12


def test_the_bundle_stays_the_default(imported: tuple[Path, str], tmp_path: Path) -> None:
    db, run_id = imported
    done = invoke("export", run_id, str(tmp_path / "run.bundle"), "--db", str(db))
    assert done.code == 0 and "rows" in done.out, done.err
    assert api.is_bundle(str(tmp_path / "run.bundle"))


def test_an_unknown_format_is_one_line(imported: tuple[Path, str], tmp_path: Path) -> None:
    db, run_id = imported
    done = invoke("export", run_id, "--format", "nope", "--out", str(tmp_path / "x"),
                  "--db", str(db))
    assert done.code != 0 and done.traceback is None
    assert "unknown export format: nope" in done.err and not (tmp_path / "x").exists()


def test_a_tampered_run_is_refused(imported: tuple[Path, str], tmp_path: Path) -> None:
    db, run_id = imported
    with sqlite3.connect(db) as con:  # the writer's log folded in before the edit
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    behind_triggers(db, "UPDATE trajectories SET payload = replace(payload, "
                        "'no idea', 'code-0x')")
    out = tmp_path / "run.eval"
    done = invoke("export", run_id, "--format", "inspect", "--out", str(out), "--db", str(db))
    assert done.traceback is None
    assert done.code == 2, done.out + done.err
    assert "TAMPERED" in done.err and not out.exists()


def test_a_run_agent_assay_executed_is_written_as_its_tool_path(site: Path,
                                                                 tmp_path: Path) -> None:
    """Not only imported logs: a run of the toy adapter, its steps as tool calls answered
    by tool messages, its verdict in the metadata."""
    from tests.support.toy import ToyAdapter

    db = tmp_path / "assay.db"
    run_id = api.evaluate(ToyAdapter(), "good", store=str(db), repeats=2, seed=0).run_id
    out = tmp_path / "toy.json"
    count = api.export(run_id, out, store=str(db), format="inspect")
    log = read_eval_log(str(out))
    assert log.samples is not None and count == len(log.samples)
    assert count == 2 * len(open_store(str(db)).get_run(run_id).item_ids)
    stored = open_store(str(db)).trajectories(run_id)
    first = next(s for s in log.samples if s.id == stored[0].item_id and s.epoch == 1)
    calls = [c.function for m in first.messages if m.role == "assistant"
             for c in m.tool_calls or ()]
    assert calls == [step.call.tool for step in stored[0].steps]
    assert (log.metadata or {})["agent_assay"]["trajectories"] == "executed by agent-assay"
    assert (log.metadata or {})["agent_assay"]["verdict"] == "INADMISSIBLE"
