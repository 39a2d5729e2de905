"""Rebuild reports/ by running the documented commands against a fresh database.

Every artifact is the verbatim output of one command, stored as
reports/<name>.txt with a JSON sidecar (reports/<name>.json) recording the
command, its exit code, the run id and suite hash it concerns and the package
version. README.md quotes these files; `make readme-check` re-renders the README
from them, so a documented number is always the output of a command.

Usage: python -m tools.generate.artifacts [--db run/artifacts.db] [--only GROUP]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib.metadata import version
from importlib.util import find_spec
from pathlib import Path

REPORTS = Path("reports")
CLI = ".venv/bin/agent-assay"
PY = ".venv/bin/python"
RUN_ID = re.compile(r"\b[0-9a-f]{32}\b")
SUITE = re.compile(r"suite(?:_hash)?:?\s+([0-9a-f]{64})")


HTML = REPORTS / "html"
DOC_SCREENSHOT = Path("docs/assets/banking_mock_top.png")


class Recorder:
    def __init__(self, db: str) -> None:
        self.db = db
        self.pages: list[dict[str, object]] = []
        """The HTML pages written, with what `make report-check` must find on each."""

    def page(self, name: str, command: str, *, verdict: str, items: int | None,
             expect: int = 0) -> None:
        """Run a command writing reports/html/<name>.html; list it for the browser check
        with the verdict and item count it must show, both learnt elsewhere than the page."""
        HTML.mkdir(parents=True, exist_ok=True)
        self.run(f"html/{name}", f"{command} --html {HTML / name}.html", expect=expect)
        self.pages.append({"file": f"{name}.html", "verdict": verdict, "items": items,
                           "screenshot": f"{name}.png", "top": f"{name}_top.png"})

    def expected(self, run_id: str) -> tuple[str, int]:
        """The verdict and item count a run's page must show, from `report --json`."""
        argv = [CLI, "report", run_id, "--json", "--exit-zero", "--db", self.db]
        data = json.loads(subprocess.run(argv, capture_output=True, text=True,
                                         check=True).stdout)
        return ("ADMISSIBLE" if data["admissible"] else "INADMISSIBLE"), data["run"]["n_items"]

    def write_manifest(self) -> None:
        HTML.mkdir(parents=True, exist_ok=True)
        (HTML / "pages.json").write_text(json.dumps(self.pages, indent=2) + "\n")

    def run(
        self, name: str, command: str, *, expect: int = 0, env: dict[str, str] | None = None
    ) -> str:
        """Run `command` ($DB replaced by the database; `env` added to the environment),
        store its output, return it."""
        argv = shlex.split(command.replace("$DB", self.db))
        done = subprocess.run(argv, capture_output=True, text=True, check=False,
                              env=None if env is None else {**os.environ, **env})
        if done.returncode != expect:
            sys.stderr.write(done.stdout + done.stderr)
            raise SystemExit(f"{command!r} exited {done.returncode}, expected {expect}")
        output = done.stdout
        run_ids = sorted(set(RUN_ID.findall(command + output)))
        suites = sorted(set(SUITE.findall(output)))
        target = REPORTS / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.with_suffix(".txt").write_text(output)
        sidecar = {
            "command": command.replace("$DB", "run/assay.db"),
            "exit_code": done.returncode,
            "run_ids": run_ids,
            "suite_hashes": suites,
            "package_version": version("agent-assay"),
        }
        target.with_suffix(".json").write_text(json.dumps(sidecar, sort_keys=True, indent=2) + "\n")
        print(f"  {name}: exit {done.returncode}", file=sys.stderr)
        return output


