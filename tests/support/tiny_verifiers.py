"""A tiny verifiers environment, written here, in a correct copy and two broken ones: a task
asks the model to look a word's code up and submit it; the reward is 1 when the submitted
code is the task's answer. `load_environment(flaw=...)` builds the copy:

- "none": both tools are offered and work;
- "never_offered": `submit` is hidden from every turn (a per-task `show` that names a
  toolset the environment never names, as an author might write it);
- "raises": `submit` raises when it runs;
- "stingy": everything works, but the reward never credits a correct submission.
"""

from __future__ import annotations

from typing import Any

import verifiers.v1 as vf

WORDS = ("abc", "hello", "assay", "tool", "gold", "audit", "ledger", "quorum", "proxy",
         "vote", "seal", "board")


def _source() -> Any:
    for word in WORDS:
        yield {"prompt": [{"role": "user", "content": f"Look up the code of {word}; submit it."}],
               "answer": word[::-1], "info": {"word": word}, "max_turns": 4,
               "toolsets": {"submitting": {"show": ["submit"]}}}


def lookup(word: str, *, state: dict[str, Any], task: dict[str, Any]) -> str:
    """Look up the code of a word."""
    return word[::-1]


def _raising_submit() -> Any:
    def submit(code: str, *, state: dict[str, Any], task: dict[str, Any]) -> str:
        """Submit the code."""
        raise RuntimeError("the ledger is read-only")

    return submit


def submit(code: str, *, state: dict[str, Any], task: dict[str, Any]) -> str:
    """Submit the code."""
    state["submitted"] = code
    return "submitted"


@vf.reward(weight=1.0)
async def correct(task: Any, state: Any) -> float:
    return float(state.get("submitted") == task["answer"])


@vf.reward(weight=1.0)
async def never(task: Any, state: Any) -> float:
    return 0.0


@vf.metric
async def submitted(task: Any, state: Any) -> float:
    return float("submitted" in state)


@vf.stop
async def done(task: Any, state: Any) -> bool:
    return "submitted" in state


def load_environment(flaw: str = "none", **_: Any) -> Any:
    send = _raising_submit() if flaw == "raises" else submit
    toolsets = [vf.Toolset(tools=[lookup, send])] if flaw != "never_offered" else [
        vf.Toolset(tools=[lookup]), vf.Toolset(tools=[send], hide=["submit"])]
    taskset = vf.Taskset(source=_source, eval_source=_source, taskset_id="tiny-code",
                         toolsets=toolsets, rewards=[never if flaw == "stingy" else correct],
                         metrics=[submitted],
                         stops=[done])
    return vf.Env(taskset=taskset)


class TinyBridge:
    """The tiny environment's own oracle (look the word up, submit its code) and its
    offline path (the same two tools called directly)."""

    ceiling = 1.0

    def oracle_plan(self, task: Any) -> list[Any]:
        from agent_assay_bundled.verifiers_env.scripted import Call

        word = task.task["info"]["word"]
        return [Call("lookup", {"word": word}), Call("submit", {"code": word[::-1]})]

    def tags(self, task: Any) -> tuple[str, ...]:
        return (f"length:{len(task.task['info']['word'])}",)

    def offline_reward(self, task: Any, plan: Any) -> Any:
        """The tools called directly, whichever copy: what an offline test would see."""
        from agent_assay_bundled.verifiers_env.bridge import OfflineCall, OfflineResult

        state: dict[str, Any] = {}
        calls = []
        for call in plan:
            if call.tool == "lookup":
                calls.append(OfflineCall(True, lookup(**call.arguments, state=state, task={})))
            elif call.tool == "submit":
                calls.append(OfflineCall(True, submit(**call.arguments, state=state, task={})))
            else:
                calls.append(OfflineCall(False, error=f"no tool named {call.tool}"))
        reward = float(state.get("submitted") == task.task["answer"])
        return OfflineResult(reward, tuple(calls), {"submitted": float("submitted" in state)})


def agent_assay_bridge() -> TinyBridge:
    return TinyBridge()
