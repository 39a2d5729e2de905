"""readme-check, number-audit and evidence each fail on the drift they exist to catch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent_assay.errors import AssayError
from tools.docs_audit import evidence, number_audit, readme_check
from tools.docs_audit.regions import render

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A temporary copy of the documents and the artifacts they are generated from."""
    for name in ("README.md", "LIMITATIONS.md", "EVIDENCE.md", "NUMBERS.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "reports", tmp_path / "reports")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    return tmp_path


def test_committed_documents_match_their_artifacts(repo: Path) -> None:
    docs = [repo / n for n in ("README.md", "LIMITATIONS.md", "EVIDENCE.md")]
    assert readme_check.check(docs, repo / "reports", write=False) == 0


def test_a_hand_edited_number_fails_readme_check_with_a_diff(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = repo / "docs" / "performance.md"
    text = readme.read_text()
    marker = "<!-- value: bench/core.json#peak_rss_mb -->"
    start = text.index(marker) + len(marker)
    end = text.index("<!-- /value -->", start)
    readme.write_text(text[:start] + "99.9" + text[end:])
    assert readme_check.check([readme], repo / "reports", write=False) == 1
    diff = capsys.readouterr().out
    assert "-" in diff and "+" in diff and "99.9" in diff


def test_a_changed_artifact_fails_readme_check(repo: Path) -> None:
    bench = repo / "reports" / "bench" / "core.json"
    data = json.loads(bench.read_text())
    data["peak_rss_mb"] += 1
    bench.write_text(json.dumps(data))
    page = repo / "docs" / "performance.md"
    assert readme_check.check([page], repo / "reports", write=False) == 1


def test_an_unlisted_number_fails_number_audit_naming_its_line(repo: Path) -> None:
    limitations = repo / "LIMITATIONS.md"
    lines = limitations.read_text().splitlines()
    lines.insert(3, "The agent was right 73.5% of the time.")
    limitations.write_text("\n".join(lines) + "\n")
    findings = number_audit.audit([limitations], repo / "NUMBERS.md")
    assert [(f.file, f.line, f.number) for f in findings] == [("LIMITATIONS.md", 4, "73.5%")]


def test_numbers_in_regions_code_and_ordinals_are_not_findings(tmp_path: Path) -> None:
    doc = tmp_path / "DOC.md"
    doc.write_text(
        "1. Python 3.12 and v1.0.0 on 2026-09-02, SHA-256, pass^3, k=1\n"
        "`--repeats 3`\n```sh\nmake demo 42\n```\n"
        "<!-- value: x.json#a -->17<!-- /value -->\n"
        "the rounds gave <!-- value: x.json#ratios[2] -->3.1<!-- /value --> in all\n"
    )
    (tmp_path / "NUMBERS.md").write_text("")
    assert number_audit.audit([doc], tmp_path / "NUMBERS.md") == []
    doc.write_text(doc.read_text() + "and 7 by hand\n")
    assert [(f.line, f.number) for f in number_audit.audit([doc], tmp_path / "NUMBERS.md")] == [
        (8, "7")]


def test_a_claim_whose_artifact_changed_fails_evidence(repo: Path) -> None:
    claims = ROOT / "tools" / "docs_audit" / "evidence_claims.py"
    assert evidence.run(claims, repo / "reports") == 0
    detail = repo / "reports" / "banking" / "reproduction_detail.json"
    data = json.loads(detail.read_text())
    data["per_script_mismatches"].append({"script": "x", "field": "lcs_ratio"})
    detail.write_text(json.dumps(data))
    assert evidence.run(claims, repo / "reports") == 1


def test_missing_and_malformed_artifacts_are_named(tmp_path: Path) -> None:
    with pytest.raises(AssayError, match=r"artifact not found: .*absent\.txt"):
        render("<!-- artifact: absent -->\n```text\n```\n<!-- /artifact -->", tmp_path)
    (tmp_path / "bad.json").write_text('{"a": 1,\n oops}')
    with pytest.raises(AssayError, match=r"bad.json:2: malformed JSON"):
        render("<!-- value: bad.json#a -->1<!-- /value -->", tmp_path)


def test_a_listed_number_is_allowed_only_beside_its_context(tmp_path: Path) -> None:
    doc = tmp_path / "README.md"
    doc.write_text("The bank has 11 tools.\nWe saw 11 failures.\n")
    numbers = tmp_path / "NUMBERS.md"
    numbers.write_text("| number | file | context | command | why |\n|---|---|---|---|---|\n"
                       "| 11 | README.md | 11 tools | count the tools | design fact |\n")
    findings = number_audit.audit([doc], numbers)
    assert [(f.line, f.number) for f in findings] == [(2, "11")]
