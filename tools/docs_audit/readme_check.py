"""`make readme-check`: regenerate the documents' generated regions from reports/ and diff
(README.md, LIMITATIONS.md, EVIDENCE.md and every page under docs/).

Usage: python -m tools.docs_audit.readme_check [--write] [FILE ...]
Without --write it exits 1 and prints a unified diff when any region drifted.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from agent_assay.errors import AssayError
from tools.docs_audit.documents import generated_documents
from tools.docs_audit.regions import render


def check(paths: list[Path], reports: Path, *, write: bool) -> int:
    drift = 0
    for path in paths:
        current = path.read_text(encoding="utf-8")
        fresh = render(current, reports)
        if fresh == current:
            continue
        if write:
            path.write_text(fresh, encoding="utf-8")
            print(f"rewrote {path}")
            continue
        drift += 1
        sys.stdout.writelines(
            difflib.unified_diff(
                current.splitlines(keepends=True),
                fresh.splitlines(keepends=True),
                fromfile=f"{path} (committed)",
                tofile=f"{path} (from {reports}/)",
            )
        )
    if drift:
        print(f"readme-check: {drift} file(s) drifted from {reports}/", file=sys.stderr)
        return 1
    print(f"readme-check: {len(paths)} file(s) match {reports}/")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--reports", type=Path, default=Path("reports"))
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    files = args.files or generated_documents()
    try:
        return check(files, args.reports, write=args.write)
    except AssayError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
