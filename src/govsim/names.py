"""Fictional names drawn without replacement for one world.

Promise: names come only from the shipped ``names.yaml`` lists and never repeat inside a
world, so prose can refer to people and companies unambiguously. Must not import agent_assay.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from govsim.world import Jurisdiction


@cache
def _lists() -> dict[str, Any]:
    text = resources.files("govsim").joinpath("names.yaml").read_text("utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


@dataclass
class NameBook:
    """Per-world name source; ``used`` guarantees uniqueness."""

    rng: random.Random
    used: set[str]

    @classmethod
    def fresh(cls, rng: random.Random) -> NameBook:
        return cls(rng, set())

    def jurisdiction(self) -> Jurisdiction:
        row = self.rng.choice(_lists()["jurisdictions"])
        return Jurisdiction(str(row["name"]), str(row["currency"]), str(row["registry"]))

    def _unique(self, *pools: str) -> str:
        for _ in range(200):
            name = " ".join(str(self.rng.choice(_lists()[pool])) for pool in pools)
            if name not in self.used:
                self.used.add(name)
                return name
        raise RuntimeError(f"name pools exhausted: {pools}")

    def person(self) -> str:
        return self._unique("first_names", "surnames")

    def company(self) -> str:
        return self._unique("company_stems", "company_suffixes")

    def subsidiary(self, parent: str) -> str:
        stem = parent.split()[0]
        for _ in range(50):
            name = f"{stem} {self.rng.choice(_lists()['subsidiary_suffixes'])}"
            if name not in self.used:
                self.used.add(name)
                return name
        raise RuntimeError("subsidiary names exhausted")

    def counterparty(self) -> str:
        return self._unique("counterparty_stems", "counterparty_suffixes")

    def investor(self) -> str:
        return self._unique("counterparty_stems", "investor_suffixes")

    def lender(self) -> str:
        return self._unique("counterparty_stems", "lender_suffixes")

    def token(self) -> str:
        return str(self.rng.choice(_lists()["token_symbols"]))

    def interest(self) -> str:
        return str(self.rng.choice(_lists()["interests"]))
