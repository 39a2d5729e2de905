"""Which Markdown files the document checks read: the top-level ones and every page under
docs/ (a glob, so a new page is checked the day it is written, not when someone lists it)."""

from __future__ import annotations

from pathlib import Path

TOP_GENERATED = ("README.md", "LIMITATIONS.md", "EVIDENCE.md")
"""Files holding generated regions that readme-check renders."""
TOP_AUDITED = ("README.md", "LIMITATIONS.md")
"""Files whose every number must have a command behind it (EVIDENCE.md is run ids)."""
DOCS = Path("docs")


def doc_pages(root: Path = Path(".")) -> list[Path]:
    """Every Markdown page of the documentation site, in path order."""
    return sorted(p.relative_to(root) for p in (root / DOCS).rglob("*.md"))


def generated_documents(root: Path = Path(".")) -> list[Path]:
    top = [Path(name) for name in TOP_GENERATED if (root / name).exists()]
    return top + doc_pages(root)


def audited_documents(root: Path = Path(".")) -> list[Path]:
    top = [Path(name) for name in TOP_AUDITED if (root / name).exists()]
    return top + doc_pages(root)
