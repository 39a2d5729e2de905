"""Systems written the way a benchmark author who wants a verdict might choose for it.

Each is a module-level class with a constructor that takes no arguments (a fresh process
rebuilds it as a real plugin would be). The bands files they name are in ./bands.
"""

from __future__ import annotations

import os
import random
from dataclasses import replace
from pathlib import Path

from agent_assay.adapters.system import System
from agent_assay.controls.execute import run_controls
from agent_assay.integrity.admissibility import Admissibility, assess
from agent_assay.model import PublicItem, Run, Suite
from agent_assay.store import Store
from tests.support.cheats import CheatBase
from tests.support.dists import write_dist as write_fake_dist
from tests.support.toy import RichToyAdapter

BANDS = Path(__file__).with_name("bands")


class LooseBands(CheatBase):
    """Its own bands file loosens every band, and its `cheat` config, claimed
    deterministic, adds a look on a coin nobody seeded."""

    name = "loosebands"
    facts = replace(CheatBase.facts, bands=BANDS / "loose.yaml")

    def coin(self, item: PublicItem) -> bool:
        return item.item_id.startswith("look") and random.random() < 0.5


class StrictBands(RichToyAdapter):
    """Its own bands file only tightens: an honest choice, shown but waiving nothing."""

    name = "strictbands"
    facts = replace(RichToyAdapter.facts, bands=BANDS / "strict.yaml")


class Excuses(RichToyAdapter):
    """Declares every control not applicable, hoping the certifier allows them all."""

    name = "excuses"
    facts = replace(RichToyAdapter.facts, bands=BANDS / "excuses.yaml")


COUNTER = "AGENT_ASSAY_TEST_COUNTER"
"""The environment variable naming CounterSuite's counter file."""


class CounterSuite(RichToyAdapter):
    """build_suite counts its calls in a file and drops an item each time: a suite that
    depends on how often it was built, not on what is on disk."""

    name = "countersuite"

    def build_suite(self, source: Path | None = None) -> Suite:
        counter = Path(os.environ[COUNTER])
        calls = int(counter.read_text()) if counter.exists() else 0
        counter.write_text(str(calls + 1))
        suite = super().build_suite(source)
        return replace(suite, items=suite.items[: len(suite.items) - 1 - calls % 3])


class SomeExcuses(RichToyAdapter):
    """Declares the controls that need its environment not applicable; the rest run."""

    name = "someexcuses"
    facts = replace(RichToyAdapter.facts, bands=BANDS / "some_excuses.yaml")


ENTRIES = {
    "loosebands": "LooseBands",
    "strictbands": "StrictBands",
    "excuses": "Excuses",
    "someexcuses": "SomeExcuses",
    "countersuite": "CounterSuite",
}


def write_dist(directory: Path) -> Path:
    """A fake installed distribution registering these systems for the command line."""
    return write_fake_dist(directory, "choosy",
                           {name: f"tests.support.choosy:{cls}" for name, cls in ENTRIES.items()})


def certified(
    store: Store, system: System, config: str, *, repeats: int = 1, seed: int = 0,
    allowed: frozenset[str] = frozenset(), bands_file: Path | None = None,
) -> tuple[Run, Admissibility]:
    """A run of `config` over the whole suite, every control on it, and its verdict."""
    from agent_assay import api  # here: an agent process rebuilding a system skips it

    run = api.evaluate(system, config, store=store, repeats=repeats, seed=seed).run
    run_controls(store, system, run, allowed=allowed, bands_file=bands_file)
    return run, assess(store, run)
