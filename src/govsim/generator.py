"""Procedural generation of tasks from the hand-authored templates.

Promise: ``generate_worlds`` is a pure function of (seed, split, n, difficulty); ids are
salted with all four so train and eval never share an identifier, and difficulty sets the
turn budget and the number of distractor records. Must not import agent_assay.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from govsim.builder import Builder
from govsim.distractors import add_distractors
from govsim.ids import IdMint, digest, seeded_rng
from govsim.names import NameBook
from govsim.prompt import request_prompt
from govsim.task import ActionRequest, Task
from govsim.templates import TEMPLATES

SPLITS = ("train", "eval")
PREFLIGHT_BUDGET = 1


@dataclass(frozen=True)
class Difficulty:
    max_turns: int
    distractors: int


DIFFICULTIES: dict[str, Difficulty] = {
    "easy": Difficulty(max_turns=12, distractors=0),
    "medium": Difficulty(max_turns=16, distractors=2),
    "hard": Difficulty(max_turns=20, distractors=4),
}
_FIRST_DAY = date(2030, 1, 1)
_SPAN_DAYS = 5 * 365


def generate_worlds(seed: int, split: str, n: int, difficulty: str) -> list[Task]:
    """``n`` tasks cycling through every template from a seed- and split-dependent offset."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {tuple(DIFFICULTIES)}, not {difficulty!r}")
    if n < 0:
        raise ValueError("n must be non-negative")
    offset = int(digest("offset", seed, split), 16) % len(TEMPLATES)
    return [
        generate_one(
            seed, split, i, difficulty, TEMPLATES[(i + offset) % len(TEMPLATES)].template_id
        )
        for i in range(n)
    ]


def generate_one(seed: int, split: str, index: int, difficulty: str, template_id: str) -> Task:
    """One task from a named template; ``generate_worlds`` picks the template by cycling."""
    level = DIFFICULTIES[difficulty]
    template = next(t for t in TEMPLATES if t.template_id == template_id)
    salt = digest("govsim", seed, split, index, difficulty, template.template_id)
    rng = seeded_rng(salt)
    names = NameBook.fresh(rng)
    jurisdiction = names.jurisdiction()
    day = _FIRST_DAY + timedelta(days=rng.randrange(_SPAN_DAYS))
    b = Builder(IdMint(salt), rng, names, jurisdiction, template.family, day)
    draft = template.build(b)
    add_distractors(b, draft.entity, level.distractors)
    world = b.world()
    request = ActionRequest(
        family=template.family,
        entity_id=draft.entity.entity_id,
        day=day,
        payload=dict(draft.payload),
        prompt=request_prompt(world, template.family, draft.payload),
    )
    return Task(
        task_id=f"task_{salt[:12]}",
        split=split,
        difficulty=difficulty,
        template_id=template.template_id,
        family=template.family,
        world=world,
        graph=draft.graph,
        request=request,
        max_turns=level.max_turns,
        preflight_budget=PREFLIGHT_BUDGET,
        secret=digest("secret", salt),
    )
