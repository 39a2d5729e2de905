"""The benchmark's choices are bound into the certificate and shown in every view.

Written the way a benchmark author who wants a verdict would try it: a system whose own
bands file loosens every band, too few random seeds, a build_suite that depends on how
often it was called. Each is either refused in one line with nothing written, or bound
into the certificate and named wherever the verdict is shown."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

import agent_assay as aa
from agent_assay.controls.bands import load_bands
from agent_assay.errors import AssayError
from agent_assay.hashing import content_hash
from agent_assay.runner import execute_run
from agent_assay.store import open_store
from tests.support.choosy import BANDS, COUNTER, LooseBands, write_dist
from tests.support.invoke import invoke, on_path
from tests.support.toyrun import new_toy_run

LOOSENED = "identical_config max_differing_paths 40 (default 0), set by the system's own bands file"


@pytest.fixture(scope="module")
def choosy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """These systems registered for the command line, as an installed plugin would be."""
    with on_path(write_dist(tmp_path_factory.mktemp("choosy_site"))):
        yield tmp_path_factory.mktemp("choosy")


def rows(db: Path, table: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(f"select count(*) from {table}").fetchone()[0])


# ---- too few random seeds ---------------------------------------------------------------
@pytest.mark.parametrize("seeds", ["2", "4"])
def test_random_seeds_below_the_floor_are_refused_before_a_run_is_made(
    choosy: Path, tmp_path: Path, seeds: str
) -> None:
    db = tmp_path / "assay.db"
    got = invoke("controls", "run", "--adapter", "loosebands", "--config", "good",
                 "--random-seeds", seeds, "--db", str(db))
    assert got.traceback is None, got.traceback
    assert got.code != 0
    said = got.err.strip().splitlines()
    assert len(said) == 1 and f"--random-seeds must be at least 5, got {seeds}" in said[0]
    assert not db.exists() or rows(db, "runs") == rows(db, "control_outcomes") == 0


# ---- an impure build_suite --------------------------------------------------------------
@pytest.mark.parametrize("command", [("run",), ("controls", "run")])
def test_a_suite_that_changes_between_builds_is_refused_with_nothing_written(
    choosy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]
) -> None:
    monkeypatch.setenv(COUNTER, str(tmp_path / "counter"))
    db = tmp_path / "assay.db"
    got = invoke(*command, "--adapter", "countersuite", "--config", "good", "--db", str(db))
    assert got.traceback is None, got.traceback
    assert got.code != 0
    said = [line for line in got.err.splitlines() if line.strip()]
    assert len(said) == 1, got.err
    assert "adapter countersuite built its suite twice" in said[0]
    assert "hashes differently" in said[0] and said[0].count(", then ") == 1
    assert not db.exists() or rows(db, "runs") == rows(db, "suites") == 0


def test_the_api_refuses_an_impure_suite_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.choosy import CounterSuite

    monkeypatch.setenv(COUNTER, str(tmp_path / "counter"))
    with pytest.raises(AssayError, match="built its suite twice from its bundled set and it "
                                         "hashes differently"):
        aa.evaluate(CounterSuite(), "good", store=tmp_path / "assay.db")


# ---- the certificate binds what was chosen ------------------------------------------------
@pytest.fixture(scope="module")
def loose(choosy: Path) -> tuple[Path, str, str]:
    """Two k=2 runs of a system under its own loose bands, each certified by `controls run`
    on the command line; (db, run A, run B) and the last `controls run` output."""
    db = choosy / "loose.db"
    store = open_store(str(db))
    runs = []
    for seed in (0, 1):
        run = new_toy_run(store, LooseBands(), "good", repeats=2, seed=seed)
        execute_run(store, LooseBands(), run, progress=False)
        runs.append(run.run_id)
    store.close()
    for run_id in runs:
        got = invoke("controls", "run", "--adapter", "loosebands", "--run", run_id,
                     "--db", str(db))
        assert got.code == 0, got.out + got.err
        (choosy / f"controls-{run_id}.txt").write_text(got.out)
    return db, runs[0], runs[1]


def test_the_certificate_binds_the_bands_allowances_seeds_and_headline(
    loose: tuple[Path, str, str],
) -> None:
    from agent_assay.controls.choices import BANDS_KIND

    db, run_a, _ = loose
    store = open_store(str(db))
    bands = load_bands(BANDS / "loose.yaml")
    for outcome in store.control_outcomes(run_a).values():
        choices = outcome.payload["certificate"]["choices"]
        assert choices["bands_digest"] == content_hash(BANDS_KIND, bands.per_kind)
        assert choices["random_seeds"] == 5
        assert choices["allowed_not_run"] == {}
        assert choices["headline"] == list(LooseBands.facts.headline_metrics)
        assert choices["system_scorers"] == []
        twin = next(d for d in choices["departures"] if d["kind"] == "identical_config")
        assert twin == {"kind": "identical_config", "key": "max_differing_paths", "value": 40,
                        "default": 0, "set_by": "the system's own bands file",
                        "file": str(BANDS / "loose.yaml")}


def test_every_view_names_the_loosened_band(loose: tuple[Path, str, str], choosy: Path) -> None:
    db, run_a, run_b = loose
    where = ("--db", str(db))
    controls_out = (choosy / f"controls-{run_a}.txt").read_text()
    assert "run ADMISSIBLE WITH WAIVERS" in controls_out and LOOSENED in controls_out

    text = invoke("report", run_a, *where)
    assert text.out.splitlines()[3].startswith("!!! ADMISSIBLE WITH WAIVERS -- ")
    assert f"waived: {LOOSENED}" in text.out

    data = json.loads(invoke("report", run_a, "--json", *where).out)
    assert data["verdict"] == "ADMISSIBLE WITH WAIVERS" and LOOSENED in data["waivers"]
    assert data["choices"]["random_seeds"] == 5

    table = list(csv.DictReader(io.StringIO(invoke("report", run_a, "--csv", *where).out)))
    assert table and all(LOOSENED in row["verdict"] for row in table)
    assert all(row["verdict"].startswith("ADMISSIBLE WITH WAIVERS: ") for row in table)

    page = choosy / "report.html"
    assert invoke("report", run_a, "--html", str(page), *where).code == 0
    html = page.read_text()
    assert "<strong>ADMISSIBLE WITH WAIVERS</strong>" in html
    assert LOOSENED.replace("'", "&#39;") in html

    shown = invoke("controls", "show", run_a, *where).out
    assert "!!! ADMISSIBLE WITH WAIVERS" in shown and LOOSENED in shown
    stored = json.loads(invoke("controls", "show", run_a, "--json", *where).out)
    departures = stored["identical_config"]["certificate"]["choices"]["departures"]
    assert {"key": "max_differing_paths", "value": 40}.items() <= next(
        d for d in departures if d["kind"] == "identical_config").items()

    run_show = invoke("runs", "show", run_a, *where).out
    assert "verdict: ADMISSIBLE WITH WAIVERS: " in run_show and LOOSENED in run_show
    assert LOOSENED in json.loads(invoke("runs", "show", run_a, "--json", *where).out)["waivers"]

    listed = [line for line in invoke("runs", "list", *where).out.splitlines()
              if line.startswith(run_a)]
    assert len(listed) == 1 and "[WAIVED: " in listed[0] and LOOSENED in listed[0]
    in_json = json.loads(invoke("runs", "list", "--json", *where).out)["runs"]
    assert LOOSENED in next(r for r in in_json if r["run_id"] == run_a)["waivers"]

    compared = invoke("compare", run_a, run_b, *where)
    assert compared.code == 0, compared.out
    assert "A is ADMISSIBLE WITH WAIVERS: " in compared.out and LOOSENED in compared.out
    sides = json.loads(invoke("compare", run_a, run_b, "--json", *where).out)
    assert sides["run_b"]["verdict"] == "ADMISSIBLE WITH WAIVERS"
    assert LOOSENED in sides["run_b"]["waivers"]

    bundle = choosy / "bundle.jsonl"
    assert invoke("export", run_a, str(bundle), *where).code == 0
    from_bundle = invoke("report", str(bundle))
    assert "!!! ADMISSIBLE WITH WAIVERS" in from_bundle.out and LOOSENED in from_bundle.out
