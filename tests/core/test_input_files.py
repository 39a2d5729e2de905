"""Every file a command reads or writes for its user is a regular file, or one line.

A FIFO as --bands blocked forever, /dev/zero as --bands read until the process was killed,
and a mutant set, a golden script, a suite file, an items file, a tau-bench file, a bundle
or a witness was read through whatever the path named. Each input below is given a FIFO, an endless
device, a directory and a file past the size this agent-assay reads; each output a FIFO,
a device, a directory and a symlink. Each is refused in one line naming the file, with
nothing written to the store and no output made.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_assay.infiles import DATA_LIMIT, TEXT_LIMIT
from agent_assay.store import open_store
from tests.support.invoke import invoke, on_path
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run, write_toy_dist

INPUTS: dict[str, tuple[int, Callable[[Path, str, Path], list[str]]]] = {
    "controls run --bands": (TEXT_LIMIT, lambda t, run, db: [
        "controls", "run", "--adapter", "toy", "--run", run, "--bands", str(t)]),
    "mutate --operators": (TEXT_LIMIT, lambda t, run, db: [
        "mutate", "--adapter", "toy", "--run", run, "--operators", str(t)]),
    "suite build --source (a golden script)": (TEXT_LIMIT, lambda t, run, db: [
        "suite", "build", "--adapter", "banking", "--source", str(t.parent.parent)]),
    "suite build --source (a suite file)": (TEXT_LIMIT, lambda t, run, db: [
        "suite", "build", "--adapter", "governance", "--source", str(t)]),
    "run --items-file": (TEXT_LIMIT, lambda t, run, db: [
        "run", "--adapter", "toy", "--config", "good", "--items-file", str(t)]),
    "import tau-bench FILE": (DATA_LIMIT, lambda t, run, db: ["import", "tau-bench", str(t)]),
    "verify --witness": (DATA_LIMIT, lambda t, run, db: ["verify", run, "--witness", str(t)]),
    "report BUNDLE": (DATA_LIMIT, lambda t, run, db: ["report", str(t)]),
}


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    home = tmp_path_factory.mktemp("inputs")
    store = open_store(str(home / "assay.db"))
    run = toy_run(store, ToyAdapter(), "good")
    store.close()
    with on_path(write_toy_dist(home / "site")):
        yield home / "assay.db", run.run_id


def rows(db: Path) -> int:
    store = open_store(str(db))
    try:
        return sum(store.count_rows(t) for t in ("runs", "suites", "ledger", "control_outcomes",
                                                  "mutation_results"))
    finally:
        store.close()


def planted(kind: str, where: Path, limit: int) -> Path:
    """A path named like the file, that is `kind`: the golden script lies in its tag's
    folder (banking reads a folder of them)."""
    target = where / "tag" / "tag-1.yaml"
    target.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "endless device":
        target.symlink_to("/dev/zero")
    elif kind == "directory":
        target.mkdir()
    else:  # sparse: the size costs no disk
        with target.open("wb") as out:
            out.truncate(limit + 1)
    return target


@pytest.mark.parametrize("kind", ["fifo", "endless device", "directory", "too large"])
@pytest.mark.parametrize("option", list(INPUTS))
def test_an_input_that_is_not_a_regular_file_of_bounded_size_is_one_line(
    stored: tuple[Path, str], tmp_path: Path, option: str, kind: str
) -> None:
    limit, command = INPUTS[option]
    db = Path(shutil.copyfile(stored[0], tmp_path / "assay.db"))
    before = rows(db)
    target = planted(kind, tmp_path, limit)
    done = invoke(*command(target, stored[1], db), "--db", str(db))
    assert done.traceback is None, done.traceback
    lines = done.err.strip().splitlines()
    assert done.code != 0 and len(lines) == 1 and lines[0].startswith("error: "), done.err
    if option == "report BUNDLE" and kind != "too large":
        pass  # not a regular file, so not a bundle: never opened, read as a run id
    else:
        assert str(target) in lines[0] and {
            "fifo": "not a regular file (a FIFO", "endless device": "not a regular file (a "
            "device", "directory": "is a directory", "too large": f"larger than the "
            f"{limit >> 20} MiB"}[kind] in lines[0], lines[0]
    assert rows(db) == before


OUTPUTS: dict[str, Callable[[Path, str], list[str]]] = {
    "export FILE": lambda t, run: ["export", run, str(t)],
    "export --witness": lambda t, run: ["export", run, str(t.with_name("b.jsonl")),
                                        "--witness", str(t)],
    "controls run --witness": lambda t, run: ["controls", "run", "--adapter", "toy", "--run",
                                              run, "--witness", str(t)],
    "report --html": lambda t, run: ["report", run, "--html", str(t)],
    "compare --html": lambda t, run: ["compare", run, run, "--force", "--html", str(t)],
    "run --run-id-file": lambda t, run: ["run", "--adapter", "toy", "--config", "good",
                                         "--run-id-file", str(t)],
}


@pytest.mark.parametrize("kind", ["fifo", "device", "directory", "symlink"])
@pytest.mark.parametrize("option", list(OUTPUTS))
def test_an_output_that_is_not_a_regular_file_is_refused_before_any_work(
    stored: tuple[Path, str], tmp_path: Path, option: str, kind: str
) -> None:
    db = Path(shutil.copyfile(stored[0], tmp_path / "assay.db"))
    before = rows(db)
    target = tmp_path / "out"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        target = Path("/dev/null")
    elif kind == "directory":
        target.mkdir()
    else:
        target.symlink_to(tmp_path / "elsewhere")
    done = invoke(*OUTPUTS[option](target, stored[1]), "--db", str(db))
    assert done.traceback is None, done.traceback
    lines = done.err.strip().splitlines()
    assert done.code != 0 and len(lines) == 1 and str(target) in lines[0], done.err
    assert "not a regular file" in lines[0] or "is a directory" in lines[0], lines[0]
    assert rows(db) == before
    assert not (tmp_path / "elsewhere").exists() and not (tmp_path / "b.jsonl").exists()
