"""docs/api.md is generated from the code: the committed page must be what
tools/generate/api_reference.py writes, every public name must have its entry with its real
signature, and the checker must go red on a page where one entry has drifted."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import agent_assay
from tools.generate import api_reference as ref

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "api.md"


def test_the_committed_page_is_the_generated_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert ref.drift(page, ref.render()) is None


def test_every_public_name_has_an_entry_with_its_parameters() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for name in agent_assay.__all__:
        assert f"\n### {name}\n" in page, name
    entry = page.split("\n### evaluate\n", 1)[1].split("\n### ", 1)[0]
    for parameter in inspect.signature(agent_assay.evaluate).parameters:
        assert f"    {parameter}: " in entry, parameter
    item = page.split("\n### Item\n", 1)[1].split("\n### ", 1)[0]
    for field in ("item_id", "input", "gold", "tags"):
        assert f"    {field}: " in item, field
    assert "0x" not in page  # no object address: the page is the same on every machine


def test_a_drifted_or_missing_entry_is_named(tmp_path: Path) -> None:
    expected = ref.render()
    drifted = expected.replace("    limit: int | None = None,\n", "    limit: int = 0,\n", 1)
    assert drifted != expected
    problem = ref.drift(drifted, expected)
    assert problem is not None and "\n" not in problem and "out of date" in problem
    head, gone = expected.split("\n### export\n", 1)
    problem = ref.drift(head + "\n### exported\n" + gone, expected)
    assert problem is not None and "no entry for `export`" in problem
    copy = tmp_path / "api.md"
    copy.write_text(drifted, encoding="utf-8")
    assert ref.main(["--check", "--out", str(copy)]) == 1
    assert ref.main(["--check"]) == 0


def test_a_name_from_an_unknown_module_is_refused() -> None:
    with pytest.raises(LookupError, match=r"no group for module agent_assay\.elsewhere"):
        ref.group_of("agent_assay.elsewhere")
