"""Fuzzed options of every command: a result, or one `error:` line and nothing written.
Never a traceback.

The commands are found by walking the click command tree, so a new command or option is
fuzzed without a line here. Each value is drawn by the option's name where the name says
what it means (a run id, an adapter, a config, a metric) and by its type otherwise:
numbers out of range, signs, exponents, huge integers, words, empty strings, non-ASCII;
files that are fine, damaged, missing, a directory, a FIFO, a device, a dangling symlink.
Every case runs in this process, on its own copy of a store holding one toy run, in a
scratch directory (the default --db lands there). A command that fails must leave every
table of that store as it was, and create no store where --db named none. The case
counts are printed at the end of the test run.

Left out, for cost alone: --executor dask (it starts a cluster) and --workers above 2
(it starts that many agent processes; nothing bounds it yet). A value in range but large
(--repeats 5000) is valid and only slow; the values drawn sit at the bounds or past them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_assay.cli import cli
from agent_assay.exitcodes import ExitCode
from agent_assay.store import open_store
from tests.importers.test_tau_bench_parse import results
from tests.support.invoke import Invocation, invoke, on_path
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run, write_toy_dist

CASES = 8
"""Cases per command: with about two dozen commands, under 200 in all."""
WRITERS = {("run",), ("score",), ("controls", "run"), ("mutate",), ("import",),
           ("suite", "build"), ("store", "init"), ("migrate",)}
"""Commands that open the store for writing: SQLite's WAL side files may outlive a failed
one (as they do a process that exits). Any other command reads, and a reader leaves no file
behind (tests/cli/test_reading_never_writes.py)."""
SIDES = {"assay.db-wal", "assay.db-shm"}
VERDICTS = {ExitCode.TAMPERED, ExitCode.INADMISSIBLE, ExitCode.REFUSED, ExitCode.REGRESSED}
"""The exit codes of an answer that is not an error (printed on stdout, not `error:`)."""
DECLARED = {("check-adapter",): {ExitCode.ERROR}}
"""A command's own further answers of that kind (docs/ci.md): an adapter found unfit."""


KNOWN: dict[str, Callable[[tuple[str, ...], list[str], str], bool]] = {}
"""What the fuzz finds that belongs to other work under way: counted and printed, not
failed on (none today)."""
CASE_SECONDS = 60
"""A case still running after this is stuck (a FIFO read, a wait): it fails, it does not hang."""


