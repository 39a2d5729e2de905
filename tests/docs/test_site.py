"""The documentation site builds strictly, and the checks on it go red on what they exist
to catch: a broken link, an orphan page, a missing snippet, a hand-edited number."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.docs_audit import readme_check
from tools.docs_audit.documents import audited_documents, doc_pages, generated_documents

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A copy of what the site is built from: mkdocs.yml, docs/, and the files its snippets
    include (the top-level documents, the example adapter)."""
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    for name in ("README.md", "LIMITATIONS.md", "EVIDENCE.md", "NUMBERS.md", "ARCHITECTURE.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    # the site's hook (tools/docs_audit/mkdocs_hooks.py) imports its package, which
    # `python -m mkdocs` finds in the directory it runs from
    shutil.copytree(ROOT / "tools", tmp_path / "tools",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def build(where: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(where / "site")],
        cwd=where, capture_output=True, text=True, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def test_the_committed_site_builds_strictly(site: Path) -> None:
    built = build(site)
    assert built.returncode == 0, built.stdout + built.stderr
    assert (site / "site" / "index.html").is_file()


def test_a_generated_value_that_starts_a_line_stays_in_its_sentence(site: Path) -> None:
    """readme-check's markers never reach a page: a value at the start of a line (here, on
    the performance page and in a limitation the site includes) does not split its
    paragraph or its list item."""
    page = site / "docs" / "performance.md"
    page.write_text(page.read_text() + "\nThe harness took\n<!-- value: bench/floor.json#ratio "
                    "-->3.5<!-- /value --> times the floor, said once.\n")
    assert build(site).returncode == 0
    performance = (site / "site" / "performance.html").read_text()
    limitations = (site / "site" / "limitations.html").read_text()
    assert "<!-- value" not in performance + limitations
    assert "<p>The harness took\n3.5 times the floor, said once.</p>" in performance
    assert "<li><strong>The harness is slower than the same work done plainly" in limitations


@pytest.mark.parametrize(
    ("plant", "message"),
    [
        (lambda d: (d / "concepts.md").open("a").write("\n[gone](no-such-page.md)\n"),
         "no-such-page.md"),
        (lambda d: (d / "orphan.md").write_text("# Nobody links here\n"), "orphan.md"),
        (lambda d: (d / "store.md").open("a").write('\n--8<-- "NO_SUCH_FILE.md"\n'),
         "NO_SUCH_FILE.md"),
        (lambda d: (d / "concepts.md").open("a").write("\n[gone](store.md#no-such-anchor)\n"),
         "no-such-anchor"),
    ],
    ids=["broken link", "orphan page", "missing snippet", "missing anchor"],
)
def test_a_planted_fault_fails_the_build(site: Path, plant: object, message: str) -> None:
    plant(site / "docs")  # type: ignore[operator]
    built = build(site)
    assert built.returncode != 0
    assert message in built.stdout + built.stderr


def test_every_page_under_docs_is_checked(tmp_path: Path) -> None:
    (tmp_path / "docs" / "deep" / "er").mkdir(parents=True)
    (tmp_path / "README.md").write_text("# x\n")
    (tmp_path / "docs" / "a.md").write_text("# a\n")
    (tmp_path / "docs" / "deep" / "er" / "b.md").write_text("# b\n")
    pages = [Path("docs/a.md"), Path("docs/deep/er/b.md")]
    assert doc_pages(tmp_path) == pages
    assert generated_documents(tmp_path) == [Path("README.md"), *pages]
    assert audited_documents(tmp_path) == [Path("README.md"), *pages]


def test_a_hand_edited_number_on_a_docs_page_fails_readme_check(tmp_path: Path) -> None:
    pages = [p for p in doc_pages(ROOT) if "<!-- value: " in (ROOT / p).read_text()]
    assert pages, "no docs page holds a generated value"
    page = tmp_path / "page.md"
    text = (ROOT / pages[0]).read_text()
    start = text.index("-->", text.index("<!-- value: ")) + len("-->")
    end = text.index("<!-- /value -->", start)
    assert readme_check.check([ROOT / pages[0]], ROOT / "reports", write=False) == 0
    page.write_text(text[:start] + "123456.789" + text[end:])
    assert readme_check.check([page], ROOT / "reports", write=False) == 1


def test_every_committed_document_matches_its_artifacts() -> None:
    documents = [ROOT / p for p in generated_documents(ROOT)]
    assert len(documents) > len(doc_pages(ROOT)) >= 1
    assert readme_check.check(documents, ROOT / "reports", write=False) == 0


def test_the_sites_screenshot_is_the_committed_one() -> None:
    shown = ROOT / "docs" / "assets" / "banking_mock_top.png"
    assert shown.read_bytes() == (ROOT / "reports" / "html" / "banking_mock_top.png").read_bytes()
