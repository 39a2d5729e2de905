"""The registry names each control kind without importing it, and refuses a listing
whose class declares another kind (a verdict would otherwise be stored under the wrong
name and the missing control would look run)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent_assay.controls import registry


def test_every_listed_class_declares_the_kind_it_is_listed_under() -> None:
    assert tuple(c.kind for c in registry.all_controls()) == registry.control_kinds()


def test_a_class_listed_under_another_kind_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    where = dict(registry._WHERE)
    where["null_agent"] = ("shuffled_gold", "ShuffledGold")
    monkeypatch.setattr(registry, "_WHERE", where)
    with pytest.raises(RuntimeError, match="declares kind 'shuffled_gold', listed as 'null_agent'"):
        registry.all_controls()


def test_reading_a_verdict_imports_no_control_and_no_scipy_stats() -> None:
    probe = (
        "import sys\n"
        "from agent_assay import api\n"
        "from agent_assay.integrity.admissibility import assess\n"
        "print(sorted(m for m in sys.modules if m.startswith(('agent_assay.controls.',"
        " 'agent_assay.mutation', 'agent_assay.runner', 'scipy.stats'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.strip()
    # bands (which way a band is looser) loads only where a stored departure is read, and
    # next_steps (which imports the adapters) only where a next step is shown
    assert out == "['agent_assay.controls.registry']"
