"""A run written by an older agent-assay (a row per score, every banking trajectory holding
its whole bank) gives the same numbers, to the last digit, once its store is migrated, and
its scores still re-derive from its trajectories."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from agent_assay.store.database import migrations
from agent_assay.store.encoding import DELTA_KEY
from tests.support.invoke import invoke
from tests.support.legacy import copy_as_version, schema_version, score_rows_layout

BEFORE_STATE_BLOBS = 4


def test_a_banking_run_from_before_score_sets_and_state_blobs_reports_the_same_after_migrating(
    tmp_path: Path,
) -> None:
    written = tmp_path / "written.db"
    with score_rows_layout():
        made = invoke("run", "--adapter", "banking", "--config", "mock", "--limit", "3",
                      "--repeats", "2",
                      "--db", str(written))
    assert made.code == 0, made.err
    run_id = made.out.split()[-1]
    old = tmp_path / "old.db"
    copy_as_version(written, old, BEFORE_STATE_BLOBS)
    with sqlite3.connect(old) as conn:
        payloads = [json.loads(p) for (p,) in conn.execute("SELECT payload FROM trajectories")]
        tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master")}
        (sets,) = conn.execute("SELECT COUNT(*) FROM score_sets").fetchone()
    assert "state_blobs" not in tables and sets == 0
    assert payloads and all("final_state" in p and DELTA_KEY not in p for p in payloads)
    assert min(len(json.dumps(p["final_state"])) for p in payloads) > 10_000  # whole banks

    reference = invoke("report", run_id, "--db", str(written), "--json")
    assert reference.code in (0, 3), reference.err
    migrated = invoke("migrate", "--db", str(old))
    assert migrated.code == 0, migrated.err
    assert schema_version(old) == migrations.LATEST
    again = invoke("report", run_id, "--db", str(old), "--json")
    assert again.code == reference.code, again.err
    before, after = json.loads(reference.out), json.loads(again.out)
    assert after["metrics"] == before["metrics"] and after["consistency"] == before["consistency"]
    verified = invoke("verify", run_id, "--db", str(old))
    assert verified.code == 0, verified.out
    assert "FINDING" not in verified.out
    rederived = re.search(r"(\d+) scores re-derived and equal", verified.out)
    with sqlite3.connect(old) as conn:
        (scores,) = conn.execute("SELECT COUNT(*) FROM scores WHERE imported = 0").fetchone()
    assert scores > len(payloads)  # a row per score, as it was written
    assert rederived and int(rederived.group(1)) == scores
