"""Negative controls: agents that must never earn reward.

Promise: ``random`` fires schema-shaped junk at random tools and ``search_only`` only reads;
neither copies the request into a create call, so neither can ever execute a valid action.
Must not import agent_assay.
"""

from __future__ import annotations

import random
from typing import Any

from govsim.agents.driver import CallsTools, Driver
from govsim.families import FAMILIES
from govsim.ids import seeded_rng
from govsim.task import PublicTask
from govsim.toolspecs import TOOL_SPECS


def _junk(rng: random.Random, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if kind == "integer":
        return rng.randint(-10, 10_000_000)
    if kind == "array":
        return [
            _junk(rng, schema.get("items", {"type": "string"})) for _ in range(rng.randint(0, 3))
        ]
    return rng.choice(("", "board", "ent_000000000000", "prs_x", f"x{rng.randint(0, 999)}"))


def random_agent(public: PublicTask, env: CallsTools, *, seed: int, repetition: int) -> None:
    rng = seeded_rng("random", public.task_id, seed, repetition)
    specs = {s.name: s for s in TOOL_SPECS if s.name in public.tools}
    driver = Driver(env, public)
    while not driver.over:
        spec = specs[rng.choice(sorted(specs))]
        props: dict[str, Any] = spec.parameters["properties"]
        driver.call(spec.name, **{k: _junk(rng, v) for k, v in props.items() if rng.random() < 0.9})


def search_only(public: PublicTask, env: CallsTools, *, seed: int, repetition: int) -> None:
    driver = Driver(env, public)
    query = " ".join(FAMILIES[public.family].keywords)
    found = driver.call("search_records", query=query, entity_id="", record_type="")
    for hit in [] if found is None else found["results"]:
        driver.call("read_record", record_id=hit["record_id"])
    for register in ("directors", "officers", "bodies"):
        driver.rows(register)
