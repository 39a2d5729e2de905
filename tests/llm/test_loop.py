"""The domain-free agent loop against a real-HTTP fake OpenAI-compatible server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_assay.adapters.system import ToolOutcome, ToolSpec
from agent_assay.errors import AgentUnreachable, AssayError
from agent_assay.llm.drive import trajectory_of
from agent_assay.llm.endpoint import Endpoint, is_loopback, resolve_endpoint
from agent_assay.llm.loop import (
    MALFORMED_KEY,
    AgentLoop,
    ModelRequestRejected,
    openai_tool,
    parse_arguments,
)
from agent_assay.llm.settings import LoopSettings
from tests.llm.fake_openai import (
    Action,
    call,
    closed_port,
    completion,
    error,
    fake_server,
    scripted,
)

TOOLS = [
    ToolSpec(
        "lookup",
        "Look a thing up.",
        {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
    ),
    ToolSpec("finish", "End the conversation.", {"type": "object", "properties": {}}),
]


class Recorder:
    """An execute callback that records what reached it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, name: str, args: dict[str, Any]) -> ToolOutcome:
        self.calls.append((name, args))
        if name == "lookup" and args.get("key") == "missing":
            return ToolOutcome(False, None, "no such key")
        return ToolOutcome(True, {"name": name, "args": args})


def settings(**overrides: Any) -> LoopSettings:
    base: dict[str, Any] = {
        "temperature": 0.0,
        "max_turns": 4,
        "seed": 42,
        "timeout_s": 2.0,
        "max_attempts": 3,
        "backoff_s": 0.01,
        "terminal_tools": frozenset({"finish"}),
    }
    return LoopSettings(**(base | overrides))


def loop_for(base_url: str, sleeps: list[float] | None = None, **overrides: Any) -> AgentLoop:
    endpoint = Endpoint(base_url=base_url, model="fake-model", api_key="test-key")
    naps = sleeps if sleeps is not None else []
    return AgentLoop(endpoint, settings(**overrides), sleep=naps.append)


def test_tool_calls_are_executed_fed_back_and_recorded() -> None:
    script = [
        completion(calls=[call("lookup", key="a")], prompt_tokens=100, completion_tokens=9),
        completion(content="Done: a is there.", prompt_tokens=130, completion_tokens=6),
    ]
    execute = Recorder()
    with fake_server(scripted(script)) as server:
        result = loop_for(server.base_url).run("Be brief.", "Find a.", TOOLS, execute)
    assert execute.calls == [("lookup", {"key": "a"})]
    assert result.stop == "final_answer" and result.final_answer == "Done: a is there."
    [step] = result.steps
    assert (step.call.tool, dict(step.call.args), step.ok) == ("lookup", {"key": "a"}, True)
    assert step.result == {"name": "lookup", "args": {"key": "a"}}
    # what the endpoint was sent
    first, second = server.requests
    assert first["model"] == "fake-model" and first["tool_choice"] == "auto"
    assert first["temperature"] == 0.0 and first["seed"] == 42 and first["max_tokens"] == 256
    assert [t["function"]["name"] for t in first["tools"]] == ["lookup", "finish"]
    system, user = first["messages"]
    assert system["role"] == "system" and system["content"].startswith("Be brief.")
    assert "- lookup: Look a thing up." in system["content"]  # tools described in the system
    assert user == {"role": "user", "content": "Find a."}
    assistant, tool = second["messages"][2:]
    assert assistant["content"] == ""  # never null: some servers refuse it
    assert assistant["tool_calls"][0]["function"] == {"name": "lookup",
                                                      "arguments": '{"key": "a"}'}
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_0"
    assert json.loads(tool["content"]) == {"ok": True,
                                           "result": {"name": "lookup", "args": {"key": "a"}}}
    # what was recorded per request
    records = [r.to_json() for r in result.requests]
    assert [r["turn"] for r in records] == [1, 2]
    assert records[0] | {"latency_ms": 0} == {
        "turn": 1, "model": "fake-model", "response_model": "fake-model", "temperature": 0.0,
        "seed": 42, "tool_choice": "auto", "prompt_tokens": 100, "completion_tokens": 9,
        "latency_ms": 0, "attempts": 1, "retried_errors": [], "finish_reason": "tool_calls",
        "tool_calls": 1,
    }
    assert all(r["latency_ms"] > 0 for r in records)
    assert result.usage() == {"requests": 2, "prompt_tokens": 230, "completion_tokens": 15}
    assert result.cost().usd == 0.0 and result.cost().reason == "local model"