def banking(rec: Recorder) -> None:
    rec.run("banking/suite_build", f"{CLI} suite build --adapter banking --db $DB")
    run_id = rec.run("banking/run_mock",
                     f"{CLI} run --adapter banking --config mock --repeats 3 --db $DB").strip()
    rec.run(
        "banking/reproduction",
        f"{PY} -m tools.cases.compare_to_sut {run_id} --db $DB "
        "--json-out reports/banking/reproduction_detail.json",
    )
    rec.run("banking/controls_mock", f"{CLI} controls run --config mock --run {run_id} --db $DB")
    rec.run("banking/controls_mock_json", f"{CLI} controls show {run_id} --json --db $DB")
    rec.run(
        "banking/mutate_mock",
        f"{CLI} mutate --config mock --run {run_id} --db $DB",
    )
    rec.run(
        "banking/mutation_show",
        f"{CLI} mutation show {run_id} "
        "--item card_lost_stolen-happy-006 --operator corrupt_arg --db $DB",
    )
    rec.run("banking/report_mock", f"{CLI} report {run_id} --db $DB")
    rec.run("banking/report_mock_json", f"{CLI} report {run_id} --json --db $DB")
    rec.run("banking/verify_mock", f"{CLI} verify {run_id} --db $DB")
    verdict, items = rec.expected(run_id)
    rec.page("banking_mock", f"{CLI} report {run_id} --db $DB", verdict=verdict, items=items)
    rec.run("banking/runs_show", f"{CLI} runs show {run_id} --db $DB")
    rec.run(
        "banking/trajectory_show",
        f"{CLI} trajectories show {run_id} address_change-happy-004 --db $DB",
    )
    rec.run(
        "banking/trajectory_show_happy_006",
        f"{CLI} trajectories show {run_id} card_lost_stolen-happy-006 --db $DB",
    )
    rec.run("banking/report_by_tag", f"{CLI} report {run_id} --by-tag --headline-only --db $DB")
    rec.run("banking/report_by_tag_json", f"{CLI} report {run_id} --by-tag --json --db $DB")
    rec.run(
        "banking/report_failed",
        f"{CLI} report {run_id} --items trajectory.exact --failed --headline-only --db $DB",
    )
    crashed_run(rec)
    tampered = "run/tampered.db"
    rec.run("banking/tamper", f"{PY} -m tools.cases.tamper_demo $DB {run_id} {tampered}")
    rec.run("banking/report_tampered", f"{CLI} report {run_id} --db {tampered}", expect=2)
    rec.run("banking/verify_tampered", f"{CLI} verify {run_id} --db {tampered}", expect=2)
    spread = rec.run(
        "banking/run_noisy_k3",
        f"{CLI} run --adapter banking --config mock-noisy --repeats 3 --db $DB",
    ).strip()
    rec.run(
        "banking/controls_noisy_k3",
        f"{CLI} controls run --config mock-noisy --run {spread} --db $DB",
    )
    rec.run("banking/report_noisy_k3", f"{CLI} report {spread} --headline-only --db $DB")
    rec.page("banking_compare", f"{CLI} compare {run_id} {spread} --db $DB",
             verdict="COMPARED", items=None)
    rec.run("banking/plan_noisy",
            f"{CLI} plan --run {spread} --effect 0.05 --effect 0.10 --db $DB")
    noisy = rec.run("banking/run_noisy_k1",
                    f"{CLI} run --adapter banking --config mock-noisy --db $DB").strip()
    rec.run("banking/report_noisy_k1", f"{CLI} report {noisy} --headline-only --db $DB",
            expect=3)  # never certified
    rec.run("banking/compare_refused", f"{CLI} compare {run_id} {noisy} --db $DB", expect=4)
    rec.run("banking/compare_forced", f"{CLI} compare {run_id} {noisy} --force --db $DB")
    rec.run("banking/adapters_list", f"{CLI} adapters list")
    rec.run("banking/check_adapter", f"{CLI} check-adapter banking")
    rec.run("banking/runs_list", f"{CLI} runs list --db $DB")
    rec.run("cli_help", f"{CLI} --help")


def crashed_run(rec: Recorder) -> None:
    """A model config whose endpoint is down: every item crashes, and the stored error is
    what `runs show` and `trajectories show` print."""
    down = {"AA_MODEL_BASE_URL": "http://127.0.0.1:9/v1"}  # port 9 (discard): nothing listens
    out = rec.run("banking/run_unreachable",
                  f"{CLI} run --adapter banking --config smollm2-t0 --limit 2 --db $DB",
                  expect=1, env=down)
    run_id = out.strip().splitlines()[-1]
    rec.run("banking/runs_show_crashed", f"{CLI} runs show {run_id} --db $DB")
    rec.run(
        "banking/trajectory_show_crashed",
        f"{CLI} trajectories show {run_id} address_change-happy-001 --db $DB",
    )


