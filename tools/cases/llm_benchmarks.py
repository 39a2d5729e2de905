"""Run SmolLM2-135M-Instruct as the agent on AgentDojo and BFCL; store every output.

Needs a model server (`make local-model`). `make llm-benchmarks` runs this script, which,
like tools/cases/llm_runs.py (whose recorder it uses), keeps each command's verbatim stdout as
reports/llm/<benchmark>_<step>.txt with a JSON sidecar (command, exit code, run ids, seconds).
The case studies embed those files; no model is needed to check them.

Each benchmark is run on the source in configs/llm/ (a small part of one suite or category:
a 135M model on two CPU cores takes seconds per request) with the `smollm2-t0` config and
one repetition, then every control, then the report, whatever verdict it reaches. Each has
its own database, run/llm-<benchmark>.db, made afresh.

Usage:
    python -m tools.cases.llm_benchmarks [--only agentdojo|bfcl]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tools.cases.llm_runs import CLI, Recorder, base_url, models_answer

CONFIG = "smollm2-t0"
SERVER_TRIES = 12
BENCHMARKS = {
    "agentdojo": ("configs/llm/agentdojo-banking.yaml", ""),
    "bfcl": ("configs/llm/bfcl-base.yaml", "-M max_turns=24"),
}
"""benchmark (the adapter's name) -> the source it is run on, and the settings given: BFCL's
request budget covers a whole conversation (60 by default); 24 keeps a 135M model that
never stops calling tools from taking an hour per run, and is recorded in the config."""


def run_benchmark(name: str, source: str, settings: str) -> None:
    db = Path(f"run/llm-{name}.db")
    db.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    rec = Recorder(str(db))
    chosen = f"--adapter {name} --source {source}"
    rec.run(f"llm/{name}_suite_build", f"{CLI} suite build {chosen} --db $DB")
    run_id = rec.run(f"llm/{name}_run",
                     f"{CLI} run {chosen} --config {CONFIG} {settings} --repeats 1 "
                     "--db $DB").strip()
    rec.run(f"llm/{name}_controls", f"{CLI} controls run --config {CONFIG} --run {run_id} "
            "--db $DB", expect=(0, 3))
    rec.run(f"llm/{name}_report", f"{CLI} report {run_id} --db $DB", expect=(0, 3, 4))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(BENCHMARKS), default=None)
    args = parser.parse_args(argv)
    url = base_url()
    # a server busy with another client's request answers late: ask a few times
    if all(models_answer(url) is None for _ in range(SERVER_TRIES)):
        print(f"error: no model server answers at {url}/models; start one with "
              "`make local-model`", file=sys.stderr)
        return 1
    for name, (source, settings) in BENCHMARKS.items():
        if args.only in (None, name):
            started = time.perf_counter()
            run_benchmark(name, source, settings)
            print(f"llm-benchmarks: {name} done in {time.perf_counter() - started:.0f} s",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
