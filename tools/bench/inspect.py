"""`make bench-inspect`: the marginal CPU of one more sample on Inspect AI beside one more
trajectory on agent-assay, for the same no-op work.

    python -m tools.bench.inspect [--small 1000] [--large 5000] [--rounds 3]
                                  [--out reports/bench/inspect.json]

The work, on both sides: an agent receives a request, makes one tool call that really
runs (a Python function looking an account up), answers, and is scored and logged.

- Inspect AI: a task of N samples; its mockllm model asks for the `lookup` tool, Inspect
  executes the tool, the model answers, `includes` scores the answer, and the log is
  written (token usage given, so nothing is counted or downloaded).
- agent-assay: a third-party-style plugin, registered by an entry point from a
  dist-info in a temporary folder (as `pip install` would), driven by the real command
  line (`agent-assay run --adapter pings`): its agent runs in the harness's agent process,
  calls its world's `lookup` tool, answers, and the harness scores the trajectory with
  every generic scorer, chains it and stores it. N is 1,000 items x (N / 1,000) repeats.

Each side runs as a whole fresh process at N = small and N = large, and its CPU seconds
(user + system, every descendant included: the harness's agent process too, which the
probe adopts when it detaches) are measured from outside. The marginal per sample is
(CPU at large - CPU at small) / (large - small): start-up, imports and anything paid once
cancel out, so what is compared is what one more sample costs. The four runs of a round
alternate the two sides, so a neighbour process slows both, and the medians of the
marginals are compared. Inspect AI is the `inspect` extra's pinned release; when it is not
installed, the benchmark says so on one line and writes nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

from tools.bench.output import CLI, at_least, machine, measured, write_figures

ROOT = Path(__file__).resolve().parents[2]
TARGET_RATIO = 100.0
PLUGIN_ITEMS = 1000

INSPECT_TASK = '''
import sys, tempfile
from inspect_ai import Task, eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool

ACCOUNTS = {f"A{i}": {"balance": 100 * i} for i in range(10)}


@tool
def lookup():
    async def execute(id: str) -> str:
        """Look an account up.

        Args:
            id: the account id
        """
        return f"balance {ACCOUNTS[id]['balance']}"
    return execute


USAGE = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)


def outputs(messages, tools, tool_choice, config):
    if messages and messages[-1].role == "tool":
        out = ModelOutput.from_content(model="mockllm", content="resolved")
    else:
        account = messages[-1].text.split()[-1]
        out = ModelOutput.for_tool_call(model="mockllm", tool_name="lookup",
                                        tool_arguments={"id": account})
    out.usage = USAGE
    return out


n = int(sys.argv[1])
task = Task(dataset=[Sample(input=f"look up A{i % 10}", target="resolved") for i in range(n)],
            solver=[use_tools(lookup()), generate(tool_calls="loop")], scorer=includes())
with tempfile.TemporaryDirectory() as logs:
    [log] = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=outputs),
                         log_dir=logs, display="none")
accuracy = log.results.scores[0].metrics["accuracy"].value if log.results else None
if log.status != "success" or accuracy != 1.0:
    sys.exit(f"the task did not run clean: {log.status}, accuracy {accuracy}")
'''

PLUGIN = '''
"""A third-party adapter as a user would write one: a world of ten accounts, one tool."""
from agent_assay import Cost, Ending, Gold, Item, StateAssertion, Step, Suite, ToolCall
from agent_assay import ToolOutcome, Trajectory

ITEMS = ITEM_COUNT


class Bank:
    def __init__(self):
        self.balances = {f"A{i}": 100 * i for i in range(10)}
        self.looked = []

    def call(self, tool, args):
        if tool != "lookup" or args.get("id") not in self.balances:
            return ToolOutcome(False, error=f"no tool {tool!r} or no account {args!r}")
        self.looked.append(args["id"])
        return ToolOutcome(True, {"balance": self.balances[args["id"]]})

    def finish(self):
        return Ending({"looked": list(self.looked)}, "resolved" if self.looked else "nothing")


class Pings:
    name, version = "pings", "0.1.0"

    def build_suite(self, source=None):
        items = []
        for i in range(ITEMS):
            account = f"A{i % 10}"
            gold = Gold(path=(ToolCall("lookup", {"id": account}),), outcome="resolved",
                        assertions=(StateAssertion("looked", [account]),))
            items.append(Item(f"ping-{i:05d}", {"request": f"look up {account}"}, gold))
        return Suite(self.name, tuple(items))

    def configs(self):
        return {"scripted": {}}

    def run_item(self, item, config, *, seed, repetition):
        bank = Bank()
        call = ToolCall("lookup", {"id": item.input["request"].split()[-1]})
        done = bank.call(call.tool, call.args)
        end = bank.finish()
        return Trajectory(item.item_id, repetition, (Step(call, done.ok, done.result, done.error),),
                          end.final_state, end.outcome, cost=Cost(0.0, "scripted agent"))
'''


def install_plugin(site: Path) -> None:
    """The plugin's module and a dist-info registering it, as `pip install` would leave them."""
    (site / "pings_adapter.py").write_text(PLUGIN.replace("ITEM_COUNT", str(PLUGIN_ITEMS)))
    dist = site / "agent_assay_pings-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: agent-assay-pings\n"
                                   "Version: 0.1\n")
    (dist / "entry_points.txt").write_text("[agent_assay.adapters]\n"
                                           "pings = pings_adapter:Pings\n")


