"""Where a benchmark's figures go: one sorted JSON file under reports/bench/, echoed."""

from __future__ import annotations

import json
import platform
import statistics
from pathlib import Path
from typing import Any


def write_figures(out: Path, figures: dict[str, Any]) -> None:
    """Write FIGURES to OUT (creating its folder) and print the same text."""
    text = json.dumps(figures, sort_keys=True, indent=2) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text, end="")


def machine() -> dict[str, str]:
    """Where a figure was measured."""
    return {"platform": platform.platform(), "python": platform.python_version()}


def paired(trials: dict[str, list[float]], digits: int) -> dict[str, Any]:
    """Two measurements taken in alternating rounds: each one's median, every round's
    value, and the ratio of the first median to the second."""
    (first, a), (second, b) = trials.items()
    return {
        "median": {first: round(statistics.median(a), digits),
                   second: round(statistics.median(b), digits)},
        "trials": {name: [round(v, digits) for v in values] for name, values in trials.items()},
        "ratio": round(statistics.median(a) / statistics.median(b), 3),
        "rounds": len(a),
    }
