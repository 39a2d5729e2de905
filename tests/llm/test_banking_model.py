"""The banking adapter's model configs, end to end against a fake OpenAI-compatible server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.controls.execute import run_controls
from agent_assay.hashing import stable_seed
from agent_assay.hosting.jobs import Task, act
from agent_assay.model import Config
from agent_assay.runner import (
    affects_results,
    resolve_config,
    run_environment,
)
from agent_assay.store import Store, open_store
from agent_assay_bundled.banking import MODEL_INSTRUCTIONS, BankingAdapter
from tests.llm.fake_openai import Action, call, closed_port, completion, fake_server
from tests.support.toyrun import agent_assay, cli_env

CALLER = re.compile(r"\[authenticated caller: customer (SYN-CUST-\d+)\]")


def polite_policy(body: dict[str, Any]) -> Action:
    """A scripted 'model': verify the caller, then answer. Deterministic by construction."""
    caller = CALLER.search(body["messages"][1]["content"])
    assert caller is not None
    if not any(m["role"] == "assistant" for m in body["messages"]):
        return completion(calls=[call("get_customer", customer_id=caller.group(1))])
    return completion(content="Your details are on screen.")


def malformed_policy(body: dict[str, Any]) -> Action:
    if not any(m["role"] == "assistant" for m in body["messages"]):
        return completion(calls=[("get_customer", '{"customer_id": SYN-CUST-0001')])
    return completion(content="Sorry.")


def model_config(adapter: BankingAdapter, name: str) -> Config:
    return resolve_config(adapter, name)


def test_configs_hash_their_parameters_and_leave_the_mocks_alone() -> None:
    adapter = load_system(BankingAdapter())
    configs = {n: resolve_config(adapter, n) for n in adapter.configs()}
    assert set(configs) == {"mock", "mock-noisy", "smollm2-t0", "smollm2-t07"}
    # the mocks' hashes are the ones in the committed reports (README's report blocks)
    assert configs["mock"].config_hash == (
        "52191c3c87d7599d875b4b203d6b2949161a1b79584a7ade34ddf7b16a2e93c7")
    assert configs["mock-noisy"].config_hash == (
        "978f2c986694bbec293cc7160b02101e3b0f25ba3cf33116ccff90f8f245e33b")
    t0, t07 = configs["smollm2-t0"], configs["smollm2-t07"]
    assert t0.config_hash != t07.config_hash
    for key in ("temperature", "seed", "max_turns", "model", "prompt_sha256", "tool_choice"):
        assert key in t0.params
    assert (t0.params["temperature"], t07.params["temperature"]) == (0.0, 0.7)
    bumped = Config("banking", "smollm2-t0", {**t0.params, "max_turns": 7})
    assert bumped.config_hash != t0.config_hash
    assert [adapter.deterministic(configs[n]) for n in sorted(configs)] == [
        True, False, False, False]
    env = adapter.environment(configs["mock"])
    assert set(env) == {"adapter", "adapter_version", "system", "system_version", "bank_seed"}


def test_run_item_executes_the_models_calls_in_synthbank(monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = load_system(BankingAdapter())
    item = adapter.build_suite().by_id()["balance_inquiry-all-accounts-007"]
    config = model_config(adapter, "smollm2-t07")
    with fake_server(polite_policy) as server:
        monkeypatch.setenv("AA_MODEL_BASE_URL", server.base_url)
        trajectory = act(adapter, Task(item.public(), config, 1234, 2))
        env = run_environment(adapter, config)
    assert env["model"] == "SmolLM2-135M-Instruct.Q4_1" and env["model_loopback"] is True
    assert env["model_base_url"] == server.base_url
    assert "model" in affects_results(adapter, config)
    [step] = trajectory.steps
    assert step.call.tool == "get_customer" and step.ok
    assert step.call.args == {"customer_id": "SYN-CUST-0009"}
    assert step.result["customer_id"] == "SYN-CUST-0009"
    assert trajectory.outcome == "informed" and not trajectory.crashed
    assert trajectory.final_state == adapter.replay_view().baseline_snapshot()
    assert trajectory.cost.reason == "local model" and trajectory.repetition == 2
    first = server.requests[0]
    assert first["model"] == "SmolLM2-135M-Instruct.Q4_1"
    assert first["temperature"] == 0.7 and first["tool_choice"] == "auto"
    assert first["seed"] == stable_seed(0, 1234) % 2**31
    system, user = first["messages"]
    assert system["content"].startswith(MODEL_INSTRUCTIONS)  # the same for every item
    assert user["content"] == ("[authenticated caller: customer SYN-CUST-0009]\n"
                               "What are the balances on all my accounts?")
    props = {t["function"]["name"]: t["function"]["parameters"]["properties"]
             for t in first["tools"]}
    assert props["get_customer"]["customer_id"]["maxLength"] == 64
    assert "maxLength" not in props["block_card"]["reason"]  # an enum is already bounded
    assert {t["function"]["name"] for t in first["tools"]} >= {"get_customer", "refuse_request"}
    assert [r["turn"] for r in trajectory.meta["requests"]] == [1, 2]
    # results go back as one user message (the local server's template drops tool messages)
    fed_back = server.requests[1]["messages"][-1]
    assert fed_back["role"] == "user"
    assert fed_back["content"].startswith('Result of functions.get_customer:\n{"ok": true')


def model_run(
    store: Store, adapter: BankingAdapter, name: str, items: int, repeats: int, tag: str
) -> Any:
    return api.evaluate(adapter, name, store=store, repeats=repeats, seed=0,
                        selection=api.Selection(tags=(tag,), limit=items)).run


def test_malformed_arguments_score_as_failures(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter = load_system(BankingAdapter())
    with fake_server(malformed_policy) as server:
        monkeypatch.setenv("AA_MODEL_BASE_URL", server.base_url)
        run = model_run(store, adapter, "smollm2-t0", items=2, repeats=1, tag="balance_inquiry")
    trajectories = store.trajectories(run.run_id)
    assert len(trajectories) == 2 and not any(t.crashed for t in trajectories)
    for t in trajectories:
        [step] = t.steps
        assert not step.ok and step.error.startswith("malformed tool-call arguments")
        assert t.outcome == "no_action" and t.meta["malformed_tool_calls"] == 1
    scores = {(r.item_id, r.scorer): r.value for r in store.current_scores(run.run_id)}
    assert {v for (_, s), v in scores.items() if s == "trajectory.exact"} == {0.0}


def test_controls_on_a_model_run_do_not_go_red_on_wall_clock(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model that repeats itself passes identical_config: latencies and request records
    (meta) differ between the two executions, and are declared nondeterministic."""
    adapter = load_system(BankingAdapter())
    with fake_server(polite_policy) as server:
        monkeypatch.setenv("AA_MODEL_BASE_URL", server.base_url)
        run = model_run(store, adapter, "smollm2-t0", items=3, repeats=2, tag="card_lost_stolen")
        result = run_controls(store, adapter, run)
    statuses = {o.kind: o.status for o in result.outcomes}
    assert statuses["identical_config"] == "PASSED", result.outcomes
    identical = next(o for o in result.outcomes if o.kind == "identical_config")
    assert "meta" in identical.measured["excluded_fields"]
    assert statuses["positive_control"] == "PASSED"  # gold replays at the ceiling
    assert statuses["null_agent"] == "FAILED"  # looking a customer up is not doing the job


