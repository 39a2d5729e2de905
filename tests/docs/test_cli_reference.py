"""docs/cli.md is generated from the click commands: the committed page must be what
tools/generate/cli_reference.py writes, every leaf command must have its section, and the checker
must go red on a page where one command's help has drifted (its own negative control)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from agent_assay.cli import cli
from tools.generate import cli_reference as ref

ROOT = Path(__file__).resolve().parents[2]
TOOL = ["-m", "tools.generate.cli_reference"]  # run from ROOT
PAGE = ROOT / "docs" / "cli.md"


def leaves(command: click.Command, path: str) -> list[str]:
    """Every leaf command path, found independently of the tool's own walk."""
    if not isinstance(command, click.Group):
        return [path]
    return [
        leaf
        for name, sub in sorted(command.commands.items())
        for leaf in leaves(sub, f"{path} {name}")
    ]


def test_the_committed_page_is_the_generated_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert ref.drift(page, ref.render(cli)) is None
    assert page == ref.render(cli)


def test_every_leaf_command_has_a_section() -> None:
    found = ref.sections(PAGE.read_text(encoding="utf-8"))
    expected = leaves(cli, "agent-assay")
    assert len(expected) > 10  # the walk above found the real command tree
    missing = [path for path in expected if path not in found]
    assert missing == []
    assert ref.leaf_paths(cli) == expected
    for path in expected:
        assert f"Usage: {path} [OPTIONS]" in found[path]


@pytest.mark.parametrize("path", ["agent-assay runs show", "agent-assay plan", "agent-assay"])
def test_a_section_holds_what_help_prints(path: str) -> None:
    """The page's text is what `--help` prints at the page's width, not a look-alike."""
    args = [*path.split()[1:], "--help"]
    printed = CliRunner().invoke(
        cli, args, prog_name="agent-assay", terminal_width=ref.WIDTH,
        max_content_width=ref.WIDTH,
    )
    assert printed.exit_code == 0, printed.output
    section = ref.sections(PAGE.read_text(encoding="utf-8"))[path]
    assert section == f"```text\n{printed.output.rstrip()}\n```"


def test_a_planted_extra_option_is_caught_and_named() -> None:
    expected = ref.render(cli)
    target = "agent-assay runs show"
    head, rest = expected.split(f"## {target}\n", 1)
    body, tail = rest.split("  --help", 1)
    drifted = f"{head}## {target}\n{body}  --verbose  Say more.\n  --help{tail}"
    assert drifted != expected
    problem = ref.drift(drifted, expected)
    assert problem is not None and "\n" not in problem
    assert f"`{target}`" in problem
    assert "out of date" in problem


def test_a_missing_and_an_extra_section_are_named() -> None:
    expected = ref.render(cli)
    gone = ref.section("agent-assay verify", ref.sections(expected)["agent-assay verify"]
                       .removeprefix("```text\n").removesuffix("\n```"))
    assert gone in expected
    problem = ref.drift(expected.replace(gone, ""), expected)
    assert problem is not None and "no section for `agent-assay verify`" in problem
    extra = expected + "\n" + ref.section("agent-assay frobnicate", "Usage: nothing")
    problem = ref.drift(extra, expected)
    assert problem is not None and "`agent-assay frobnicate`" in problem


def test_check_exits_1_on_drift_and_0_on_the_committed_page(tmp_path: Path) -> None:
    page = PAGE.read_text(encoding="utf-8")
    phrase = "Registered adapter name"
    first = next(path for path, text in ref.sections(page).items() if path and phrase in text)
    copy = tmp_path / "cli.md"
    copy.write_text(page.replace(phrase, "Registered adaptor name"), encoding="utf-8")
    drifted = subprocess.run(
        [sys.executable, *TOOL, "--check", "--out", str(copy)],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )
    assert drifted.returncode == 1
    assert drifted.stdout == ""
    (line,) = drifted.stderr.splitlines()
    assert f"the section for `{first}` differs" in line
    clean = subprocess.run(
        [sys.executable, *TOOL, "--check"], capture_output=True, text=True, check=False, cwd=ROOT,
    )
    assert clean.returncode == 0, clean.stderr