def synthworld(rec: Recorder) -> None:
    adapter = "--adapter synthworld-agentic"
    rec.run("synthworld/suite_build", f"{CLI} suite build {adapter} --db $DB")
    rec.run(
        "synthworld/reproduction",
        f"{PY} -m tools.cases.compare_synthworld --db $DB "
        "--json-out reports/synthworld/reproduction_detail.json",
    )
    run_id = rec.run(
        "synthworld/run_auditor", f"{CLI} run {adapter} --config auditor --db $DB"
    ).strip()
    rec.run(
        "synthworld/controls_auditor",
        f"{CLI} controls run {adapter} --config auditor --run {run_id} --db $DB",
        expect=3,
    )
    rec.run("synthworld/controls_auditor_json", f"{CLI} controls show {run_id} --json --db $DB")
    rec.run(
        "synthworld/mutate_auditor",
        f"{CLI} mutate {adapter} --config auditor --run "
        f"{run_id} --operators configs/mutants-synthworld.yaml --db $DB",
    )
    rec.run("synthworld/report_auditor", f"{CLI} report {run_id} --headline-only --db $DB",
            expect=3)
    verdict, items = rec.expected(run_id)
    rec.page("synthworld_auditor", f"{CLI} report {run_id} --db $DB", verdict=verdict,
             items=items, expect=3)
    bundle = "reports/synthworld/evidence_auditor.jsonl"
    rec.run("synthworld/export_auditor", f"{CLI} export {run_id} {bundle} --db $DB")
    rec.run("synthworld/verify_bundle", f"{CLI} verify {bundle}")


def governance(rec: Recorder) -> None:
    adapter = "--adapter governance"
    rec.run(
        "governance/baselines_table",
        f"{PY} -m tools.cases.governance_baselines --out reports/governance",
    )
    run_id = rec.run("governance/run_mock", f"{CLI} run {adapter} --config mock --db $DB").strip()
    rec.run(
        "governance/controls_mock",
        f"{CLI} controls run {adapter} --config mock --run {run_id} --db $DB",
    )
    rec.run("governance/controls_mock_json", f"{CLI} controls show {run_id} --json --db $DB")
    rec.run("governance/report_mock", f"{CLI} report {run_id} --db $DB")


TAU_FILE = "../shared/data/tau-bench/gpt-4o-airline.json"
TAU_NOT_RUN = (
    "identical_config",
    "positive_control",
    "random_agent",
    "state_check_bites",
    "mutation",
)


def tau_bench(rec: Recorder) -> None:
    run_id = rec.run("tau_bench/import", f"{CLI} import tau-bench {TAU_FILE} --db $DB").strip()
    allow = " ".join(f"--allow-not-run {kind}" for kind in TAU_NOT_RUN)
    rec.run(
        "tau_bench/controls",
        f"{CLI} controls run --adapter tau-bench --config gpt-4o-airline --run {run_id} "
        f"{allow} --db $DB",
        expect=3,
    )
    # after the controls: the report reads the null agent's passes from its stored outcome
    rec.run("tau_bench/report", f"{CLI} report {run_id} --passk-curve --headline-only --db $DB",
            expect=3)
    rec.run("tau_bench/report_json", f"{CLI} report {run_id} --passk-curve --json --db $DB",
            expect=3)


VALID_ACTION = "../shared/data/valid-action"


def verifiers(rec: Recorder) -> None:
    """valid-action through the rollout path and through its core functions: the same
    controls on the same oracle config, and the case study's tables."""
    rec.run("verifiers/valid_action_table",
            f"{PY} -m tools.cases.verifiers_case --source {VALID_ACTION} --out reports/verifiers")
    for adapter, expect in (("verifiers", 3), ("verifiers-offline", 0)):
        rec.run(
            f"verifiers/controls_{adapter.replace('-', '_')}",
            f"{CLI} controls run --adapter {adapter} --source {VALID_ACTION} --config oracle "
            "--allow-not-run state_check_bites --db $DB",
            expect=expect,
        )


BFCL_CONTROLS_EXIT = {"multi_turn_base": 0, "multi_turn_miss_func": 3,
                      "multi_turn_miss_param": 0, "multi_turn_long_context": 0}
