"""`report RUN --html FILE` and `compare A B --html FILE` from the command line: the page is
written, the line printed names its verdict, exit codes match the text forms, and a file
option that cannot be written is refused before any work."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_assay.store import open_store
from tests.support.certify import certify
from tests.support.invoke import Invocation, invoke
from tests.support.tamper import tampered_copy
from tests.support.toy import RichToyAdapter, ToyAdapter
from tests.support.toyrun import toy_run


def html(*args: str) -> Invocation:
    done = invoke(*args)
    assert done.traceback is None, done.traceback
    return done


@pytest.fixture(scope="module")
def two_runs(toy_db: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[Path, str, str, str]:
    """(db, good k=1, wrong_arg k=1, good k=2) on the toy store."""
    base, good = toy_db
    db = tmp_path_factory.mktemp("html_cli") / "assay.db"
    shutil.copyfile(base, db)
    store = open_store(str(db))
    wrong = toy_run(store, ToyAdapter(), "wrong_arg").run_id
    twice = toy_run(store, ToyAdapter(), "good", repeats=2).run_id
    store.close()
    return db, good, wrong, twice


def body_verdict(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    start = text.index('data-verdict="') + len('data-verdict="')
    return text[start:text.index('"', start)]


def test_report_writes_the_page_and_says_its_verdict(
    two_runs: tuple[Path, str, str, str], tmp_path: Path
) -> None:
    db, good, _, _ = two_runs
    page = tmp_path / "good.html"
    done = html("report", good, "--html", str(page), "--db", str(db))
    assert done.code == 3, done.err  # the page is written, and the exit still says the verdict
    assert done.out.startswith(f"wrote {page} (") and done.out.rstrip().endswith(
        f"run {good}: INADMISSIBLE")
    assert body_verdict(page) == "INADMISSIBLE"  # no control ever judged it


def test_a_comparison_page_is_written_when_refused_and_exits_4(
    two_runs: tuple[Path, str, str, str], tmp_path: Path
) -> None:
    db, good, _, twice = two_runs
    page = tmp_path / "refused.html"
    done = html("compare", good, twice, "--html", str(page), "--db", str(db))
    assert done.code == 4 and done.out.rstrip().endswith(": REFUSED")
    assert body_verdict(page) == "REFUSED"
    forced = tmp_path / "forced.html"
    done = html("compare", good, twice, "--force", "--html", str(forced), "--db", str(db))
    assert done.code == 0 and body_verdict(forced) == "UNSOUND"


def test_a_sound_comparison_page_says_compared(tmp_path: Path) -> None:
    db = tmp_path / "certified.db"
    store = open_store(str(db))
    first, second = (certify(store, RichToyAdapter(), "good") for _ in range(2))
    store.close()
    assert first["admissible"] and second["admissible"]
    page = tmp_path / "compared.html"
    done = html("compare", first["run"].run_id, second["run"].run_id, "--html", str(page),
                "--db", str(db))
    assert done.code == 0, done.out + done.err
    assert body_verdict(page) == "COMPARED"


def test_a_tampered_run_gets_a_page_without_numbers_and_exit_2(
    two_runs: tuple[Path, str, str, str], tmp_path: Path
) -> None:
    db, good, _, _ = two_runs
    copy = tampered_copy(db, tmp_path / "tampered.db", set_value="1 - value",
                         where="run_id = ?", params=(good,))
    page = tmp_path / "tampered.html"
    done = html("report", good, "--html", str(page), "--db", str(copy))
    assert done.code == 2 and body_verdict(page) == "TAMPERED"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--json",), "choose one of --json, --csv and --html"),
        (("--csv",), "choose one of --json, --csv and --html"),
    ],
)
def test_html_with_another_format_is_refused(
    two_runs: tuple[Path, str, str, str], tmp_path: Path, extra: tuple[str, ...], message: str
) -> None:
    db, good, _, _ = two_runs
    page = tmp_path / "page.html"
    done = html("report", good, "--html", str(page), *extra, "--db", str(db))
    assert done.code != 0 and message in done.err and not page.exists()


@pytest.mark.parametrize("command", ["report", "compare"])
def test_an_unwritable_page_is_refused_before_any_work(
    two_runs: tuple[Path, str, str, str], tmp_path: Path, command: str
) -> None:
    db, good, wrong, _ = two_runs
    runs = (good,) if command == "report" else (good, wrong)
    missing = tmp_path / "no-such-dir" / "page.html"
    done = html(command, *runs, "--html", str(missing), "--db", str(db))
    assert done.code != 0 and done.out == ""
    assert done.err.startswith("error: --html ") and "does not exist" in done.err
    done = html(command, *runs, "--html", str(tmp_path), "--db", str(db))
    assert done.code != 0 and done.out == ""