def commands(group: click.Group = cli, at: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from commands(command, (*at, name))
        else:
            yield (*at, name)


def command_of(path: tuple[str, ...]) -> click.Command:
    found: click.Command = cli
    for name in path:
        assert isinstance(found, click.Group)
        found = found.commands[name]
    return found


NUMBERS = ["1", "2", "3", "0", "-1", "-3", "4", "5", "1001", "10001", str(2**63),
           str(2**70), str(-(2**70)), "1e3", "1e-300", "5e-324", "1e300", "0x10", "3.5", "",
           " 2", "nan", "inf", "-inf", "-0", "∞", "٣", "１"]
WORDS = ["", " ", "x", "nosuch", "on", "-", "--", "é", "\u2028", "a\nb", "\udcff", "x" * 300,
         "../..", "%s", "{}"]
junk = st.text(st.characters(blacklist_characters="\x00"), max_size=6)
"""Text a command line can hold: any character but NUL (argv strings end at one)."""


DEVICES = {"device": "/dev/null", "endless": "/dev/zero"}
PLACES = {"directory": "folder", "fifo": "pipe", "dangling": "dangling",
          "missing": "missing.yaml"}


@dataclass(frozen=True)
class Scene:
    """What a case can point at: the toy run, and files of every kind. Each case works on
    copies in its own directory (`stage`), so no case sees what another one wrote."""

    run_id: str
    home: Path
    copied: tuple[str, ...]
    """Regular files made once in `home` and copied into each case's directory."""

    def files(self) -> dict[str, str]:
        return {**{name: name for name in self.copied}, **PLACES, **DEVICES}

    def stage(self, here: Path) -> None:
        for name in (*self.copied, "assay.db"):
            shutil.copyfile(self.home / name, here / name)
        (here / "folder").mkdir()
        os.mkfifo(here / "pipe")
        (here / "dangling").symlink_to(here / "nowhere")


def by_name(scene: Scene, name: str) -> st.SearchStrategy[str] | None:
    """Values for an option whose name says what it is."""
    run = scene.run_id
    choices: dict[str, list[str]] = {
        "run": [run, run, run[:8], "0" * 32, "bundle.jsonl"],
        "adapter": ["toy", "toy", "banking", "nosuch"],
        "config": ["good", "bad", "nosuch"],
        "metric": ["trajectory.exact", "outcome.match", "nosuch"],
        "item": ["t1", "x"],
        "operator": ["drop_tool_call", "swap_call_order", "x"],
        "cluster": ["tag", "tag:o", "x", "tag:"],
        "tag": ["on", "off", "nosuch"],
        "importer": ["tau-bench", "nosuch"],
        "scheduler": ["tcp://127.0.0.1:1", "udp://x", "tcp://"],
        "workers": ["1", "2", "0", "-1", "x", "", "1.5"],
        "db": ["missing.db", "folder", "/dev/null", "pipe", "mysql://u@h/d", "sqlite://",
               "x?mode=rw", "garbage.bin"],
    }
    kinds = {"run_id": "run", "target": "run", "run_a": "run", "run_b": "run",
             "resume": "run", "run_ids": "run", "name": "adapter", "config_name": "config",
             "items_metric": "metric", "item_id": "item", "tags": "tag", "workers": "workers",
             "scheduler": "scheduler", "adapter": "adapter", "metric": "metric",
             "item": "item", "operator": "operator", "cluster": "cluster", "db": "db",
             "importer": "importer", "config": "config", "run": "run"}
    kind = kinds.get(name)
    if kind is None:
        return None
    known = st.sampled_from(choices[kind])
    if kind in ("workers", "scheduler"):  # for cost: see the module docstring
        return known
    return st.one_of(known, known, st.sampled_from(WORDS), junk)


def by_type(scene: Scene, param: click.Parameter) -> st.SearchStrategy[str]:
    kind = param.type
    if isinstance(kind, click.Choice):
        allowed = [c for c in map(str, kind.choices) if c != "dask"]  # dask: for cost
        return st.one_of(st.sampled_from(allowed), st.sampled_from(WORDS))
    if isinstance(kind, click.types.IntParamType | click.types.FloatParamType):
        return st.one_of(st.sampled_from(NUMBERS), junk)
    if isinstance(kind, click.Path):
        named = st.sampled_from(sorted(scene.files().values()))
        return st.one_of(named, named, st.sampled_from(["new.out", "", "sub/new.out"]))
    return st.one_of(st.sampled_from(WORDS), junk)


def values_for(scene: Scene, param: click.Parameter) -> st.SearchStrategy[str]:
    named = by_name(scene, param.name or "")
    return by_type(scene, param) if named is None else named


def arguments(scene: Scene, command: click.Command) -> st.SearchStrategy[list[str]]:
    """A command line for `command`: each argument drawn, each option left out or drawn."""

    @st.composite
    def draw(pick: st.DrawFn) -> list[str]:
        words: list[str] = []
        options: list[str] = []
        for param in command.params:
            name = param.name or ""
            if isinstance(param, click.Argument):
                if param.required or pick(st.booleans()):
                    values = values_for(scene, param)
                    words.append(pick(values))
                continue
            assert isinstance(param, click.Option)
            flag = param.opts[0]
            if name == "db":  # mostly the case's store; sometimes no store, or not one
                hostile = by_name(scene, "db")
                assert hostile is not None
                options += [flag, pick(hostile) if not pick(st.integers(0, 3)) else "assay.db"]
                continue
            if not param.required and pick(st.integers(0, 2)):  # a third given: some run
                continue
            if param.is_flag:
                options.append(flag)
                continue
            values = values_for(scene, param)
            for _ in range(pick(st.integers(1, 2)) if param.multiple else 1):
                options += [flag, pick(values)]
        return [*words, *options]

    return draw()


def table_rows(db: Path) -> dict[str, int] | None:
    """Each table's row count (None when there is no SQLite store at `db`)."""
    if not db.is_file():
        return None
    try:
        with sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True) as conn:
            names = [r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")]
            return {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    except sqlite3.DatabaseError:
        return None


def outcome(path: tuple[str, ...], done: Invocation) -> str:
    """How a case ended; "bad: ..." for what no command may do."""
    if done.traceback is not None:
        return "bad: traceback\n" + done.traceback
    lines = done.err.rstrip("\n").split("\n")  # a terminal breaks lines at \n alone
    errors = [line for line in lines if line.startswith("error: ")]
    if done.code == 0:
        return "ran" if not errors else "bad: exit 0 after an error line"
    if errors:
        last = lines[-1]
        return "one-line error" if len(errors) == 1 and last == errors[0] else (
            f"bad: error lines {errors!r}")
    if done.code in VERDICTS | DECLARED.get(path, set()) and done.out.strip():
        return "verdict"  # TAMPERED, a finding, INADMISSIBLE, a refused comparison
    return f"bad: exit {done.code} without an error line"


class Stuck(Exception):
    pass


def _stuck(signum: int, frame: FrameType | None) -> None:
    raise Stuck(f"a case ran past {CASE_SECONDS} s")


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scene]:
    home = tmp_path_factory.mktemp("option_fuzz")
    store = open_store(str(home / "assay.db"))
    run = toy_run(store, ToyAdapter(), "good")
    store.close()
    (home / "bands.yaml").write_text("null_agent:\n  min_margin: 0.2\n  derivation: fuzz\n")
    (home / "mutants.yaml").write_text("operators:\n  - operator: drop_tool_call\n")
    (home / "results.json").write_text(json.dumps(results()))
    (home / "garbage.bin").write_bytes(bytes(range(256)) * 4)
    (home / "empty.yaml").touch()
    with on_path(write_toy_dist(home / "site")):
        made = invoke("export", run.run_id, str(home / "bundle.jsonl"), "--witness",
                      str(home / "witness.jsonl"), "--db", str(home / "assay.db"))
        assert made.code == 0, made.err
        yield Scene(run.run_id, home, ("bands.yaml", "mutants.yaml", "results.json",
                                       "garbage.bin", "empty.yaml", "bundle.jsonl",
                                       "witness.jsonl"))


@pytest.mark.usefixtures("same_cases_in_any_run")
@pytest.mark.parametrize("path", list(commands()), ids=" ".join)
def test_every_option_gives_a_result_or_one_error_line_and_writes_nothing(
    path: tuple[str, ...], scene: Scene, monkeypatch: pytest.MonkeyPatch,
    record_property: Callable[[str, object], None],
) -> None:
    command = command_of(path)
    seen: Counter[str] = Counter()
    bad: list[str] = []
    previous = signal.signal(signal.SIGALRM, _stuck)

    @settings(max_examples=CASES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(args=arguments(scene, command))
    def case(args: list[str]) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            here = Path(scratch)
            monkeypatch.chdir(here)
            scene.stage(here)
            before = {p.name for p in here.iterdir()}
            rows = table_rows(here / "assay.db")
            signal.alarm(CASE_SECONDS)
            try:
                done = invoke(*path, *args)
            finally:
                signal.alarm(0)
            ended = outcome(path, done)
            if ended == "one-line error":
                if table_rows(here / "assay.db") != rows:
                    ended = "bad: the store changed although the command failed"
                elif made := sorted({p.name for p in here.iterdir()} - before
                                    - (SIDES if path in WRITERS else set())):
                    ended = f"bad: a failed command left {made}"
            known = next((k for k, found in KNOWN.items() if found(path, args, ended)), None)
            if known is not None:
                seen["known"] += 1
                return
            seen[ended.split("\n")[0] if ended.startswith("bad") else ended] += 1
            if ended.startswith("bad"):
                bad.append(f"{' '.join(path)} {args!r}: {ended}"[:3000])

    try:
        with on_path(scene.home / "site"):
            case()
    finally:
        signal.signal(signal.SIGALRM, previous)
    total = sum(seen.values())
    record_property("summary", (
        f"option fuzz, {' '.join(path)}: {total} cases, {seen['one-line error']} one-line "
        f"errors, {seen['verdict']} verdicts, {seen['ran']} ran, "
        f"{sum(n for k, n in seen.items() if k.startswith('bad'))} bad"
        + (f", {seen['known']} known (KNOWN)" if seen["known"] else "")))
    assert not bad, "\n\n".join(bad[:3])
    assert total == CASES or (total >= 1 and not command.params)  # no option: one case
