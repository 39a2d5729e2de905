"""Command line: score the mock agent over the golden scripts with the system's own scorer.

Promise: for a given seed and script directory the JSON written is byte-for-byte identical
on every run (sorted keys, indent 2, trailing newline). Usage:
`python -m synthbank.evaluate --out PATH [--seed S] [--scripts DIR]`.
This module must not import agent_assay.
"""

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from synthbank import __version__
from synthbank.agents import run_episode, run_mock
from synthbank.scripts import Script, ScriptError, load_scripts
from synthbank.selfscore import aggregate_scores, score_script
from synthbank.world import DEFAULT_SEED


def evaluate(scripts: Sequence[Script], seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Run the mock (noisy=False, repetition=1) on every script's public request."""
    agent = functools.partial(run_mock, seed=seed, repetition=1, noisy=False)
    scores = {s.id: score_script(s, run_episode(agent, s.public())) for s in scripts}
    return {
        "system": "synthbank",
        "version": __version__,
        "seed": seed,
        "aggregate": aggregate_scores(list(scores.values())),
        "scripts": {key: score.to_dict() for key, score in scores.items()},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Score the synthbank mock agent.")
    parser.add_argument("--out", type=Path, required=True, help="where to write the JSON")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help="seed for the mock's defects; scripts always use the default world")
    parser.add_argument("--scripts", type=Path, default=None, help="golden script directory")
    args = parser.parse_args(argv)
    try:
        scripts = load_scripts(args.scripts)
    except ScriptError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = evaluate(scripts, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