def cpu_of(command: list[str], what: str) -> float:
    """CPU seconds of `command` run as a fresh process; a failure ends the benchmark."""
    got = measured(command)
    if got["code"] != 0:
        tail = got["err"].strip().splitlines() or ["no output"]
        raise SystemExit(f"bench-inspect: {what} failed: {tail[-1]}")
    return float(got["cpu"])


def marginal_ms(small: float, large: float, n_small: int, n_large: int) -> float:
    return (large - small) * 1000 / (n_large - n_small)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/inspect.json")
    args = parser.parse_args()
    if importlib.util.find_spec("inspect_ai") is None:
        print("bench-inspect skipped: Inspect AI is not installed "
              "(pip install 'agent-assay[inspect]')")
        return 0
    if args.small % PLUGIN_ITEMS or args.large % PLUGIN_ITEMS or args.large <= args.small:
        raise SystemExit(f"bench-inspect: --small and --large must be multiples of "
                         f"{PLUGIN_ITEMS}, small below large")
    trials: dict[str, list[Any]] = {"inspect_ai": [], "agent_assay": []}
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        site.mkdir()
        install_plugin(site)
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(site), *filter(None, [os.environ.get("PYTHONPATH")])])
        task = Path(tmp) / "noop_task.py"
        task.write_text(INSPECT_TASK)

        def inspect_cpu(n: int) -> float:
            return cpu_of([sys.executable, str(task), str(n)], f"Inspect AI at n={n}")

        def ours_cpu(n: int, round_: int) -> float:
            db = Path(tmp) / f"pings-{round_}-{n}.db"
            return cpu_of([CLI, "run", "--adapter", "pings", "--config", "scripted",
                           "--repeats", str(n // PLUGIN_ITEMS), "--db", str(db)],
                          f"agent-assay at n={n}")

        for round_ in range(args.rounds):
            cpu = {"inspect_ai": (inspect_cpu(args.small), 0.0),
                   "agent_assay": (ours_cpu(args.small, round_), 0.0)}
            cpu = {"inspect_ai": (cpu["inspect_ai"][0], inspect_cpu(args.large)),
                   "agent_assay": (cpu["agent_assay"][0], ours_cpu(args.large, round_))}
            for side, (small, large) in cpu.items():
                trials[side].append({"cpu_small_s": round(small, 3), "cpu_large_s": round(large, 3),
                                     "marginal_ms": round(marginal_ms(small, large, args.small,
                                                                      args.large), 4)})
            print(f"round {round_ + 1}: Inspect AI {trials['inspect_ai'][-1]['marginal_ms']} ms, "
                  f"agent-assay {trials['agent_assay'][-1]['marginal_ms']} ms per extra sample",
                  flush=True)
    median = {side: round(statistics.median(t["marginal_ms"] for t in runs), 4)
              for side, runs in trials.items()}
    ratio = round(median["inspect_ai"] / median["agent_assay"], 3)
    write_figures(args.out, {
        "command": "make bench-inspect",
        "machine": machine(),
        "inspect_ai_version": version("inspect-ai"),
        "samples": {"small": args.small, "large": args.large},
        "median_marginal_ms": median,
        "trials": trials,
        "rounds": args.rounds,
        **at_least(ratio, TARGET_RATIO),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
