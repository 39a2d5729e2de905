"""Fenced blocks of a Markdown page, with their line numbers, and a runner for a page whose
commands are tested.

The conventions (docs/tutorial.md states them for its readers):

- A ```sh block is run with bash, blocks in page order, each in a fresh `bash` that starts
  from the variables the blocks before it left (so `RUN=$(...)` in one block is `$RUN` in
  the next). `set -euo pipefail` holds: the first failing command fails the page, and the
  failure names the page line of that command.
- A ```python block is written to a file and run with the given interpreter, unless it is
  a copy of code from a file (below), which is shown, not run.
- A ```text block is the expected output (stdout and stderr, in the order written) of the
  runnable block just before it, when nothing but blank lines separates the two. Lines are
  compared without trailing spaces; a line that is only `...` stands for any number of
  lines (none included); `...` inside a line stands for any text; `<run>` stands for a run
  id (32 hex digits) and `<hash>` for a sha256 (64 hex digits).
- A shell line carrying the skip marker is replaced by `:` (it does nothing, and the line
  numbers stay right).
- A block right after the comment `<!-- copy of PATH -->` or `<!-- copy of PATH:NAME -->`
  is a copy of that file, or of its section NAME (the lines between `--8<-- [start:NAME]`
  and `--8<-- [end:NAME]`, dedented), and must equal it. The code is on the page itself,
  so the page reads as plain Markdown anywhere; the test keeps the copy from drifting.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
COPY = re.compile(r"^<!-- copy of (?P<target>\S+) -->$")
SECTION_MARK = re.compile(r"-+8<-+[ \t]+\[[ \t]*(?P<kind>start|end)[ \t]*:[ \t]*"
                          r"(?P<name>[a-z][-_0-9a-z]*)[ \t]*\]", re.IGNORECASE)
TARGET = re.compile(r"^(?P<path>.+?)(?::(?P<section>[a-z][-_0-9a-z]*))?$", re.IGNORECASE)
PLACEHOLDERS = {"<run>": "[0-9a-f]{32}", "<hash>": "[0-9a-f]{64}", "...": ".*?"}
RUNNABLE = ("sh", "python")


@dataclass(frozen=True)
class Block:
    lang: str
    """The first word of the info string ("" when there is none)."""
    info: str
    line: int
    """The page line (1-based) of the opening fence; body line k is page line `line + k`."""
    end: int
    """The page line of the closing fence."""
    body: tuple[str, ...]
    copy_of: str | None = None
    """The `PATH` or `PATH:NAME` a `<!-- copy of ... -->` comment right above names."""

    @property
    def text(self) -> str:
        return "".join(f"{line}\n" for line in self.body)


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block that opens at the start of a line, in page order."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        fence, info = opening["fence"], opening["info"].strip()
        closing = re.compile(rf"^{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        for j in range(i + 1, len(lines)):
            if closing.match(lines[j]):
                break
        else:
            raise ValueError(f"line {i + 1}: a fence opened here is never closed")
        lang = info.split()[0].strip("{}.") if info else ""
        above = next((line for line in reversed(lines[:i]) if line.strip()), "")
        copied = COPY.match(above.strip())
        blocks.append(Block(lang, info, i + 1, j + 1, tuple(lines[i + 1:j]),
                            copied["target"] if copied else None))
        i = j + 1
    return blocks


def adjacent(lines: Sequence[str], before: Block, after: Block) -> bool:
    """Nothing but blank lines between the two blocks (`lines` is the page, split)."""
    return all(not line.strip() for line in lines[before.end:after.line - 1])


def with_expected_output(text: str) -> list[tuple[Block, Block | None]]:
    """Each runnable block with the ```text block that shows its output, if one does."""
    blocks, lines = fenced_blocks(text), text.splitlines()
    paired: list[tuple[Block, Block | None]] = []
    for i, block in enumerate(blocks):
        if block.lang not in RUNNABLE or block.copy_of is not None:
            continue
        after = blocks[i + 1] if i + 1 < len(blocks) else None
        shown = after is not None and after.lang == "text" and adjacent(lines, block, after)
        paired.append((block, after if shown else None))
    return paired


# ---- copies of files --------------------------------------------------------------------
class CopyError(LookupError):
    pass


def copied_blocks(text: str) -> list[Block]:
    """Every block the page marks as a copy; a marker with no block under it is refused."""
    blocks = [b for b in fenced_blocks(text) if b.copy_of is not None]
    marks = [n for n, line in enumerate(text.splitlines(), 1) if COPY.match(line.strip())]
    if len(marks) != len(blocks):
        raise CopyError(f"{len(marks)} copy markers but {len(blocks)} blocks under one")
    return blocks


def original(target: str, base: Path, where: str = "") -> list[str]:
    """The lines `target` (PATH or PATH:NAME) stands for; CopyError when the file or the
    section is not there, or when the path leaves the base directory."""
    found = TARGET.match(target)
    assert found is not None  # the pattern matches any non-empty target
    path, section = found["path"], found["section"]
    where = where or target
    file = (base / path).resolve()
    if not file.is_relative_to(base.resolve()):
        raise CopyError(f"{where}: {path} is outside {base}")
    if not file.is_file():
        raise CopyError(f"{where}: no file {path} under {base}")
    lines = file.read_text(encoding="utf-8").rstrip("\n").split("\n")
    if section is None:
        return [line for line in lines if not SECTION_MARK.search(line)]
    return textwrap.dedent("\n".join(section_lines(lines, section, f"{where}: {path}"))) \
        .split("\n")


def section_lines(lines: Sequence[str], name: str, where: str) -> list[str]:
    """The lines between a file's start and end markers for `name`, other markers left out."""
    kept: list[str] = []
    inside = found = False
    for line in lines:
        mark = SECTION_MARK.search(line)
        if mark is not None and mark["name"] == name:
            if mark["kind"].lower() == "start":
                inside = found = True
                continue
            if inside:
                return kept
            break
        if inside and mark is None:
            kept.append(line)
    if not found:
        raise CopyError(f"{where} has no section {name!r}")
    raise CopyError(f"{where}: section {name!r} is never ended")


# ---- expected output ----------------------------------------------------------------------
def line_pattern(expected: str) -> re.Pattern[str]:
    parts = re.split(r"(<run>|<hash>|\.\.\.)", expected.rstrip())
    return re.compile("".join(PLACEHOLDERS.get(p, re.escape(p)) for p in parts))


def output_mismatch(expected: Sequence[str], actual: str) -> str | None:
    """None when `actual` matches the expected lines (see the module's conventions), else a
    description of the first expected line that could not be matched."""
    want = [line.rstrip() for line in expected]
    got = [line.rstrip() for line in actual.splitlines()]
    at = {0}  # the output lines the expected lines so far can have brought us to
    for i, line in enumerate(want):
        if line == "...":  # any number of lines, none included
            at = set(range(min(at), len(got) + 1))
            continue
        pattern = line_pattern(line)
        nxt = {j + 1 for j in at if j < len(got) and pattern.fullmatch(got[j])}
        if not nxt:
            j = min(at)
            shown = got[j] if j < len(got) else "<end of output>"
            return f"expected line {i + 1} {line!r}, got {shown!r}"
        at = nxt
    if len(got) in at:
        return None
    return f"output goes on after the last expected line: {got[min(at)]!r}"


# ---- running a page -----------------------------------------------------------------------
class PageFailed(AssertionError):
    """A page's command failed or printed something else than the page shows; the message
    starts with `page:line:`."""


@dataclass(frozen=True)
class Ran:
    block: Block
    output: str


@dataclass(frozen=True)
class PageRunner:
    name: str
    """How failures name the page (for example docs/tutorial.md)."""
    workdir: Path
    env: Mapping[str, str]
    python: str
    skip: Callable[[str], bool] = lambda line: False
    timeout: float = 300

    def run(self, text: str) -> list[Ran]:
        """Every runnable block in page order, each output checked against the block that
        shows it; PageFailed at the first failure."""
        ran = []
        with tempfile.TemporaryDirectory(prefix="page-state-") as state:
            for block, shown in with_expected_output(text):
                output = self.run_block(block, Path(state))
                if shown is not None:
                    wrong = output_mismatch(shown.body, output)
                    if wrong is not None:
                        raise PageFailed(
                            f"{self.name}:{shown.line}: the output of the block at line "
                            f"{block.line} is not what the page shows: {wrong}\n"
                            f"--- output ---\n{output}")
                ran.append(Ran(block, output))
        return ran

    def run_block(self, block: Block, state: Path) -> str:
        if block.lang == "sh":
            return self._sh(block, state)
        return self._python(block, state)

    def _sh(self, block: Block, state: Path) -> str:
        saved, failed = state / "variables.sh", state / "failed-line"
        failed.unlink(missing_ok=True)
        q = shlex.quote
        # one line before the block, so body line k is script line k + 1
        prelude = (f"set -euo pipefail -a; if [ -f {q(str(saved))} ]; then . {q(str(saved))}; "
                   f"fi; trap 'echo $LINENO > {q(str(failed))}' ERR")
        body = [":" if self.skip(line) else line for line in block.body]
        script = state / f"block-{block.line}.sh"
        script.write_text("\n".join([prelude, *body, f"export -p > {q(str(saved))}"]) + "\n")
        done = self._exec(["bash", str(script)])
        if done.returncode != 0:
            where = block.line + 1
            if failed.exists():
                where = block.line + int(failed.read_text().strip()) - 1
            command = block.body[where - block.line - 1] if block.line < where < block.end \
                else "?"
            raise PageFailed(f"{self.name}:{where}: `{command.strip()}` exited "
                             f"{done.returncode} (in the sh block at line {block.line})\n"
                             f"--- output ---\n{done.stdout}")
        return done.stdout

    def _python(self, block: Block, state: Path) -> str:
        script = state / f"block_{block.line}.py"
        script.write_text(block.text)
        done = self._exec([self.python, str(script)])
        if done.returncode != 0:
            lines = re.findall(rf'File "{re.escape(str(script))}", line (\d+)', done.stdout)
            where = block.line + int(lines[-1]) if lines else block.line
            raise PageFailed(f"{self.name}:{where}: the python block at line {block.line} "
                             f"exited {done.returncode}\n--- output ---\n{done.stdout}")
        return done.stdout

    def _exec(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, cwd=self.workdir, env=dict(self.env), text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=self.timeout, check=False)


def tool_env(path_first: Sequence[Path], pythonpath: Sequence[Path]) -> dict[str, str]:
    """This process's environment with `path_first` ahead on PATH, PYTHONPATH set to exactly
    `pythonpath`, Python unbuffered (stdout and stderr interleave as in a terminal), and no
    inherited PYTHONHASHSEED (identical_config sets its own)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([*map(str, path_first), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(map(str, pythonpath))
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("PYTHONHASHSEED", None)
    return env
