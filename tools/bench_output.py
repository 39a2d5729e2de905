"""Where a benchmark's figures go: one sorted JSON file under reports/bench/, echoed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_figures(out: Path, figures: dict[str, Any]) -> None:
    """Write FIGURES to OUT (creating its folder) and print the same text."""
    text = json.dumps(figures, sort_keys=True, indent=2) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text, end="")
