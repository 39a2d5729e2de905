"""The harness's model agent through multi-turn BFCL entries, against a fake
OpenAI-compatible server: the user's later turns arrive when the model stops calling
tools, miss_func's withheld function is offered from its turn on, and BFCL's checker
passes a model that makes gold's calls turn by turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_assay.adapters.loaded import load_system
from agent_assay.hosting.jobs import Task, act
from agent_assay.model import USER_TURN, Item, turns_of
from agent_assay.runner import resolve_config
from agent_assay.scoring.base import ScoringContext
from tests.bfcl.support import need_bfcl, source
from tests.llm.fake_openai import Action, completion, fake_server

need_bfcl()

from agent_assay_bundled.bfcl.scoring import BfclValid  # noqa: E402
from agent_assay_bundled.bfcl.system import BfclSystem  # noqa: E402

RESULT = "Result of functions."


def gold_by_turn(item: Item) -> list[list[tuple[str, str]]]:
    turns: list[list[tuple[str, str]]] = [[]]
    for call in item.gold.path:
        if call.tool == USER_TURN:
            turns.append([])
        else:
            turns[-1].append((call.tool, json.dumps(dict(call.args))))
    return turns


def playing(item: Item) -> Any:
    """A 'model' that makes gold's calls of the turn the user just opened, then stops."""
    turns = gold_by_turn(item)

    def policy(body: dict[str, Any]) -> Action:
        last = body["messages"][-1]
        if last["content"].startswith(RESULT):
            return completion(content="Done.")
        opened = sum(m["role"] == "user" and not m["content"].startswith(RESULT)
                     for m in body["messages"]) - 1
        calls = turns[opened] if opened < len(turns) else []
        return completion(calls=calls) if calls else completion(content="I cannot do that.")

    return policy


@pytest.mark.parametrize("category", ["multi_turn_base", "multi_turn_miss_func"])
def test_a_model_making_golds_calls_turn_by_turn_passes_bfcls_check(
    category: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = load_system(BfclSystem())
    suite = system.build_suite(source(tmp_path, category))
    item = suite.by_id()[f"{category}_0"]
    config = resolve_config(system, "smollm2-t0")
    with fake_server(playing(item)) as server:
        monkeypatch.setenv("AA_MODEL_BASE_URL", server.base_url)
        trajectory = act(system, Task(item.public(), config, 7, 1))
    assert trajectory.meta["stop"] == "final_answer"
    assert len(turns_of(trajectory.steps)) == len(gold_by_turn(item))
    assert trajectory.path == item.gold.path  # boundaries where gold has them
    score = BfclValid().score(item.gold, trajectory, ScoringContext())
    assert score.value == 1.0, score.detail
    opened = [r for r in server.requests if not r["messages"][-1]["content"].startswith(RESULT)]
    offered = [{t["function"]["name"] for t in r["tools"]} for r in opened]
    if category == "multi_turn_miss_func":  # sort is withheld until turn 3
        assert "sort" not in offered[2] and "sort" in offered[3]
        assert "updated some more functions" in opened[3]["messages"][-1]["content"]
    else:
        assert offered[0] == offered[-1]
    assert opened[1]["messages"][-1]["content"].startswith("Perform a detailed search")


def test_a_model_that_never_calls_hears_every_turn_as_a_replay_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saying nothing more is still hearing the user out: every turn is reached, and BFCL
    refuses the empty turns, as for a replayed path that ends early."""
    system = load_system(BfclSystem())
    item = system.build_suite(source(tmp_path, "multi_turn_base")).by_id()["multi_turn_base_0"]
    config = resolve_config(system, "smollm2-t0")
    with fake_server(lambda body: completion(content="No.")) as server:
        monkeypatch.setenv("AA_MODEL_BASE_URL", server.base_url)
        trajectory = act(system, Task(item.public(), config, 7, 1))
    view = system.replay_view()
    assert view is not None
    replayed = view.replay(item.public(), (), seed=0)
    assert [s.to_json() for s in trajectory.steps] == [s.to_json() for s in replayed.steps]
    assert len(server.requests) == len(turns_of(trajectory.steps)) == 4
    detail = BfclValid().score(item.gold, trajectory, ScoringContext()).detail or {}
    assert detail["error_type"] == "multi_turn:empty_turn_model_response"
