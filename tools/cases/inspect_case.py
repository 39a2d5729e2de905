"""The Inspect case study: an inspect_evals task certified through the inspect system.

The task is inspect_evals' AgentDojo port (banking, without sandbox tasks or injections),
whose data ship in the package, so it runs offline; `tools/cases/inspect_agentdojo_task.py`
adds each sample's ground-truth calls and answer as gold. The oracle config (gold played
through Inspect's mockllm into the port's own solver and tools) is certified with every
control, and the mock config (an empty script: the model answers nothing) is run beside
it. What the controls measured, the verdict, each config's headline mean and the items the
mock run (an agent that does nothing and answers nothing) passes are written
to OUT/case.json, and the control table as OUT/case.txt (docs/case-studies/inspect.md
embeds both).

With ``--config smollm2-t0`` (``make llm-inspect``, the local model behind
``AA_MODEL_BASE_URL``) the harness's model agent is the run certified instead, written to
OUT/smollm2-t0.json and .txt.

Usage: python -m tools.cases.inspect_case [--out reports/inspect] [--db PATH] [--limit N]
       [--config oracle|smollm2-t0]
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from pathlib import Path
from typing import Any

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay_bundled.inspect_task import door
from agent_assay_bundled.inspect_task.system import InspectTaskSystem

ROOT = Path(__file__).resolve().parents[2]
TASK = Path(__file__).with_name("inspect_agentdojo_task.py")
TASK_NAME = "agentdojo_banking_gold"


def source_file(directory: Path, limit: int | None) -> Path:
    """The YAML source naming the task (and a sample limit, when one is asked for)."""
    spec = directory / "inspect_agentdojo.yaml"
    lines = [f"task: {TASK}@{TASK_NAME}"] + ([f"limit: {limit}"] if limit else [])
    spec.write_text("\n".join(lines) + "\n")
    return spec


def headline_mean(store: Any, run_id: str, metric: str) -> float | None:
    values = [s.value for s in store.current_scores(run_id)
              if s.scorer == metric and s.value is not None]
    return math.fsum(values) / len(values) if values else None


def passing(store: Any, run_id: str, metric: str) -> dict[str, Any]:
    """The items a run's trajectories pass on `metric` (value 1): how many, and which."""
    items = sorted({s.item_id for s in store.current_scores(run_id)
                    if s.scorer == metric and s.value == 1.0})
    return {"count": len(items), "items": ", ".join(items)}


def controls_of(payloads: Any) -> dict[str, dict[str, Any]]:
    return {p["kind"]: {"status": p["status"], "summary": p["summary"]} for p in payloads}


def table(controls: dict[str, dict[str, Any]], verdict: str) -> str:
    rows = [f"{kind:<20} {c['status']:<8} {c['summary']}" for kind, c in controls.items()]
    return "\n".join([*rows, f"verdict: {verdict}"]) + "\n"


def study(db: Path, spec: Path, config: str) -> dict[str, Any]:
    system = load_system(InspectTaskSystem())
    store = api.open_db(str(db))
    certified = api.certify(system, store=store, config=config, source=spec)
    headline = list(system.facts.headline_metrics)
    mock = api.evaluate(system, "mock", store=store, source=spec)
    run_id = certified.run.run_id
    return {
        "task": f"inspect_evals/agentdojo (banking, with_sandbox_tasks=no, with_injections="
                f"false) via {TASK.name}@{TASK_NAME}",
        "inspect_version": door.installed_version(),
        "items": len(certified.run.item_ids),
        "headline": headline,
        "config": config,
        "verdict": certified.verdict.word,
        "controls": controls_of(certified.outcomes),
        "certified_mean": {m: headline_mean(store, run_id, m) for m in headline},
        "mock_mean": {m: headline_mean(store, mock.run_id, m) for m in headline},
        "mock_passes": {m: passing(store, mock.run_id, m) for m in headline},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "reports/inspect")
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--config", default="oracle")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="inspect-case-") as tmp:
        spec = source_file(Path(tmp), args.limit)
        found = study(args.db or Path(tmp) / "inspect_case.db", spec, args.config)
    stem = "case" if args.config == "oracle" else args.config
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps(found, indent=2, sort_keys=True) + "\n")
    (args.out / f"{stem}.txt").write_text(table(found["controls"], found["verdict"]))
    print(table(found["controls"], found["verdict"]), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