"""Each category's controls verdict as published (3: inadmissible; see the case study)."""


def bfcl(rec: Recorder) -> None:
    """BFCL multi-turn as it ships: its own check reproduced entry by entry, every control
    per category on the oracle config, and what the case study lists entry by entry."""
    rec.run("bfcl/reproduction",
            f"{PY} -m tools.cases.reproduce_bfcl --detail reports/bfcl/reproduction_detail.txt")
    rec.run("bfcl/findings", f"{PY} -m tools.cases.bfcl_case")
    rec.run("bfcl/check_adapter", f"{CLI} check-adapter bfcl")
    for category, expect in BFCL_CONTROLS_EXIT.items():
        rec.run(f"bfcl/controls_{category}",
                f"{CLI} controls run --adapter bfcl --source configs/bfcl/{category}.yaml "
                "--config oracle --db $DB", expect=expect)


AGENTDOJO_VERDICTS = {"workspace": 0, "travel": 3, "banking": 3, "slack": 0,
                      "banking-security": 3}
"""Each source's exit code: 0 admissible, 3 not (a control went red on what AgentDojo ships)."""


def agentdojo(rec: Recorder) -> None:
    """AgentDojo as it ships: our scoring against its own, what doing nothing earns, and
    every control on each suite."""
    rec.run("agentdojo/reproduction", f"{PY} -m tools.cases.reproduce_agentdojo")
    rec.run("agentdojo/findings", f"{PY} -m tools.cases.agentdojo_findings")
    rec.run("agentdojo/check_adapter", f"{CLI} check-adapter agentdojo")
    for suite, verdict in AGENTDOJO_VERDICTS.items():
        name = suite.replace("-", "_")
        output = rec.run(f"agentdojo/controls_{name}",
                         f"{CLI} controls run --adapter agentdojo --source "
                         f"configs/agentdojo/{suite}.yaml --config ground_truth --workers 2 "
                         "--db $DB", expect=verdict)
        run_id = RUN_ID.findall(output)[0]
        rec.run(f"agentdojo/mutation_{name}", f"{CLI} mutation score {run_id} --db $DB")


def check_pages(rec: Recorder) -> None:
    """Open every page in headless Chromium (tests/support/report_check.py): verdict, plots, rows,
    links, filter, console and network; writes the screenshots beside the pages."""
    rec.run("html/report_check", f"{PY} -m tests.support.report_check --manifest {HTML}/pages.json")
    # the site cannot link outside docs/, so it shows a copy (tests/docs checks it is one)
    shutil.copyfile(HTML / "banking_mock_top.png", DOC_SCREENSHOT)


GROUPS = {"banking": banking, "synthworld": synthworld, "governance": governance,
          "verifiers": verifiers, "bfcl": bfcl, "agentdojo": agentdojo}
"""What `--only` rebuilds alone, each group's commands in its own database."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="run/artifacts.db")
    parser.add_argument("--only", choices=sorted(GROUPS), default=None,
                        help="Rebuild one group's artifacts (no browser check of the pages).")
    args = parser.parse_args()
    db = Path(args.db)
    db.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    recorder = Recorder(str(db))
    if args.only is not None:
        GROUPS[args.only](recorder)
        return 0
    banking(recorder)
    synthworld(recorder)
    governance(recorder)
    if Path(TAU_FILE).exists():
        tau_bench(recorder)
    else:
        print(f"  tau_bench: skipped, {TAU_FILE} is absent", file=sys.stderr)
    if Path(VALID_ACTION).exists():
        verifiers(recorder)
    else:
        print(f"  verifiers: skipped, {VALID_ACTION} is absent", file=sys.stderr)
    if find_spec("bfcl_eval") is not None:
        bfcl(recorder)
    else:
        print("  bfcl: skipped, bfcl-eval is not installed (make bfcl-eval)", file=sys.stderr)
    if find_spec("agentdojo") is not None:
        agentdojo(recorder)
    else:
        print("  agentdojo: skipped, agentdojo is not installed (the agentdojo extra)",
              file=sys.stderr)
    recorder.write_manifest()
    check_pages(recorder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
