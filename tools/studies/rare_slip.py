"""How often identical_config misses an episode that goes wrong once in 500.

Usage: python -m tools.studies.rare_slip [--trials 60] [--out FILE]

Each trial runs RareSlip (tests/support/rare_slip_system.py: 100 items, one wrong episode in
500, unseeded) once and then identical_config on that run, which executes two twins in
fresh processes and compares each with the run and with each other: 300 episodes whose
fault it could see. A trial the control PASSES is a slip. Writes the measured and the
expected slip rate ((1 - 1/500) ** episodes), and how many twins would catch such a
fault 95% of the time on this suite.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

from agent_assay import api
from agent_assay.controls.bands import load_bands
from agent_assay.controls.execute import control_context
from agent_assay.controls.identical_config import TWINS, IdenticalConfig
from agent_assay.store import open_store
from tests.support.rare_slip_system import ITEMS, RATE, RareSlip

ROOT = Path(__file__).resolve().parents[2]
CATCH = 0.95


def trial(directory: Path, number: int) -> bool:
    """One run and its identical_config; True when the control passed (a slip)."""
    system = RareSlip()
    store = open_store(str(directory / f"trial{number}.db"))
    run = api.evaluate(system, "rare", store=store, repeats=1, seed=number).run
    band = load_bands(None, None).get("identical_config")
    outcome = IdenticalConfig().run(control_context(store, system, run, 10), band)
    store.close()
    return outcome.status == "PASSED"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/rare_slip.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        slips = sum(trial(Path(tmp), n) for n in range(args.trials))
    episodes = (TWINS + 1) * ITEMS
    p = 1 / RATE
    needed = math.ceil(math.log(1 - CATCH) / math.log(1 - p) / ITEMS) - 1
    result = {
        "command": "make rare-slip",
        "fault_rate": p,
        "items": ITEMS,
        "twins": TWINS,
        "episodes_compared": episodes,
        "trials": args.trials,
        "slips": slips,
        "measured_slip_rate": round(slips / args.trials, 4),
        "expected_slip_rate": round((1 - p) ** episodes, 4),
        "catch_rate_wanted": CATCH,
        "twins_needed_for_catch_rate": needed,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, sort_keys=True, indent=2) + "\n")
    print(json.dumps(result, sort_keys=True, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
