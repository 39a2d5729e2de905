"""Adapter discovery through entry points, and the CLI on a fake registered toy adapter.

Nothing is installed: a `toyadapter-0.1.dist-info` directory on the path registers
`toy = tests.support.toy:ToyAdapter` in the `agent_assay.adapters` group. Commands run in
this process, except where several processes are the point (`--workers`).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from agent_assay.adapters import registry
from agent_assay.errors import AssayError
from agent_assay.store import open_store
from tests.support.invoke import Invocation, invoke, on_path
from tests.support.toy import ToyAdapter
from tests.support.toyrun import agent_assay, cli_env, toy_run, write_toy_dist

RUN_ID = re.compile(r"^[0-9a-f]{32}$")


@pytest.fixture(scope="module")
def registered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], Path]]:
    home = tmp_path_factory.mktemp("cli")
    write_toy_dist(home / "site")
    yield cli_env(home / "site"), home


def run_ok(*args: str, site: Path | None) -> Invocation:
    """One command in this process, with the toy registered when SITE is given."""
    with on_path(site) if site is not None else contextlib.nullcontext():
        done = invoke(*args)
    assert done.traceback is None, done.traceback
    assert done.code == 0, done.err
    return done


# ---- the registry, in process ----------------------------------------------------------
def fake_entry_points(monkeypatch: pytest.MonkeyPatch, **targets: str) -> None:
    eps = {name: EntryPoint(name=name, value=value, group=registry.GROUP)
           for name, value in targets.items()}
    monkeypatch.setattr(registry, "_entry_points", lambda: eps)


class NotAnAdapter:
    name = "broken"


def exploding_factory() -> ToyAdapter:
    raise RuntimeError("no lamps today")


def test_registry_loads_lists_and_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(
        monkeypatch,
        toy="tests.support.toy:ToyAdapter",
        notone=f"{__name__}:NotAnAdapter",
        explodes=f"{__name__}:exploding_factory",
        missing="tests.support.no_such_module:Thing",
    )
    assert registry.adapter_names() == ["explodes", "missing", "notone", "toy"]
    assert isinstance(registry.load_adapter("toy").raw, ToyAdapter)
    with pytest.raises(AssayError, match=r"^unknown adapter: nope \(registered: explodes, "
                                         r"missing, notone, toy\)$"):
        registry.load_adapter("nope")
    with pytest.raises(AssayError, match=r"^adapter notone is missing version \(and 3 more"):
        registry.load_adapter("notone")
    with pytest.raises(AssayError, match=r"^adapter explodes failed to load: RuntimeError: "
                                         r"no lamps today$"):
        registry.load_adapter("explodes")
    with pytest.raises(AssayError, match=r"^adapter missing needs the module 'tests.support"):
        registry.load_adapter("missing")
    infos = {i.name: i for i in registry.list_adapters()}
    assert infos["toy"].version == "1.0.0"
    assert infos["toy"].source == "tests.support.toy:ToyAdapter (tests.support.toy:ToyAdapter)"
    assert infos["explodes"].version.startswith("unloadable: adapter explodes failed to load")


def test_registry_with_no_adapters(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(monkeypatch)
    with pytest.raises(AssayError, match=r"registered: none\)"):
        registry.load_adapter("toy")
    assert registry.list_adapters() == []


# ---- the CLI, through a fake distribution ------------------------------------------------
def test_adapters_list_shows_registered_toy(registered: tuple[dict[str, str], Path]) -> None:
    _, home = registered
    done = run_ok("adapters", "list", site=home / "site")
    lines = done.out.splitlines()
    assert "toy\t1.0.0\ttoyadapter 0.1 (tests.support.toy:ToyAdapter)" in lines
    # without the dist-info directory the toy is not registered
    bare = run_ok("adapters", "list", site=None)
    assert not [line for line in bare.out.splitlines() if line.startswith("toy\t")]


def test_cli_run_report_and_resume(registered: tuple[dict[str, str], Path]) -> None:
    _, home = registered
    site, db = home / "site", str(home / "run.db")
    done = run_ok("run", "--adapter", "toy", "--config", "good", "--repeats", "2", "--db", db,
                  site=site)
    run_id = done.out.strip()
    assert RUN_ID.match(run_id), done.out
    assert done.err.splitlines() == [
        f"run {run_id}", "wrote 8 trajectories (0 crashed), skipped 0 already stored"]

    store = open_store(db)
    assert [r.run_id for r in store.list_runs()] == [run_id]
    assert store.count_rows("trajectories") == 8
    assert store.count_scores() == 8 * 13
    store.close()

    report = run_ok("report", run_id, "--exit-zero", "--db", db, site=site)  # uncertified
    assert f"run {run_id}  adapter=toy  config=good  status=complete" in report.out
    assert "trajectories: 8 of 8 (0 crashed)" in report.out
    assert "trajectory.exact *" in report.out

    as_json = run_ok("report", run_id, "--json", "--exit-zero", "--db", db, site=site)
    data = json.loads(as_json.out)
    assert data["run"]["run_id"] == run_id
    assert data["status"]["state"] == "complete"
    assert data["metrics"]["trajectory.exact"]["mean_of_k"] == 1.0
    assert as_json.out.strip() == json.dumps(data, sort_keys=True, indent=2)

    resumed = run_ok("run", "--resume", run_id, "--db", db, site=site)
    assert resumed.out.strip() == run_id
    assert "wrote 0 trajectories (0 crashed), skipped 8 already stored" in resumed.err
    assert open_store(db).count_rows("trajectories") == 8


def comparable_scores(db: str, run_id: str) -> dict[tuple[str, int, str], object]:
    store = open_store(db)
    try:
        return {
            (r.item_id, r.repetition, r.scorer): (r.value, r.detail, r.scorer_version)
            for r in store.current_scores(run_id)
            if r.scorer != "latency.total_ms"
        }
    finally:
        store.close()


@pytest.mark.parametrize("config", ["noisy", "crashy"])
def test_workers_give_the_same_scores_as_sequential(
    registered: tuple[dict[str, str], Path], config: str
) -> None:
    env, home = registered
    db = str(home / f"workers-{config}.db")
    sequential = toy_run(open_store(db), ToyAdapter(), config, repeats=3, seed=5)
    done = agent_assay("run", "--adapter", "toy", "--config", config, "--repeats", "3",
                       "--seed", "5", "--workers", "2", "--db", db, env=env, cwd=home)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    parallel_id = done.stdout.strip()
    assert parallel_id != sequential.run_id
    seq = comparable_scores(db, sequential.run_id)
    par = comparable_scores(db, parallel_id)
    assert len(seq) == 4 * 3 * 12
    assert par == seq
    store = open_store(db)
    assert [t.path_key() for t in store.trajectories(parallel_id)] == [
        t.path_key() for t in store.trajectories(sequential.run_id)]
    crashed = [t for t in store.trajectories(parallel_id) if t.crashed]
    assert len(crashed) == (3 if config == "crashy" else 0)
    assert all("lamp L2 is haunted" in (t.error or "") for t in crashed)
