"""docs/tutorial.md runs: its shell steps, in order, reach an ADMISSIBLE report, each shown
output is the real one, and each piece of code it shows is the example file's own.

The page's conventions are those of tests/support/doc_blocks.py. The lamps adapter is made
visible to the subprocesses the way tests/examples does it in-process: a fake dist-info
registering its entry point and examples/lamps on PYTHONPATH, so nothing is installed into
the virtual environment. That is why the one line the page marks `# reader-only`
(`pip install -e examples/lamps`) is not run.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.support.doc_blocks import (
    SECTION_MARK,
    CopyError,
    PageFailed,
    PageRunner,
    Ran,
    copied_blocks,
    fenced_blocks,
    original,
    output_mismatch,
    tool_env,
    with_expected_output,
)

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "tutorial.md"
NAME = "docs/tutorial.md"
EXAMPLE = ROOT / "examples" / "lamps"
BIN = Path(sys.executable).parent
READER_ONLY = "# reader-only"
STORE_COMMANDS = ("suite", "run", "controls", "report", "trajectories")
"""Subcommands that read or write the store: on the page each names it with --db "$DB"."""


def reader_only(line: str) -> bool:
    return line.rstrip().endswith(READER_ONLY)


def registered(site: Path) -> Path:
    """A fake installed distribution registering `lamps`, as `pip install -e` would."""
    dist = site / "agent_assay_example_lamps-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: agent-assay-example-lamps\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text(
        "[agent_assay.adapters]\nlamps = lamps_adapter:LampSystem\n")
    return site


def runner(home: Path) -> PageRunner:
    """Runs a page in `home`/work with the venv's agent-assay first on PATH."""
    work = home / "work"
    work.mkdir()
    env = tool_env([BIN], [registered(home / "site"), EXAMPLE, ROOT / "src"])  # this checkout's
    return PageRunner(NAME, work, env, sys.executable, skip=reader_only)


@pytest.fixture(scope="module")
def page_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Ran]]:
    """The whole page run once (the controls are the slow part); (work dir, blocks run)."""
    run = runner(tmp_path_factory.mktemp("tutorial"))
    return run.workdir, run.run(PAGE.read_text())


def output_of(ran: list[Ran], command: str) -> str:
    found = [r.output for r in ran if any(line.startswith(command) for line in r.block.body)]
    assert len(found) == 1, f"{len(found)} blocks run {command!r}"
    return found[0]


# ---- the page's own structure -------------------------------------------------------------
def test_the_page_holds_only_blocks_the_test_understands() -> None:
    text = PAGE.read_text()
    blocks = fenced_blocks(text)
    assert {b.lang for b in blocks} <= {"sh", "python", "text", "toml"}
    indented = [n for n, line in enumerate(text.splitlines(), 1) if re.match(r"\s+```", line)]
    assert not indented, f"indented fences (never run) at lines {indented}"
    shown = {t.line for _, t in with_expected_output(text) if t is not None}
    orphans = [b.line for b in blocks if b.lang == "text" and b.line not in shown]
    assert not orphans, f"text blocks that follow no command (never checked): {orphans}"
    skipped = [line for b in blocks if b.lang == "sh" for line in b.body if reader_only(line)]
    assert skipped == [f"pip install -e examples/lamps  {READER_ONLY}"]


def test_every_store_command_on_the_page_uses_the_tutorial_store() -> None:
    commands = [line for b in fenced_blocks(PAGE.read_text()) if b.lang == "sh"
                for line in b.body if "agent-assay " in line]
    assert len(commands) >= 10
    for line in commands:
        sub = line.split("agent-assay ", 1)[1].split()[0]
        if sub in STORE_COMMANDS:
            assert '--db "$DB"' in line, line


def test_the_page_is_plain_markdown_with_its_code_on_it() -> None:
    """No include: the page reads the same on GitHub, in an editor and on the site."""
    text = PAGE.read_text()
    assert "--8<--" not in text
    copies = copied_blocks(text)
    assert {b.copy_of for b in copies} == {
        f"examples/lamps/lamps_adapter.py:{part}"
        for part in ("world", "suite", "agent", "facts", "episodes")
    } | {"examples/lamps/pyproject.toml"}


def test_every_copy_is_the_example_file_as_it_is() -> None:
    """The drift check: edit the example and forget the page, and this names the block."""
    for block in copied_blocks(PAGE.read_text()):
        assert block.copy_of is not None
        want = original(block.copy_of, ROOT, f"{NAME}:{block.line}")
        assert list(block.body) == want, f"{NAME}:{block.line}: differs from {block.copy_of}"


def test_the_copies_cover_the_whole_adapter() -> None:
    """Every line of lamps_adapter.py after its docstring is on the page once: nothing the
    adapter does is left out of the tutorial, and nothing is shown twice."""
    shown = [line.strip() for b in copied_blocks(PAGE.read_text())
             if b.copy_of and b.copy_of.startswith("examples/lamps/lamps_adapter.py")
             for line in b.body]
    source = (EXAMPLE / "lamps_adapter.py").read_text().split("\n")
    code = [line.strip() for line in source if line.strip() and not SECTION_MARK.search(line)
            and not line.startswith(('"""', "#"))]
    assert sorted(line for line in shown if line) == sorted(code)


