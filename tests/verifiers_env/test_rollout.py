"""A scripted policy through a verifiers environment's own rollout path: what it earns, and
what the environment showed it at each step (tools offered, tool messages returned)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("verifiers", reason="verifiers is not installed (make install adds it)")

from agent_assay.errors import AssayError
from agent_assay_bundled.verifiers_env.rollout import (
    load_environment,
    run_rollout,
    tasks,
)
from agent_assay_bundled.verifiers_env.scripted import Call, Scripted

TINY = str(Path(__file__).resolve().parents[1] / "support" / "tiny_verifiers.py")


def _oracle(word: str) -> Scripted:
    return Scripted([Call("lookup", {"word": word}), Call("submit", {"code": word[::-1]})])


def test_the_oracle_earns_the_reward_through_a_correct_environment() -> None:
    env = load_environment(TINY)
    found = tasks(env)
    assert [t.task["info"]["word"] for t in found][:3] == ["abc", "hello", "assay"]
    for task in found:
        assert "answer" in task.gold_of() and "answer" not in str(task.prompt)
        done = run_rollout(env, task, _oracle(task.task["info"]["word"]))
        assert done.reward == 1.0 and done.metrics["submitted"] == 1.0, done
        assert done.error is None and done.stop == "done"
        assert done.turns[0].offered == ("lookup", "submit")
        assert done.turns[1].results == (task.task["info"]["word"][::-1],)


def test_a_tool_never_offered_leaves_the_oracle_at_nothing_and_shows_why() -> None:
    env = load_environment(TINY, {"flaw": "never_offered"})
    task = tasks(env)[0]
    done = run_rollout(env, task, _oracle("abc"))
    assert done.reward == 0.0
    assert "submit" not in done.offered_ever() and "lookup" in done.offered_ever()


def test_a_tool_that_raises_returns_its_error_to_the_model_and_earns_nothing() -> None:
    env = load_environment(TINY, {"flaw": "raises"})
    task = tasks(env)[0]
    done = run_rollout(env, task, _oracle("abc"))
    assert done.reward == 0.0
    assert done.turns[2].results == ("the ledger is read-only",), done.turns
    assert [(r.kind, r.text) for r in done.raised] == [("RuntimeError", "the ledger is read-only")]


def test_an_environment_that_cannot_be_found_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(AssayError, match="verifiers environment no_such_env: not installed"):
        load_environment("no_such_env")
    with pytest.raises(AssayError, match="no such file"):
        load_environment(str(tmp_path / "absent.py"))
    empty = tmp_path / "empty_env.py"
    empty.write_text("x = 1\n")
    with pytest.raises(AssayError, match="has no load_environment"):
        load_environment(str(empty))
