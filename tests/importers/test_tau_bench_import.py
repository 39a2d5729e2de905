"""Importing the published gpt-4o airline file: suite, run, trajectories, scores, idempotency."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_assay import cli
from agent_assay.adapters.loaded import load_system
from agent_assay.errors import AssayError
from agent_assay.model import Config, ToolCall
from agent_assay.rescoring import rescore
from agent_assay.store import Store, open_store
from agent_assay.views.load import summarise
from agent_assay_bundled.tau_bench.adapter import TauBenchAdapter
from agent_assay_bundled.tau_bench.importer import import_results, rule_agreement
from agent_assay_bundled.tau_bench.parse import parse_results
from agent_assay_bundled.tau_bench.rules import PUBLISHED, WRITE_TOOLS, reward_rule
from tests.importers.test_tau_bench_parse import real_file, row_counts, run_cli


@pytest.fixture(scope="module")
def data() -> list[dict[str, Any]]:
    return list(json.loads(real_file().read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, str, str]:
    """The file imported once through the CLI; (store, run id, stderr of the import)."""
    db = tmp_path_factory.mktemp("tau_import") / "assay.db"
    mp = pytest.MonkeyPatch()
    mp.setattr(sys, "argv", ["agent-assay", "import", "tau-bench", str(real_file()),
                             "--db", str(db)])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            pytest.raises(SystemExit) as caught:
        cli.main()
    mp.undo()
    assert caught.value.code == 0, err.getvalue()
    run_id = out.getvalue().strip().splitlines()[-1]
    return open_store(str(db)), run_id, err.getvalue()


def test_import_prints_the_run_and_what_it_found(imported: tuple[Store, str, str]) -> None:
    _, run_id, err = imported
    sha = hashlib.sha256(real_file().read_bytes()).hexdigest()
    lines = err.splitlines()
    assert lines[1] == (
        f"run {run_id} (gpt-4o-airline) imported from gpt-4o-airline.json (sha256 {sha}), "
        "model not recorded in the file"
    )
    assert lines[2:] == [
        "50 tasks x 4 trials = 200 trajectories, 0 malformed, 5 without reward_info "
        "(published reward kept)",
        "tau.reward (published, imported): 84 of 200 = 0.4200",
        "reward rule (what the null agent is scored by) decides 136 of 200 published rewards "
        "and agrees with 134; contradicts 0 that tau-bench computed and 2 without reward_info",
    ]


def test_suite_one_item_per_task_with_gold_actions_and_outputs(
    imported: tuple[Store, str, str], data: list[dict[str, Any]]
) -> None:
    store, run_id, _ = imported
    run = store.get_run(run_id)
    suite = store.get_suite(run.suite_hash)
    assert suite.adapter == "tau-bench" and len(suite.items) == 50
    assert run.item_ids == tuple(f"{i:03d}" for i in range(50))
    tasks = {r["task_id"]: r["info"]["task"] for r in data}
    for item in suite.items:
        task = tasks[item.input["task_id"]]
        assert item.input == {
            "task_id": item.input["task_id"],
            "user_id": task["user_id"],
            "instruction": task["instruction"],
        }
        assert item.gold.path == tuple(ToolCall(a["name"], a["kwargs"]) for a in task["actions"])
        assert item.gold.truth == {"outputs": task["outputs"]}
    assert suite.by_id()["008"].gold.truth == {"outputs": ["327", "1000", "1786"]}
    assert parse_results(real_file()).suite.suite_hash == run.suite_hash
    assert TauBenchAdapter().build_suite(real_file()).suite_hash == run.suite_hash


def test_run_environment_records_the_file_and_that_nothing_was_executed(
    imported: tuple[Store, str, str],
) -> None:
    store, run_id, _ = imported
    run = store.get_run(run_id)
    assert run.repeats == 4 and run.adapter == "tau-bench"
    assert run.env["source_sha256"] == hashlib.sha256(real_file().read_bytes()).hexdigest()
    assert run.env["source_file"] == "gpt-4o-airline.json"
    assert "model" not in run.env  # the file names no model; nothing is guessed from its name
    assert "executed nothing" in run.env["trajectories"]
    config = store.get_config(run.config_hash)
    assert config.params == {"source_sha256": run.env["source_sha256"], "domain": "airline"}
    # The file hash is recorded but does not gate comparisons: two different files always
    # differ in hash, and the model is the agent, which a comparison compares.
    assert run.affects_results == {"adapter_version", "benchmark", "domain", "trajectories"}


def _raw_steps(result: dict[str, Any]) -> tuple[list[tuple[str, Any]], list[str], list[str]]:
    calls, outputs, said = [], [], []
    for message in result["traj"]:
        for c in message.get("tool_calls") or []:
            calls.append((c["function"]["name"], json.loads(c["function"]["arguments"])))
        if message["role"] == "tool":
            outputs.append(message["content"])
        if message["role"] == "assistant" and message.get("content"):
            said.append(message["content"])
    return calls, outputs, said


def test_every_trajectory_holds_the_calls_results_and_replies_in_order(
    imported: tuple[Store, str, str], data: list[dict[str, Any]]
) -> None:
    store, run_id, _ = imported
    stored = {(t.meta["task_id"], t.meta["trial"]): t for t in store.trajectories(run_id)}
    assert len(stored) == 200
    for r in data:
        t = stored[(r["task_id"], r["trial"])]
        calls, outputs, said = _raw_steps(r)
        assert [(s.call.tool, dict(s.call.args)) for s in t.steps] == calls
        assert [s.result for s in t.steps] == outputs
        assert [m["content"] for m in t.meta["messages"] if m["role"] == "assistant"] == said
        assert t.repetition == r["trial"] + 1
        assert t.meta["published_reward"] == r["reward"]
        assert not t.crashed and t.meta["malformed"] == []
        assert [not s.ok for s in t.steps] == [o.startswith("Error") for o in outputs]
    first = stored[(0, 0)]
    assert [s.call.tool for s in first.steps][:5] == [
        "get_user_details", "search_direct_flight", "search_onestop_flight", "calculate",
        "book_reservation",
    ]
    assert first.steps[4].error == (
        "Error: payment amount does not add up, total price is 305, but paid 255"
    )


def test_scores_published_reward_imported_and_harness_scorers_computed(
    imported: tuple[Store, str, str],
) -> None:
    store, run_id, _ = imported
    run = store.get_run(run_id)
    rows = store.current_scores(run_id)
    reward = [r for r in rows if r.scorer == "tau.reward"]
    assert len(reward) == 200 and all(r.imported for r in reward)
    assert all(r.detail == {"source": PUBLISHED} for r in reward)
    assert sum(r.value or 0 for r in reward) == 84
    assert not any(r.imported for r in rows if r.scorer != "tau.reward")
    manifest = store.manifest(run.run_id)
    kinds = {s["name"]: s["kind"] for s in manifest["scorers"]}
    assert kinds["tau.reward"] == "binary"
    assert {"trajectory.exact", "args.match", "tools.recall", "tools.wrong", "tools.missing",
            "tools.redundant"} <= kinds.keys()
    assert manifest["headline"] == ["tau.reward", "tools.recall"]
    assert manifest["deterministic"] is False
    summary = summarise(store, run)
    assert summary.status.state == "complete"
    assert summary.metric("tau.reward").imported
    assert summary.metric("tau.reward").pass_hat_k == 0.2
    assert summary.metric("trajectory.exact").mean_of_k == pytest.approx(14 / 200)


def test_second_import_adds_nothing_and_names_the_run(
    imported: tuple[Store, str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store, run_id, _ = imported
    before = row_counts(store)
    db = str(store.engine.url.database)
    code, out, err = run_cli(["import", "tau-bench", str(real_file()), "--db", db,
                              "--name", "another"], monkeypatch, capsys)
    assert code == 0 and out.strip() == run_id
    assert "already imported: gpt-4o-airline.json (sha256 " in err
    assert f"is run {run_id}; nothing added" in err
    assert row_counts(store) == before


def test_rescoring_an_imported_run_appends_nothing(imported: tuple[Store, str, str]) -> None:
    store, run_id, _ = imported
    result = rescore(store, TauBenchAdapter(), run_id)
    assert (result.written, result.changed, result.generation) == (0, 0, 0)
    assert result.unchanged == 200 * len(load_system(TauBenchAdapter()).scorers())


def test_an_interrupted_import_is_completed_not_duplicated(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "assay.db"))

    def stop_after_ten(done: int, total: int) -> None:
        if done == 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_results(store, real_file(), on_progress=stop_after_ten)
    (run,) = store.list_runs()
    assert len(store.stored_slots(run.run_id)) == 10
    assert summarise(store, run).status.state != "complete"
    again = import_results(store, real_file())
    assert not again.created and again.written == 190 and again.run.run_id == run.run_id
    assert len(store.list_runs()) == 1 and store.count_rows("trajectories") == 200
    assert summarise(store, run).status.state == "complete"


def test_the_reward_rule_reproduces_every_published_reward_it_decides() -> None:
    parsed = parse_results(real_file())
    agreement = rule_agreement(parsed)
    assert (agreement.decided, agreement.agree, agreement.disagree_computed) == (136, 134, 0)
    assert agreement.disagree_no_reward_info == 2
    items = parsed.suite.by_id()
    contradicted = sorted(
        (t.meta["task_id"], t.meta["trial"])
        for t in parsed.trajectories
        if reward_rule(items[t.item_id].gold, t)[0] not in (None, t.meta["published_reward"])
    )
    assert contradicted == [(2, 1), (46, 3)]
    assert all(not t.meta["reward_computed"] for t in parsed.trajectories
               if (t.meta["task_id"], t.meta["trial"]) in contradicted)


def test_read_only_gold_without_outputs_is_19_of_50_tasks() -> None:
    suite = parse_results(real_file()).suite
    free = [i.item_id for i in suite.items
            if not any(c.tool in WRITE_TOOLS for c in i.gold.path) and not i.gold.truth["outputs"]]
    assert len(free) == 19


def test_the_adapter_refuses_to_execute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    adapter = load_system(TauBenchAdapter())
    item = parse_results(real_file()).suite.items[0]
    with pytest.raises(AssayError, match="cannot run an agent on item 000"):
        adapter.run_item(item.public(), Config("tau-bench", "x", {}), seed=0, repetition=1)
    assert adapter.replay_view() is None  # it declares no replay capability
    with pytest.raises(AssayError, match="no bundled suite"):
        adapter.build_suite(None)
    db = tmp_path / "assay.db"
    code, _, err = run_cli(["run", "--adapter", "tau-bench", "--config", "imported",
                            "--source", str(real_file()), "--db", str(db)], monkeypatch, capsys)
    assert code == 1 and err.startswith("error: unknown config 'imported' for adapter tau-bench")
    assert open_store(str(db)).count_rows("runs") == 0