def test_run_against_a_stopped_server_stores_crashes_and_exits_1(tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    url = f"http://127.0.0.1:{closed_port()}/v1"
    env = cli_env() | {"AA_MODEL_BASE_URL": url}
    # no wall-clock assertion (performance belongs in make bench); a run that retried
    # without end would hit the subprocess timeout and fail the test
    done = agent_assay("run", "--adapter", "banking", "--config", "smollm2-t0", "--tag",
                       "transfer", "--limit", "2", "--db", str(db), env=env, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: 2 items crashed: AgentUnreachable: " + url)
    assert "APIConnectionError" in last
    run_id = done.stdout.strip()
    store = open_store(str(db))
    trajectories = store.trajectories(run_id)
    assert len(trajectories) == 2 and all(t.crashed for t in trajectories)
    assert all("APIConnectionError" in (t.error or "") for t in trajectories)
    # a server that cannot be reached is the harness's failure, not the agent's: the slot
    # measures nothing and is left out and counted, never scored as the agent failing
    assert all(t.meta == {"agent_unreachable": True, "crash_cause": "harness"}
               for t in trajectories)
    crashes = [e.detail for e in store.events(run_id) if e.event == "item_crashed"]
    assert len(crashes) == 2 and all("APIConnectionError" in d["error"] for d in crashes)
    assert store.count_scores() == 2 * 13  # crashed items are scored like any other


@pytest.mark.parametrize("broken, what", [
    ("__init__", "set up a fresh world"), ("call", "execute get_customer")])
def test_an_environment_that_raises_under_the_model_agent_is_the_harness_crash(
    monkeypatch: pytest.MonkeyPatch, broken: str, what: str
) -> None:
    """The harness drives the model through the bank's episodes, so it sees whose code
    raised: the bank's, when setting up the world or executing a call, is not the model's
    failure (stats.crashes leaves the slot out rather than failing the model for it)."""
    from agent_assay.hosting.jobs import run_task
    from agent_assay_bundled import banking

    def raises(*args: Any, **kwargs: Any) -> None:
        raise OSError("the bank's disk went away")

    monkeypatch.setattr(banking.BankEpisode, broken, raises)
    adapter = load_system(BankingAdapter())
    item = adapter.build_suite().by_id()["balance_inquiry-all-accounts-007"]
    with fake_server(polite_policy) as server:
        monkeypatch.setenv("AA_MODEL_BASE_URL", server.base_url)
        trajectory = run_task(adapter, Task(item.public(), model_config(adapter, "smollm2-t0"),
                                            1, 1))
    assert trajectory.crashed and trajectory.crash_cause == "harness"
    assert (trajectory.error or "").startswith(
        f"EnvironmentFailed: the environment failed to {what}: OSError: the bank's disk went away")
