"""A full disk: no file is left half-written, and the error says the disk is full.

Each test mounts a small tmpfs of its own (root, Linux); where that cannot be done the
tests skip, saying why.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.invoke import invoke, on_path
from tests.support.toyrun import toy_run, write_toy_dist

SIZE_KIB = 512


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    where = tmp_path / "small"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE_KIB}k", "tmpfs",
                              str(where)], capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip() or 'not root'}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def fill(disk: Path, leave_kib: int) -> None:
    """Fill `disk` until about `leave_kib` KiB are free."""
    free = shutil.disk_usage(disk).free
    (disk / "filler").write_bytes(b"\0" * max(0, free - leave_kib * 1024))


@pytest.fixture
def toy_store(tmp_path: Path) -> Iterator[tuple[str, str]]:
    from agent_assay.store import open_store
    from tests.support.toy import ToyAdapter

    db = str(tmp_path / "assay.db")
    store = open_store(db)
    run = toy_run(store, ToyAdapter(), "good", repeats=3)
    store.close()
    with on_path(write_toy_dist(tmp_path / "site")):
        yield db, run.run_id


def test_a_page_that_does_not_fit_leaves_nothing(
    small_disk: Path, toy_store: tuple[str, str]
) -> None:
    db, run_id = toy_store
    fill(small_disk, 8)
    page = small_disk / "report.html"
    done = invoke("report", run_id, "--db", db, "--html", str(page))
    assert done.code != 0 and done.traceback is None
    errors = [line for line in done.err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "the disk is full" in errors[0], done.err
    assert str(page) in errors[0]
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]


def test_a_bundle_that_does_not_fit_leaves_nothing(
    small_disk: Path, toy_store: tuple[str, str]
) -> None:
    db, run_id = toy_store
    fill(small_disk, 8)
    done = invoke("export", run_id, str(small_disk / "run.bundle"), "--db", db)
    assert done.code != 0 and done.traceback is None
    assert "the disk is full" in done.err, done.err
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]


def test_a_run_that_fills_the_disk_says_so(small_disk: Path, tmp_path: Path) -> None:
    with on_path(write_toy_dist(tmp_path / "site")):
        db = small_disk / "assay.db"
        fill(small_disk, 96)
        done = invoke("run", "--adapter", "toy", "--config", "good", "--repeats", "200",
                      "--db", str(db))
    assert done.code != 0 and done.traceback is None, done.traceback
    errors = [line for line in done.err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "the disk is full" in errors[0], done.err


def test_a_page_over_a_fifo_or_a_symlink_is_refused(
    tmp_path: Path, toy_store: tuple[str, str]
) -> None:
    import os

    db, run_id = toy_store
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    link = tmp_path / "link.html"
    link.symlink_to(tmp_path / "elsewhere.html")
    for target in (fifo, link):
        done = invoke("report", run_id, "--db", db, "--html", str(target))
        assert done.code != 0 and "is not a regular file" in done.err, done.err
    assert not (tmp_path / "elsewhere.html").exists()
