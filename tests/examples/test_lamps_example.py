"""The example adapter in examples/lamps, registered through its entry point as a user's
install would register it, goes from nothing to ADMISSIBLE through the command line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.invoke import Invocation, invoke

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lamps"


@pytest.fixture
def registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example's distribution metadata on sys.path: `lamps` is a registered adapter."""
    dist = tmp_path / "site" / "agent_assay_example_lamps-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: agent-assay-example-lamps\nVersion: 0.1.0\n"
    )
    (dist / "entry_points.txt").write_text(
        "[agent_assay.adapters]\nlamps = lamps_adapter:LampSystem\n"
    )
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "lamps.db"


def ok(result: Invocation) -> Invocation:
    assert result.traceback is None, result.traceback
    assert result.code == 0, result.out + result.err
    return result


def test_the_example_adapter_reaches_admissible_and_compares(registered: Path) -> None:
    db = str(registered)
    listed = ok(invoke("adapters", "list"))
    assert re.search(r"^lamps\t0\.1\.0\tagent-assay-example-lamps 0\.1\.0", listed.out, re.M)
    assert ok(invoke("check-adapter", "lamps")).out.splitlines()[-1] == (
        "check-adapter lamps: ready")
    ok(invoke("suite", "build", "--adapter", "lamps", "--db", db))
    runs = {}
    for config in ("careful", "hasty"):
        made = ok(invoke("run", "--adapter", "lamps", "--config", config, "--repeats", "3",
                         "--db", db))
        runs[config] = made.out.strip()
        certified = ok(invoke("controls", "run", "--adapter", "lamps", "--run", runs[config],
                              "--db", db))
        assert certified.out.splitlines()[-1] == "2 NOT_RUN, 8 PASSED, run admissible"
    shown = ok(invoke("report", runs["careful"], "--db", db))
    assert shown.out.splitlines()[3].startswith("ADMISSIBLE -- ")
    compared = ok(invoke("compare", runs["careful"], runs["hasty"], "--db", db))
    assert "UNSOUND" not in compared.out and "REFUSED" not in compared.out
    assert re.search(r"^trajectory\.exact \*: A 1\.0000  B 0\.3333  B-A -0\.6667 \[", compared.out,
                     re.M)  # a headline metric, with the interval of its paired t
