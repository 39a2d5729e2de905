"""`make bench-inspect`: agent-assay's CPU per trajectory beside Inspect AI's per sample.

    python -m tools.bench.inspect [--items 2000] [--rounds 3] [--out reports/bench/inspect.json]

The same no-op work on both sides: an agent that makes one tool call and answers, and
nothing else. On Inspect AI, a task of N samples whose mock model calls one tool and
then answers (token usage given, so nothing is counted or downloaded), scored by
`includes`; on agent-assay, a no-op run of N trajectories (tools.bench.core.NoopAdapter,
three calls each, every scorer, the chain, the store). Each side runs in a fresh process
and is timed from the start of its evaluation call to its end (imports and start-up
left out on both sides), divided by the items; rounds alternate the two, so a neighbour
process slows both, and the medians are compared. Inspect AI lives in its own venv
(`.venv-inspect`, created on first use from PyPI); when it cannot be installed, the
benchmark says why on one line and writes nothing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.bench.output import child_figures, machine, paired, write_figures

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-inspect"
PYTHON = VENV / "bin" / "python"
TARGET_RATIO = 50.0

INSPECT_TASK = '''
import json, sys, tempfile, time
from inspect_ai import Task, eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool


@tool
def lookup():
    async def execute(id: str) -> str:
        """Look an account up.

        Args:
            id: the account id
        """
        return "balance 1"
    return execute


USAGE = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)


def outputs(messages, tools, tool_choice, config):
    if messages and messages[-1].role == "tool":
        out = ModelOutput.from_content(model="mockllm", content="resolved")
    else:
        out = ModelOutput.for_tool_call(model="mockllm", tool_name="lookup",
                                        tool_arguments={"id": "A0"})
    out.usage = USAGE
    return out


n = int(sys.argv[1])
task = Task(dataset=[Sample(input=f"request {i}", target="resolved") for i in range(n)],
            solver=[use_tools(lookup()), generate(tool_calls="loop")], scorer=includes())
model = get_model("mockllm/model", custom_outputs=outputs)
start = time.process_time()
with tempfile.TemporaryDirectory() as logs:
    [log] = inspect_eval(task, model=model, log_dir=logs, display="none")
accuracy = log.results.scores[0].metrics["accuracy"].value if log.results else None
print(json.dumps({"cpu": time.process_time() - start, "status": log.status,
                  "accuracy": accuracy}))
'''

HARNESS_RUN = '''
import json, sys, tempfile, time
from pathlib import Path
from tools.bench.core import N_ITEMS, NoopAdapter
from agent_assay import api
from agent_assay.runner import execute_run
from agent_assay.store import open_store

with tempfile.TemporaryDirectory() as tmp:
    adapter = NoopAdapter()
    store = open_store(str(Path(tmp) / "assay.db"))
    run = api.start(adapter, "noop", store=store, repeats=int(sys.argv[1]) // N_ITEMS, seed=0)
    start = time.process_time()
    result = execute_run(store, adapter, run, progress=False)
    print(json.dumps({"cpu": time.process_time() - start, "written": result.written}))
'''


def inspect_venv() -> str | None:
    """Why Inspect AI cannot be used here (None: it can)."""
    if PYTHON.exists():
        return None
    made = subprocess.run([sys.executable, "-m", "venv", str(VENV)], capture_output=True,
                          text=True)
    if made.returncode == 0:
        made = subprocess.run([str(PYTHON), "-m", "pip", "install", "-q", "inspect-ai"],
                              capture_output=True, text=True)
    if made.returncode != 0:
        tail = (made.stderr or made.stdout).strip().splitlines()[-1:] or ["no output"]
        return f"cannot install inspect-ai into {VENV}: {tail[0]}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/inspect.json")
    args = parser.parse_args()
    why = inspect_venv()
    if why is not None:
        print(f"bench-inspect skipped: {why}")
        return 0
    asked = "import inspect_ai; print(inspect_ai.__version__)"
    version = subprocess.run([str(PYTHON), "-c", asked], capture_output=True, text=True,
                             check=True).stdout.strip()
    inspect_ms: list[float] = []
    ours_ms: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        task = Path(tmp) / "noop_task.py"
        task.write_text(INSPECT_TASK)
        for round_ in range(args.rounds):
            theirs = child_figures([str(PYTHON), str(task), str(args.items)],
                                   "bench-inspect: Inspect AI")
            if theirs["status"] != "success" or theirs["accuracy"] != 1.0:
                raise SystemExit(f"bench-inspect: the Inspect AI task did not run clean: {theirs}")
            ours = child_figures([sys.executable, "-c", HARNESS_RUN, str(args.items)],
                                 "bench-inspect: agent-assay")
            inspect_ms.append(theirs["cpu"] * 1000 / args.items)
            ours_ms.append(ours["cpu"] * 1000 / ours["written"])
            print(f"round {round_ + 1}: Inspect AI {inspect_ms[-1]:.3f} ms per sample, "
                  f"agent-assay {ours_ms[-1]:.4f} ms per trajectory", flush=True)
    figures = paired({"inspect_ai": inspect_ms, "agent_assay": ours_ms}, 4)
    write_figures(args.out, {
        "command": "make bench-inspect",
        "machine": machine(),
        "inspect_ai_version": version,
        "items": args.items,
        **figures,
        "targets": {"ratio_min": TARGET_RATIO},
        "meets_targets": {"ratio": figures["ratio"] >= TARGET_RATIO},
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
