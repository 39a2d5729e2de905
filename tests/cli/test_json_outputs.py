"""`--json` on every results command: one document on stdout, valid against its schema.

Each test runs one command in this process on a small toy store (conftest's `toy_db`,
plus the runs the module fixture adds), parses stdout whole, validates it against the
command's schema in agent_assay/schemas/, and checks a few of its values against what
the store holds. Every schema is shown to go red on a planted undocumented key. The
last tests walk the command tree, so a new results command without `--json` and a
schema fails here.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import jsonschema
import pytest

from agent_assay.cli import cli
from agent_assay.controls.registry import control_kinds
from agent_assay.integrity.admissibility import assess
from agent_assay.schemas import names, schema
from agent_assay.store import Store, open_store
from tests.importers.test_tau_bench_parse import results, write
from tests.support.invoke import Invocation, invoke, on_path
from tests.support.misbehaving import write_misbehaving_dist
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "json.md"

NOT_RESULTS = {
    "adapters list": "lists the installed plugins; reads no store",
    "migrate": "upgrades a store in place",
    "store init": "creates a store's schema and its role, once, as the owner",
    "export": "writes an evidence bundle to a file",
}


# ---- the store ------------------------------------------------------------------------
@dataclass(frozen=True)
class Ready:
    db: Path
    good: str
    """toy_db's run: config good, k=1, never certified."""
    wrong: str
    """config wrong_arg, k=1: every path diverges at the first call."""
    crashy: str
    """config crashy, k=1: item on-L2 crashed."""
    twice: str
    """config good, k=2, with a mutation pass and every control's outcome stored."""