def test_malformed_arguments_are_failed_steps_not_crashes() -> None:
    script = [
        completion(calls=[("lookup", "{not json"), ("lookup", "[1, 2]"), call("lookup", key="b")]),
        completion(content="I could only find b."),
    ]
    execute = Recorder()
    with fake_server(scripted(script)) as server:
        result = loop_for(server.base_url).run("", "Find things.", TOOLS, execute)
    assert execute.calls == [("lookup", {"key": "b"})]  # malformed calls are never executed
    assert result.malformed_calls == 2 and result.stop == "final_answer"
    bad, array, good = result.steps
    assert not bad.ok and dict(bad.call.args) == {MALFORMED_KEY: "{not json"}
    assert bad.error is not None and bad.error.startswith("malformed tool-call arguments: not "
                                                          "valid JSON")
    assert not array.ok and array.error == "malformed tool-call arguments: JSON list, not an object"
    assert good.ok
    feedback = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert [json.loads(m["content"])["ok"] for m in feedback] == [False, False, True]
    assert "malformed" in json.loads(feedback[0]["content"])["error"]


def test_results_can_go_back_as_one_user_message() -> None:
    script = [
        completion(calls=[call("lookup", key="a"), call("lookup", key="missing")]),
        completion(content="ok"),
    ]
    with fake_server(scripted(script)) as server:
        loop_for(server.base_url, tool_result_role="user").run("", "?", TOOLS, Recorder())
    messages = server.requests[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[-1]["content"] == (
        'Result of functions.lookup:\n{"ok": true, "result": {"args": {"key": "a"}, '
        '"name": "lookup"}}\n\nResult of functions.lookup:\n{"error": "no such key", '
        '"ok": false}'
    )


def test_unknown_tool_and_failed_execution_are_recorded() -> None:
    script = [
        completion(calls=[call("delete_everything", key="x"), call("lookup", key="missing")]),
        completion(content="Sorry."),
    ]
    execute = Recorder()
    with fake_server(scripted(script)) as server:
        result = loop_for(server.base_url).run("", "?", TOOLS, execute)
    assert execute.calls == [("lookup", {"key": "missing"})]
    unknown, failed = result.steps
    assert (unknown.ok, unknown.error) == (False, "unknown tool: delete_everything")
    assert (failed.ok, failed.error) == (False, "no such key")


def test_terminal_tool_stops_the_episode_without_another_request() -> None:
    script = [completion(calls=[call("lookup", key="a"), call("finish"), call("lookup", key="c")])]
    with fake_server(scripted(script)) as server:
        result = loop_for(server.base_url).run("", "?", TOOLS, Recorder())
    assert len(server.requests) == 1
    assert result.stop == "terminal_tool" and [s.call.tool for s in result.steps] == [
        "lookup", "finish"]
    assert result.unexecuted_after_terminal == 1


def test_turn_budget_bounds_the_episode() -> None:
    with fake_server(lambda body: completion(calls=[call("lookup", key="a")])) as server:
        result = loop_for(server.base_url, max_turns=3).run("", "?", TOOLS, Recorder())
    assert len(server.requests) == 3 and len(result.steps) == 3
    assert result.stop == "turn_budget" and result.final_answer is None


def test_server_errors_are_retried_with_backoff_then_succeed() -> None:
    sleeps: list[float] = []
    script = [error(500), error(503), completion(content="fine")]
    with fake_server(scripted(script)) as server:
        result = loop_for(server.base_url, sleeps).run("", "?", TOOLS, Recorder())
    assert len(server.requests) == 3 and sleeps == [0.01, 0.02]
    [record] = result.requests
    assert record.attempts == 3 and len(record.retried_errors) == 2
    assert record.retried_errors[0].startswith("InternalServerError: ")


def test_persistent_server_errors_raise_agent_unreachable() -> None:
    sleeps: list[float] = []
    with fake_server(lambda body: error(500, "model exploded")) as server:
        loop = loop_for(server.base_url, sleeps)
        with pytest.raises(AgentUnreachable, match=r"no answer after 3 attempt\(s\); last: "
                                                   r"InternalServerError: .*model exploded"):
            loop.run("", "?", TOOLS, Recorder())
    assert len(server.requests) == 3 and sleeps == [0.01, 0.02]


def test_timeouts_are_retried_then_raise_agent_unreachable() -> None:
    with fake_server(lambda body: Action(body={}, delay_s=1.0)) as server:
        loop = loop_for(server.base_url, timeout_s=0.2, max_attempts=2)
        with pytest.raises(AgentUnreachable, match=r"after 2 attempt\(s\); last: APITimeoutError"):
            loop.run("", "?", TOOLS, Recorder())
    assert len(server.requests) == 2


def test_connection_refused_names_the_cause() -> None:
    loop = loop_for(f"http://127.0.0.1:{closed_port()}/v1", max_attempts=2)
    with pytest.raises(AgentUnreachable, match=r"last: APIConnectionError: .*(refused|Connect)"):
        loop.run("", "?", TOOLS, Recorder())


def test_error_messages_are_one_bounded_line() -> None:
    page = "validation errors:\n" + "  {'loc': ('body', 'messages')}\n" * 100
    with fake_server(lambda body: error(500, page)) as server:
        loop = loop_for(server.base_url, max_attempts=1)
        with pytest.raises(AgentUnreachable) as raised:
            loop.run("", "?", TOOLS, Recorder())
    message = str(raised.value)
    assert "\n" not in message and len(message) < 600 and message.endswith("...")


def test_a_refused_later_turn_ends_the_episode_and_keeps_its_steps() -> None:
    script = [completion(calls=[call("lookup", key="a")]), error(400, "context length exceeded")]
    with fake_server(scripted(script)) as server:
        result = loop_for(server.base_url).run("", "?", TOOLS, Recorder())
    assert result.stop == "rejected" and len(result.steps) == 1 and len(server.requests) == 2
    assert result.rejected is not None and "context length exceeded" in result.rejected
    assert result.meta()["rejected"] == result.rejected


def test_free_strings_can_be_bounded_for_grammar_servers() -> None:
    spec = ToolSpec("t", "", {
        "type": "object",
        "properties": {
            "free": {"type": "string"},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "code": {"type": "string", "pattern": "^[A-Z]+$"},
            "short": {"type": "string", "maxLength": 5},
            "n": {"type": "integer"},
            "items": {"type": "array", "items": {"type": "string"}},
        },
    })
    props = openai_tool(spec, 32)["function"]["parameters"]["properties"]
    assert props["free"]["maxLength"] == 32 and props["items"]["items"]["maxLength"] == 32
    assert "maxLength" not in props["kind"] and "maxLength" not in props["code"]
    assert props["short"]["maxLength"] == 5 and "maxLength" not in props["n"]
    assert "maxLength" not in openai_tool(spec)["function"]["parameters"]["properties"]["free"]
    assert "maxLength" not in spec.parameters["properties"]["free"]  # the spec is not mutated


def test_refusals_are_not_retried() -> None:
    rejected = pytest.raises(ModelRequestRejected, match="rejected turn 1: BadRequestError")
    with fake_server(scripted([error(400, "context too long")])) as server, rejected:
        loop_for(server.base_url).run("", "?", TOOLS, Recorder())
    assert len(server.requests) == 1
    refused = pytest.raises(AgentUnreachable, match="refused the request: NotFoundError")
    with fake_server(scripted([error(404, "no such model")])) as server, refused:
        loop_for(server.base_url).run("", "?", TOOLS, Recorder())
    assert len(server.requests) == 1


def test_trajectory_keeps_requests_in_meta_and_cost_explicit() -> None:
    with fake_server(scripted([completion(content="hi")])) as server:
        result = loop_for(server.base_url).run("", "?", TOOLS, Recorder())
    t = trajectory_of(result, item_id="i", repetition=2, final_state={"x": 1}, outcome="done",
                      latency_ms=5.0)
    assert (t.item_id, t.repetition, t.outcome, t.crashed) == ("i", 2, "done", False)
    assert t.cost.reason == "local model"
    assert t.meta["stop"] == "final_answer" and t.meta["final_answer"] == "hi"
    assert t.meta["endpoint"] == {"base_url": server.base_url, "model": "fake-model",
                                  "loopback": True}
    assert "test-key" not in json.dumps(t.to_json())
    remote = result.__class__(steps=(), stop="final_answer", final_answer=None, requests=(),
                              endpoint={"loopback": False})
    assert remote.cost().usd == 0.0 and remote.cost().reason.startswith("not priced")


def test_parse_arguments() -> None:
    assert parse_arguments('{"a": 1}') == ({"a": 1}, None)
    assert parse_arguments("") == ({}, None)
    assert parse_arguments({"a": 1}) == ({"a": 1}, None)
    assert parse_arguments('"text"')[0] is None
    assert parse_arguments(None)[1] == "arguments are NoneType, not a JSON string"


def test_endpoint_resolution() -> None:
    env = {"AA_MODEL_BASE_URL": "http://localhost:9/v1/", "AA_MODEL": "env-model"}
    # the config's values win; the environment fills what it leaves unset
    assert resolve_endpoint({"model": "cfg"}, env).model == "cfg"
    chosen = resolve_endpoint({}, env)
    assert (chosen.base_url, chosen.model, chosen.loopback) == (
        "http://localhost:9/v1", "env-model", True)
    assert resolve_endpoint({"model": "m"}, {}).base_url == "http://127.0.0.1:8765/v1"
    with pytest.raises(AssayError, match="set AA_MODEL_API_KEY"):
        resolve_endpoint({"model": "m", "base_url": "https://api.example.com/v1"}, {})
    keyed = resolve_endpoint({"model": "m", "base_url": "https://api.example.com/v1"},
                             {"AA_MODEL_API_KEY": "secret"})
    assert keyed.api_key == "secret" and "secret" not in json.dumps(keyed.public())
    with pytest.raises(AssayError, match="no model named"):
        resolve_endpoint({}, {})
    with pytest.raises(AssayError, match="must be http"):
        resolve_endpoint({"model": "m", "base_url": "ftp://127.0.0.1/"}, {})
    assert is_loopback("http://127.5.6.7:1/v1") and is_loopback("http://[::1]:8/v1")
    assert not is_loopback("http://10.0.0.1/v1")
