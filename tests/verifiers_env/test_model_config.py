"""The verifiers adapter's `model` config: every request of the environment's own rollout
goes to an OpenAI-compatible server (here a fake one on loopback), and what the
environment offered and answered is recorded as for a scripted policy."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verifiers", reason="verifiers is not installed (make install adds it)")

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay_bundled.verifiers_env.system import VerifiersAdapter
from tests.llm.fake_openai import Action, call, completion, fake_server

TINY = Path(__file__).resolve().parents[1] / "support" / "tiny_verifiers.py"


def _solver(body: dict[str, Any]) -> Action:
    """Looks the prompt's word up, then submits what the lookup returned."""
    messages = body["messages"]
    answers = [m for m in messages if m.get("role") == "tool"]
    if not answers:
        word = re.search(r"code of (\w+)", messages[-1]["content"])
        assert word is not None
        return completion(calls=[call("lookup", word=word.group(1))])
    if len(answers) == 1:
        return completion(calls=[call("submit", code=answers[0]["content"])])
    return completion(content="done")


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base_url: str) -> tuple[Any, Any]:
    monkeypatch.setenv("AA_MODEL_BASE_URL", base_url)
    monkeypatch.setenv("AA_MODEL", "fake-model")
    source = tmp_path / "tiny.yaml"
    source.write_text(f"environment: {TINY}\n")
    store = api.open_db(str(tmp_path / "m.db"))
    system = load_system(VerifiersAdapter())
    run = api.run_to_certify(store, system, run=None, config="model", source=source,
                             selection=api.Selection(limit=2))
    return store, run


def test_a_model_server_drives_the_environments_own_rollout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fake_server(_solver) as server:
        store, run = _run(tmp_path, monkeypatch, server.base_url)
    offered = {tuple(t["function"]["name"] for t in body["tools"]) for body in server.requests}
    assert offered == {("lookup", "submit")}
    assert run.env["model_endpoint"] == {"base_url": server.base_url, "model": "fake-model",
                                         "loopback": True}
    trajectories = list(store.trajectories(run.run_id))
    assert [[s.call.tool for s in t.steps] for t in trajectories] == [["lookup", "submit"]] * 2
    assert all(s.ok for t in trajectories for s in t.steps)
    rewards = {row.item_id: row.value for row in store.current_scores(run.run_id)
               if row.scorer == "env.reward"}
    assert rewards == {"task-00000": 1.0, "task-00001": 1.0}
    assert trajectories[0].meta["offered"] == [["lookup", "submit"]] * 2  # submit stops it


def test_a_server_that_is_down_leaves_crashed_trajectories_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fake_server(_solver) as server:
        dead = server.base_url
    store, run = _run(tmp_path, monkeypatch, dead)
    trajectories = list(store.trajectories(run.run_id))
    assert len(trajectories) == 2
    assert all(t.crashed and t.error is not None for t in trajectories)
    assert trajectories[0].error.startswith(f"model server {dead} (fake-model): ")
