"""Re-running one of Inspect's built-in string scorers on an answer and a target.

The do-nothing agent (an empty answer), deranged targets and the scorer self-test all
need the log's scorer applied to something the log does not hold. For the scorers in
`rules.RERUNNABLE` that is done here, through Inspect's public API: the scorer is built
from its name and the options the log recorded, and awaited on a `TaskState` whose
output is the answer. Nothing the log names is imported or executed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.hashing import canonical_json
from agent_assay_bundled.inspect_log.rules import RERUNNABLE, mapped_value, shape_of


@lru_cache(maxsize=32)
def _built(name: str, options_json: str) -> Any:
    import json

    import inspect_ai.scorer as scorers

    if name not in RERUNNABLE:
        raise AssayError(f"the Inspect scorer {name!r} is not one agent-assay re-runs")
    return getattr(scorers, name)(**json.loads(options_json))


async def _score(scorer: Any, answer: str, target: str | list[str], sample_id: str) -> Any:
    from inspect_ai.model import ModelName, ModelOutput
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    state = TaskState(model=ModelName("agent-assay/rerun"), sample_id=sample_id, epoch=1, input="",
                      messages=[], output=ModelOutput.from_content("agent-assay/rerun", answer))
    return await scorer(state, Target(target))


Case = tuple[str, str | list[str], str]
"""An answer, a target, and the sample id the answer is for."""


def rerun(spec: Mapping[str, Any], answer: str, target: str | list[str], sample_id: str) -> float:
    """The scorer `spec` names, with its options, on `answer` against `target`, mapped to
    a number as an imported value is (`rules.mapped_value`)."""
    return rerun_all(spec, [(answer, target, sample_id)])[0]


def rerun_all(spec: Mapping[str, Any], cases: Sequence[Case]) -> list[float]:
    """`rerun` on every case, in one event loop (a loop per case costs more than the
    scoring)."""
    scorer = _built(str(spec["scorer"]), canonical_json(dict(spec.get("options") or {})))

    async def every() -> list[Any]:
        return [await _score(scorer, *case) for case in cases]

    values = []
    for score in asyncio.run(every()):
        value = mapped_value(score.value)
        if value is None:
            raise AssayError(f"re-running {spec['scorer']!r} gave {shape_of(score.value)}")
        values.append(value)
    return values
