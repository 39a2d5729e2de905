"""A documentation page generated from the code: write it, or check the committed one.

The command and API references are both made this way; `--check` never writes, and names
the first part of the page that differs in one line (exit 1), so a test can run it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def check_or_write(
    out: Path, expected: str, drift: Callable[[str], str | None], *, check: bool, fix: str,
    wrote: str,
) -> int:
    """With `check`, compare `out` with `expected` (`drift` says how they differ) and
    return 1 on a difference; else write `expected` to `out` and say `wrote`."""
    if check:
        if not out.is_file():
            print(f"{out} does not exist: {fix}", file=sys.stderr)
            return 1
        problem = drift(out.read_text(encoding="utf-8"))
        if problem:
            print(problem, file=sys.stderr)
            return 1
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(expected, encoding="utf-8")
    print(f"wrote {out}: {wrote}")
    return 0
