"""`make judge-case`: the local model as a judge, measured by judge_calibration.

Needs the local model (`make local-model`). Two labelled sets:

1. the judged banking system (`agent_assay_bundled.judged.banking`): the deterministic
   mock run over the whole bundled suite, then judge_calibration itself on that run, as
   `controls run` would run it (the other controls are not run here: they are the banking
   case study's, and re-scoring asks the judge again);
2. tau-bench's published gpt-4o airline run (read from FILE, never copied): the final
   messages whose labels tau-bench's own output check decides, asked of the same judge
   and tallied by the same functions against the same default band.

Writes reports/judge/banking.json (judge_calibration's stored outcome: counts, bounds,
flips), reports/judge/tau_airline.json (the same figures, with every pair's verdicts and
the judge's raw replies), reports/judge/timing.json and reports/judge/summary.txt. Numbers in
docs/case-studies/judge.md are read from these files, never typed.

Usage: python -m tools.cases.judge_case [--tau FILE] [--out reports/judge]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agent_assay import api
from agent_assay.controls.bands import load_bands
from agent_assay.controls.execute import control_context
from agent_assay.controls.judge_calibration import JudgeCalibration, judged
from agent_assay.controls.judge_family import model_family, same_family
from agent_assay.controls.judge_probes import Asked, Pair, ask_pair, distinct, tally
from agent_assay.errors import AssayError
from agent_assay.llm.endpoint import DEFAULT_BASE_URL, DEFAULT_LOCAL_PORT, ENV_BASE_URL
from agent_assay.llm.judge_client import openai_judge
from agent_assay.llm.local_server import models_answer
from agent_assay.scoring.judging import JudgeAsk, JudgeModel
from agent_assay.store import open_store
from agent_assay_bundled.banking import SMOLLM2
from agent_assay_bundled.judged.banking import JudgedBankingAdapter
from agent_assay_bundled.judged.tau_airline import LABEL_SOURCE, airline_labelled

TAU = Path("../shared/data/tau-bench/gpt-4o-airline.json")


def local_port() -> int:
    """The port of the local server the judge is asked through (AA_MODEL_BASE_URL, as
    `make judge-case` sets it from LOCAL_MODEL_PORT; else the default)."""
    url = os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
    return urlsplit(url).port or DEFAULT_LOCAL_PORT


class Recording:
    """The judge, with every prompt and raw reply kept for the report."""

    def __init__(self, ask: JudgeAsk) -> None:
        self.ask = ask
        self.replies: dict[str, str] = {}

    def __call__(self, prompt: str) -> str:
        raw = self.ask(prompt)
        self.replies[prompt] = raw
        return raw


def pair_rows(asked: Sequence[Asked]) -> list[dict[str, Any]]:
    return [{"item": a.pair.answer.item_id, "question": a.pair.question.question,
             "answer": a.pair.answer.answer, "label": a.pair.label, "verdict": a.verdict,
             "swapped": a.swapped, "probe": a.probe, "probed": a.probed} for a in asked]


def banking_case(store_path: Path) -> dict[str, Any]:
    """The mock run of the judged banking system, and judge_calibration on it."""
    system = JudgedBankingAdapter()
    store = open_store(str(store_path))
    run = api.evaluate(system, "mock", store=store, repeats=1, seed=0).run
    ctx = control_context(store, system, run, random_seeds=10)
    band = load_bands().get("judge_calibration")
    outcome = JudgeCalibration().run(ctx, band)
    smollm_agent = SMOLLM2
    return {
        "system": system.name, "config": "mock", "run_items": len(run.item_ids),
        "outcome": outcome.to_json(),
        "label_source": "src/agent_assay_bundled/judged/banking_replies.yaml (its header)",
        "same_family_demo": {"agent_model": smollm_agent, "judge_model": SMOLLM2,
                             "family": model_family(SMOLLM2),
                             "refused_without_waiver": same_family(smollm_agent, SMOLLM2)},
    }


def tau_case(path: Path, judge: JudgeAsk) -> dict[str, Any]:
    """The published airline run's decided final messages, asked of the same judge."""
    pairs = distinct(Pair(answer, question, answer.labels[question.question_id])
                     for question, answer in airline_labelled(path))
    recording = Recording(judge)
    asked = [ask_pair(recording, pair) for pair in pairs]
    counts = tally(asked)
    band = load_bands().get("judge_calibration")
    measured, failures = judged(counts, band)
    return {"source": str(path), "label_source": LABEL_SOURCE, "measured": measured,
            "failures": failures, "passed": not failures,
            "band": {k: v for k, v in band.items() if k != "derivation"},
            "pairs": pair_rows(asked),
            "replies": [{"prompt": p, "raw": r} for p, r in recording.replies.items()]}


def summary_line(name: str, status: str, measured: dict[str, Any]) -> str:
    sens, spec, counts = measured["sensitivity"], measured["specificity"], measured["counts"]
    return (f"{name:<22} {status:<7} sensitivity {sens['hits']}/{sens['n']} "
            f"(lower {sens['lower_bound']:.3f})  specificity {spec['hits']}/{spec['n']} "
            f"(lower {spec['lower_bound']:.3f})  position flips "
            f"{counts['position_flips']}/{counts['position_pairs']}  verbosity flips "
            f"{counts['verbosity_flips']}/{counts['verbosity_pairs']}")


def summary(banking: dict[str, Any], tau: dict[str, Any]) -> str:
    """The table the case study embeds: one line per labelled set, then what failed."""
    outcome = banking["outcome"]
    lines = [summary_line("banking-judged (mock)", outcome["status"], outcome["measured"]),
             summary_line("tau-bench airline", "PASSED" if tau["passed"] else "FAILED",
                          tau["measured"]), "", f"banking: {outcome['summary']}",
             "tau-bench airline: " + ("; ".join(tau["failures"]) or "inside every band")]
    return "\n".join(lines) + "\n"


def write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="judge_case")
    parser.add_argument("--tau", type=Path, default=TAU)
    parser.add_argument("--out", type=Path, default=Path("reports/judge"))
    args = parser.parse_args(argv)
    if models_answer(local_port()) is None:
        print(f"no local model answers on port {local_port()}: run `make local-model` first",
              file=sys.stderr)
        return 2
    timing: dict[str, float] = {}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        banking = banking_case(Path(scratch) / "assay.db")
    timing["banking_seconds"] = time.monotonic() - started
    write(args.out / "banking.json", banking)
    started = time.monotonic()
    try:
        tau = tau_case(args.tau, openai_judge(JudgeModel(SMOLLM2)))
    except (OSError, AssayError) as exc:
        print(f"tau-bench airline: {exc}", file=sys.stderr)
        return 1
    timing["tau_airline_seconds"] = time.monotonic() - started
    write(args.out / "tau_airline.json", tau)
    write(args.out / "timing.json", timing)
    (args.out / "summary.txt").write_text(summary(banking, tau), encoding="utf-8")
    print(f"banking: {banking['outcome']['status']}; tau-bench airline: "
          f"{'PASSED' if tau['passed'] else 'FAILED'}; written under {args.out}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
