"""`make evidence`: claims written in code, recomputed from reports/, never rewritten.

A claim names an artifact, a function that extracts a value from it, and the
value the README asserts. The check only reads; when an artifact changes so
that a claim no longer holds, the claim fails and a person decides whether the
README or the code is wrong.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError
from tools.docs_audit.regions import load_json


@dataclass(frozen=True)
class Claim:
    name: str
    artifact: str
    extract: Callable[[Any], Any]
    expected: Any

    def check(self, reports: Path) -> tuple[bool, Any]:
        if self.artifact.endswith(".txt") and not self.artifact.endswith("_json.txt"):
            data: Any = (reports / self.artifact).read_text(encoding="utf-8")
        else:
            data = load_json(reports, self.artifact)
        got = self.extract(data)
        return got == self.expected, got


def load_claims(path: Path) -> list[Claim]:
    """The CLAIMS list of a claims file."""
    spec = importlib.util.spec_from_file_location("evidence_claims", path)
    if spec is None or spec.loader is None:
        raise AssayError(f"cannot load claims from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    claims = getattr(module, "CLAIMS", None)
    # run as `python -m`, this module is __main__; the claims file imports the package one
    claim_type = importlib.import_module("tools.docs_audit.evidence").Claim
    if not isinstance(claims, list) or not all(isinstance(c, claim_type) for c in claims):
        raise AssayError(f"{path}: CLAIMS must be a list of tools.docs_audit.evidence.Claim")
    return claims


def run(claims_path: Path, reports: Path) -> int:
    failed = 0
    for claim in load_claims(claims_path):
        try:
            ok, got = claim.check(reports)
        except (AssayError, OSError, KeyError, IndexError, TypeError) as exc:
            ok, got = False, f"{type(exc).__name__}: {exc}"
        failed += not ok
        mark = "ok  " if ok else "FAIL"
        detail = "" if ok else f" -- expected {claim.expected!r}, got {got!r}"
        print(f"{mark} {claim.name} [{claim.artifact}]{detail}")
    print(f"evidence: {failed} of the claims failed" if failed else "evidence: every claim holds")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    claims = Path(args[0]) if args else Path("tools/docs_audit/evidence_claims.py")
    reports = Path(args[1]) if len(args) > 1 else Path("reports")
    try:
        return run(claims, reports)
    except AssayError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
