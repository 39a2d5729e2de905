"""Write docs/cli.md from the click commands themselves, so the reference cannot drift.

Usage: python -m tools.generate.cli_reference [--check] [--out docs/cli.md]

Every group and leaf command of `agent_assay.cli.cli` gets one section, in the order
`agent-assay --help` lists them (depth first, names sorted as click sorts them), holding
its help exactly as click renders it at a fixed width. With --check nothing is written:
the file on disk is compared with what would be written, and the first command whose
section differs is named on one line (exit 1).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import click

from tools.docs_audit.generated_page import check_or_write

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "cli.md"
PROGRAM = "agent-assay"
WIDTH = 100
"""Columns click wraps the help to: fixed, so the output does not depend on the terminal."""

HEADING = "## "
FENCE = "```"

INTRO = f"""\
# Command-line reference

Every `{PROGRAM}` command, with its help exactly as `{PROGRAM} COMMAND --help` prints it.
This page is generated from the click commands by `tools/generate/cli_reference.py` (help
wrapped at a fixed width of `{WIDTH}` columns, so it does not depend on your terminal); do
not edit it by hand. After changing a command, regenerate it with
`python -m tools.generate.cli_reference`; `python -m tools.generate.cli_reference --check`
fails, naming the first command that differs, when this page no longer matches the code,
and `tests/docs/test_cli_reference.py` runs that check.

What the numbers behind these commands mean is in [Statistics](statistics.md); what
`controls run` runs, and how each control goes red, is in [Controls](controls/index.md).
Every command that prints results also takes `--json`; its documents are described in
[JSON output](json.md).
"""


def walk(
    command: click.Command, ctx: click.Context
) -> Iterator[tuple[click.Command, click.Context]]:
    """The command and, depth first, every visible subcommand, with the context click
    would give each (so the usage line carries the full command path)."""
    yield command, ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            yield from walk(sub, click.Context(sub, info_name=name, parent=ctx))


def root_context(cli: click.Command) -> click.Context:
    return click.Context(
        cli, info_name=PROGRAM, terminal_width=WIDTH, max_content_width=WIDTH
    )


def commands(cli: click.Command) -> list[tuple[str, click.Command, str]]:
    """(command path, command, help text) for every command, in page order."""
    return [(ctx.command_path, command, command.get_help(ctx)) for command, ctx in
            walk(cli, root_context(cli))]


def leaf_paths(cli: click.Command) -> list[str]:
    """The command paths that run something (not groups)."""
    return [path for path, command, _ in commands(cli) if not isinstance(command, click.Group)]


def anchor(heading: str) -> str:
    """The id MkDocs gives a heading made of words, spaces and dashes."""
    return heading.lower().replace(" ", "-")


def section(path: str, text: str) -> str:
    return f"{HEADING}{path}\n\n{FENCE}text\n{text.rstrip()}\n{FENCE}\n"


def render(cli: click.Command) -> str:
    """The whole page."""
    listed = commands(cli)
    index = "\n".join(
        f"- [`{path}`](#{anchor(path)})" + (" (group)" if isinstance(c, click.Group) else "")
        for path, c, _ in listed
    )
    body = "\n".join(section(path, text) for path, _, text in listed)
    return f"{INTRO}\n{index}\n\n{body}"


def sections(page: str) -> dict[str, str]:
    """Heading text -> the section's lines up to the next section heading, from a page
    written like `render`'s; the text before the first section is under ''."""
    found: dict[str, list[str]] = {"": []}
    current = ""
    in_fence = False
    for line in page.splitlines():
        if line.startswith(FENCE):
            in_fence = not in_fence
        if not in_fence and line.startswith(HEADING):
            current = line[len(HEADING):].strip()
            found.setdefault(current, [])
            continue
        found[current].append(line)
    return {name: "\n".join(lines).strip("\n") for name, lines in found.items()}


def drift(page: str, expected: str, name: str = "docs/cli.md") -> str | None:
    """One line naming the first command whose section in `page` differs from `expected`
    (in page order), or None when the two are identical."""
    if page == expected:
        return None
    fix = "run python -m tools.generate.cli_reference"
    have, want = sections(page), sections(expected)
    for path, text in want.items():
        if path == "":
            continue
        if path not in have:
            return f"{name} has no section for `{path}`: {fix}"
        if have[path] != text:
            return f"{name} is out of date: the section for `{path}` differs from its --help; {fix}"
    extra = [path for path in have if path and path not in want]
    if extra:
        return f"{name} has a section for `{extra[0]}`, which the CLI does not have: {fix}"
    return f"{name} differs from the generated page outside the command sections: {fix}"


def display(path: Path) -> str:
    """The path as a reader in the repository would type it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare instead of writing; exit 1 naming the first drift")
    parser.add_argument("--out", type=Path, default=OUT, help="the page (default docs/cli.md)")
    args = parser.parse_args(argv)
    from agent_assay.cli import cli

    expected = render(cli)
    return check_or_write(
        args.out, expected, lambda page: drift(page, expected, display(args.out)),
        check=args.check, fix="run python -m tools.generate.cli_reference",
        wrote=f"{len(leaf_paths(cli))} commands",
    )


if __name__ == "__main__":
    sys.exit(main())