def test_a_drifted_copy_or_a_missing_section_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CopyError, match="no section 'no_such_part'"):
        original("examples/lamps/lamps_adapter.py:no_such_part", ROOT)
    with pytest.raises(CopyError, match="no file"):
        original("examples/lamps/no_such_file.py", ROOT)
    with pytest.raises(CopyError, match="outside"):
        original("../etc/passwd", ROOT)
    page = "<!-- copy of examples/lamps/pyproject.toml -->\n\nno block here\n"
    with pytest.raises(CopyError, match="1 copy markers but 0 blocks"):
        copied_blocks(page)
    (block,) = copied_blocks("<!-- copy of x -->\n```python\nprint(1)\n```\n")
    assert block.copy_of == "x" and not with_expected_output("<!-- copy of x -->\n```python\n"
                                                             "print(1)\n```\n")


# ---- the output convention ----------------------------------------------------------------
def test_the_output_shorthands() -> None:
    run = "0123456789abcdef0123456789abcdef"
    assert output_mismatch(["run <run>", "..."], f"run {run}\nmore\nlines\n") is None
    assert output_mismatch(["run <run>"], "run 0123\n") is not None  # not a run id
    assert output_mismatch(["a", "...", "z"], "a\nz\n") is None  # `...` may be no lines
    assert output_mismatch(["wrote x (... KiB)"], "wrote x (197 KiB)   \n") is None
    assert output_mismatch(["a", "...", "b", "c"], "a\nb\nx\nb\nc\n") is None
    assert "got 'b'" in str(output_mismatch(["a", "c"], "a\nb\n"))
    assert "goes on" in str(output_mismatch(["a"], "a\nb\n"))


def test_variables_carry_over_and_failures_name_their_page_line(tmp_path: Path) -> None:
    page = "".join(f"{line}\n" for line in [
        "```sh", "X=1", "```",                 # lines 1-3
        "```sh", 'echo "x is $X"', "```",      # lines 4-6
        "```text", "x is 1", "```",            # lines 7-9
        "```sh", "true", "false", "```",       # lines 10-13
        "```python", "print('hi')", "1 / 0", "```",  # lines 14-17
    ])
    run = PageRunner("p.md", tmp_path, tool_env([], []), sys.executable)
    failing = r"^p\.md:12: `false` exited 1 \(in the sh block at line 10\)"
    with pytest.raises(PageFailed, match=failing):
        run.run(page)
    with pytest.raises(PageFailed, match=r"^p\.md:16: the python block at line 14 exited 1"):
        run.run(page.replace("false\n", "echo ok\n"))
    with pytest.raises(PageFailed, match=r"^p\.md:7: the output of the block at line 4"):
        run.run(page.replace("x is 1", "x is 2"))


# ---- running it ---------------------------------------------------------------------------
def test_the_page_runs_to_an_admissible_report(page_run: tuple[Path, list[Ran]]) -> None:
    work, ran = page_run
    runnable = [b for b, _ in with_expected_output(PAGE.read_text())]
    assert [r.block for r in ran] == runnable  # every block ran (failures raise)
    assert output_of(ran, "agent-assay check-adapter").splitlines()[-1] == (
        "check-adapter lamps: ready")
    controls = output_of(ran, 'agent-assay controls run --adapter lamps --run "$RUN"')
    assert controls.splitlines()[-1] == "2 NOT_RUN, 8 PASSED, run admissible"
    report = output_of(ran, 'agent-assay report "$RUN" --db "$DB"').splitlines()
    assert report[3].startswith("ADMISSIBLE -- ")
    hasty = output_of(ran, 'agent-assay report "$HASTY" --exit-zero').splitlines()
    assert hasty[3].startswith("!!! INADMISSIBLE -- ")
    python = [r for r in ran if r.block.lang == "python"]
    assert len(python) == 1 and "ADMISSIBLE 1.0" in python[0].output.splitlines()
    assert (work / "lamps.html").stat().st_size > 10_000
    assert (work / "tutorial.db").is_file()
    assert not (work / "run").exists()  # nothing fell back to the default store


def test_a_command_that_stops_working_fails_at_its_line(tmp_path: Path) -> None:
    text = PAGE.read_text()
    good = "--config careful --repeats 3"
    assert text.count(good) == 1
    line = text[:text.index(good)].count("\n") + 1
    planted = text.replace(good, "--config careless --repeats 3")
    with pytest.raises(PageFailed) as failed:
        runner(tmp_path).run(planted)
    message = str(failed.value)
    assert message.startswith(f"{NAME}:{line}: `RUN=$(agent-assay run --adapter lamps "
                              "--config careless")
    assert "error: unknown config 'careless' for adapter lamps" in message


def test_an_output_that_changes_fails_at_its_text_block(tmp_path: Path) -> None:
    text = PAGE.read_text()
    shown = "\ncheck-adapter lamps: ready\n"
    assert text.count(shown) == 1
    line = text[:text.index(shown)].count("\n") + 2
    planted = text.replace(shown, "\ncheck-adapter lamps: ready to go\n")
    with pytest.raises(PageFailed) as failed:
        runner(tmp_path).run(planted)
    assert str(failed.value).startswith(f"{NAME}:")
    opening = [b.line for b in fenced_blocks(planted) if b.line < line][-1]
    assert str(failed.value).startswith(f"{NAME}:{opening}: the output of the block")
    assert "'check-adapter lamps: ready to go'" in str(failed.value)