@pytest.fixture(scope="module")
def ready(toy_db: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Ready:
    base, good = toy_db
    db = tmp_path_factory.mktemp("json_outputs") / "assay.db"
    shutil.copyfile(base, db)
    store = open_store(str(db))
    wrong = toy_run(store, ToyAdapter(), "wrong_arg").run_id
    crashy = toy_run(store, ToyAdapter(), "crashy").run_id
    twice = toy_run(store, ToyAdapter(), "good", repeats=2).run_id
    store.close()
    for args in (("mutate", "--adapter", "toy", "--run", twice),
                 ("controls", "run", "--adapter", "toy", "--run", twice)):
        done = invoke(*args, "--db", str(db))
        assert done.traceback is None, done.traceback
    return Ready(db, good, wrong, crashy, twice)


@pytest.fixture
def copy(ready: Ready, tmp_path: Path) -> Path:
    """A private copy of the ready store, for a command that writes."""
    path = tmp_path / "assay.db"
    shutil.copyfile(ready.db, path)
    return path


@pytest.fixture
def store(ready: Ready) -> Iterator[Store]:
    opened = open_store(str(ready.db))
    yield opened
    opened.close()


def run_json(*args: str, db: Path | None = None) -> Invocation:
    done = invoke(*args, "--json", *(("--db", str(db)) if db is not None else ()))
    assert done.traceback is None, done.traceback
    return done


def documented(done: Invocation, name: str) -> dict[str, Any]:
    """stdout parsed whole (one document, nothing else), valid against schema `name`; and
    the same document with one undocumented key added is not."""
    document: dict[str, Any] = json.loads(done.out)
    assert done.out == json.dumps(document, sort_keys=True, indent=2) + "\n"
    assert document["schema"] == schema(name)["properties"]["schema"]["const"]
    jsonschema.validate(document, schema(name))
    with pytest.raises(jsonschema.ValidationError, match="undocumented"):
        jsonschema.validate(document | {"undocumented": True}, schema(name))
    return document


def item_means(store: Store, run_id: str, metric: str) -> float:
    values: dict[str, list[float]] = defaultdict(list)
    for row in store.current_scores(run_id):
        if row.scorer == metric and row.value is not None:
            values[row.item_id].append(row.value)
    means = [sum(v) / len(v) for v in values.values()]
    return sum(means) / len(means)


def tamper(db: Path, run_id: str) -> None:
    """Edit a stored score behind the append-only trigger: the run's chain no longer holds."""
    con = sqlite3.connect(db)
    try:
        with con:
            con.execute("DROP TRIGGER scores_no_update")
            con.execute("UPDATE scores SET value = 0.0 WHERE run_id = ? AND "
                        "scorer = 'trajectory.exact'", (run_id,))
    finally:
        con.close()


# ---- running ----------------------------------------------------------------------------
def test_run(copy: Path) -> None:
    done = run_json("run", "--adapter", "toy", "--config", "good", "--repeats", "2", db=copy)
    assert done.code == 0, done.err
    data = documented(done, "run")
    assert "wrote 8 trajectories (0 crashed)" in done.err and "wrote" not in done.out
    store = open_store(str(copy))
    run = store.get_run(data["run_id"])
    assert (data["repeats"], data["n_items"]) == (run.repeats, len(run.item_ids)) == (2, 4)
    assert data["written"] == len(store.trajectories(run.run_id)) == 8
    assert (data["config_hash"], data["suite_hash"]) == (run.config_hash, run.suite_hash)
    store.close()
    resumed = documented(run_json("run", "--resume", data["run_id"], db=copy), "run")
    assert resumed["resumed"] and resumed["run_id"] == data["run_id"]
    assert (resumed["written"], resumed["skipped"]) == (0, 8)


def test_run_that_could_not_reach_its_agent_still_prints_its_document(copy: Path) -> None:
    with on_path(write_misbehaving_dist(copy.parent / "site")):
        done = run_json("run", "--adapter", "unreachable", "--config", "good", db=copy)
    assert done.code == 1
    data = documented(done, "run")
    assert (data["written"], data["crashed"]) == (4, 1)
    assert done.err.splitlines()[-1].startswith("error: 1 items crashed: AgentUnreachable")
    stored = open_store(str(copy)).trajectories(data["run_id"], "off-L4")
    assert [t.crashed for t in stored] == [True]


@pytest.mark.usefixtures("toy_db")  # registers the toy adapter
def test_suite_build(tmp_path: Path) -> None:
    db = tmp_path / "fresh.db"
    done = run_json("suite", "build", "--adapter", "toy", db=db)
    assert done.code == 0, done.err
    data = documented(done, "suite-build")
    suite = open_store(str(db)).get_suite(data["suite_hash"])
    assert data["item_ids"] == sorted(i.item_id for i in suite.items)
    assert data["n_items"] == len(suite.items) == 4
    assert data["tags"] == ["off", "on"] and data["adapter"] == "toy"


def test_score(copy: Path, ready: Ready) -> None:
    done = run_json("score", ready.twice, db=copy)
    assert done.code == 0, done.err
    data = documented(done, "score")
    store = open_store(str(copy))
    assert data["run_id"] == ready.twice
    assert data["unchanged"] == len(store.current_scores(ready.twice))
    assert not data["new_generation"] and data["written"] == data["changed"] == 0
    store.close()


def test_import(tmp_path: Path) -> None:
    db = tmp_path / "imported.db"
    source = write(tmp_path / "tau.json", results(3, 2))
    done = run_json("import", "tau-bench", str(source), db=db)
    assert done.code == 0, done.err
    data = documented(done, "import")
    run = open_store(str(db)).get_run(data["run_id"])
    assert (len(run.item_ids), run.repeats) == (3, 2)
    assert data["file"] == str(source) and data["importer"] == "tau-bench"
    assert all(line in done.err for line in data["lines"])


@pytest.mark.usefixtures("toy_db")  # registers the toy adapter
def test_check_adapter() -> None:
    done = run_json("check-adapter", "toy")
    data = documented(done, "check-adapter")
    assert data["adapter"] == "toy"
    assert data["ready"] is (done.code == 0)
    # four items are too few for the mutation control's detector: the one FAIL line
    assert [c["what"] for c in data["checks"] if c["level"] == "FAIL"] == ["mutation"]


# ---- reading ----------------------------------------------------------------------------
def test_runs_list(ready: Ready, store: Store) -> None:
    done = run_json("runs", "list", db=ready.db)
    assert done.code == 0, done.err
    listed = documented(done, "runs-list")["runs"]
    stored = store.list_runs()
    assert [r["run_id"] for r in listed] == [r.run_id for r in stored]
    by_id = {r["run_id"]: r for r in listed}
    assert by_id[ready.crashy]["status"] == "incomplete"
    assert by_id[ready.twice]["repeats"] == 2
    made_here = {ready.good, ready.wrong, ready.crashy, ready.twice}
    twins = [r for r in listed if r["run_id"] not in made_here]
    assert twins  # identical_config's, made while certifying `twice`
    assert {(r["made_by_control"], r["certifies"]) for r in twins} == {
        ("identical_config", ready.twice)
    }
    assert all(by_id[r]["made_by_control"] is None for r in made_here)


def test_report(ready: Ready, store: Store) -> None:
    done = run_json("report", ready.twice, "--passk-curve", db=ready.db)
    data = documented(done, "report")
    assert done.code == (0 if data["admissible"] else 3), done.err
    assert data["run"]["run_id"] == ready.twice and not data["tampered"]
    assert set(data["metrics"]) == {r.scorer for r in store.current_scores(ready.twice)}
    assert data["status"]["stored"] == len(store.trajectories(ready.twice)) == 8
    assert data["admissible"] == assess(store, store.get_run(ready.twice)).admissible
    assert "passk_curve" in data
    cut = documented(run_json("report", ready.wrong, "--by-tag", "--items", "trajectory.exact",
                              db=ready.db), "report")
    assert {row["tag"] for row in cut["by_tag"]["tags"]} == {"on", "off"}
    assert sorted(line["item_id"] for line in cut["items"]["items"]) == sorted(
        store.get_run(ready.wrong).item_ids)


def test_runs_show(ready: Ready, store: Store) -> None:
    done = run_json("runs", "show", ready.crashy, db=ready.db)
    assert done.code == 0, done.err
    data = documented(done, "runs-show")
    assert data["run_id"] == ready.crashy
    assert data["items"] == list(store.get_run(ready.crashy).item_ids)
    assert [c["item_id"] for c in data["crashes"]] == ["on-L2"]


def test_trajectories_show(ready: Ready) -> None:
    done = run_json("trajectories", "show", ready.wrong, "on-L1", db=ready.db)
    assert done.code == 0, done.err
    data = documented(done, "trajectories-show")
    assert (data["run_id"], data["item_id"], data["repetition"]) == (ready.wrong, "on-L1", 1)
    assert data["first_divergence"] == 1


def test_plan(ready: Ready) -> None:
    done = run_json("plan", "--run", ready.twice, "--effect", "0.2", "--effect", "0.5",
                    db=ready.db)
    assert done.code == 0, done.err
    data = documented(done, "plan")
    assert data["run_id"] == ready.twice
    assert sorted({r["effect"] for r in data["rows"]}) == [0.2, 0.5]
    assert [w["effect"] for w in data["what_if"]] == [0.2, 0.5]
    assert all(w["within_worse"] <= w["as_assumed"] for w in data["what_if"])


def test_compare_refused(ready: Ready) -> None:
    done = run_json("compare", ready.good, ready.wrong, db=ready.db)
    assert done.code == 4
    data = documented(done, "compare")
    assert data["refused"] and not data["sound"] and not data["forced"]
    assert (data["run_a"]["run_id"], data["run_b"]["run_id"]) == (ready.good, ready.wrong)
    assert data["metrics"] is None  # no number, as the text form
    assert [m["code"] for m in data["mismatches"]] == ["RUN_INADMISSIBLE"] * 2
    assert ready.good in data["mismatches"][0]["detail"]


def test_compare_forced(ready: Ready, store: Store) -> None:
    done = run_json("compare", ready.good, ready.wrong, "--force", db=ready.db)
    assert done.code == 0, done.err
    data = documented(done, "compare")
    assert (data["sound"], data["forced"], data["refused"]) == (False, True, False)
    assert len(data["mismatches"]) == 2
    metrics = {m["metric"]: m for m in data["metrics"]}
    assert set(metrics) == {r.scorer for r in store.current_scores(ready.good)}
    for name in ("trajectory.exact", "state.assertions", "args.match"):
        assert metrics[name]["mean_a"] == pytest.approx(item_means(store, ready.good, name))
        assert metrics[name]["mean_b"] == pytest.approx(item_means(store, ready.wrong, name))
        if metrics[name]["ci"] is None:
            assert metrics[name]["no_ci_reason"]
        else:
            low, high = metrics[name]["ci"]
            assert low <= metrics[name]["difference"] <= high


def test_a_tampered_run_gives_no_number_in_any_document(copy: Path, ready: Ready) -> None:
    tamper(copy, ready.good)
    compared = run_json("compare", ready.good, ready.wrong, "--force", db=copy)
    assert compared.code == 2
    data = documented(compared, "compare")
    assert data["tampered"] and data["refused"] and not data["forced"]
    assert data["run_a"]["tampered"]
    assert data["metrics"] is None
    assert "STORE_TAMPERED" in [m["code"] for m in data["mismatches"]]
    reported = run_json("report", ready.good, db=copy)
    assert reported.code == 2
    report = documented(reported, "report")
    assert report["tampered"] and report["run_id"] == ready.good and "metrics" not in report
    verified = run_json("verify", ready.good, db=copy)
    assert verified.code == 2
    checked = documented(verified, "verify")
    assert not checked["ok"] and checked["n_findings"] > 0
    assert [r["run_id"] for r in checked["runs"]] == [ready.good]


# ---- certifying -------------------------------------------------------------------------
def test_controls_run(copy: Path, ready: Ready) -> None:
    done = run_json("controls", "run", "--adapter", "toy", "--run", ready.good, db=copy)
    data = documented(done, "controls-run")
    assert done.code == data["exit_code"]
    assert f"certifying run {ready.good}" in done.err and "certifying" not in done.out
    assert [o["kind"] for o in data["outcomes"]] == list(control_kinds())
    store = open_store(str(copy))
    stored = store.control_outcomes(ready.good)
    assert {o["kind"]: o["status"] for o in data["outcomes"]} == {
        kind: o.payload["status"] for kind, o in stored.items()
    }
    assert data["admissible"] == assess(store, store.get_run(ready.good)).admissible
    assert sum(data["counts"].values()) == len(stored)
    store.close()


def test_controls_show(ready: Ready, store: Store) -> None:
    done = run_json("controls", "show", ready.twice, db=ready.db)
    assert done.code == 0, done.err
    data = documented(done, "controls-show")
    assert data.pop("run_id") == ready.twice and data.pop("schema")
    stored = store.control_outcomes(ready.twice)
    assert data == {kind: json.loads(json.dumps(o.payload)) for kind, o in stored.items()}


def test_mutate(copy: Path, ready: Ready) -> None:
    done = run_json("mutate", "--adapter", "toy", "--run", ready.good, db=copy)
    assert done.code == 0, done.err
    data = documented(done, "mutate")
    assert "mutating run" not in done.out
    summary = open_store(str(copy)).latest_mutation_pass(ready.good)[-1]
    assert data["run_id"] == ready.good and data["pass_id"] == summary["pass_id"]
    assert [op["operator"] for op in data["operators"]] == summary["operators"]
    assert data["gate_mutation_score"] == summary["gate_mutation_score"]


def test_mutation_score(ready: Ready, store: Store) -> None:
    done = run_json("mutation", "score", ready.twice, db=ready.db)
    assert done.code == 0, done.err
    data = documented(done, "mutation-score")
    rows = store.latest_mutation_pass(ready.twice)
    assert data["run_id"] == ready.twice and data["pass_id"] == rows[-1]["pass_id"]
    assert data["trajectories"] == 8 and data["items"] == 4
    assert {op["operator"]: op["altered"] for op in data["operators"]} == {
        r["operator"]: r["altered"] for r in rows[:-1]
    }


def test_mutation_show(ready: Ready, store: Store) -> None:
    rows = store.latest_mutation_pass(ready.twice)
    op = next(r for r in rows[:-1] if r["mutants"])
    item, kept = next(iter(op["mutants"].items()))
    done = run_json("mutation", "show", ready.twice, "--item", item,
                    "--operator", op["operator"], db=ready.db)
    assert done.code == 0, done.err
    data = documented(done, "mutation-show")
    assert (data["run_id"], data["item_id"], data["operator"]) == (
        ready.twice, item, op["operator"])
    assert len(data["turns"]) == max(len(kept["baseline"]), len(kept["mutant"]))
    assert [t["baseline"] for t in data["turns"] if t["baseline"]] == kept["baseline"]
    assert any(t["differs"] for t in data["turns"])


def test_verify(ready: Ready, store: Store) -> None:
    done = run_json("verify", db=ready.db)
    assert done.code == 0, done.err
    data = documented(done, "verify")
    assert data["ok"] and data["n_findings"] == 0 and data["target"] is None
    assert sorted(r["run_id"] for r in data["runs"]) == sorted(store.run_ids())
    twice = next(r for r in data["runs"] if r["run_id"] == ready.twice)
    assert twice["rederived"] == len(store.current_scores(ready.twice))
    assert twice["certificates"] == len(store.control_outcomes(ready.twice))


# ---- the schemas go red -------------------------------------------------------------------
def test_a_planted_key_fails_the_schema_and_a_refusal_with_numbers_too(ready: Ready) -> None:
    data = documented(run_json("compare", ready.good, ready.wrong, db=ready.db), "compare")
    checker = jsonschema.Draft202012Validator(schema("compare"))
    assert checker.is_valid(data)
    assert not checker.is_valid(data | {"p_value": 0.01})
    assert not checker.is_valid({k: v for k, v in data.items() if k != "sound"})
    assert not checker.is_valid(data | {"metrics": []})  # a refusal carries no number
    assert not checker.is_valid(data | {"schema": "agent-assay/compare/1"})
    nested = json.loads(json.dumps(data))
    nested["mismatches"][0]["severity"] = "high"
    assert not checker.is_valid(nested)


@pytest.mark.parametrize("name", names())
def test_every_schema_is_closed_and_documented(name: str) -> None:
    loaded = schema(name)
    jsonschema.Draft202012Validator.check_schema(loaded)
    assert loaded["additionalProperties"] is False
    version = loaded["properties"]["schema"]["const"]
    assert re.fullmatch(rf"agent-assay/{name}/[1-9][0-9]*", version)
    assert set(loaded["required"]) <= set(loaded["properties"])
    assert "schema" in loaded["required"]
    docs = DOCS.read_text(encoding="utf-8")
    command = next(c for c, _ in leaf_commands(cli) if c.replace(" ", "-") == name)
    assert f"\n## {command}\n" in docs
    assert f"`agent_assay/schemas/{name}.json` (`{version}`)" in docs


def test_controls_show_names_exactly_the_control_kinds() -> None:
    loaded = schema("controls-show")
    assert set(loaded["properties"]) - {"schema", "run_id"} == set(control_kinds())
    assert loaded["$defs"]["outcome"]["properties"]["kind"]["enum"] == list(control_kinds())


# ---- every results command takes --json -------------------------------------------------
def leaf_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[
    tuple[str, click.Command]
]:
    found: list[tuple[str, click.Command]] = []
    for name, command in sorted(group.commands.items()):
        path = (*prefix, name)
        if isinstance(command, click.Group):
            found += leaf_commands(command, path)
        else:
            found.append((" ".join(path), command))
    return found


RESULTS = [name for name, _ in leaf_commands(cli) if name not in NOT_RESULTS]


@pytest.mark.parametrize("name", RESULTS)
def test_every_results_command_takes_json_and_ships_a_schema(name: str) -> None:
    command = dict(leaf_commands(cli))[name]
    flags = [opt for p in command.params if isinstance(p, click.Option) for opt in p.opts]
    assert "--json" in flags, f"`agent-assay {name}` prints results but has no --json"
    assert name.replace(" ", "-") in names(), f"no schema file for `agent-assay {name}`"


def test_the_exceptions_and_the_schemas_name_real_commands() -> None:
    commands = {name for name, _ in leaf_commands(cli)}
    assert set(NOT_RESULTS) <= commands
    assert set(names()) == {name.replace(" ", "-") for name in RESULTS}
