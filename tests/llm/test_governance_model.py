"""The governance adapter's model configs, end to end against a fake OpenAI-compatible server."""

from __future__ import annotations

from typing import Any

import pytest

from agent_assay.adapters.loaded import load_system
from agent_assay.hosting.jobs import Task, act
from agent_assay.runner import affects_results, resolve_config, run_environment
from agent_assay_bundled.governance import MODEL_INSTRUCTIONS, GovernanceAdapter
from tests.llm.fake_openai import Action, call, completion, fake_server


def search_then_stop(body: dict[str, Any]) -> Action:
    """A scripted 'model': one search, then a final answer without executing anything."""
    if not any(m["role"] == "assistant" for m in body["messages"]):
        return completion(calls=[call("search_records", query="board approval")])
    return completion(content="I could not finish.")


def test_model_configs_run_govsim_tools_and_are_scored_by_its_validator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    adapter = load_system(GovernanceAdapter())
    item = adapter.build_suite().items[0]
    config = resolve_config(adapter, "smollm2-t0")
    assert not adapter.deterministic(config)
    assert config.config_hash != resolve_config(adapter, "smollm2-t07").config_hash
    with fake_server(search_then_stop) as server:
        monkeypatch.setenv("AA_MODEL_BASE_URL", server.base_url)
        trajectory = act(adapter, Task(item.public(), config, 7, 1))
        env = run_environment(adapter, config)
    [step] = trajectory.steps
    assert step.call.tool == "search_records" and step.ok
    # nothing executed, so govsim's validator gives no reward and the outcome says why
    assert trajectory.outcome == "not_executed"
    assert trajectory.meta["validator"]["reward"] == 0.0
    assert env["model_loopback"] is True and "model" in affects_results(adapter, config)
    first = server.requests[0]
    assert first["messages"][0]["content"].startswith(MODEL_INSTRUCTIONS)
    offered = {t["function"]["name"] for t in first["tools"]}
    assert item.input["create_tool"] in offered and "execute_action" in offered
    other_creates = {n for n in offered if n.startswith("create_")} - {item.input["create_tool"]}
    assert other_creates == set()  # only this world's create tool is offered
